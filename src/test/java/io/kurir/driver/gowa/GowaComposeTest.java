package io.kurir.driver.gowa;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.config.Settings;
import io.kurir.config.SettingsLoader;
import io.kurir.config.SettingsLoader.Profile;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * The {@code gowa} service of {@code compose.yaml}, checked without a container engine: GOWA posts
 * to Kurir's GOWA webhook on the stack's network, signed with the secret Kurir checks; Kurir signs
 * in with GOWA's login; both read the same {@code .env}; GOWA is opt-in, healthy-checked and not
 * published; Kurir's GOWA variables are settings it accepts.
 */
class GowaComposeTest {
  private static final Map<String, String> DOT_ENV =
      Map.of(
          "POSTGRES_PASSWORD", "a-long-database-password",
          "KURIR_ADMIN_TOKEN", "a-long-admin-token-of-32-characters",
          "WAHA_API_KEY", "a-long-engine-key",
          "GOWA_PASSWORD", "a-long-gowa-password",
          "GOWA_WEBHOOK_SECRET", "a-long-gowa-webhook-secret");
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{(\\w+)(?::([?-])([^}]*))?}");

  @TempDir Path dir;

  @SuppressWarnings("unchecked")
  private static Map<String, Object> service(String name) throws Exception {
    Map<String, Object> compose = new Yaml().load(Files.readString(Path.of("compose.yaml")));
    return (Map<String, Object>) ((Map<String, Object>) compose.get("services")).get(name);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, String> environment(Map<String, Object> service) {
    Map<String, String> env = new LinkedHashMap<>();
    ((Map<String, Object>) service.get("environment"))
        .forEach((k, v) -> env.put(k, interpolate(String.valueOf(v))));
    return env;
  }

  private static String interpolate(String value) {
    Matcher m = VARIABLE.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String v = DOT_ENV.getOrDefault(m.group(1), "-".equals(m.group(2)) ? m.group(3) : null);
      assertThat(v).as("${" + m.group(1) + "} is in the .env list").isNotNull();
      m.appendReplacement(out, Matcher.quoteReplacement(v));
    }
    m.appendTail(out);
    return out.toString();
  }

  @Test
  @SuppressWarnings("unchecked")
  void gowaCallsKurirsWebhookWithTheSecretKurirChecksAndKurirSignsInToGowa() throws Exception {
    Map<String, Object> gowa = service("gowa");
    Map<String, String> gowaEnv = environment(gowa);
    Map<String, String> kurirEnv = environment(service("kurir"));

    URI webhook = URI.create(gowaEnv.get("WHATSAPP_WEBHOOK"));
    assertThat(webhook.getHost()).isEqualTo("kurir");
    assertThat(webhook.getPath()).isEqualTo(GowaWebhookRoutes.PATH);
    assertThat(gowaEnv.get("WHATSAPP_WEBHOOK_SECRET"))
        .isEqualTo(kurirEnv.get("KURIR_DRIVERS_GOWA_WEBHOOK_SECRET"))
        .isNotEqualTo("secret");
    assertThat(gowaEnv.get("APP_BASIC_AUTH"))
        .isEqualTo(kurirEnv.get("KURIR_DRIVERS_GOWA_BASIC_AUTH"));
    URI url = URI.create(kurirEnv.get("KURIR_DRIVERS_GOWA_URL"));
    assertThat(url.getHost()).isEqualTo("gowa");
    assertThat(url.getPort()).isEqualTo(Integer.parseInt(gowaEnv.get("APP_PORT")));
    assertThat(gowaEnv.get("WHATSAPP_WEBHOOK_EVENTS").split(","))
        .containsExactlyInAnyOrder("message", "message.ack");

    assertThat((List<String>) gowa.get("profiles")).containsExactly("gowa");
    assertThat(gowa).doesNotContainKey("ports");
    assertThat((Map<String, Object>) gowa.get("healthcheck")).containsKey("test");

    Map<String, String> env = new LinkedHashMap<>();
    kurirEnv.forEach((k, v) -> env.put(k, v));
    Settings settings = SettingsLoader.load(Profile.SERVE, List.of(), env, dir);
    assertThat(settings).isNotNull(); // an unknown name or a bad value would have thrown
  }
}
