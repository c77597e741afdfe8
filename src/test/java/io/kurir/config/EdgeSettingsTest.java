package io.kurir.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kurir.config.SettingsLoader.Profile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code http.request-deadline} and {@code http.max-connections-per-address}: their defaults, each
 * source in its order (flag, environment, file), and the values start-up refuses.
 */
class EdgeSettingsTest {
  @TempDir Path dir;

  private Settings load(Map<String, String> env, String... flags) {
    return SettingsLoader.load(Profile.SERVE, List.of(flags), env, dir);
  }

  private void refused(String message, String... flags) {
    assertThatThrownBy(() -> load(Map.of(), flags))
        .isInstanceOf(SettingsException.class)
        .hasMessageContaining(message);
  }

  @Test
  void defaultsAreThirtySecondsAndAHundredConnections() {
    Settings s = load(Map.of());
    assertThat(s.edge()).isEqualTo(Settings.Edge.DEFAULT);
    assertThat(s.edge().requestDeadline()).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.edge().maxConnectionsPerAddress()).isEqualTo(100);
    assertThat(SettingsLoader.load(Profile.DEMO, List.of(), Map.of(), dir).edge())
        .isEqualTo(Settings.Edge.DEFAULT);
  }

  @Test
  void flagsWinOverTheEnvironmentWhichWinsOverTheFile() throws Exception {
    Files.writeString(
        dir.resolve("kurir.yml"),
        "http:\n  request-deadline: 2m\n  max-connections-per-address: 7\n");
    assertThat(load(Map.of()).edge()).isEqualTo(new Settings.Edge(Duration.ofMinutes(2), 7));
    Map<String, String> env =
        Map.of("KURIR_HTTP_REQUEST_DEADLINE", "45s", "KURIR_HTTP_MAX_CONNECTIONS_PER_ADDRESS", "0");
    assertThat(load(env).edge()).isEqualTo(new Settings.Edge(Duration.ofSeconds(45), 0));
    assertThat(load(env, "--http.request-deadline=500ms").edge().requestDeadline())
        .isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void badValuesAreRefusedNamingTheSetting() {
    refused("http.request-deadline: must be between 100ms and 1h", "--http.request-deadline=50ms");
    refused("http.request-deadline: must be between 100ms and 1h", "--http.request-deadline=2h");
    refused("http.request-deadline: 'soon' is not a duration", "--http.request-deadline=soon");
    refused(
        "http.max-connections-per-address: -1 is outside 0..",
        "--http.max-connections-per-address=-1");
    refused(
        "http.max-connections-per-address: 'many' is not a whole number",
        "--http.max-connections-per-address=many");
  }
}
