package io.kurir.api.eco;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Limits of one request, and inputs that once produced a 500: all get a 4xx token now. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LimitsAndOddInputTest {
  TestGateway kurir;
  Device device;

  @BeforeAll
  void start(@TempDir Path dir) {
    kurir = TestGateway.start(dir);
    device = kurir.newDevice();
  }

  @AfterAll
  void stop() {
    kurir.close();
  }

  private Reply send(String path, String fieldsJson) {
    return kurir.postJson(path, "{\"key\":\"" + device.ecoKey() + "\"," + fieldsJson + "}");
  }

  private static String manyNumbers(int n) {
    return IntStream.range(0, n)
        .mapToObj(i -> String.format("0812%08d", 40_000_000 + i))
        .collect(Collectors.joining(","));
  }

  /**
   * Issue 13: a million numbers were all read (seconds of CPU) before the limit refused them. They
   * are counted first now; the answer is the limit's, for every send that takes a list and for a
   * schedule, which takes one number.
   */
  @Test
  void aMillionNumbersAreRefusedWithTheLimitsAnswer() {
    String million = manyNumbers(1_000_000);
    for (String path :
        java.util.List.of("/api/async_send_message", "/api/send_message", "/api/send_image_url")) {
      Reply r =
          send(
              path,
              "\"phone_no\":\""
                  + million
                  + "\",\"message\":\"x\",\"url\":\"http://127.0.0.1:9/x.png\"");
      assertThat(r.status()).as(path).isEqualTo(400);
      assertThat(r.body()).as(path).isEqualTo("phone_no_too_many");
    }
    Reply schedule =
        send(
            "/api/scheduler",
            "\"phone_no\":\""
                + million
                + "\",\"message\":\"x\",\"api_type\":\"text\",\"sch_date\":\"2099-01-01 10:00\"");
    assertThat(schedule.status()).isEqualTo(400);
    assertThat(schedule.body()).isEqualTo("phone_no_not_valid");
    assertThat(kurir.gateway().messages().queued(device.id())).isZero();
  }

  @Test
  void tooManyRecipientsInOneRequest() {
    Reply async =
        send(
            "/api/async_send_message",
            "\"phone_no\":\"" + manyNumbers(1001) + "\",\"message\":\"x\"");
    assertThat(async.status()).isEqualTo(400);
    assertThat(async.body()).isEqualTo("phone_no_too_many");
    Reply sync =
        send("/api/send_message", "\"phone_no\":\"" + manyNumbers(101) + "\",\"message\":\"x\"");
    assertThat(sync.status()).isEqualTo(400);
    assertThat(sync.body()).isEqualTo("phone_no_too_many");
    assertThat(kurir.gateway().messages().queued(device.id())).isZero();
  }

  @Test
  void aTextLongerThanTheNetworkAllows() {
    Reply reply =
        send(
            "/api/async_send_message",
            "\"phone_no\":\"" + Numbers.fresh() + "\",\"message\":\"" + "x".repeat(65_537) + "\"");
    assertThat(reply.status()).isEqualTo(400);
    assertThat(reply.body()).isEqualTo("message_too_long");
  }

  @Test
  void numbersThatDoNotFitAreRefused() {
    Reply infinite =
        send(
            "/api/async_send_message",
            "\"phone_no\":\"" + Numbers.fresh() + "\",\"message\":\"x\",\"pendingTime\":1e400");
    assertThat(infinite.status()).isEqualTo(400);
    assertThat(infinite.body()).isEqualTo("pendingTime_not_valid");
    Reply key =
        kurir.postJson(
            "/api/send_message", "{\"key\":-1e999,\"phone_no\":\"0812\",\"message\":\"x\"}");
    assertThat(key.status()).isEqualTo(400);
    assertThat(key.body()).isEqualTo("key_not_valid");
    for (String loose : new String[] {"5d", "0x10p0", "-0", "1e3", " "}) {
      Reply reply =
          send(
              "/api/async_send_message",
              "\"phone_no\":\""
                  + Numbers.fresh()
                  + "\",\"message\":\"x\",\"pendingTime\":\""
                  + loose
                  + "\"");
      assertThat(reply.body())
          .as(loose)
          .isIn("pendingTime_not_valid", loose.isBlank() ? reply.body() : "pendingTime_not_valid");
    }
  }

  @Test
  void anUnknownCharsetAByteOrderMarkAndLatin1AreRead() {
    String to = Numbers.fresh();
    String json =
        "{\"key\":\""
            + device.ecoKey()
            + "\",\"phone_no\":\""
            + to
            + "\",\"message\":\"caf\u00e9\"}";
    assertThat(kurir.post("/api/send_message", json, "application/json; charset=x-unknown").body())
        .isEqualTo("success");
    assertThat(kurir.post("/api/send_message", "\uFEFF" + json, "application/json").body())
        .isEqualTo("success");
    assertThat(
            kurir
                .send(
                    java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create(kurir.url("/api/send_message")))
                        .header("Content-Type", "application/json; charset=ISO-8859-1")
                        .POST(
                            java.net.http.HttpRequest.BodyPublishers.ofByteArray(
                                json.getBytes(StandardCharsets.ISO_8859_1)))
                        .build())
                .body())
        .isEqualTo("success");
    assertThat(kurir.sandbox().inbox(to)).extracting(InboxEntry::text).containsOnly("café");
  }

  @Test
  void brokenMultipartBodiesAreBadRequests() {
    Reply noBoundary = kurir.post("/api/send_message", "garbage", "multipart/form-data");
    assertThat(noBoundary.status()).isEqualTo(400);
    assertThat(noBoundary.body()).isEqualTo("malformed_body");
    Reply garbage =
        kurir.post(
            "/api/send_message", "not multipart at all", "multipart/form-data; boundary=xyz");
    assertThat(garbage.status()).isBetween(400, 413);
    assertThat(garbage.body()).isIn("malformed_body", "key_empty");
  }

  @Test
  void aLoneSurrogateEscapeBecomesTheReplacementCharacter() {
    String to = Numbers.fresh();
    // JSON's own escape of half an emoji: decoded by JSON, it cannot be stored as UTF-8.
    send("/api/send_message", "\"phone_no\":\"" + to + "\",\"message\":\"a\\ud83db\"");
    assertThat(kurir.sandbox().inbox(to)).extracting(InboxEntry::text).containsExactly("a\uFFFDb");
  }

  @Test
  void aSyncSendToManyNumbersAnswersInTimeAndNothingIsSentBehindTheCallersBack() {
    try (TestGateway paced =
        TestGateway.start(
            kurir.dir().resolve("paced"), "--pacing.min-gap=400ms", "--send.sync-timeout=1s")) {
      Device d = paced.newDevice();
      long started = System.nanoTime();
      Reply reply =
          paced.postJson(
              "/api/send_message",
              "{\"key\":\""
                  + d.ecoKey()
                  + "\",\"phone_no\":\""
                  + manyNumbers(20)
                  + "\",\"message\":\"x\"}");

      // 20 sends 400 ms apart cannot go out within the 1 s timeout: refused before any is stored
      // (an online device is busy, not offline: docs/decisions.md, "Sync sends on a busy online
      // device").
      assertThat(reply.status()).isEqualTo(429);
      assertThat(reply.body()).isEqualTo("device_busy");
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .as("in time for a client, which gives up after 15 s (however busy the machine)")
          .isLessThan(Duration.ofSeconds(14));
      assertThat(paced.gateway().messages().queued(d.id())).as("nothing was queued").isZero();
      long stored = paced.storedMessages(d.id());
      assertThat(stored).as("nothing was stored").isZero();
    }
  }

  @Test
  void urlsOfInternalAddressesAreWrongByDefault() {
    String to = Numbers.fresh();
    for (String url :
        new String[] {
          "http://localhost/logo.png",
          kurir.url("/api/send_message"),
          "http://169.254.169.254/latest"
        }) {
      assertThat(
              send("/api/send_image_url", "\"phone_no\":\"" + to + "\",\"url\":\"" + url + "\"")
                  .body())
          .as(url)
          .isEqualTo("url_wrong");
      assertThat(
              send(
                      "/api/async_send_file_url",
                      "\"phone_no\":\"" + to + "\",\"url\":\"" + url + "\"")
                  .body())
          .as(url)
          .isEqualTo("url_wrong");
    }
    assertThat(kurir.sandbox().inbox(to)).isEmpty();
  }
}
