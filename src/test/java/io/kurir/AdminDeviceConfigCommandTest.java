package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.config.SettingsLoader;
import io.kurir.config.SettingsLoader.Profile;
import io.kurir.driver.DeviceConfig;
import io.kurir.driver.Pacing;
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
            admin(
                "device",
                "create",
                "--license",
                license,
                "--number",
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
    try (Gateway gateway =
        Gateway.start(
            SettingsLoader.load(
                Profile.SERVE, List.of("--port=0", "--host=127.0.0.1"), Map.of(), dir),
            Clock.systemUTC())) {
      assertThat(gateway.tenants().deviceConfig(Long.parseLong(id)))
          .isEqualTo(Map.of("pacing.min-gap", "5s"));
      assertThat(
              new DeviceConfig(gateway.tenants().deviceConfig(Long.parseLong(id)))
                  .pacing(Pacing.OFF))
          .isEqualTo(new Pacing(Duration.ofSeconds(5), Duration.ZERO));
    }
  }

  @Test
  void mistakesExitWithOneAndAMessageNamingTheKey() throws Exception {
    assertThat(
            admin(
                "device",
                "create",
                "--license",
                license,
                "--number",
                "0811 0000 7702",
                "--set",
                "acess-token=x"))
        .isEqualTo(1);
    assertThat(errors()).contains("'acess-token'").contains("known: pacing.min-gap, pacing.jitter");
    assertThat(admin("device", "list")).isZero();
    assertThat(output()).as("nothing created").isEmpty();

    assertThat(
            admin(
                "device",
                "create",
                "--license",
                license,
                "--number",
                "0811 0000 7702",
                "--driver",
                "carrier-pigeon"))
        .isEqualTo(1);
    assertThat(errors()).contains("carrier-pigeon");

    assertThat(
            admin(
                "device",
                "create",
                "--license",
                license,
                "--number",
                "0811 0000 7702",
                "--set",
                "pacing.min-gap=soon"))
        .isEqualTo(1);
    assertThat(errors()).contains("pacing.min-gap").contains("soon");

    assertThat(admin("device", "create", "--license", license, "--number", "0811 0000 7702"))
        .isZero();
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
