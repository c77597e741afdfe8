package io.kurir.driver.gowa;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGowa;
import io.kurir.testing.QrCamera;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Linking a number through GOWA: the device's slot made on GOWA, {@code generate_qr} drawing the
 * code GOWA's picture holds (kept while GOWA's picture lives, asked again after), {@code qr_status}
 * read from GOWA's device state (GOWA announces logins on its websocket only), a pairing code for
 * the device's number, logout; a phone that logs the device out, and a lost connection, seen by the
 * health probe on the clock.
 */
class GowaLinkingTest {
  @TempDir Path dir;

  @Test
  void aNumberIsLinkedByTheQrCodeGowaDrawsAndLoggedOutAgain() throws Exception {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.newDevice("+6281100027001");
      String slot = GowaFixture.slot(device);
      assertThat(f.gowa.slot(slot).state()).isEqualTo("disconnected");
      assertThat(f.eco(device, "/api/qr_status")).isEqualTo("none");

      // The code of GOWA's picture, drawn as a PNG data URL, the same until the picture expires.
      String first = QrCamera.read(f.eco(device, "/api/generate_qr"));
      assertThat(first).isEqualTo(f.gowa.slot(slot).qr()).startsWith("2@");
      assertThat(QrCamera.read(f.eco(device, "/api/generate_qr"))).isEqualTo(first);
      assertThat(f.gowa.calls().stream().filter(c -> c.endsWith("/login")).count()).isOne();
      f.clock.advance(Duration.ofSeconds(30)); // GOWA's qr_duration: its picture is gone
      String second = QrCamera.read(f.eco(device, "/api/generate_qr"));
      assertThat(second).isEqualTo(f.gowa.slot(slot).qr()).isNotEqualTo(first);
      // The Admin API's pairing (what ./kurir admin device qr prints) gives the same payload.
      assertThat(f.admin("/admin/devices/" + device.id() + "/pairing").body()).contains(second);

      f.gowa.scan(slot, "6281100027001");
      Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));
      assertThat(f.eco(device, "/api/generate_qr"))
          .as("paired: log out first")
          .isEqualTo("success");

      // Logged out by Kurir: GOWA keeps the slot, unpaired; a send then waits.
      assertThat(f.eco(device, "/api/logout")).isEqualTo("success");
      assertThat(f.gowa.slot(slot).jid()).isEmpty();
      assertThat(f.eco(device, "/api/qr_status")).isEqualTo("none");
      long waiting = f.sendAsync(device, "6281100027009", "menunggu");
      assertThat(f.message(device, waiting).state()).isEqualTo(MessageState.PENDING);
      assertThat(f.gowa.sent()).isEmpty();
    }
  }

  @Test
  void aPairingCodeIsAskedForTheDevicesOwnNumber() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.newDevice("+6281100027011");
      var reply = f.admin("/admin/devices/" + device.id() + "/link-code");
      assertThat(reply.status()).as(reply.body()).isEqualTo(200);
      assertThat(reply.body()).contains("ABCD-1234");
      assertThat(f.gowa.codeRequestedFor()).isEqualTo("6281100027011");
    }
  }

  @Test
  void aPhoneThatLogsTheDeviceOutOrALostConnectionIsSeenByTheProbeAndMessagesWait() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.linked("+6281100027021");
      String slot = GowaFixture.slot(device);

      // The connection drops (no webhook says so): the probe sees it, asks GOWA to reconnect.
      f.gowa.connectionLost(slot);
      f.clock.advance(Duration.ofSeconds(30));
      Eventually.until(
          "reconnected", () -> f.gowa.calls().contains("POST /devices/" + slot + "/reconnect"));
      Eventually.until(
          "offline recorded",
          () -> f.events(device).stream().anyMatch(e -> e.startsWith("offline ")));
      f.clock.advance(Duration.ofSeconds(30));
      Eventually.until("online again", () -> f.lastEvent(device).startsWith("online "));

      // The phone removes the linked device: GOWA clears its JID and tells no webhook.
      f.gowa.loggedOutFromPhone(slot);
      f.clock.advance(Duration.ofSeconds(30));
      Eventually.until("logged out recorded", () -> f.lastEvent(device).contains("logged out"));
      assertThat(f.lastEvent(device)).startsWith("none ");
      long id = f.sendAsync(device, "6281100027029", "setelah logout");
      assertThat(f.message(device, id).state()).isEqualTo(MessageState.PENDING);

      // Linked again: the waiting message goes, once.
      f.eco(device, "/api/generate_qr");
      f.gowa.scan(slot, "6281100027021");
      Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));
      f.awaitState(device, id, MessageState.SENT);
      assertThat(f.gowa.sent()).extracting(FakeGowa.Sent::text).containsExactly("setelah logout");
    }
  }

  @Test
  void theAdminApiCreatesAGowaDeviceThatAdoptsAGowaDeviceAlreadyLinked() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device first = f.newDevice("+6281100027031");
      long license = f.licenseOf(first).id();
      f.gowa.existingSlot("toko-lama", "6281100027032");
      var made =
          f.kurir.post(
              "/admin/devices",
              "{\"license\":"
                  + license
                  + ",\"number\":\"+6281100027032\",\"driver\":\"gowa\","
                  + "\"config\":{\"device-id\":\"toko-lama\"}}",
              "application/json",
              "Authorization",
              "Bearer " + io.kurir.testing.TestGateway.ADMIN_TOKEN);
      assertThat(made.status()).as(made.body()).isEqualTo(201);
      String key = made.body().replaceAll(".*\"key\":\"([^\"]+)\".*", "$1");
      Eventually.until(
          "adopted, online",
          () ->
              f.kurir
                  .postJson("/api/qr_status", "{\"key\":\"" + key + "\"}")
                  .body()
                  .equals("online"));
      assertThat(f.gowa.violations()).isEmpty(); // not created twice

      var refused =
          f.kurir.post(
              "/admin/devices",
              "{\"license\":"
                  + license
                  + ",\"number\":\"+6281100027033\",\"driver\":\"gowa\","
                  + "\"config\":{\"device-id\":\"a b\"}}",
              "application/json",
              "Authorization",
              "Bearer " + io.kurir.testing.TestGateway.ADMIN_TOKEN);
      assertThat(refused.status()).isEqualTo(400);
      assertThat(refused.body()).contains("device-id");
    }
  }

  @Test
  void aNewDeviceIsMadeOnAGowaThatAnswersAnUnknownIdWithA500() {
    try (GowaFixture f = new GowaFixture(dir)) {
      // GOWA answers GET /devices/{unknown} 500 "device … not found" (not a 404): still made.
      Device device = f.newDevice("+6281100027041");
      String slot = GowaFixture.slot(device);
      assertThat(f.gowa.calls()).contains("GET /devices/" + slot, "POST /devices");
      Eventually.until("none", () -> f.eco(device, "/api/qr_status").equals("none"));
      f.eco(device, "/api/generate_qr");
      f.gowa.scan(slot, "6281100027041");
      Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));

      // Its GOWA device goes (a GOWA on an empty volume): the probe sees it gone, not an error.
      f.gowa.removeSlot(slot);
      f.clock.advance(Duration.ofSeconds(30));
      Eventually.until(
          "gone recorded",
          () -> f.events(device).stream().anyMatch(e -> e.contains("no such device on GOWA")));
    }
  }

  @Test
  void twoKurirDevicesCannotShareOneGowaDevice() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device first = f.newDevice("+6281100027051", Map.of("device-id", "shared"));
      long license = f.licenseOf(first).id();
      var second = createWith(f, license, "+6281100027052", "shared");
      assertThat(second.status()).as(second.body()).isEqualTo(409);
      assertThat(second.body()).contains("device-id", "shared");
      // Another license's device, the same: refused too.
      Device other = f.newDevice("+6281100027053");
      var across = createWith(f, f.licenseOf(other).id(), "+6281100027054", "shared");
      assertThat(across.status()).as(across.body()).isEqualTo(409);
      // Nor may a device name the GOWA device Kurir gives another by default.
      var taken = createWith(f, license, "+6281100027055", GowaFixture.slot(other));
      assertThat(taken.status()).as(taken.body()).isEqualTo(400);
      assertThat(taken.body()).contains("device-id");
      // Nor be configured to share it later.
      var patched = patchConfig(f, other, "shared");
      assertThat(patched.status()).as(patched.body()).isEqualTo(409);
      // Its own value again is no conflict.
      var same = patchConfig(f, first, "shared");
      assertThat(same.status()).as(same.body()).isEqualTo(200);
    }
  }

  private static io.kurir.testing.TestGateway.Reply patchConfig(
      GowaFixture f, Device device, String slot) {
    String body = "{\"config\":{\"device-id\":\"" + slot + "\"}}";
    return f.kurir.send(
        java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(f.kurir.url("/admin/devices/" + device.id())))
            .method("PATCH", java.net.http.HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json")
            .header("Authorization", "Bearer " + io.kurir.testing.TestGateway.ADMIN_TOKEN)
            .build(),
        body);
  }

  private static io.kurir.testing.TestGateway.Reply createWith(
      GowaFixture f, long license, String number, String slot) {
    return f.kurir.post(
        "/admin/devices",
        "{\"license\":"
            + license
            + ",\"number\":\""
            + number
            + "\",\"driver\":\"gowa\",\"config\":{\"device-id\":\""
            + slot
            + "\"}}",
        "application/json",
        "Authorization",
        "Bearer " + io.kurir.testing.TestGateway.ADMIN_TOKEN);
  }

  @Test
  void aGowaUnderABasePathIsLinkedAndItsFilesFetchedThere() throws Exception {
    try (GowaFixture f = GowaFixture.withBasePath(dir, "/wa")) {
      // The QR picture is at <base>/statics/qrcode/…, as GOWA's qr_link says.
      Device device = f.linked("+6281100027061");
      byte[] jpeg = {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, 9};
      assertThat(
              f.gowa.incomingMedia(
                  GowaFixture.slot(device), "3EB0BP1", "6281100027062", "image", "", "jpeg", jpeg))
          .isEqualTo(200);
      java.util.List<String> files =
          f.inbound(device).stream().flatMap(r -> r.mediaPath().stream()).toList();
      assertThat(files).hasSize(1);
      assertThat(java.nio.file.Files.readAllBytes(Path.of(files.getFirst()))).isEqualTo(jpeg);
    }
  }
}
