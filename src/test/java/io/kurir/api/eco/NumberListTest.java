package io.kurir.api.eco;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestFiles;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.TestTables;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A list of numbers with one that cannot be read is refused whole, in every family and form, before
 * anything is stored, fetched or sent: a client that corrects its list and sends again must not
 * reach the numbers that were good the first time twice (issue 12, item 5).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NumberListTest {
  private static final String NOT_FOUND = "\\[\\d{14}] Number not found";

  TestGateway kurir;
  Device device;
  HttpServer files;
  String base;
  final AtomicInteger fetches = new AtomicInteger();

  @BeforeAll
  void start(@TempDir Path dir) throws IOException {
    files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    serve("/logo.png", TestFiles.PNG);
    serve("/invoice.pdf", TestFiles.PDF);
    files.start();
    base = "http://127.0.0.1:" + files.getAddress().getPort();
    kurir = TestGateway.start(dir, "--media.allow-private-addresses=true");
    device = kurir.newDevice();
  }

  private void serve(String path, byte[] body) {
    files.createContext(
        path,
        ex -> {
          fetches.incrementAndGet();
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
  }

  @AfterAll
  void stop() {
    kurir.close();
    files.stop(0);
  }

  private Reply eco(String path, String phoneNo, String extra) {
    return kurir.postJson(
        path,
        "{\"key\":\"" + device.ecoKey() + "\",\"phone_no\":\"" + phoneNo + "\"" + extra + "}");
  }

  /** Messages stored for {@code to}: none means nothing was, or ever will be, sent to it. */
  private long stored(String to) {
    return TestTables.of(kurir).messagesTo(to).size();
  }

  private void assertNothingFor(String... numbers) {
    for (String to : numbers) {
      assertThat(kurir.sandbox().inbox(to)).as("inbox of " + to).isEmpty();
      assertThat(stored(to)).as("messages stored for " + to).isZero();
    }
  }

  @Test
  void aSyncSendWithOneUnreadableNumberSendsToNoneAndARetrySendsOnce() {
    String good = Numbers.fresh();

    // The issue's own example: the good number first, then one that is not a number.
    Reply reply =
        eco("/api/send_message", Numbers.national(good) + ",+62xxx", ",\"message\":\"x\"");

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.body()).matches(NOT_FOUND);
    assertNothingFor(good);

    Reply retried = eco("/api/send_message", Numbers.national(good), ",\"message\":\"x\"");
    assertThat(retried.body()).isEqualTo("success");
    assertThat(kurir.sandbox().inbox(good)).as("sent once, by the retry").hasSize(1);
  }

  @Test
  void whereverTheUnreadableNumberStandsNothingIsSent() {
    String a = Numbers.fresh();
    String b = Numbers.fresh();
    for (String list :
        new String[] {
          "garbage," + a + "," + b,
          a + ",12," + b,
          a + ";" + b + ";0000000000000000000",
          a + ",,abc"
        }) {
      Reply reply = eco("/api/send_message", list, ",\"message\":\"x\"");
      assertThat(reply.status()).as(list).isEqualTo(200);
      assertThat(reply.body()).as(list).matches(NOT_FOUND);
    }
    assertNothingFor(a, b);
  }

  @Test
  void withDeliveryFlagTheObjectCarriesNumberNotFoundAndAFailedRecordOfNoMessage() {
    String good = Numbers.fresh();

    Reply reply =
        eco("/api/send_message", good + ",nope", ",\"message\":\"x\",\"deliveryFlag\":true");

    assertThat(reply.contentType()).startsWith("application/json");
    assertThat(reply.body())
        .matches(
            "\\{\"status\":\""
                + NOT_FOUND
                + "\",\"message\":\\{\"messageId\":\"0\",\"sentDate\":null,\"status\":\"failed\","
                + "\"statusDate\":\"[0-9 :-]{19}\"}}");
    assertNothingFor(good);
  }

  @Test
  void withPendingTimeNothingIsHeldForLater() {
    String good = Numbers.fresh();

    Reply reply = eco("/api/send_message", good + ",nope", ",\"message\":\"x\",\"pendingTime\":5");

    assertThat(reply.body()).matches(NOT_FOUND);
    assertNothingFor(good);
  }

  @Test
  void syncImageAndFileSendsAnswerNumberNotFoundWithoutFetchingOrSending() {
    String good = Numbers.fresh();
    int fetchesBefore = fetches.get();

    Reply image =
        eco(
            "/api/send_image_url",
            good + ",nope",
            ",\"url\":\"" + base + "/logo.png\",\"message\":\"caption\"");
    Reply file = eco("/api/send_file_url", good + ",nope", ",\"url\":\"" + base + "/invoice.pdf\"");

    assertThat(image.body()).matches(NOT_FOUND);
    assertThat(file.body()).matches(NOT_FOUND);
    assertThat(fetches.get()).as("nothing fetched").isEqualTo(fetchesBefore);
    assertNothingFor(good);
  }

  @Test
  void asyncFormsStillAnswerPhoneNoNotValidAndQueueNothing() {
    String good = Numbers.fresh();

    Reply text = eco("/api/async_send_message", good + ",nope", ",\"message\":\"x\"");
    Reply image =
        eco("/api/async_send_image_url", good + ",nope", ",\"url\":\"" + base + "/logo.png\"");
    Reply file =
        eco("/api/async_send_file_url", good + ",nope", ",\"url\":\"" + base + "/invoice.pdf\"");

    for (Reply r : new Reply[] {text, image, file}) {
      assertThat(r.status()).isEqualTo(400);
      assertThat(r.body()).isEqualTo("phone_no_not_valid");
    }
    assertNothingFor(good);
  }

  @Test
  void sendImageOfAnUploadAnswersNumberNotFoundAndSendsNothing() {
    assertThat(upload("list.png").body()).isEqualTo("success");
    String good = Numbers.fresh();

    Reply reply =
        eco(
            "/api/send_image",
            good + ",nope",
            ",\"filename\":\"/media/list.png\",\"message\":\"c\"");

    assertThat(reply.body()).matches(NOT_FOUND);
    assertNothingFor(good);
    assertThat(
            eco("/api/send_image", good, ",\"filename\":\"/media/list.png\",\"message\":\"c\"")
                .body())
        .isEqualTo("success");
    assertThat(kurir.sandbox().inbox(good))
        .extracting(InboxEntry::kind)
        .as("the upload is sendable: the refusal above was the number's")
        .containsExactly("image");
  }

  @Test
  void familiesThatTakeOneNumberRefuseAListInTheirOwnStyle() {
    String good = Numbers.fresh();
    String list = Numbers.national(good) + "," + Numbers.national(Numbers.fresh());

    Reply crm =
        kurir.postJson(
            "/send/message-text",
            "{\"deviceId\":\""
                + device.crmDeviceId()
                + "\",\"number\":\""
                + list
                + "\",\"message\":\"x\"}");
    Reply multiAgent =
        kurir.post(
            "/api/srv1/send-text",
            "number=" + list + "&message=x",
            "application/x-www-form-urlencoded",
            "device-key",
            device.deviceKey());
    Reply pushText =
        kurir.post(
            "/push/send-text",
            "{\"key\":\"" + device.ecoKey() + "\",\"phone_no\":\"" + list + "\",\"message\":\"x\"}",
            "application/json",
            "Authorization",
            "Bearer " + kurir.licenseOf(device).pushKey());
    Reply scheduler =
        eco(
            "/api/scheduler",
            list,
            ",\"sch_date\":\"2099-01-01 10:00\",\"api_type\":\"text\",\"message\":\"x\"");

    assertThat(crm.status()).isEqualTo(400);
    assertThat(crm.body()).isEqualTo("{\"status\":false,\"message\":\"number_not_valid\"}");
    assertThat(multiAgent.status()).isEqualTo(400);
    assertThat(multiAgent.body()).contains("\"number_not_valid\"");
    assertThat(pushText.status()).isEqualTo(200);
    assertThat(pushText.body()).contains("\"error\":\"InvalidNumber\"");
    assertThat(scheduler.status()).isEqualTo(400);
    assertThat(scheduler.body()).isEqualTo("phone_no_not_valid");
    assertNothingFor(good);
  }

  /** Uploads a PNG under {@code name} with {@code /api/upload/{key}}. */
  private Reply upload(String name) {
    String boundary = "----kurir" + System.nanoTime();
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(
        ("--"
                + boundary
                + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\""
                + name
                + "\"\r\nContent-Type: image/png\r\n\r\n")
            .getBytes(StandardCharsets.UTF_8));
    body.writeBytes(TestFiles.PNG);
    body.writeBytes(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
    return kurir.send(
        HttpRequest.newBuilder(URI.create(kurir.url("/api/upload/" + device.ecoKey())))
            .header("Content-Type", "multipart/form-data; boundary=" + boundary)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()))
            .build());
  }
}
