package io.kurir.driver.gowa;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGowa;
import io.kurir.testing.LogCapture;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Sends through GOWA: texts as JSON, images and files uploaded as multipart (never by handing GOWA
 * the caller's URL), to numbers and to groups by id and by name; WhatsApp's message id kept and its
 * receipts moving the message on; the number check before a first send; {@code check_number} and a
 * group's members (a member GOWA knows only by a LID kept as it).
 */
@Isolated("reads the io.kurir log (LogCapture), which every gateway in this JVM writes to")
class GowaSendTest {
  @TempDir Path dir;

  private static final byte[] PNG =
      Base64.getDecoder()
          .decode(
              "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==");

  @Test
  void textsImagesAndFilesGoUploadedWithTheirCaptionAndReceiptsFollow() throws Exception {
    byte[] pdf = "%PDF-1.4 kurir".getBytes(StandardCharsets.UTF_8);
    HttpServer files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    serve(files, "/logo.png", "image/png", PNG);
    serve(files, "/nota.pdf", "application/pdf", pdf);
    files.start();
    String base = "http://127.0.0.1:" + files.getAddress().getPort();
    try (GowaFixture f = new GowaFixture(dir, "--media.allow-private-addresses=true")) {
      Device device = f.linked("+6281100027101");
      String to = "6281100027109";
      long id = f.sendAsync(device, to, "Halo");
      f.awaitState(device, id, MessageState.SENT);
      FakeGowa.Sent text = f.gowa.sent().getFirst();
      assertThat(text.path()).isEqualTo("/send/message");
      assertThat(text.phone()).isEqualTo(to + "@s.whatsapp.net");
      assertThat(text.slot()).isEqualTo(GowaFixture.slot(device));
      assertThat(f.kurir.networkIdOf(id)).contains(text.id());

      // Receipts by WhatsApp's id: delivered, read; a read-self (the account's own phone) is not.
      assertThat(f.gowa.ack(GowaFixture.slot(device), "delivered", text.id())).isEqualTo(200);
      f.awaitState(device, id, MessageState.DELIVERY);
      assertThat(f.gowa.ack(GowaFixture.slot(device), "read", text.id())).isEqualTo(200);
      f.awaitState(device, id, MessageState.READ);
      assertThat(f.gowa.ack(GowaFixture.slot(device), "delivered", text.id())).isEqualTo(200);
      assertThat(f.message(device, id).state()).as("a late receipt").isEqualTo(MessageState.READ);

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
      FakeGowa.Sent image = f.gowa.sent().get(1);
      assertThat(image.path()).isEqualTo("/send/image");
      assertThat(image.text()).isEqualTo("Logo baru");
      assertThat(image.fileType()).isEqualTo("image/png");
      assertThat(image.file()).isEqualTo(PNG);
      FakeGowa.Sent file = f.gowa.sent().get(2);
      assertThat(file.path()).isEqualTo("/send/file");
      assertThat(file.text()).isEqualTo("Nota");
      assertThat(file.fileName()).endsWith(".pdf");
      assertThat(file.file()).isEqualTo(pdf);
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
  void aFirstSendIsCheckedOnceAndANumberNotOnWhatsAppFails() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.linked("+6281100027111");
      f.gowa.notOnWhatsApp("6281100027119");
      long none = f.sendAsync(device, "6281100027119", "tidak ada");
      f.awaitState(device, none, MessageState.FAILED);
      assertThat(f.message(device, none).reason()).contains("number_not_found");
      assertThat(f.gowa.sent()).isEmpty();

      // A new number is checked once; the answer is kept for the next sends.
      long a = f.sendAsync(device, "6281100027118", "satu");
      f.awaitState(device, a, MessageState.SENT);
      long b = f.sendAsync(device, "6281100027118", "dua");
      f.awaitState(device, b, MessageState.SENT);
      assertThat(f.gowa.calls().stream().filter(c -> c.equals("GET /user/check")).count())
          .isEqualTo(2); // 6281100027119, 6281100027118
      assertThat(f.eco(device, "/api/check_number", "phone_no", "6281100027117"))
          .isEqualTo("exists");
      assertThat(f.eco(device, "/api/check_number", "phone_no", "6281100027119"))
          .isEqualTo("not_exists");
    }
  }

  @Test
  void numberChecksArePacedPerDevice() {
    try (GowaFixture f = new GowaFixture(dir, "--drivers.gowa.number-checks-per-minute=2");
        LogCapture logs = LogCapture.of(GowaDriver.class)) {
      Device device = f.linked("+6281100027121");
      long a = f.sendAsync(device, "6281100027122", "a");
      long b = f.sendAsync(device, "6281100027123", "b");
      long c = f.sendAsync(device, "6281100027124", "c");
      f.awaitState(device, a, MessageState.SENT);
      f.awaitState(device, b, MessageState.SENT);
      // The third new number waits for the minute to turn on the gateway's clock; it does not go
      // unchecked.
      Eventually.until(
          "the third waits",
          () ->
              !logs.lines(
                      l ->
                          l.message().contains("message " + c + " waits")
                              && l.message().contains("number check"))
                  .isEmpty());
      f.awaitState(device, c, MessageState.PENDING); // back in the queue, not failed
      assertThat(f.gowa.sent()).hasSize(2);
      f.clock.advance(Duration.ofMinutes(1));
      f.awaitState(device, c, MessageState.SENT);
      assertThat(f.gowa.calls().stream().filter(x -> x.equals("GET /user/check")).count())
          .isEqualTo(3);
    }
  }

  @Test
  void groupsByIdAndByNameAndTheirMembers() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.linked("+6281100027131");
      String group = "120363025982934543@g.us";
      f.gowa.group(
          group,
          "Toko Maju",
          new FakeGowa.Member("6281100027132", "251556368777322"),
          new FakeGowa.Member("6281100027133", null),
          new FakeGowa.Member(null, "251556368777399"));
      // A member GOWA knows only by a LID stays one (its phone unknown); the others by number.
      assertThat(f.kurir.gateway().messages().groupMembers(device, group))
          .isEqualTo(
              new io.kurir.driver.GroupMembers.Members(
                  java.util.List.of("+6281100027132", "+6281100027133", "251556368777399@lid")));
      f.gowa.group(
          "120363025982934544@g.us",
          "Toko Jaya",
          new FakeGowa.Member("6281100027132", null),
          new FakeGowa.Member("6281100027134", null));
      assertThat(f.eco(device, "/api/getGroupMember", "group_id", "120363025982934544@g.us"))
          .isEqualTo("6281100027132,6281100027134");
      assertThat(f.eco(device, "/api/getGroupMember", "group_id", "120363000000000001@g.us"))
          .as("no such group: the contract's answer")
          .isEqualTo("n,o,n,e");

      assertThat(
              f.eco(device, "/api/send_message_group_id", "group_id", group, "message", "Halo id"))
          .isEqualTo("success");
      assertThat(
              f.eco(device, "/api/send_group", "group_name", "Toko Maju", "message", "Halo nama"))
          .isEqualTo("success");
      assertThat(f.gowa.sent()).extracting(FakeGowa.Sent::phone).containsExactly(group, group);
      // The contract's word for a group the account is not in.
      assertThat(
              f.eco(
                  device,
                  "/api/send_message_group_id",
                  "group_id",
                  "120363000000000001@g.us",
                  "message",
                  "x"))
          .isNotEqualTo("success");
      assertThat(f.gowa.calls().stream().filter(c -> c.equals("GET /user/my/groups")).count())
          .as("the group list is asked once, then kept")
          .isOne();
      assertThat(f.gowa.calls()).doesNotContain("GET /user/check"); // groups are not checked
      Eventually.until("both sent", () -> f.gowa.sent().size() == 2);
    }
  }

  @Test
  void aGroupMessagesReceiptsComeFromItsMembers() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.linked("+6281100027151");
      String slot = GowaFixture.slot(device);
      String group = "120363025982934545@g.us";
      FakeGowa.Member told = new FakeGowa.Member("6281100027152", "251556368777152");
      FakeGowa.Member hidden = new FakeGowa.Member(null, "251556368777153");
      f.gowa.group(group, "Toko Maju", told, hidden);
      String r =
          f.eco(device, "/api/async_send_message_group_id", "group_id", group, "message", "Halo");
      assertThat(r).as(r).matches("\\d+");
      long id = Long.parseLong(r);
      f.awaitState(device, id, MessageState.SENT);
      String networkId = f.gowa.sent().getLast().id();
      // One receipt per member, each from the member (chat_id the group): the message is
      // delivered with the first, read with the first read, whoever the member is.
      assertThat(f.gowa.groupAck(slot, "delivered", told, networkId)).isEqualTo(200);
      f.awaitState(device, id, MessageState.DELIVERY);
      assertThat(f.gowa.groupAck(slot, "delivered", hidden, networkId)).isEqualTo(200);
      assertThat(f.gowa.groupAck(slot, "read", hidden, networkId)).isEqualTo(200);
      f.awaitState(device, id, MessageState.READ);
      assertThat(f.gowa.groupAck(slot, "read", told, networkId)).isEqualTo(200);
      assertThat(f.message(device, id).state()).isEqualTo(MessageState.READ);
    }
  }

  @Test
  void aNoFromGowaIsKeptBrieflyAndAChatWinsOverIt() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.linked("+6281100027131");
      String slot = GowaFixture.slot(device);
      f.gowa.notOnWhatsApp("6281100027132");
      long first = f.sendAsync(device, "6281100027132", "pertama");
      f.awaitState(device, first, MessageState.FAILED);
      // GOWA's look-up failed that time; the number is on WhatsApp. An hour on it is asked again.
      f.gowa.onWhatsApp("6281100027132");
      f.clock.advance(Duration.ofHours(1).plusSeconds(1));
      long later = f.sendAsync(device, "6281100027132", "kemudian");
      f.awaitState(device, later, MessageState.SENT);

      // A "no" kept, then the number writes to the device: the chat wins, no check needed.
      f.gowa.notOnWhatsApp("6281100027133");
      long refused = f.sendAsync(device, "6281100027133", "ditolak");
      f.awaitState(device, refused, MessageState.FAILED);
      f.gowa.onWhatsApp("6281100027133");
      assertThat(f.gowa.incoming(slot, "3EB0T1", "6281100027133", "halo")).isEqualTo(200);
      long checks = f.gowa.calls().stream().filter(c -> c.equals("GET /user/check")).count();
      long reply = f.sendAsync(device, "6281100027133", "balasan");
      f.awaitState(device, reply, MessageState.SENT);
      assertThat(f.gowa.calls().stream().filter(c -> c.equals("GET /user/check")).count())
          .isEqualTo(checks);
    }
  }

  @Test
  void aSendCutOffMidRequestFailsAndGoesOnceUnlessRetryWasAsked() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.linked("+6281100027141");
      String slot = GowaFixture.slot(device);
      f.gowa.hangUpAfterNextSend(slot); // WhatsApp took it; GOWA restarted before answering
      long id = f.sendAsync(device, "6281100027142", "terputus");
      f.awaitState(device, id, MessageState.FAILED);
      assertThat(f.message(device, id).reason()).contains("driver_error");
      f.clock.advance(GowaDriver.RETRY_MAX);
      Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));
      f.clock.advance(Duration.ofMinutes(10));
      assertThat(f.message(device, id).state()).isEqualTo(MessageState.FAILED);
      assertThat(f.gowa.sent()).extracting(FakeGowa.Sent::text).containsExactly("terputus");
    }
  }
}
