package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.driver.DeviceSessionStore;
import io.kurir.store.Database;
import io.kurir.store.DatabaseLocation;
import io.kurir.store.Dialect;
import io.kurir.store.SecretBox;
import io.kurir.store.SecretKeys;
import io.kurir.store.StoredSecrets;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGraphApi;
import io.kurir.testing.LogCapture;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestDatabases;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.WebhookReceiver;
import io.kurir.webhook.WebhookOutbox;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * A stolen database holds no usable secret (issue 25 item 12): every credential and secret made
 * through the real APIs is absent in plaintext from every row of every table, yet each still works
 * over HTTP; an install written by the version before (plaintext rows) is protected at its next
 * start and keeps working; a missing or wrong key stops the start with a clear message; rotating
 * the key re-encrypts everything. {@link SecretsAtRestPostgresTest} runs the same on PostgreSQL.
 */
@Isolated(
    "runs serve in this JVM, which resets Logback for every test, and reads the io.kurir log (LogCapture)")
class SecretsAtRestTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String AUTH = "Bearer " + TestGateway.ADMIN_TOKEN;
  private static final String CLOUD_NUMBER = "+6281100007601";

  @TempDir Path dir;
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open.reversed()) {
      c.close();
    }
  }

  /**
   * These tests are about the key a gateway makes and is given, so, unlike other tests' gateways
   * (given the fixed test key by TestDatabases.flags), theirs start without one: {@code
   * --secrets.key=} (empty) before a test's own flags, so the gateway makes {@code data/secret.key}
   * as in production.
   */
  private static final String OWN_KEY_FILE = "--secrets.key=";

  private TestGateway start(String... flags) {
    List<String> all = new ArrayList<>(List.of(OWN_KEY_FILE));
    all.addAll(List.of(flags));
    TestGateway kurir = TestGateway.start(dir, all.toArray(String[]::new));
    open.add(kurir);
    return kurir;
  }

  private static JsonNode admin(TestGateway kurir, String path, String json) throws Exception {
    Reply r = kurir.post(path, json, "application/json", "Authorization", AUTH);
    assertThat(r.status()).as(path + " " + r.body()).isBetween(200, 201);
    return JSON.readTree(r.body());
  }

  /** Every value of every row of every table of the gateway's database, as text. */
  private static String everyRow(Database db) {
    return db.jdbi()
        .withHandle(
            h -> {
              Connection c = h.getConnection();
              List<String> tables = new ArrayList<>();
              try (ResultSet rs =
                  c.getMetaData().getTables(null, null, "%", new String[] {"TABLE"})) {
                while (rs.next()) {
                  String schema = rs.getString("TABLE_SCHEM");
                  if (schema == null || schema.equals("public")) {
                    tables.add(rs.getString("TABLE_NAME"));
                  }
                }
              } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
              }
              assertThat(tables).contains("partner", "license", "device", "device_config");
              StringBuilder all = new StringBuilder();
              for (String table : tables) {
                for (Map<String, Object> row :
                    h.createQuery("SELECT * FROM \"" + table + "\"").mapToMap().list()) {
                  all.append(table).append(": ").append(row.values()).append('\n');
                }
              }
              return all.toString();
            });
  }

  /** Every credential made through the Admin API, by name, and what proves each still works. */
  private record Made(
      String partnerUser,
      String partnerSecret,
      String licenseCode,
      String pushKey,
      String webhookSecret,
      String previousWebhookSecret,
      long deviceId,
      String number,
      String ecoKey,
      String deviceKey,
      String crmDeviceId,
      String cloudKey) {
    List<String> secrets() {
      return List.of(
          partnerSecret,
          licenseCode,
          pushKey,
          webhookSecret,
          previousWebhookSecret,
          ecoKey,
          deviceKey,
          crmDeviceId,
          cloudKey,
          FakeGraphApi.TOKEN,
          FakeGraphApi.APP_SECRET);
    }
  }

  private Made makeEveryKind(TestGateway kurir) throws Exception {
    JsonNode partner = admin(kurir, "/admin/partners", "{\"name\":\"Reseller\"}");
    JsonNode license =
        admin(
            kurir,
            "/admin/licenses",
            "{\"partner\":\""
                + partner.get("id").asText()
                + "\",\"name\":\"Toko\",\"email\":\"toko@example.com\"}");
    String licenseId = license.get("id").asText();
    JsonNode rotated =
        admin(kurir, "/admin/licenses/" + licenseId + "/rotate-webhook-secret", "{}");
    String number = "+6281100007602";
    JsonNode device =
        admin(
            kurir,
            "/admin/devices",
            "{\"license\":" + licenseId + ",\"number\":\"" + number + "\"}");
    kurir.sandbox().pair(device.get("id").asLong(), number);
    JsonNode cloud =
        admin(
            kurir,
            "/admin/devices",
            "{\"license\":"
                + licenseId
                + ",\"number\":\""
                + CLOUD_NUMBER
                + "\",\"driver\":\"cloud\",\"config\":{\"phone-number-id\":\""
                + FakeGraphApi.PHONE_NUMBER_ID
                + "\",\"access-token\":\""
                + FakeGraphApi.TOKEN
                + "\",\"app-secret\":\""
                + FakeGraphApi.APP_SECRET
                + "\"}}");
    return new Made(
        partner.get("basicUser").asText(),
        partner.get("basicSecret").asText(),
        license.get("code").asText(),
        license.get("pushKey").asText(),
        rotated.get("webhookSecret").asText(),
        license.get("webhookSecret").asText(),
        device.get("id").asLong(),
        number,
        device.get("key").asText(),
        device.get("deviceKey").asText(),
        device.get("crmDeviceId").asText(),
        cloud.get("key").asText());
  }

  private static void assertNoneInPlaintext(Database db, List<String> secrets) {
    String rows = everyRow(db);
    for (String secret : secrets) {
      assertThat(rows).as("the database holds a secret in plaintext").doesNotContain(secret);
    }
  }

  /** The credentials that are only compared still let their callers in, over HTTP. */
  private static void comparedCredentialsWork(TestGateway kurir, Made m) throws Exception {
    String to = Numbers.fresh();
    assertThat(
            kurir
                .postJson(
                    "/api/send_message",
                    "{\"key\":\""
                        + m.ecoKey()
                        + "\",\"phone_no\":\""
                        + to
                        + "\",\"message\":\"a\"}")
                .body())
        .isEqualTo("success");
    // The Partner API's get_key: the partner's secret and the license's code let the partner in,
    // and the Eco key comes back as it was made.
    Reply key =
        kurir.post(
            "/v4.0/wa_partner/get_key",
            "license="
                + m.licenseCode()
                + "&email=toko@example.com&no_wa="
                + m.number().substring(1),
            "application/x-www-form-urlencoded",
            "Authorization",
            "Basic "
                + Base64.getEncoder()
                    .encodeToString(
                        (m.partnerUser() + ":" + m.partnerSecret())
                            .getBytes(StandardCharsets.UTF_8)));
    assertThat(JSON.readTree(key.body()).get("key").asText()).as(key.body()).isEqualTo(m.ecoKey());
    JsonNode crm =
        JSON.readTree(
            kurir
                .postJson(
                    "/send/message-text",
                    "{\"deviceId\":\""
                        + m.crmDeviceId()
                        + "\",\"number\":\""
                        + Numbers.fresh()
                        + "\",\"message\":\"b\"}")
                .body());
    assertThat(crm.get("status").asBoolean()).as(crm.toString()).isTrue();
    Reply agent =
        kurir.post("/api/srv1/send-text", "{}", "application/json", "device-key", m.deviceKey());
    assertThat(agent.body()).as("the device key is accepted").doesNotContain("invalid_device_key");
    Reply push =
        kurir.post("/send", "{}", "application/json", "Authorization", "Bearer " + m.pushKey());
    assertThat(push.body()).as("the push key is accepted").doesNotContain("invalid_push_key");
    assertThat(push.status()).isNotEqualTo(401);
    JsonNode licenseCheck =
        JSON.readTree(kurir.get("/v3.0/license/expired/" + m.licenseCode()).body());
    assertThat(licenseCheck.get("status").asText())
        .as(licenseCheck.toString())
        .isNotEqualTo("failed");
    // Stored as hashes, they are not shown again.
    JsonNode devices = JSON.readTree(kurir.get("/admin/devices", "Authorization", AUTH).body());
    assertThat(devices.toString())
        .doesNotContain(m.deviceKey(), m.crmDeviceId())
        .contains(m.ecoKey());
  }

  @Test
  void noCredentialOrSecretLiesInTheDatabaseInPlaintextAndEachStillWorks() throws Exception {
    try (FakeGraphApi graph = new FakeGraphApi(Clock.systemUTC());
        WebhookReceiver receiver = new WebhookReceiver()) {
      TestGateway kurir =
          start(
              "--drivers.cloud.graph-url=" + graph.graphUrl(),
              "--drivers.cloud.pacing.min-gap=0ms",
              "--media.allow-private-addresses=true");
      // The Graph API's statuses reach the gateway, as Meta's webhook does.
      graph.webhookTo(kurir.url("/drivers/cloud/webhook"));
      Made m = makeEveryKind(kurir);
      // A driver's session secret (WAHA's webhook signing key), kept as drivers keep it.
      String sessionSecret = "waha-signing-key-" + Numbers.fresh().substring(1);
      new DeviceSessionStore(kurir.gateway().database(), Clock.systemUTC(), "waha")
          .putSecret(m.deviceId(), "hmac-key", sessionSecret);

      List<String> secrets = new ArrayList<>(m.secrets());
      secrets.add(sessionSecret);
      assertNoneInPlaintext(kurir.gateway().database(), secrets);

      comparedCredentialsWork(kurir, m);
      assertThat(
              new DeviceSessionStore(kurir.gateway().database(), Clock.systemUTC(), "waha")
                  .getSecret(m.deviceId(), "hmac-key"))
          .contains(sessionSecret);
      // The cloud device's access token still opens the Graph API (the fake accepts only it).
      String to = graph.customerWrites(Numbers.fresh());
      Reply cloudSend =
          kurir.postJson(
              "/api/async_send_message",
              "{\"key\":\"" + m.cloudKey() + "\",\"phone_no\":\"" + to + "\",\"message\":\"c\"}");
      assertThat(cloudSend.body()).matches("\\d+");
      long id = Long.parseLong(cloudSend.body());
      io.kurir.tenant.Device cloudDevice = kurir.gateway().tenants().deviceForEcoKey(m.cloudKey());
      Eventually.until(
          "the cloud send went out",
          () -> kurir.gateway().messages().find(cloudDevice, id).orElseThrow().state().wentOut());
      assertThat(graph.sentTo(to.substring(1))).hasSize(1);
      // Webhook deliveries are signed with the current secret and, in the overlap, the previous.
      Reply set =
          kurir.postForm(
              "/v2.0/webhook",
              "license="
                  + m.licenseCode()
                  + "&no_wa="
                  + m.number().substring(1)
                  + "&action=set&url="
                  + receiver.url("/in"));
      assertThat(set.body()).contains("success");
      assertThat(kurir.sandbox().injectIncoming(m.deviceId(), Numbers.fresh(), "Halo")).isTrue();
      Eventually.until("delivered", () -> receiver.received().size() == 1);
      WebhookReceiver.Received r = receiver.received().getFirst();
      assertThat(r.signature())
          .isEqualTo(
              "sha256="
                  + WebhookOutbox.sign(m.webhookSecret(), r.timestamp(), r.body())
                  + ", sha256="
                  + WebhookOutbox.sign(m.previousWebhookSecret(), r.timestamp(), r.body()));

      assertNoneInPlaintext(kurir.gateway().database(), secrets);
    }
  }

  /**
   * A database as the version before this one leaves it: the migrations up to V31, and the rows its
   * code wrote, credentials and secrets in plaintext.
   */
  private void writeAnInstallOfTheVersionBefore(Path dataDir) throws Exception {
    DatabaseLocation at = TestDatabases.at(dataDir.resolve("kurir.db"));
    Files.createDirectories(dataDir);
    Dialect dialect = Dialect.forUrl(at.url());
    Flyway.configure()
        .dataSource(at.url(), at.user(), at.password())
        .locations(dialect.migrationLocation())
        .placeholders(dialect.migrationPlaceholders())
        .target("31")
        .load()
        .migrate();
    try (Connection c = java.sql.DriverManager.getConnection(at.url(), at.user(), at.password());
        var s = c.createStatement()) {
      s.executeUpdate(
          "INSERT INTO partner (id, name, email, basic_user, basic_secret, disabled, created_at)"
              + " VALUES (10, 'Old reseller', '', 'old-reseller', 'old-partner-secret-0123456789ab',"
              + " 0, 0)");
      s.executeUpdate(
          "INSERT INTO license (id, partner_id, code, name, email, expires_on, allowed_addresses,"
              + " disabled, created_at, webhook_secret, push_key) VALUES (11, 10,"
              + " 'OLD-LICENSE-CODE-0123', 'Old shop', 'toko@example.com', NULL, '', 0, 0,"
              + " 'old-webhook-secret-0123456789abcd', 'old-push-key-0123456789abcdefghij')");
      s.executeUpdate(
          "INSERT INTO device (id, license_id, number, eco_key, device_key, crm_device_id, driver,"
              + " disabled, created_at) VALUES (12, 11, '+6281100007603',"
              + " 'old-eco-key-0123456789abcdefghijk', 'old-device-key-0123456789abcdefgh',"
              + " 'old-crm-id-0123456789ab', 'sandbox', 0, 0)");
      s.executeUpdate(
          "INSERT INTO device_config (device_id, key, value) VALUES (12, 'pacing.min-gap', '0ms')");
      s.executeUpdate(
          "INSERT INTO driver_state (device_id, driver, key, value, updated_at) VALUES (12,"
              + " 'waha', 'hmac-key', 'old-waha-hmac-key-0123456789abcdef', 0)");
    }
  }

  private static final Made OLD =
      new Made(
          "old-reseller",
          "old-partner-secret-0123456789ab",
          "OLD-LICENSE-CODE-0123",
          "old-push-key-0123456789abcdefghij",
          "old-webhook-secret-0123456789abcd",
          "old-webhook-secret-0123456789abcd",
          12,
          "+6281100007603",
          "old-eco-key-0123456789abcdefghijk",
          "old-device-key-0123456789abcdefgh",
          "old-crm-id-0123456789ab",
          "old-eco-key-0123456789abcdefghijk");

  @Test
  void anInstallOfTheVersionBeforeIsProtectedAtItsNextStartAndKeepsWorking() throws Exception {
    Path data = dir.resolve("data");
    writeAnInstallOfTheVersionBefore(data);
    List<String> secrets = new ArrayList<>(OLD.secrets().subList(0, 9));
    secrets.add("old-waha-hmac-key-0123456789abcdef");

    TestGateway kurir = start();
    Path keyFile = data.resolve("secret.key");
    assertThat(keyFile).exists();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile)))
        .isEqualTo("rw-------");
    assertNoneInPlaintext(kurir.gateway().database(), secrets);
    kurir.sandbox().pair(OLD.deviceId(), OLD.number());
    comparedCredentialsWork(kurir, OLD);
    assertThat(kurir.gateway().tenants().license(11).webhookSecret())
        .isEqualTo(OLD.webhookSecret());
    assertThat(kurir.gateway().tenants().deviceConfig(12)).containsEntry("pacing.min-gap", "0ms");
    assertThat(
            new DeviceSessionStore(kurir.gateway().database(), Clock.systemUTC(), "waha")
                .getSecret(12, "hmac-key"))
        .contains("old-waha-hmac-key-0123456789abcdef");

    // Done once: a second start changes nothing and finds everything.
    String before =
        everyRow(kurir.gateway().database())
            .replaceAll(
                "(?m)^(message|message_event|webhook_delivery|device_state|node_signal|lease|device_lease).*\\n",
                "");
    kurir.restart();
    String after =
        everyRow(kurir.gateway().database())
            .replaceAll(
                "(?m)^(message|message_event|webhook_delivery|device_state|node_signal|lease|device_lease).*\\n",
                "");
    assertThat(tenantRows(after)).isEqualTo(tenantRows(before));
    kurir.sandbox().pair(OLD.deviceId(), OLD.number());
    comparedCredentialsWork(kurir, OLD);
  }

  /** The rows of the tenant tables and driver configuration. */
  private static List<String> tenantRows(String rows) {
    return rows.lines()
        .filter(
            l ->
                l.startsWith("partner: ")
                    || l.startsWith("license: ")
                    || l.startsWith("device: ")
                    || l.startsWith("device_config: "))
        .toList();
  }

  @Test
  void aMissingOrWrongKeyStopsTheStartWithAMessageThatSaysWhatToDo() throws Exception {
    TestGateway kurir = start();
    makeLicense(kurir);
    kurir.stop();
    Path keyFile = dir.resolve("data").resolve("secret.key");
    byte[] key = Files.readAllBytes(keyFile);

    Files.delete(keyFile);
    assertThatThrownBy(kurir::startAgain)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the database's secrets are encrypted with key")
        .hasMessageContaining(keyFile + " does not exist")
        .hasMessageContaining("KURIR_SECRETS_KEY");
    assertThat(keyFile).as("no new key is made for a database that has one").doesNotExist();

    Files.writeString(keyFile, Base64.getEncoder().encodeToString(SecretBox.newKey()));
    assertThatThrownBy(kurir::startAgain)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("wrong secrets key: the database's secrets are encrypted with key")
        .hasMessageContaining("secrets.key-file " + keyFile + " holds key");

    // The command line says it in one line, without a stack trace.
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> args =
        new ArrayList<>(List.of("serve", "--server.port=0", "--data.dir=" + dir.resolve("data")));
    args.addAll(TestDatabases.flags(dir.resolve("data").resolve("kurir.db")));
    args.add(OWN_KEY_FILE);
    int status =
        Kurir.run(
            args,
            Map.of(),
            dir,
            new PrintStream(new ByteArrayOutputStream()),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(status).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("wrong secrets key")
        .doesNotContain("Exception")
        .doesNotContain("\tat ");

    // The right key again, given as KURIR_SECRETS_KEY's value this time.
    Files.delete(keyFile);
    String value = new String(key, StandardCharsets.US_ASCII).strip();
    TestGateway again = start("--secrets.key=" + value);
    assertThat(again.gateway().tenants().licenses()).hasSize(1);
  }

  /**
   * Nodes given different keys (each made its own): the database is tied to the first one's, even
   * before it holds a secret, and the others are refused.
   */
  @Test
  void aDatabaseTiedToOneKeyRefusesANodeWithAnotherEvenBeforeItHoldsASecret() throws Exception {
    TestGateway first = start();
    String tied = first.gateway().database().secrets().keyId();
    // Two nodes that each made a key at the same moment: the first to tie the database wins.
    assertThat(StoredSecrets.tieTo(first.gateway().database(), "0badc0de", 0)).isEqualTo(tied);
    first.stop();
    Path own = dir.resolve("node-2").resolve("secret.key");

    assertThatThrownBy(() -> start("--secrets.key-file=" + own))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("encrypted with key " + tied + ", but there is no key");
    assertThat(own).as("no key is made for a database tied to one").doesNotExist();
    Files.createDirectories(own.getParent());
    Files.writeString(own, Base64.getEncoder().encodeToString(SecretBox.newKey()));
    assertThatThrownBy(() -> start("--secrets.key-file=" + own))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("wrong secrets key: the database's secrets are encrypted with key")
        .hasMessageContaining("secrets.key-file " + own + " holds key");
  }

  private static JsonNode makeLicense(TestGateway kurir) throws Exception {
    JsonNode partner = admin(kurir, "/admin/partners", "{\"name\":\"Reseller\"}");
    return admin(
        kurir,
        "/admin/licenses",
        "{\"partner\":\"" + partner.get("id").asText() + "\",\"name\":\"Toko\"}");
  }

  @Test
  void rotatingTheKeyReencryptsEverySecretAndTheOldKeyOpensNothing() throws Exception {
    TestGateway kurir = start();
    JsonNode license = makeLicense(kurir);
    JsonNode device =
        admin(
            kurir,
            "/admin/devices",
            "{\"license\":" + license.get("id").asText() + ",\"number\":\"+6281100007604\"}");
    kurir.stop();
    Path oldKey = dir.resolve("data").resolve("secret.key");
    String oldId = SecretBox.of(SecretKeys.readOrCreate(oldKey)).keyId();
    Path newKey = dir.resolve("elsewhere").resolve("kurir-secret.key");

    Command run = rotateKey(newKey);
    assertThat(run.status()).as(run.err()).isZero();
    JsonNode result = JSON.readTree(run.out());
    String newId = SecretBox.of(SecretKeys.readOrCreate(newKey)).keyId();
    assertThat(result.get("keyId").asText()).isEqualTo(newId).isNotEqualTo(oldId);
    assertThat(result.get("previousKeyId").asText()).isEqualTo(oldId);
    // The license's webhook secret and the device's Eco key (its encrypted copy).
    assertThat(result.get("reencrypted").asInt()).isEqualTo(2);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(newKey)))
        .isEqualTo("rw-------");

    // The old key opens nothing any more.
    assertThatThrownBy(kurir::startAgain)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("wrong secrets key");
    // With the new key everything works as before.
    TestGateway rotated = start("--secrets.key-file=" + newKey);
    assertThat(rotated.gateway().tenants().license(license.get("id").asLong()).webhookSecret())
        .isEqualTo(license.get("webhookSecret").asText());
    assertThat(rotated.gateway().tenants().device(device.get("id").asLong()).ecoKey())
        .isEqualTo(device.get("key").asText());
    assertThat(StoredSecrets.keyIdsInUse(rotated.gateway().database())).containsExactly(newId);
    rotated.stop();

    // Run again with the same flags (the old key's settings): nothing changes, and it says so.
    Command again = rotateKey(newKey);
    assertThat(again.status()).as(again.err()).isZero();
    JsonNode noop = JSON.readTree(again.out());
    assertThat(noop.get("keyId").asText()).isEqualTo(newId);
    assertThat(noop.get("reencrypted").asInt()).isZero();
    assertThat(noop.get("next").asText()).contains("the rotation already happened");
    rotated.startAgain();
    assertThat(rotated.gateway().tenants().license(license.get("id").asLong()).webhookSecret())
        .isEqualTo(license.get("webhookSecret").asText());
  }

  /**
   * A rotation beside a running gateway would leave it sealing with the old key (and, before this
   * was refused, no key opened the database afterwards): refused, and the gateway keeps working.
   */
  @Test
  void rotatingTheKeyIsRefusedWhileAGatewayRunsOnTheDatabaseAndTheGatewayKeepsWorking()
      throws Exception {
    TestGateway kurir = start();
    JsonNode license = makeLicense(kurir);
    String before = kurir.gateway().database().secrets().keyId();
    Path newKey = dir.resolve("elsewhere").resolve("kurir-secret.key");

    Command run = rotateKey(newKey);

    assertThat(run.status()).isEqualTo(1);
    assertThat(run.err().strip())
        .startsWith("kurir admin: a gateway is running on this database (")
        .endsWith("; stop it first")
        .doesNotContain("\n")
        .doesNotContain("Exception");
    assertThat(newKey).as("no key is made for a refused rotation").doesNotExist();
    assertThat(StoredSecrets.keyIdsInUse(kurir.gateway().database())).containsExactly(before);
    Reply read = kurir.get("/admin/licenses", "Authorization", AUTH);
    assertThat(read.status()).as(read.body()).isEqualTo(200);
    assertThat(kurir.gateway().tenants().license(license.get("id").asLong()).webhookSecret())
        .isEqualTo(license.get("webhookSecret").asText());
    makeLicense(kurir);

    // Stopped, the same command goes through, and the gateway starts with the new key.
    kurir.stop();
    assertThat(rotateKey(newKey).status()).isZero();
    TestGateway rotated = start("--secrets.key-file=" + newKey, "--secrets.key=");
    assertThat(rotated.gateway().tenants().licenses()).hasSize(2);
  }

  @Test
  void aNewKeyFileThatHoldsNoKeyOrCannotBeMadeIsNamedByItsOption() throws Exception {
    TestGateway kurir = start();
    makeLicense(kurir);
    kurir.stop();
    Path picture = dir.resolve("photo.png");
    Files.write(picture, new byte[] {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10});

    Command notAKey = rotateKey(picture);

    assertThat(notAKey.status()).isEqualTo(1);
    assertThat(notAKey.err().strip())
        .isEqualTo(
            "kurir admin: --new-key-file "
                + picture
                + ": not a secrets key (base64 of 32 bytes, as `openssl rand -base64 32`"
                + " writes)");

    // A folder nobody may make, root included (sysfs refuses new entries).
    Path nowhere = Path.of("/sys/kurir-test-" + ProcessHandle.current().pid(), "secret.key");
    Command unwritable = rotateKey(nowhere);
    assertThat(unwritable.status()).isEqualTo(1);
    assertThat(unwritable.err().strip())
        .startsWith("kurir admin: permission denied: " + nowhere.getParent() + " (")
        .endsWith("name a key file elsewhere with --new-key-file=<file>")
        .doesNotContain("Exception");
    // Nothing changed: the gateway starts with its key as before.
    kurir.startAgain();
    assertThat(kurir.gateway().tenants().licenses()).hasSize(1);
  }

  /**
   * A value sealed with another key than the running gateway's (as a rotation beside it left them,
   * before that was refused): a 503 in the family's style for each request, and one ERROR line
   * without a stack trace, not a 500 and a trace per request.
   */
  @Test
  void aGatewayThatMeetsASecretSealedWithAnotherKeySaysSoOnce() throws Exception {
    TestGateway kurir = start();
    JsonNode license = makeLicense(kurir);
    JsonNode device =
        admin(
            kurir,
            "/admin/devices",
            "{\"license\":" + license.get("id").asText() + ",\"number\":\"+6281100007605\"}");
    Database db = kurir.gateway().database();
    String other = SecretBox.of(SecretBox.newKey()).seal(device.get("key").asText());
    db.writes()
        .write(
            h ->
                h.createUpdate("UPDATE device SET eco_key_sealed = ? WHERE id = ?")
                    .bind(0, other)
                    .bind(1, device.get("id").asLong())
                    .execute());

    try (LogCapture logs = LogCapture.of()) {
      for (int i = 0; i < 3; i++) {
        Reply r = kurir.get("/admin/devices", "Authorization", AUTH);
        assertThat(r.status()).as(r.body()).isEqualTo(503);
        assertThat(JSON.readTree(r.body()).get("error").asText()).isEqualTo("secrets_key_changed");
      }
      assertThat(logs.atLeast(ch.qos.logback.classic.Level.ERROR))
          .singleElement()
          .satisfies(
              l -> {
                assertThat(l.message()).contains("encrypted with key").contains("restart it");
                assertThat(l.stackTrace()).isFalse();
              });
    }
  }

  private record Command(int status, String out, String err) {}

  /** {@code kurir admin secrets rotate-key --new-key-file=<newKey>} with the gateway's settings. */
  private Command rotateKey(Path newKey) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> args =
        new ArrayList<>(
            List.of(
                "admin",
                "secrets",
                "rotate-key",
                "--new-key-file=" + newKey,
                "--data.dir=" + dir.resolve("data")));
    args.addAll(TestDatabases.flags(dir.resolve("data").resolve("kurir.db")));
    args.add(OWN_KEY_FILE);
    int status =
        Kurir.run(
            args,
            Map.of(),
            dir,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Command(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
