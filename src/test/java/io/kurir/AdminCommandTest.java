package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./kurir admin}: the same operations as the Admin API, on the database directly. */
class AdminCommandTest {
  @TempDir Path dir;
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

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

  /** The gateway's first start creates the database; {@code ./kurir admin} works on it then. */
  @BeforeEach
  void aGatewayStartedHereOnce() {
    io.kurir.store.Database.open(
            io.kurir.config.SettingsLoader.load(
                    io.kurir.config.SettingsLoader.Profile.SERVE, List.of(), Map.of(), dir)
                .database())
        .close();
  }

  private JsonNode output() throws Exception {
    return new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
  }

  @Test
  void createsListsAndRevokesApiKeys() throws Exception {
    assertThat(admin("partner", "create", "--name", "Reseller")).isZero();
    String partner = output().get("id").asText();
    assertThat(admin("license", "create", "--partner", partner, "--name", "Shop")).isZero();
    String license = output().get("id").asText();
    assertThat(
            admin(
                "key",
                "create",
                "--license",
                license,
                "--name",
                "backend",
                "--scopes",
                "send,read"))
        .isZero();
    JsonNode made = output();
    assertThat(made.get("key").asText()).startsWith("kurir_");
    assertThat(made.get("scopes").toString()).isEqualTo("[\"send\",\"read\"]");
    assertThat(admin("key", "list", "--license", license)).isZero();
    JsonNode listed = output();
    assertThat(listed).hasSize(1);
    assertThat(listed.get(0).has("key")).as("the key is shown once").isFalse();
    assertThat(listed.get(0).get("name").asText()).isEqualTo("backend");
    assertThat(admin("key", "create", "--license", license, "--name", "x", "--scopes", "fly"))
        .isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("fly");
    assertThat(admin("key", "revoke", "--license", license, made.get("id").asText())).isZero();
    assertThat(admin("key", "list", "--license", license)).isZero();
    assertThat(output()).isEmpty();
    assertThat(admin("key", "revoke", "--license", license, made.get("id").asText())).isEqualTo(1);
  }

  @Test
  void createsListsAndRemovesWebhookSubscriptions() throws Exception {
    assertThat(admin("partner", "create", "--name", "Reseller")).isZero();
    String partner = output().get("id").asText();
    assertThat(admin("license", "create", "--partner", partner, "--name", "Shop")).isZero();
    String license = output().get("id").asText();
    assertThat(
            admin(
                "subscription",
                "create",
                "--license",
                license,
                "--url",
                "https://example.com/whatsapp",
                "--events",
                "message.received,message.status",
                "--format",
                "meta"))
        .as(err.toString(StandardCharsets.UTF_8))
        .isZero();
    JsonNode meta = output();
    assertThat(meta.get("format").asText()).isEqualTo("meta");
    assertThat(meta.get("secret").asText()).matches("[0-9a-f]{32}");
    assertThat(
            admin(
                "subscription",
                "create",
                "--license",
                license,
                "--url",
                "https://example.com/events",
                "--events",
                "device.status"))
        .isZero();
    assertThat(output().get("secret").asText()).startsWith("whsec_");
    assertThat(admin("subscription", "list", "--license", license)).isZero();
    JsonNode listed = output();
    assertThat(listed).hasSize(2);
    assertThat(listed.get(0).get("format").asText()).isEqualTo("meta");
    assertThat(listed.get(1).get("format").asText()).isEqualTo("standard");
    assertThat(listed.get(0).has("secret")).as("the secret is shown once").isFalse();

    // Refusals as the API's: device states have no Meta form; an unknown format.
    assertThat(
            admin(
                "subscription",
                "create",
                "--license",
                license,
                "--url",
                "https://example.com/x",
                "--events",
                "device.status",
                "--format",
                "meta"))
        .isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("device.status");
    assertThat(
            admin(
                "subscription",
                "create",
                "--license",
                license,
                "--url",
                "https://example.com/x",
                "--events",
                "message.status",
                "--format",
                "xml"))
        .isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("format");

    assertThat(admin("subscription", "remove", "--license", license, meta.get("id").asText()))
        .isZero();
    assertThat(admin("subscription", "list", "--license", license)).isZero();
    assertThat(output()).hasSize(1);
    assertThat(admin("subscription", "remove", "--license", license, meta.get("id").asText()))
        .isEqualTo(1);
  }

