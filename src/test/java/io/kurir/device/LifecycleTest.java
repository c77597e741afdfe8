package io.kurir.device;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.zxing.BinaryBitmap;
import com.google.zxing.client.j2se.BufferedImageLuminanceSource;
import com.google.zxing.common.HybridBinarizer;
import com.google.zxing.qrcode.QRCodeReader;
import com.sun.net.httpserver.HttpServer;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import io.kurir.webhook.WebhookOutbox;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A device's whole life over HTTP with a settable clock: generate → none → an expired code fails →
 * scan → online → offline → taken over → refresh_it → pair → logout → none, each step's webhook
 * received with a valid signature by a real receiver on loopback.
 */
class LifecycleTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  record Hook(String timestamp, String signature, String body) {}

  @Test
  void theWholeLifecycleWithSignedWebhooks() throws Exception {
    SettableClock clock = TestGateway.settableClock();
    List<Hook> hooks = new CopyOnWriteArrayList<>();
    HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/hook",
        exchange -> {
          hooks.add(
              new Hook(
                  exchange.getRequestHeaders().getFirst("X-Kurir-Timestamp"),
                  exchange.getRequestHeaders().getFirst("X-Kurir-Signature"),
                  new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    receiver.start();
    try (TestGateway kurir =
        TestGateway.start(dir, clock, "--media.allow-private-addresses=true")) {
      Device device = kurir.newDevice("+6281100009001", false);
      String key = "{\"key\":\"" + device.ecoKey() + "\"";
      String secret = kurir.licenseOf(device).webhookSecret();
      kurir.postJson(
          "/api/webhook_status",
          key
              + ",\"action\":\"add\",\"url\":\"http://127.0.0.1:"
              + receiver.getAddress().getPort()
              + "/hook\"}");

      String expired = decode(kurir.postJson("/api/generate_qr", key + "}").body());
      assertThat(kurir.postJson("/api/qr_status", key + "}").body()).isEqualTo("none");
      clock.advance(Duration.ofSeconds(21));
      assertThat(kurir.sandbox().scan(expired)).isEmpty();

      String current = decode(kurir.postJson("/api/generate_qr", key + "}").body());
      assertThat(current).startsWith("kurir-sandbox:" + device.id() + ":");
      assertThat(kurir.sandbox().scan(current)).contains(device.id());
      assertThat(kurir.postJson("/api/qr_status", key + "}").body()).isEqualTo("online");
      kurir.sandbox().setDeviceOnline(device.id(), false);
      assertThat(kurir.postJson("/api/qr_status", key + "}").body()).isEqualTo("offline");
      kurir.sandbox().setDeviceOnline(device.id(), true);
      kurir.sandbox().takeOver(device.id());
      assertThat(kurir.postJson("/api/qr_status", key + "}").body()).isEqualTo("refresh_it");
      kurir.sandbox().scan(decode(kurir.postJson("/api/generate_qr", key + "}").body()));
      assertThat(kurir.postJson("/api/logout", key + "}").body()).isEqualTo("success");
      assertThat(kurir.postJson("/api/qr_status", key + "}").body()).isEqualTo("none");

      Eventually.until("six webhooks", () -> hooks.size() == 6);
      List<String> states = hooks.stream().map(h -> field(h.body(), "newState")).toList();
      assertThat(states)
          .containsExactly("online", "offline", "online", "refresh_it", "online", "none");
      for (Hook h : hooks) {
        assertThat(h.signature())
            .isEqualTo("sha256=" + WebhookOutbox.sign(secret, h.timestamp(), h.body()));
      }
    } finally {
      receiver.stop(0);
    }
  }

  private static String field(String json, String name) {
    try {
      return JSON.readTree(json).get(name).asText();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static String decode(String dataUrl) throws Exception {
    assertThat(dataUrl).startsWith("data:image/png;base64,");
    byte[] png = Base64.getDecoder().decode(dataUrl.substring("data:image/png;base64,".length()));
    var image = ImageIO.read(new ByteArrayInputStream(png));
    return new QRCodeReader()
        .decode(new BinaryBitmap(new HybridBinarizer(new BufferedImageLuminanceSource(image))))
        .getText();
  }
}
