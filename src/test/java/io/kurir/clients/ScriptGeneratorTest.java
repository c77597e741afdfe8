package io.kurir.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScriptGeneratorTest {
  @Test
  void fillsTheSettingsBlockAndLeavesTheRest() {
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("base_url", "https://wa.sekolah.sch.id");
    settings.put("key", "abc123");
    settings.put("kolom_no_wa", 4);
    settings.put("template", "Yth. [kolom2]'s parent,\nsee you at 7");
    String script = ScriptGenerator.generate("eco-async", settings);
    assertThat(script)
        .contains("  base_url: 'https://wa.sekolah.sch.id',")
        .contains("  key: 'abc123',")
        .contains("  kolom_no_wa: 4,")
        .contains("  template: 'Yth. [kolom2]\\'s parent,\\nsee you at 7'\n};")
        .contains("function kirimPesan(e)")
        .startsWith("/**");
  }

  @Test
  void refusesUnknownScriptsAndSettings() {
    assertThatThrownBy(() -> ScriptGenerator.generate("nope", Map.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ScriptGenerator.generate("eco-async", Map.of("push_key", "x")))
        .hasMessageContaining("push_key");
  }

  @Test
  void everyScriptCanBeGeneratedWithItsOwnSettings() {
    assertThat(ScriptGenerator.generate("push-v1", Map.of("push_key", "k", "app_id", "a")))
        .contains("  push_key: 'k',");
    assertThat(ScriptGenerator.generate("multi-type", Map.of("type", "crm")))
        .contains("  type: 'crm',");
  }
}
