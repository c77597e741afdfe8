package io.kurir.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kurir.config.SettingsLoader.Profile;
import io.kurir.driver.DriverSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sandbox driver's settings section, {@code drivers.sandbox.*}, read from every layer (flags,
 * {@code KURIR_*} variables, {@code kurir.yml} nested or dotted) under its names now and under the
 * names it had before drivers had sections; a key the section does not have is refused by name.
 */
class DriverSettingsLoaderTest {
  private static final String TOKEN = "0123456789abcdef-admin";

  @TempDir Path workDir;

  private Settings serve(Map<String, String> env, String... args) {
    return SettingsLoader.load(Profile.SERVE, List.of(args), env, workDir);
  }

  private Settings serve(String... args) {
    return serve(Map.of(), args);
  }

  private AbstractThrowableAssert<?, ? extends Throwable> refused(
      Map<String, String> env, String... args) {
    return assertThatThrownBy(() -> serve(env, args)).isInstanceOf(SettingsException.class);
  }

  private void writeYaml(String yaml) throws IOException {
    Files.writeString(workDir.resolve("kurir.yml"), yaml);
  }

  private static DriverSettings sandbox(Settings s) {
    return s.driver("sandbox");
  }

  /** Every sandbox setting at a value none of the defaults has. */
  private static void assertAllChanged(Settings s) {
    DriverSettings sandbox = sandbox(s);
    assertThat(sandbox.bool("api")).isTrue();
    assertThat(sandbox.duration("delivery-after")).isEqualTo(Duration.ofSeconds(3));
    assertThat(sandbox.duration("read-after")).isEqualTo(Duration.ofSeconds(7));
    assertThat(sandbox.duration("pacing.min-gap")).isEqualTo(Duration.ofMillis(250));
    assertThat(sandbox.duration("pacing.jitter")).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void theSectionsNamesAsFlags() {
    Settings s =
        serve(
            "--admin.token=" + TOKEN,
            "--drivers.sandbox.api=true",
            "--drivers.sandbox.delivery-after=3s",
            "--drivers.sandbox.read-after",
            "7s",
            "--drivers.sandbox.deduplicate=false",
            "--drivers.sandbox.pacing.min-gap=250ms",
            "--drivers.sandbox.pacing.jitter=100ms");
    assertAllChanged(s);
    assertThat(sandbox(s).bool("deduplicate")).isFalse();
  }

  @Test
  void theOldNamesAsFlags() {
    assertAllChanged(
        serve(
            "--admin.token=" + TOKEN,
            "--sandbox.api=true",
            "--sandbox.delivery-after=3s",
            "--sandbox.read-after=7s",
            "--pacing.min-gap=250ms",
            "--pacing.jitter=100ms"));
  }

  @Test
  void theSectionsNamesInTheEnvironment() {
    Settings s =
        serve(
            Map.of(
                "KURIR_ADMIN_TOKEN", TOKEN,
                "KURIR_DRIVERS_SANDBOX_API", "yes",
                "KURIR_DRIVERS_SANDBOX_DELIVERY_AFTER", "3s",
                "KURIR_DRIVERS_SANDBOX_READ_AFTER", "7s",
                "KURIR_DRIVERS_SANDBOX_DEDUPLICATE", "off",
                "KURIR_DRIVERS_SANDBOX_PACING_MIN_GAP", "250ms",
                "KURIR_DRIVERS_SANDBOX_PACING_JITTER", "100ms"));
    assertAllChanged(s);
    assertThat(sandbox(s).bool("deduplicate")).isFalse();
    assertThat(SettingsLoader.envName("drivers.sandbox.pacing.min-gap"))
        .isEqualTo("KURIR_DRIVERS_SANDBOX_PACING_MIN_GAP");
  }

  @Test
  void theOldNamesInTheEnvironment() {
    assertAllChanged(
        serve(
            Map.of(
                "KURIR_ADMIN_TOKEN", TOKEN,
                "KURIR_SANDBOX_API", "true",
                "KURIR_SANDBOX_DELIVERY_AFTER", "3s",
                "KURIR_SANDBOX_READ_AFTER", "7s",
                "KURIR_PACING_MIN_GAP", "250ms",
                "KURIR_PACING_JITTER", "100ms")));
  }

  @Test
  void theSectionNestedInKurirYml() throws IOException {
    writeYaml(
        """
        admin:
          token: 0123456789abcdef-admin
        drivers:
          sandbox:
            api: true
            delivery-after: 3s
            read-after: 7s
            deduplicate: false
            pacing:
              min-gap: 250ms
              jitter: 100ms
        """);
    Settings s = serve();
    assertAllChanged(s);
    assertThat(sandbox(s).bool("deduplicate")).isFalse();
  }

  @Test
  void dottedAndOldNamesInKurirYml() throws IOException {
    writeYaml(
        """
        admin.token: 0123456789abcdef-admin
        drivers.sandbox.api: true
        drivers.sandbox:
          delivery-after: 3s
        sandbox:
          read-after: 7s
        pacing:
          min-gap: 250ms
          jitter: 100ms
        """);
    assertAllChanged(serve());
  }

  @Test
  void eachLayerWinsOverTheOnesBelowWhateverNameEachUses() throws IOException {
    writeYaml(
        """
        drivers:
          sandbox:
            read-after: 1s
            delivery-after: 1s
            pacing:
              min-gap: 1s
        """);
    Settings s =
        serve(
            Map.of("KURIR_SANDBOX_READ_AFTER", "2s", "KURIR_PACING_MIN_GAP", "2s"),
            "--drivers.sandbox.pacing.min-gap=3s");
    assertThat(sandbox(s).duration("delivery-after")).as("file").isEqualTo(Duration.ofSeconds(1));
    assertThat(sandbox(s).duration("read-after"))
        .as("env, old name")
        .isEqualTo(Duration.ofSeconds(2));
    assertThat(sandbox(s).duration("pacing.min-gap")).as("flag").isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void inTheEnvironmentTheNewNameWinsOverTheOldWhateverTheOrder() {
    // The environment has no order: the name a migrating operator adds must win over the one left.
    Map<String, String> oldFirst = new LinkedHashMap<>();
    oldFirst.put("KURIR_PACING_MIN_GAP", "9s");
    oldFirst.put("KURIR_DRIVERS_SANDBOX_PACING_MIN_GAP", "250ms");
    Map<String, String> newFirst = new LinkedHashMap<>();
    newFirst.put("KURIR_DRIVERS_SANDBOX_PACING_MIN_GAP", "250ms");
    newFirst.put("KURIR_PACING_MIN_GAP", "9s");
    for (Map<String, String> env : List.of(oldFirst, newFirst)) {
      assertThat(sandbox(serve(env)).duration("pacing.min-gap"))
          .as(env.keySet().toString())
          .isEqualTo(Duration.ofMillis(250));
    }
  }

  @Test
  void aDriversPacingPolicyIsReadAndEachBadValueIsRefusedByItsFullName() {
    Settings s =
        serve(
            "--admin.token=" + TOKEN,
            "--drivers.sandbox.pacing.in-flight=4",
            "--drivers.sandbox.pacing.recipient-gap=6s",
            "--drivers.sandbox.pacing.daily-cap=1000",
            "--drivers.sandbox.pacing.rate=20");
    assertThat(io.kurir.driver.Pacing.of(sandbox(s).values(), io.kurir.driver.Pacing.OFF))
        .isEqualTo(
            new io.kurir.driver.Pacing(
                Duration.ofMillis(50), Duration.ZERO, 4, Duration.ofSeconds(6), 1000));
    refused(Map.of(), "--admin.token=" + TOKEN, "--drivers.sandbox.pacing.in-flight=100")
        .hasMessageContaining("drivers.sandbox.pacing.in-flight");
    refused(Map.of(), "--admin.token=" + TOKEN, "--drivers.sandbox.pacing.daily-cap=lots")
        .hasMessageContaining("drivers.sandbox.pacing.daily-cap");
  }

  @Test
  void aKeyTheSectionDoesNotHaveIsRefusedByName() throws IOException {
    refused(Map.of(), "--drivers.sandbox.nope=1")
        .hasMessageContaining("drivers.sandbox.nope")
        .hasMessageContaining("drivers.sandbox.delivery-after");
    refused(Map.of("KURIR_DRIVERS_SANDBOX_NOPE", "1"))
        .hasMessageContaining("KURIR_DRIVERS_SANDBOX_NOPE")
        .hasMessageContaining("KURIR_DRIVERS_SANDBOX_DELIVERY_AFTER");
    refused(Map.of(), "--drivers.carrier-pigeon.token=x")
        .hasMessageContaining("drivers.carrier-pigeon.token");
    refused(Map.of(), "--sandbox.deduplicate=false")
        .as("deduplicate came with the section: it has no old name")
        .hasMessageContaining("sandbox.deduplicate");

    writeYaml(
        """
        drivers:
          sandbox:
            nope: 1
        """);
    refused(Map.of())
        .hasMessageContaining("drivers.sandbox.nope")
        .hasMessageContaining("kurir.yml");
  }

  @Test
  void aBadValueIsNamedByTheSectionsName() throws IOException {
    refused(Map.of(), "--drivers.sandbox.read-after=soon")
        .hasMessageStartingWith("drivers.sandbox.read-after:")
        .hasMessageContaining("soon");
    refused(Map.of("KURIR_DRIVERS_SANDBOX_DEDUPLICATE", "maybe"))
        .hasMessageStartingWith("drivers.sandbox.deduplicate:");
    refused(Map.of(), "--drivers.sandbox.api=true")
        .as("the control API outside demo mode needs the admin token")
        .hasMessageContaining("drivers.sandbox.api")
        .hasMessageContaining("admin.token");

    writeYaml(
        """
        drivers:
          sandbox:
            pacing:
              jitter: a little
        """);
    refused(Map.of())
        .hasMessageContaining("drivers.sandbox.pacing.jitter")
        .hasMessageContaining("a little");
  }
}
