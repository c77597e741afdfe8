package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.TestTables;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's webhook: only a body signed with the device's key is taken (HMAC-SHA512, {@code
 * X-Webhook-Hmac}); a bad, missing or foreign signature, an unknown device and a body that is not
 * JSON get a clear 4xx, and nothing of them is recorded.
 */
class WahaWebhookTest {
  @TempDir Path dir;

  @Test
  void onlyEventsSignedWithTheDevicesKeyAreTaken() {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = f.newDevice("+6281100008101", Map.of());
      Device other = f.newDevice("+6281100008102", Map.of());
      String name = "kurir-" + device.id();
      f.awaitSession(name, "SCAN_QR_CODE");
      f.awaitSession("kurir-" + other.id(), "SCAN_QR_CODE");
      f.waha.scan(name, "6281100008101");
      Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));

      assertThat(f.waha.incoming(name, "X1", "6281100008109", "halo", "")).isEqualTo(401);
      assertThat(f.waha.incoming(name, "X2", "6281100008109", "halo", "ab".repeat(64)))
          .isEqualTo(401);
      assertThat(f.storedIncoming(device)).isZero();
      assertThat(f.waha.incoming(name, "X3", "6281100008109", "halo")).isEqualTo(200);
      assertThat(f.storedIncoming(device)).isEqualTo(1);

      String path = "/drivers/waha/events/" + device.id();
      String body = "{\"event\":\"message\",\"session\":\"" + name + "\",\"payload\":{}}";
      // Signed with another device's key: refused.
      String otherKey = keyOf(f, other);
      Reply foreign = signed(f, path, body, otherKey);
      assertThat(foreign.status()).isEqualTo(401);
      assertThat(foreign.body()).contains("signature_not_valid");

      Reply missing = f.kurir.post(path, body, "application/json");
      assertThat(missing.status()).isEqualTo(401);
      assertThat(missing.body()).contains("signature_missing");

      Reply unknown = f.kurir.post("/drivers/waha/events/12345", body, "application/json");
      assertThat(unknown.status()).isEqualTo(404);
      Reply notANumber = f.kurir.post("/drivers/waha/events/abc", body, "application/json");
      assertThat(notANumber.status()).isEqualTo(404);

      String key = keyOf(f, device);
      String junk = "not json";
      Reply notJson = signed(f, path, junk, key);
      assertThat(notJson.status()).isEqualTo(400);
      String noId = "{\"event\":\"message\",\"payload\":{\"from\":\"6281100008109@c.us\"}}";
      Reply bad = signed(f, path, noId, key);
      assertThat(bad.status()).isEqualTo(400);
      assertThat(bad.body()).contains("body_not_valid");
      assertThat(f.storedIncoming(device)).isEqualTo(1);
    }
  }

  @Test
  void groupMessagesAndOwnMessagesAreReadAsSuch() {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = f.newDevice("+6281100008111", Map.of());
      f.awaitSession("kurir-" + device.id(), "SCAN_QR_CODE");
      String key = keyOf(f, device);
      String path = "/drivers/waha/events/" + device.id();
      String own =
          "{\"event\":\"message\",\"payload\":{\"id\":\"true_1@c.us_A\",\"fromMe\":true,"
              + "\"from\":\"6281100008111@c.us\",\"body\":\"x\"}}";
      String group =
          "{\"event\":\"message\",\"payload\":{\"id\":\"false_1-2@g.us_B\",\"fromMe\":false,"
              + "\"from\":\"120363025982934543@g.us\",\"participant\":\"6281100008119@c.us\","
              + "\"timestamp\":1773111600,\"body\":\"di grup\"}}";
      for (String body : new String[] {own, group}) {
        Reply r = signed(f, path, body, key);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
      }
      assertThat(f.storedIncoming(device)).as("own messages are not incoming").isEqualTo(1);
      String stored = inbound(f, device).networkId().orElse(null);
      assertThat(stored).isEqualTo("false_1-2@g.us_B");
    }
  }

  @Test
  void anIncomingImageIsFetchedFromTheEngineAndKeptWithItsCaption() throws Exception {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = f.newDevice("+6281100008121", Map.of());
      String name = "kurir-" + device.id();
      f.awaitSession(name, "SCAN_QR_CODE");
      f.waha.scan(name, "6281100008121");
      byte[] jpeg = {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, 0x00, 0x01, 0x02};
      assertThat(
              f.waha.incomingMedia(
                  name, "IMG1", "6281100008129", "Bukti transfer", "image/jpeg", "bukti.jpg", jpeg))
          .isEqualTo(200);
      TestTables.InboundRow stored = inbound(f, device);
      String row = stored.mediaType().orElseThrow() + " " + stored.mediaPath().orElseThrow();
      assertThat(row).startsWith("image/jpeg ").endsWith(".jpg");
      assertThat(java.nio.file.Files.readAllBytes(Path.of(row.substring(row.indexOf(' ') + 1))))
          .isEqualTo(jpeg);
    }
  }

  /** The device's one stored incoming message. */
  static TestTables.InboundRow inbound(WahaFixture f, Device device) {
    List<TestTables.InboundRow> rows = f.inbound(device);
    assertThat(rows).hasSize(1);
    return rows.getFirst();
  }

  /** The states of the device's history, oldest first. */
  private static List<String> states(WahaFixture f, Device device) {
    return f.tables().deviceEventsOf(device.id()).stream()
        .map(TestTables.DeviceEventRow::newState)
        .toList();
  }

  @Test
  void eventsTheEngineDeliversAgainChangeNothingMore() {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = f.newDevice("+6281100008121", Map.of());
      String path = "/drivers/waha/events/" + device.id();
      String name = "kurir-" + device.id();
      f.awaitSession(name, "SCAN_QR_CODE");
      String key = keyOf(f, device);
      // Linked: the engine posts WORKING (and the device is online); then it delivers that event
      // again, as it does when its delivery's answer was lost, with a message event likewise.
      f.waha.scan(name, "6281100008121");
      Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));
      Eventually.until(
          "online recorded",
          () -> states(f, device).reversed().stream().findFirst().equals(Optional.of("online")));
      int recorded = states(f, device).size();
      String working =
          "{\"id\":\"evt_1\",\"event\":\"session.status\",\"session\":\""
              + name
              + "\",\"payload\":{\"name\":\""
              + name
              + "\",\"status\":\"WORKING\"}}";
      String message =
          "{\"id\":\"evt_2\",\"event\":\"message\",\"payload\":{\"id\":\"false_6281100008129@c.us_R\","
              + "\"from\":\"6281100008129@c.us\",\"fromMe\":false,\"body\":\"halo\"}}";
      for (int i = 0; i < 3; i++) {
        assertThat(signed(f, path, working, key).status()).isEqualTo(200);
        assertThat(signed(f, path, message, key).status()).isEqualTo(200);
      }
      assertThat(f.eco(device, "/api/qr_status")).isEqualTo("online");
      assertThat(states(f, device)).as("no state change from a redelivery").hasSize(recorded);
      assertThat(f.storedIncoming(device)).isEqualTo(1);
    }
  }

  @Test
  void aStatusWebhookThatArrivesAfterALaterOneDoesNotUnlinkTheDevice() {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = f.newDevice("+6281100008131", Map.of());
      String path = "/drivers/waha/events/" + device.id();
      String name = "kurir-" + device.id();
      f.awaitSession(name, "SCAN_QR_CODE");
      f.waha.scan(name, "6281100008131");
      Eventually.until(
          "online recorded",
          () -> states(f, device).reversed().stream().findFirst().equals(Optional.of("online")));
      int recorded = states(f, device).size();
      // The engine posts its webhooks concurrently: the SCAN_QR_CODE it posted before the scan
      // arrives now, after the WORKING the scan caused.
      String late =
          "{\"id\":\"evt_late\",\"event\":\"session.status\",\"session\":\""
              + name
              + "\",\"payload\":{\"name\":\""
              + name
              + "\",\"status\":\"SCAN_QR_CODE\"}}";
      assertThat(signed(f, path, late, keyOf(f, device)).status()).isEqualTo(200);
      assertThat(f.eco(device, "/api/qr_status")).isEqualTo("online");
      assertThat(states(f, device)).as("no state change from a late webhook").hasSize(recorded);
    }
  }

  /** Posts {@code body} to {@code path} signed with {@code key}, as the engine does. */
  static Reply signed(WahaFixture f, String path, String body, String key) {
    return f.kurir.post(
        path,
        body,
        "application/json",
        "X-Webhook-Hmac",
        WahaWebhookRoutes.hmac(key, body.getBytes(StandardCharsets.UTF_8)));
  }

  /** The key that signs the device's webhooks, as stored (encrypted) and then decrypted. */
  static String keyOf(WahaFixture f, Device device) {
    return f.kurir
        .gateway()
        .database()
        .secrets()
        .open(f.tables().driverState(device.id(), "hmac-key").orElseThrow());
  }
}
