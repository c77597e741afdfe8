package io.kurir.driver.cloud;

import static io.kurir.testing.TestFiles.PDF;
import static io.kurir.testing.TestFiles.PNG;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.kurir.message.MessageState;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGraphApi;
import io.kurir.testing.FakeGraphApi.Sent;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sends through the Cloud API: each type's body, media uploaded and sent by its id, the network's
 * id stored, statuses by webhook (also duplicated and out of order) moving the message.
 */
class CloudSendTest {
  @TempDir Path dir;

  @Test
  void aTextIsPostedAcceptedAndMovedBySentAndDeliveredStatuses() {
    try (CloudFixture f = new CloudFixture(dir)) {
      String to = f.customer();
      long id = f.sendAsync(to, "Hello from Kurir");
      f.awaitState(id, MessageState.DELIVERY);

      Sent sent = f.graph.sent().getFirst();
      assertThat(sent.type()).isEqualTo("text");
      assertThat(sent.to()).isEqualTo(to.substring(1));
      assertThat(sent.body().path("recipient_type").asText()).isEqualTo("individual");
      assertThat(sent.body().path("text").path("body").asText()).isEqualTo("Hello from Kurir");
      assertThat(sent.body().path("text").path("preview_url").asBoolean()).isFalse();
      assertThat(sent.body().path("biz_opaque_callback_data").asText())
          .isEqualTo(Long.toString(id));
      assertThat(f.networkId(id)).contains(sent.wamid());
    }
  }

  @Test
  void aSyncSendIsAnsweredSuccessOnceTheSentStatusComes() {
    try (CloudFixture f = new CloudFixture(dir)) {
      String to = f.customer();
      assertThat(f.postEco("/api/send_message", f.body(to, "code 1234"))).isEqualTo("success");
      assertThat(f.graph.sentTo(to.substring(1))).hasSize(1);
    }
  }

  @Test
  void aLinkIsPreviewedUnlessTheCallerOrTheDeviceSaysNot() {
    try (CloudFixture f = new CloudFixture(dir)) {
      String to = f.customer();
      long id = f.sendAsync(to, "see https://example.org/a");
      f.awaitState(id, MessageState.DELIVERY);
      assertThat(f.graph.sent().getFirst().body().path("text").path("preview_url").asBoolean())
          .isTrue();
      long skipped = f.sendAsync(to, "see https://example.org/s", "skip_link", "true");
      f.awaitState(skipped, MessageState.DELIVERY);
      assertThat(f.graph.sent().getLast().body().path("text").path("preview_url").asBoolean())
          .as("skip_link")
          .isFalse();
      f.kurir
          .gateway()
          .tenants()
          .configureDevice(f.device.id(), java.util.Map.of("link-preview", "false"));
      long second = f.sendAsync(to, "see https://example.org/b");
      f.awaitState(second, MessageState.DELIVERY);
      assertThat(f.graph.sent().getLast().body().path("text").path("preview_url").asBoolean())
          .isFalse();
    }
  }

  @Test
  void imagesAndFilesAreUploadedThenSentByTheirMediaId() throws IOException {
    HttpServer files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    serve(files, "/logo.png", "image/png", PNG);
    serve(files, "/invoice.pdf", "application/pdf", PDF);
    files.start();
    String base = "http://127.0.0.1:" + files.getAddress().getPort();
    try (CloudFixture f = new CloudFixture(dir)) {
      String to = f.customer();
      String image =
          f.postEco("/api/async_send_image_url", f.body(to, "our logo", "url", base + "/logo.png"));
      String file =
          f.postEco("/api/async_send_file_url", f.body(to, "", "url", base + "/invoice.pdf"));
      f.awaitState(Long.parseLong(image), MessageState.DELIVERY);
      f.awaitState(Long.parseLong(file), MessageState.DELIVERY);

      assertThat(f.graph.uploads()).isEqualTo(2);
      Sent img = f.graph.sent().get(0);
      assertThat(img.type()).isEqualTo("image");
      assertThat(img.body().path("image").path("caption").asText()).isEqualTo("our logo");
      assertThat(img.body().path("image").has("link")).isFalse();
      Sent doc = f.graph.sent().get(1);
      assertThat(doc.type()).isEqualTo("document");
      assertThat(doc.body().path("document").path("filename").asText()).isEqualTo("invoice.pdf");
    } finally {
      files.stop(0);
    }
  }

  @Test
  void statusesOutOfOrderAndDuplicatedOnlyMoveTheMessageForward() {
    try (CloudFixture f = new CloudFixture(dir)) {
      f.graph.autoStatuses(false);
      String to = f.customer();
      long id = f.sendAsync(to, "hi");
      Eventually.until("posted", () -> f.graph.sent().size() == 1);
      String wamid = f.graph.sent().getFirst().wamid();
      Eventually.until("accepted", () -> f.networkId(id).isPresent());
      assertThat(f.message(id).state()).isEqualTo(MessageState.SENDING);
      String op = Long.toString(id);
      String digits = to.substring(1);

      assertThat(f.graph.postWebhook(f.graph.statusPayload(wamid, "read", op, digits, 0, null)))
          .isEqualTo(200);
      f.awaitState(id, MessageState.READ);
      for (String late : new String[] {"delivered", "sent", "read", "delivered"}) {
        assertThat(f.graph.postWebhook(f.graph.statusPayload(wamid, late, op, digits, 0, null)))
            .isEqualTo(200);
      }
      assertThat(
              f.graph.postWebhook(f.graph.statusPayload(wamid, "failed", op, digits, 131026, "x")))
          .isEqualTo(200);
      // The writer applies them in order: a later text send's state proves they are all applied.
      long probe = f.sendAsync(to, "probe");
      Eventually.until("probe posted", () -> f.graph.sent().size() == 2);
      assertThat(f.message(id).state()).isEqualTo(MessageState.READ);
    }
  }

  @Test
  void aFailedStatusAfterSentFailsTheMessageWithItsReason() {
    try (CloudFixture f = new CloudFixture(dir)) {
      f.graph.autoStatuses(false);
      String to = f.customer();
      long id = f.sendAsync(to, "hi");
      Eventually.until("posted", () -> f.graph.sent().size() == 1);
      String wamid = f.graph.sent().getFirst().wamid();
      String op = Long.toString(id);
      f.graph.postWebhook(f.graph.statusPayload(wamid, "sent", op, to.substring(1), 0, null));
      f.awaitState(id, MessageState.SENT);
      f.graph.postWebhook(
          f.graph.statusPayload(
              wamid, "failed", op, to.substring(1), 131026, "Message undeliverable"));
      f.awaitState(id, MessageState.FAILED);
      assertThat(f.message(id).reason()).contains("number_not_found");
    }
  }

  private static void serve(HttpServer s, String path, String type, byte[] bytes) {
    s.createContext(
        path,
        ex -> {
          ex.getResponseHeaders().add("Content-Type", type);
          ex.sendResponseHeaders(200, bytes.length);
          ex.getResponseBody().write(bytes);
          ex.close();
        });
  }

  static final String UNUSED = FakeGraphApi.VERSION;
}
