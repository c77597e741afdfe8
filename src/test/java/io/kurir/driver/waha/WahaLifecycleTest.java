package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeWaha;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole life of a WAHA device against the fake engine: created → session on the engine → QR
 * (rotating) → scanned → online → send → acks → incoming message with an auto-reply → engine down →
 * back → logout.
 */
class WahaLifecycleTest {
  static final String NUMBER = "+6281100008001";
  static final String CUSTOMER = "6281100008002";

  @TempDir Path dir;

  /** What a phone's camera reads from the data URL. */
  static String decode(String dataUrl) throws Exception {
    return io.kurir.testing.QrCamera.read(dataUrl);
  }

  @Test
  void aDeviceLivesItsWholeLifeThroughTheEngine() throws Exception {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = f.newDevice(NUMBER, Map.of());
      String name = "kurir-" + device.id();

      // Attached: a session named after the device, its webhook pointed at Kurir and signed.
      FakeWaha.Session session = f.awaitSession(name, "SCAN_QR_CODE");
      var hook = session.config().path("webhooks").path(0);
      assertThat(hook.path("url").asText())
          .isEqualTo(f.kurir.url("/drivers/waha/events/" + device.id()));
      assertThat(hook.path("hmac").path("key").asText()).hasSizeGreaterThanOrEqualTo(32);
      assertThat(f.eco(device, "/api/qr_status")).isEqualTo("none");

      // The QR code is the engine's current one, also after it rotates.
      String first = decode(f.eco(device, "/api/generate_qr"));
      assertThat(first).startsWith("2@");
      String rotated = f.waha.rotateQr(name);
      assertThat(decode(f.eco(device, "/api/generate_qr"))).isEqualTo(rotated).isNotEqualTo(first);
      // The Admin API's pairing (what ./kurir admin device qr shows) gives the same payload.
      var pairing =
          f.kurir.post(
              "/admin/devices/" + device.id() + "/pairing",
              "",
              "application/json",
              "Authorization",
              "Bearer " + io.kurir.testing.TestGateway.ADMIN_TOKEN);
      assertThat(pairing.body()).contains("\"state\":\"none\"").contains(rotated);

      // Scanned on the phone: online (by the engine's session.status webhook).
      f.waha.scan(name, NUMBER.substring(1));
      Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));

      // A send carries the engine's id; acks move it through delivery and read.
      long id = f.sendAsync(device, CUSTOMER, "Halo https://example.com");
      f.awaitState(device, id, MessageState.SENT);
      FakeWaha.Sent sent = f.waha.sent().getFirst();
      assertThat(sent.path()).isEqualTo("/api/sendText");
      assertThat(sent.body().path("chatId").asText()).isEqualTo(CUSTOMER + "@c.us");
      assertThat(sent.body().path("session").asText()).isEqualTo(name);
      assertThat(sent.body().path("linkPreview").asBoolean()).isTrue();
      assertThat(f.networkId(id)).contains(sent.id());
      assertThat(f.waha.ack(sent.id(), 2, "DEVICE")).isEqualTo(200);
      f.awaitState(device, id, MessageState.DELIVERY);
      assertThat(f.waha.ack(sent.id(), 3, "READ")).isEqualTo(200);
      f.awaitState(device, id, MessageState.READ);
      assertThat(f.waha.ack(sent.id(), 2, "DEVICE")).as("a late or repeated ack").isEqualTo(200);
      assertThat(f.message(device, id).state()).isEqualTo(MessageState.READ);

      // An incoming message is stored once, answered once, even when the engine delivers it again.
      f.addBot("harga", "Mulai 10rb");
      assertThat(f.waha.incoming(name, "IN1", "6281100008003", "harga")).isEqualTo(200);
      assertThat(f.waha.incoming(name, "IN1", "6281100008003", "harga")).isEqualTo(200);
      Eventually.until(
          "auto-reply sent",
          () ->
              f.waha.sent().stream()
                  .anyMatch(
                      s ->
                          s.body().path("chatId").asText().equals("6281100008003@c.us")
                              && s.body().path("text").asText().equals("Mulai 10rb")));
      assertThat(f.storedIncoming(device)).isEqualTo(1);

      // The engine goes down: port_down; back: online again, and sends go out.
      f.waha.down();
      Eventually.until("port_down", () -> f.eco(device, "/api/qr_status").equals("port_down"));
      f.waha.up();
      f.clock.advance(WahaDriver.RETRY_MAX); // the next try of the engine is due
      Eventually.until("online again", () -> f.eco(device, "/api/qr_status").equals("online"));
      String r =
          f.eco(
              device,
              "/api/async_send_message",
              "phone_no",
              CUSTOMER,
              "message",
              "lagi https://example.com",
              "skip_link",
              "true");
      long after = Long.parseLong(r);
      f.awaitState(device, after, MessageState.SENT);
      assertThat(f.waha.sent().getLast().body().path("linkPreview").asBoolean())
          .as("skip_link")
          .isFalse();

      // Logged out: the engine shows a new QR code, Kurir none.
      assertThat(f.eco(device, "/api/logout")).isEqualTo("success");
      assertThat(f.waha.session(name).status()).isEqualTo("SCAN_QR_CODE");
      assertThat(f.eco(device, "/api/qr_status")).isEqualTo("none");
      assertThat(f.eco(device, "/api/logout")).as("nothing to log out").isEqualTo("failed");
    }
  }
}
