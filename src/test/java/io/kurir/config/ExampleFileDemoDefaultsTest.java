package io.kurir.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code kurir.example.yml} marks every default that {@code ./kurir demo} changes. */
class ExampleFileDemoDefaultsTest {
  @Test
  void everyDemoDefaultIsMarkedInTheExampleFile() throws Exception {
    List<String> lines = Files.readAllLines(Path.of("kurir.example.yml"));
    List<String> unmarked = new ArrayList<>();
    for (Map.Entry<String, String> e : SettingsLoader.demoDefaultsThatDiffer().entrySet()) {
      String leaf = e.getKey().substring(e.getKey().lastIndexOf('.') + 1);
      boolean marked = false;
      for (int i = 0; i < lines.size(); i++) {
        if (lines.get(i).strip().startsWith(leaf + ":")) {
          StringBuilder comment = new StringBuilder();
          for (int j = i - 1; j >= 0 && lines.get(j).strip().startsWith("#"); j--) {
            comment.insert(0, lines.get(j));
          }
          marked |= comment.toString().contains("demo:");
        }
      }
      if (!marked) {
        unmarked.add(e.getKey() + " (demo: " + e.getValue() + ")");
      }
    }
    assertThat(SettingsLoader.demoDefaultsThatDiffer()).isNotEmpty();
    assertThat(unmarked).as("settings whose demo default is not marked 'demo: …'").isEmpty();
  }
}