  @Test
  void createsPartnerLicenseAndDeviceAndListsThem() throws Exception {
    assertThat(admin("partner", "create", "--name", "Reseller One", "--email=r@example.com"))
        .isZero();
    String partner = output().get("id").asText();
    assertThat(
            admin(
                "license",
                "create",
                "--partner",
                partner,
                "--name",
                "SMA 1",
                "--expires",
                "2030-01-31",
                "--allow",
                "203.0.113.7"))
        .isZero();
    JsonNode license = output();
    assertThat(license.get("expiresOn").asText()).isEqualTo("2030-01-31");
    assertThat(
            admin(
                "device",
                "create",
                "--license",
                license.get("id").asText(),
                "--number",
                "0811 0000 4001"))
        .isZero();
    JsonNode device = output();
    assertThat(device.get("number").asText()).isEqualTo("+6281100004001");
    assertThat(device.get("key").asText()).hasSize(32);

    assertThat(admin("device", "list")).isZero();
    assertThat(output()).hasSize(1);
    assertThat(output().get(0).get("state").asText())
        .as("each device with its state, as the Cloud guide promises")
        .isEqualTo("none");
    assertThat(admin("device", "show", device.get("id").asText())).isZero();
    JsonNode shown = output();
    assertThat(shown.get("state").asText()).isEqualTo("none");
    assertThat(shown.get("webhooks").get("status").isNull()).isTrue();
    assertThat(shown.get("webhooks").get("secret").asText())
        .isEqualTo(license.get("webhookSecret").asText());
    assertThat(admin("device", "show", "999")).isEqualTo(1);
    assertThat(admin("partner", "list")).isZero();
    assertThat(output().get(0).get("name").asText()).isEqualTo("Reseller One");

    assertThat(admin("device", "rotate", device.get("id").asText(), "device-key")).isZero();
    assertThat(output().get("deviceKey").asText()).isNotEqualTo(device.get("deviceKey").asText());
    assertThat(admin("device", "disable", device.get("id").asText())).isZero();
    assertThat(admin("device", "list")).isZero();
    assertThat(output().get(0).get("disabled").asBoolean()).isTrue();
  }

  @Test
  void deletesADeviceWhoseNumberMayThenBeLinkedAgain() throws Exception {
    assertThat(admin("partner", "create", "--name", "P")).isZero();
    String partner = output().get("id").asText();
    assertThat(admin("license", "create", "--partner", partner, "--name", "L")).isZero();
    String license = output().get("id").asText();
    assertThat(admin("device", "create", "--license", license, "--number", "08110000401")).isZero();
    JsonNode device = output();

    assertThat(admin("device", "delete", device.get("id").asText())).isZero();
    assertThat(output().get("number").asText()).isEqualTo("+628110000401");
    assertThat(admin("device", "list")).isZero();
    assertThat(output()).isEmpty();
    assertThat(admin("device", "delete", device.get("id").asText())).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("no device");
    assertThat(admin("device", "delete", "42x")).isEqualTo(2);
    assertThat(admin("device", "create", "--license", license, "--number", "08110000401"))
        .as("the number may be linked again")
        .isZero();
  }

  @Test
  void theGatewaySeesWhatTheCommandCreated() {
    assertThat(admin("partner", "create", "--name", "P")).isZero();
    try (Gateway gateway =
        Gateway.start(
            io.kurir.config.SettingsLoader.load(
                io.kurir.config.SettingsLoader.Profile.SERVE,
                List.of("--port=0", "--host=127.0.0.1"),
                Map.of(),
                dir),
            java.time.Clock.systemUTC())) {
      assertThat(gateway.tenants().partners()).extracting(p -> p.name()).containsExactly("P");
    }
  }

  @Test
  void webhookListingsShowTimesInTheOperatorZone() throws Exception {
    assertThat(admin("partner", "create", "--name", "P")).isZero();
    assertThat(admin("license", "create", "--partner", output().get("id").asText(), "--name", "L"))
        .isZero();
    assertThat(
            admin(
                "device",
                "create",
                "--license",
                output().get("id").asText(),
                "--number",
                "081234567890"))
        .isZero();
    long device = output().get("id").asLong();
    io.kurir.config.Settings settings =
        io.kurir.config.SettingsLoader.load(
            io.kurir.config.SettingsLoader.Profile.SERVE, List.of(), Map.of(), dir);
    try (io.kurir.store.Database db = io.kurir.store.Database.open(settings.databaseUrl())) {
      db.writes()
          .writeIn(
              tx -> {
                io.kurir.webhook.WebhookOutbox.add(
                    tx,
                    7,
                    device,
                    "https://example.com/hook",
                    "device_status",
                    "{}",
                    java.time.Instant.parse("2026-03-10T03:00:00Z"));
                return null;
              });
    }
    assertThat(admin("webhook", "list", "--state", "pending", "--time.zone=Asia/Makassar"))
        .isZero();
    assertThat(output().get(0).get("createdAt").asText()).isEqualTo("2026-03-10 11:00:00");
    assertThat(output().get(0).get("finishedAt").isNull()).isTrue();
  }

  @Test
  void mistakesExitNonZeroWithAMessage() {
    assertThat(admin("partner", "create")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("Missing required option: '--name=NAME'");
    assertThat(admin("device", "create", "--license", "42", "--number", "0811")).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("no license 42");
    assertThat(admin("device", "fly")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown command 'fly'");
    assertThat(admin("device")).isEqualTo(2);
    assertThat(admin()).isEqualTo(2);
    assertThat(admin("partner", "create", "--name", "--demo")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("Expected parameter for option '--name' but found '--demo'");
    assertThat(admin("webhook", "list", "--state", "dead")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("[ ]");
    assertThat(admin("webhook", "replay", "12345")).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("no failed or dead delivery 12345");
    assertThat(admin("help")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("usage: kurir admin");
  }
}
