package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeWaha;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sends through the engine: image with caption and file with its name (base64 in the body), a
 * failed ack, a session that is not WORKING (422: the message waits), {@code check_number} and a
 * group's members.
 */
class WahaSendTest {
  @TempDir Path dir;

  private static Device paired(WahaFixture f, String number) {
    Device device = f.newDevice(number, Map.of());
    String name = "kurir-" + device.id();
    f.awaitSession(name, "SCAN_QR_CODE");
    f.waha.scan(name, number.substring(1));
    Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));
    return device;
  }

  @Test
  void imagesAndFilesGoWithTheirCaptionAndName() throws Exception {
    byte[] png =
        java.util.Base64.getDecoder()
            .decode(
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==");
    byte[] pdf = "%PDF-1.4 kurir".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    HttpServer files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    serve(files, "/logo.png", "image/png", png);
    serve(files, "/nota.pdf", "application/pdf", pdf);
    files.start();
    String base = "http://127.0.0.1:" + files.getAddress().getPort();
    try (WahaFixture f = new WahaFixture(dir, "--media.allow-private-addresses=true")) {
      Device device = paired(f, "+6281100008301");
      String to = "6281100008309";
      assertThat(
              f.eco(
                  device,
                  "/api/send_image_url",
                  "phone_no",
                  to,
                  "url",
                  base + "/logo.png",
                  "message",
                  "Logo baru"))
          .isEqualTo("success");
      assertThat(
              f.eco(
                  device,
                  "/api/send_file_url",
                  "phone_no",
                  to,
                  "url",
                  base + "/nota.pdf",
                  "message",
                  "Nota"))
          .isEqualTo("success");
      FakeWaha.Sent image = f.waha.sent().get(0);
      assertThat(image.path()).isEqualTo("/api/sendImage");
      assertThat(image.body().path("caption").asText()).isEqualTo("Logo baru");
      assertThat(image.body().path("file").path("mimetype").asText()).isEqualTo("image/png");
      assertThat(
              java.util.Base64.getDecoder().decode(image.body().path("file").path("data").asText()))
          .isEqualTo(png);
      FakeWaha.Sent file = f.waha.sent().get(1);
      assertThat(file.path()).isEqualTo("/api/sendFile");
      assertThat(file.body().path("file").path("filename").asText()).endsWith(".pdf");
      assertThat(
              java.util.Base64.getDecoder().decode(file.body().path("file").path("data").asText()))
          .isEqualTo(pdf);
    } finally {
      files.stop(0);
    }
  }

  private static void serve(HttpServer files, String path, String type, byte[] body) {
    files.createContext(
        path,
        exchange -> {
          exchange.getResponseHeaders().add("Content-Type", type);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
  }

  @Test
  void aFailedAckFailsTheMessageAndA422LeavesItWaiting() {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = paired(f, "+6281100008311");
      String name = "kurir-" + device.id();
      long id = f.sendAsync(device, "6281100008319", "satu");
      f.awaitState(device, id, MessageState.SENT);
      FakeWaha.Sent sent = f.waha.sent().getFirst();
      assertThat(f.waha.ack(sent.id(), -1, "ERROR")).isEqualTo(200);
      f.awaitState(device, id, MessageState.FAILED);

      // The session FAILED, and restarts do not cure it: the next message waits for it.
      f.waha.breakSession(name, -1);
      Eventually.until("failed", () -> f.eco(device, "/api/qr_status").equals("failed"));
      long waiting = f.sendAsync(device, "6281100008319", "dua");
      assertThat(f.message(device, waiting).state()).isEqualTo(MessageState.PENDING);
    }
  }

  @Test
  void numbersAreCheckedAndGroupMembersListedThroughTheEngine() {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = paired(f, "+6281100008321");
      f.waha.notOnWhatsApp("6281100008329");
      assertThat(f.eco(device, "/api/check_number", "phone_no", "6281100008328"))
          .isEqualTo("exists");
      assertThat(f.eco(device, "/api/check_number", "phone_no", "6281100008329"))
          .isEqualTo("not_exists");
      f.waha.group("120363025982934543@g.us", "Toko Maju", "6281100008321", "6281100008322");
      String members = f.eco(device, "/api/getGroupMember", "group_id", "120363025982934543@g.us");
      assertThat(members).isEqualTo("6281100008321,6281100008322");
      assertThat(f.eco(device, "/api/getGroupMember", "group_id", "120363000000000001@g.us"))
          .as("no such group: the contract's answer")
          .isEqualTo("n,o,n,e");

      // To a group by its name: the engine's list is asked once, then kept.
      assertThat(
              f.eco(device, "/api/send_group", "group_name", "Toko Maju", "message", "Halo grup"))
          .isEqualTo("success");
      assertThat(f.eco(device, "/api/send_group", "group_name", "Toko Maju", "message", "Lagi"))
          .isEqualTo("success");
      assertThat(f.waha.sent())
          .extracting(s -> s.body().path("chatId").asText())
          .containsExactly("120363025982934543@g.us", "120363025982934543@g.us");
      assertThat(f.waha.calls().stream().filter(c -> c.endsWith("/groups")).count()).isOne();
      // A sync text to a number answers success with the engine's reply.
      assertThat(
              f.eco(
                  device, "/api/send_message", "phone_no", "6281100008328", "message", "OTP 1234"))
          .isEqualTo("success");
    }
  }
}
