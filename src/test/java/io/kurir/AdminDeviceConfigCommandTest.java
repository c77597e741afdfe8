package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.config.SettingsLoader;
import io.kurir.config.SettingsLoader.Profile;
import io.kurir.driver.DeviceConfig;
import io.kurir.driver.Pacing;
import io.kurir.tenant.Tenants;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./kurir admin device create --driver … --set k=v} and {@code device set <id> --set k=v}:
 * the driver configuration from the command line, checked as the Admin API checks it, and what the
 * gateway then uses.
 */
class AdminDeviceConfigCommandTest {
  @TempDir Path dir;
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();
  String license;

  private int admin(String... args) {
    out.reset();
    err.reset();
    return AdminCommand.run(
        List.of(args),
        Map.of(),
        dir,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private JsonNode output() throws Exception {
    return new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
  }

  private String errors() {
    return err.toString(StandardCharsets.UTF_8);
  }

  /** {@code device create --license <license> --number <number>} and {@code more}. */
  private int createDevice(String number, String... more) {
    List<String> args = new java.util.ArrayList<>(List.of("device", "create"));
    args.addAll(List.of("--license", license, "--number", number));
    args.addAll(List.of(more));
    return admin(args.toArray(String[]::new));
  }

  /**
   * A device's configuration as a gateway started on the same data folder reads it (its Cloud API
   * on loopback: nothing is sent).
   */
  private Map<String, String> configTheGatewayReads(String id) {
    try (Gateway gateway =
        Gateway.start(
            SettingsLoader.load(
                Profile.SERVE,
                List.of(
                    "--port=0", "--host=127.0.0.1", "--drivers.cloud.graph-url=http://127.0.0.1:9"),
                Map.of(),
                dir),
            Clock.systemUTC())) {
      return gateway.tenants().deviceConfig(Long.parseLong(id));
    }
  }

  @BeforeEach
  void licenseToCreateDevicesIn() throws Exception {
    assertThat(admin("partner", "list", "--create"))
        .as("the database, as a gateway creates it")
        .isZero();
    assertThat(admin("partner", "create", "--name", "P")).isZero();
    String partner = output().get("id").asText();
    assertThat(admin("license", "create", "--partner", partner, "--name", "L")).isZero();
    license = output().get("id").asText();
  }

  @Test
  void createWithSetStoresTheConfigurationAndSetChangesAndRemovesKeys() throws Exception {
    assertThat(
            createDevice(
                "0811 0000 7701",
                "--driver",
                "sandbox",
                "--set",
                "pacing.min-gap=2s",
                "--set=pacing.jitter=250ms"))
        .as(errors())
        .isZero();
    JsonNode device = output();
    String id = device.get("id").asText();
    assertThat(device.get("driver").asText()).isEqualTo("sandbox");
    assertThat(device.get("config").get("pacing.min-gap").asText()).isEqualTo("2s");
    assertThat(device.get("config").get("pacing.jitter").asText()).isEqualTo("250ms");

    assertThat(admin("device", "set", id, "--set", "pacing.min-gap=5s")).as(errors()).isZero();
    assertThat(output().get("config").get("pacing.min-gap").asText()).isEqualTo("5s");
    assertThat(output().get("config").get("pacing.jitter").asText()).isEqualTo("250ms");

    assertThat(admin("device", "set", id, "--set", "pacing.jitter=")).as(errors()).isZero();
    assertThat(output().get("config").toString()).isEqualTo("{\"pacing.min-gap\":\"5s\"}");

    assertThat(admin("device", "list")).isZero();
    assertThat(output().get(0).get("config").toString()).isEqualTo("{\"pacing.min-gap\":\"5s\"}");

    // The gateway reads what the command stored: the device's own pacing.
    Map<String, String> stored = configTheGatewayReads(id);
    assertThat(stored).isEqualTo(Map.of("pacing.min-gap", "5s"));
    assertThat(new DeviceConfig(stored).pacing(Pacing.OFF))
        .isEqualTo(new Pacing(Duration.ofSeconds(5), Duration.ZERO));
  }

  @Test
  void secretKeysAreStoredButNeverPrintedBack() throws Exception {
    String token = "EAAG-secret-token-7f3a91";
    String appSecret = "app-secret-c0ffee42";
    assertThat(
            createDevice(
                "0811 0000 7703",
                "--driver",
                "cloud",
                "--set",
                "phone-number-id=106540352242922",
                "--set",
                "access-token=" + token,
                "--set=app-secret=" + appSecret))
        .as(errors())
        .isZero();
    String created = out.toString(StandardCharsets.UTF_8);
    assertThat(created).doesNotContain(token).doesNotContain(appSecret);
    JsonNode device = output();
    String id = device.get("id").asText();
    assertThat(device.get("config").get("phone-number-id").asText())
        .as("a key that is not secret is shown")
        .isEqualTo("106540352242922");
    assertThat(device.get("config").get("access-token").asText())
        .as("shown as set")
        .isEqualTo(Tenants.SECRET_SHOWN);

    String rotated = "EAAG-rotated-token-55e2b0";
    assertThat(admin("device", "set", id, "--set", "access-token=" + rotated))
        .as(errors())
        .isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .doesNotContain(rotated)
        .doesNotContain(token)
        .doesNotContain(appSecret);

    assertThat(admin("device", "list")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("106540352242922")
        .doesNotContain(rotated)
        .doesNotContain(token)
        .doesNotContain(appSecret);
    assertThat(errors()).doesNotContain(rotated).doesNotContain(appSecret);

    // Stored all the same: the driver gets them.
    assertThat(configTheGatewayReads(id))
        .containsEntry("access-token", rotated)
        .containsEntry("app-secret", appSecret);
  }

  @Test
  void mistakesExitWithOneAndAMessageNamingTheKey() throws Exception {
    assertThat(createDevice("0811 0000 7702", "--set", "acess-token=x")).isEqualTo(1);
    assertThat(errors()).contains("'acess-token'").contains("known: pacing.min-gap, pacing.jitter");
    assertThat(admin("device", "list")).isZero();
    assertThat(output()).as("nothing created").isEmpty();

    assertThat(createDevice("0811 0000 7702", "--driver", "carrier-pigeon")).isEqualTo(1);
    assertThat(errors()).contains("carrier-pigeon");

    assertThat(createDevice("0811 0000 7702", "--set", "pacing.min-gap=soon")).isEqualTo(1);
    assertThat(errors()).contains("pacing.min-gap").contains("soon");

    assertThat(createDevice("0811 0000 7702")).isZero();
    String id = output().get("id").asText();
    assertThat(admin("device", "set", id, "--set", "pacing.gap=1s")).isEqualTo(1);
    assertThat(errors()).contains("'pacing.gap'").contains("known:");
    assertThat(admin("device", "set", id, "--set", "pacing.jitter=a while")).isEqualTo(1);
    assertThat(errors()).contains("pacing.jitter");
    assertThat(admin("device", "set", id)).isEqualTo(1);
    assertThat(errors()).contains("--set key=value");
    assertThat(admin("device", "set", "424242", "--set", "pacing.min-gap=1s")).isEqualTo(1);
    assertThat(errors()).contains("no device 424242");
    assertThat(admin("device", "set", id, "--set", "=1s")).isEqualTo(2);
    assertThat(errors()).contains("--set needs key=value");
    assertThat(admin("device", "set", id, "--set", "pacing.min-gap")).isEqualTo(2);

    assertThat(admin("device", "list")).isZero();
    assertThat(output().get(0).get("config").toString()).as("unchanged").isEqualTo("{}");
  }
}
