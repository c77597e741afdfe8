package io.kurir.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kurir.config.SettingsLoader.Profile;
import io.kurir.limit.RateLimit;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code limits.*} and {@code server.tls.*}: their defaults, and the values start-up refuses. */
class LimitsAndTlsSettingsTest {
  @TempDir Path dir;

  private Settings load(String... flags) {
    return SettingsLoader.load(Profile.SERVE, List.of(flags), Map.of(), dir);
  }

  private void refused(String message, String... flags) {
    assertThatThrownBy(() -> load(flags))
        .isInstanceOf(SettingsException.class)
        .hasMessageContaining(message);
  }

  @Test
  void defaultsAreGenerousExemptThisMachineAndServePlainHttp() {
    Settings s = load();
    assertThat(s.limits().perKey()).isEqualTo(new RateLimit(100, Duration.ofSeconds(1), 2000));
    assertThat(s.limits().perAddress()).isEqualTo(new RateLimit(200, Duration.ofSeconds(1), 4000));
    assertThat(s.limits().exempt()).containsExactly("127.0.0.0/8", "::1");
    assertThat(s.tls().isOn()).isFalse();
    assertThat(s.tls().redirectPort()).isZero();
  }

  @Test
  void limitsAreReadFromTheEnvironmentAndZeroTurnsThemOff() {
    Settings s =
        SettingsLoader.load(
            Profile.SERVE,
            List.of("--limits.per-address=0"),
            Map.of("KURIR_LIMITS_PER_KEY", "600/min", "KURIR_LIMITS_EXEMPT", ""),
            dir);
    assertThat(s.limits().perKey()).isEqualTo(new RateLimit(600, Duration.ofMinutes(1), 2000));
    assertThat(s.limits().perAddress().isOn()).isFalse();
    assertThat(s.limits().exempt()).isEmpty();
  }

  @Test
  void badLimitsAreRefusedNamingTheSetting() {
    refused("limits.per-key: 'lots' is not a rate such as 100/s", "--limits.per-key=lots");
    refused("limits.per-address-burst: 0 is outside 1..", "--limits.per-address-burst=0");
    refused(
        "limits.exempt: 'localhost' is not an IP address or CIDR range",
        "--limits.exempt=localhost");
  }

  @Test
  void tlsFilesAreResolvedFromTheStartFolderAndMustComeAsAPair() {
    Settings s = load("--server.tls.cert=tls/cert.pem", "--server.tls.key=tls/key.pem");
    assertThat(s.tls().isOn()).isTrue();
    assertThat(s.tls().cert()).isEqualTo(Optional.of(dir.resolve("tls/cert.pem")));

    refused(
        "server.tls.key: set server.tls.cert and server.tls.key together",
        "--server.tls.cert=cert.pem");
    refused(
        "server.tls.keystore: set either server.tls.cert and server.tls.key, or"
            + " server.tls.keystore",
        "--server.tls.cert=c.pem",
        "--server.tls.key=k.pem",
        "--server.tls.keystore=k.p12");
    refused(
        "server.tls.redirect-port: redirects to https://, so it needs server.tls.cert",
        "--server.tls.redirect-port=8080");
    refused(
        "server.tls.redirect-port: must differ from server.port (8443)",
        "--server.port=8443",
        "--server.tls.keystore=k.p12",
        "--server.tls.redirect-port=8443");
  }
}
