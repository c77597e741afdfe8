package io.kurir.api.eco;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Async sends and the lookups that follow them: {@code async_send_message}, {@code status_msg_id},
 * {@code check_delivery_status}, {@code check_number}. The clock is settable, so delivery receipts
 * and {@code pendingTime} move only when the test moves time.
 */
class AsyncAndLookupTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  SettableClock clock = TestGateway.settableClock();
  TestGateway kurir;
  Device device;

  @BeforeEach
  void start() {
    kurir = TestGateway.start(dir, clock);
    device = kurir.newDevice();
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  private Reply post(String path, String fields) {
    return kurir.postJson(path, "{\"key\":\"" + device.ecoKey() + "\"," + fields + "}");
  }

  private String asyncSend(String to, String text) {
    Reply reply =
        post("/api/async_send_message", "\"phone_no\":\"" + to + "\",\"message\":\"" + text + "\"");
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.body()).matches("\\d+");
    return reply.body();
  }

  @Test
  void asyncAnswersOnlyDigitsAndTheMessageGoesOut() {
    String to = Numbers.fresh();
    String id = asyncSend(to, "queued");

    Eventually.until("delivered", () -> kurir.sandbox().inbox(to).size() == 1);
    assertThat(kurir.sandbox().inbox(to).getFirst().messageId()).isEqualTo(Long.parseLong(id));
    Eventually.until(
        "status success",
        () -> post("/api/status_msg_id", "\"msg_id\":\"" + id + "\"").body().equals("success"));
  }

  @Test
  void idsAreUniqueIncreasingDigitStringsBelowTwoToTheFiftyThree() {
    String to = Numbers.fresh();
    long previous = 0;
    for (int i = 0; i < 50; i++) {
      long id = Long.parseLong(asyncSend(to, "m" + i));
      assertThat(id).isGreaterThan(previous).isLessThan(1L << 53);
      previous = id;
    }
    Eventually.until("all delivered", () -> kurir.sandbox().inbox(to).size() == 50);
    assertThat(kurir.sandbox().inbox(to))
        .extracting(InboxEntry::text)
        .startsWith("m0", "m1", "m2")
        .endsWith("m49");
  }

  @Test
  void severalNumbersQueueOneMessageEachAndAnswerTheFirstId() {
    String a = Numbers.fresh();
    String b = Numbers.fresh();
    String id = asyncSend(a + "," + Numbers.national(b), "both");

    Eventually.until(
        "both delivered",
        () -> kurir.sandbox().inbox(a).size() == 1 && kurir.sandbox().inbox(b).size() == 1);
    assertThat(kurir.sandbox().inbox(a).getFirst().messageId()).isEqualTo(Long.parseLong(id));
    assertThat(kurir.sandbox().inbox(b).getFirst().messageId()).isGreaterThan(Long.parseLong(id));
  }

  @Test
  void anInvalidNumberRefusesTheWholeAsyncRequest() {
    String a = Numbers.fresh();
    Reply reply =
        post("/api/async_send_message", "\"phone_no\":\"" + a + ",abc\",\"message\":\"x\"");

    assertThat(reply.status()).isEqualTo(400);
    assertThat(reply.body()).isEqualTo("phone_no_not_valid");
    assertThat(kurir.gateway().messages().queued(device.id())).isZero();
    assertThat(kurir.sandbox().inbox(a)).isEmpty();
  }

  @Test
  void anOfflineDeviceKeepsItsQueueAndSendsWhenBackOnline() {
    String to = Numbers.fresh();
    kurir.sandbox().setDeviceOnline(device.id(), false);
    String first = asyncSend(to, "one");
    asyncSend(to, "two");

    assertThat(post("/api/status_msg_id", "\"msg_id\":\"" + first + "\"").body())
        .isEqualTo("phone_offline");
    assertThat(kurir.gateway().messages().queued(device.id())).isEqualTo(2);

    kurir.sandbox().setDeviceOnline(device.id(), true);
    Eventually.until("sent in order", () -> kurir.sandbox().inbox(to).size() == 2);
    assertThat(kurir.sandbox().inbox(to))
        .extracting(InboxEntry::text)
        .containsExactly("one", "two");
  }

  @Test
  void deliveryStatusMovesSentDeliveryReadWithTheClock() {
    String to = Numbers.fresh();
    String id = asyncSend(to, "track me");
    Eventually.until("sent", () -> deliveryStatus(id).contains("\"status\":\"sent\""));

    String sent = deliveryStatus(id);
    assertThat(sent)
        .matches(
            "\\{\"status\":\"success\",\"message\":\\{\"messageId\":\""
                + id
                + "\",\"sentDate\":\"2026-03-10 10:00:00\",\"status\":\"sent\","
                + "\"statusDate\":\"2026-03-10 10:00:00\",\"content\":\"track me\"}}");

    clock.advance(Duration.ofSeconds(1));
    Eventually.until("delivered", () -> deliveryStatus(id).contains("\"status\":\"delivery\""));
    assertThat(deliveryStatus(id)).contains("\"statusDate\":\"2026-03-10 10:00:01\"");

    clock.advance(Duration.ofSeconds(1));
    Eventually.until("read", () -> deliveryStatus(id).contains("\"status\":\"read\""));
    assertThat(deliveryStatus(id)).contains("\"sentDate\":\"2026-03-10 10:00:00\"");
  }

  private String deliveryStatus(String id) {
    return post("/api/check_delivery_status", "\"messageId\":\"" + id + "\"").body();
  }

  @Test
  void aFailedMessageSaysWhyInDeliveryStatusAndReportAndNoOtherDoes() throws Exception {
    String gone = Numbers.fresh();
    kurir.sandbox().setRegistered(gone, false);
    String failed = asyncSend(gone, "to nobody");
    String reached = Numbers.fresh();
    String sent = asyncSend(reached, "to someone");
    // Failed once, queued again under flag_retry: pending, its last failure kept for operators.
    String flaky = Numbers.fresh();
    kurir
        .sandbox()
        .injectFailure(flaky, io.kurir.driver.sandbox.SandboxNetwork.FailureKind.FAIL, 1);
    String retried =
        post(
                "/api/async_send_message",
                "\"phone_no\":\"" + flaky + "\",\"message\":\"again\",\"flag_retry\":\"on\"")
            .body();
    Eventually.until("failed", () -> deliveryStatus(failed).contains("\"status\":\"not_exists\""));
    Eventually.until("sent", () -> deliveryStatus(sent).contains("\"status\":\"sent\""));
    Eventually.until(
        "failed once, to be retried",
        () ->
            kurir
                .gateway()
                .messages()
                .find(device, Long.parseLong(retried))
                .orElseThrow()
                .reason()
                .isPresent());

    JsonNode failedRecord = JSON.readTree(deliveryStatus(failed)).get("message");
    // A number not on the network reads not_exists here (the report keeps failed).
    assertThat(failedRecord.get("status").asText()).isEqualTo("not_exists");
    assertThat(failedRecord.get("reason").asText()).isEqualTo("number_not_found");
    assertThat(JSON.readTree(deliveryStatus(sent)).get("message").has("reason")).isFalse();
    JsonNode retriedRecord = JSON.readTree(deliveryStatus(retried)).get("message");
    assertThat(retriedRecord.get("status").asText()).isEqualTo("pending");
    assertThat(retriedRecord.has("reason")).as("not failed: no reason").isFalse();

    JsonNode report =
        JSON.readTree(post("/api/report_json", "\"time_choose\":\"today\"").body()).get("data");
    assertThat(report).hasSize(3);
    for (JsonNode row : report) {
      String id = row.get("message_id").asText();
      if (id.equals(failed)) {
        assertThat(row.get("status").asText()).isEqualTo("failed");
        assertThat(row.get("reason").asText()).isEqualTo("number_not_found");
      } else {
        assertThat(row.get("status").asText()).isIn("sent", "pending");
        assertThat(row.has("reason")).as("message %s is not failed: no reason", id).isFalse();
      }
    }
  }

  @Test
  void unknownIdsAndIdsOfAnotherKeyAreNotFound() {
    Device other = kurir.newDevice("+6281100008888", true);
    String to = Numbers.fresh();
    Reply mine =
        kurir.postJson(
            "/api/async_send_message",
            "{\"key\":\"" + other.ecoKey() + "\",\"phone_no\":\"" + to + "\",\"message\":\"x\"}");
    Eventually.until("sent", () -> kurir.sandbox().inbox(to).size() == 1);

    for (String id : List.of(mine.body(), "123", "abc", "99999999999999999999")) {
      assertThat(post("/api/status_msg_id", "\"msg_id\":\"" + id + "\"").body())
          .as(id)
          .isEqualTo("not_found");
      assertThat(deliveryStatus(id))
          .as(id)
          .isEqualTo("{\"status\":\"failed\",\"message\":\"not_found\"}");
    }
    assertThat(post("/api/status_msg_id", "\"msg_id\":" + mine.body()).body())
        .as("another key cannot see it")
        .isEqualTo("not_found");
    Eventually.until(
        "its own key sees it sent",
        () ->
            kurir
                .postJson(
                    "/api/status_msg_id",
                    "{\"key\":\"" + other.ecoKey() + "\",\"msg_id\":" + mine.body() + "}")
                .body()
                .equals("success"));
  }

  @Test
  void pendingTimeHoldsTheMessageForThatManySeconds() {
    String to = Numbers.fresh();
    String id = asyncSend(to + "\",\"pendingTime\":\"30", "later");

    assertThat(kurir.gateway().messages().queued(device.id())).isEqualTo(1);
    clock.advance(Duration.ofSeconds(29));
    assertThat(post("/api/status_msg_id", "\"msg_id\":\"" + id + "\"").body())
        .isEqualTo("phone_offline");
    assertThat(kurir.sandbox().inbox(to)).isEmpty();

    clock.advance(Duration.ofSeconds(1));
    Eventually.until("sent after 30 s", () -> kurir.sandbox().inbox(to).size() == 1);
  }

  @Test
  void aSyncSendWithPendingTimeAnswersSuccessOnceAccepted() {
    String to = Numbers.fresh();
    Reply reply =
        post(
            "/api/send_message", "\"phone_no\":\"" + to + "\",\"message\":\"x\",\"pendingTime\":5");

    assertThat(reply.body()).isEqualTo("success");
    assertThat(kurir.sandbox().inbox(to)).isEmpty();
    clock.advance(Duration.ofSeconds(5));
    Eventually.until("sent", () -> kurir.sandbox().inbox(to).size() == 1);
  }

  @Test
  void badPendingTimeIsRefused() {
    Reply reply =
        post(
            "/api/async_send_message",
            "\"phone_no\":\"" + Numbers.fresh() + "\",\"message\":\"x\",\"pendingTime\":\"soon\"");
    assertThat(reply.status()).isEqualTo(400);
    assertThat(reply.body()).isEqualTo("pendingTime_not_valid");
  }

  @Test
  void flagRetryTriesAFailedSendAgainAfterTheBackoff() {
    String to = Numbers.fresh();
    kurir.sandbox().injectFailure(to, io.kurir.driver.sandbox.SandboxNetwork.FailureKind.FAIL, 1);

    Reply reply =
        post(
            "/api/send_message",
            "\"phone_no\":\"" + to + "\",\"message\":\"again\",\"flag_retry\":\"on\"");

    assertThat(reply.body()).isEqualTo("Other error");
    assertThat(kurir.gateway().messages().queued(device.id())).isEqualTo(1);
    clock.advance(Duration.ofSeconds(10)); // send.retry-backoff of the test gateway
    Eventually.until("retried", () -> kurir.sandbox().inbox(to).size() == 1);
    assertThat(kurir.sandbox().inbox(to).getFirst().text()).isEqualTo("again");
  }

  @Test
  void checkNumberAnswersExistsNotExistsAndUnknow() {
    String on = Numbers.fresh();
    String off = Numbers.fresh();
    kurir.sandbox().setRegistered(off, false);

    assertThat(post("/api/check_number", "\"phone_no\":\"" + Numbers.national(on) + "\"").body())
        .isEqualTo("exists");
    assertThat(post("/api/check_number", "\"phone_no\":" + Numbers.digits(on)).body())
        .isEqualTo("exists");
    assertThat(post("/api/check_number", "\"phone_no\":\"" + off + "\"").body())
        .isEqualTo("not_exists");
    assertThat(post("/api/check_number", "\"phone_no\":\"garbage\"").body())
        .isEqualTo("not_exists");

    kurir.sandbox().setDeviceOnline(device.id(), false);
    assertThat(post("/api/check_number", "\"phone_no\":\"" + on + "\"").body()).isEqualTo("unknow");
  }

  @Test
  void aSyncSendWithFlagRetryToAnOfflineDeviceAnswersAtOnceAndStaysQueued() {
    String to = Numbers.fresh();
    kurir.sandbox().setDeviceOnline(device.id(), false);

    long started = System.nanoTime();
    Reply reply =
        post(
            "/api/send_message",
            "\"phone_no\":\"" + to + "\",\"message\":\"keep\",\"flag_retry\":\"on\"");

    assertThat(reply.body()).isEqualTo("phone_offline");
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .as("at once (a busy machine's slack), not at the 10 s sync timeout")
        .isLessThan(Duration.ofSeconds(8));
    assertThat(kurir.gateway().messages().queued(device.id())).isEqualTo(1);
    kurir.sandbox().setDeviceOnline(device.id(), true);
    Eventually.until("sent once online", () -> kurir.sandbox().inbox(to).size() == 1);
  }

  @Test
  void aHeldSyncSendWaitsForAnOfflineDeviceLikeAnAsyncOne() {
    String to = Numbers.fresh();
    kurir.sandbox().setDeviceOnline(device.id(), false);
    assertThat(
            post(
                    "/api/send_message",
                    "\"phone_no\":\"" + to + "\",\"message\":\"x\",\"pendingTime\":1")
                .body())
        .isEqualTo("success");

    clock.advance(Duration.ofSeconds(2));
    assertThat(kurir.gateway().messages().queued(device.id())).isEqualTo(1);
    kurir.sandbox().setDeviceOnline(device.id(), true);
    Eventually.until("sent once online", () -> kurir.sandbox().inbox(to).size() == 1);
  }

  /** {@code skip_link} reaches the driver as {@code OutgoingMessage.linkPreview}. */
  @Test
  void skipLinkGoesOutWithoutALinkPreview() throws Exception {
    String to = Numbers.fresh();
    String text = "\"phone_no\":\"" + to + "\",\"message\":\"Lihat https://kurir.example.com\"";
    assertThat(post("/api/send_message", text + ",\"skip_link\":true").body()).isEqualTo("success");
    assertThat(post("/api/send_message", text).body()).isEqualTo("success");
    assertThat(post("/api/send_message", text + ",\"skip_link\":\"false\"").body())
        .isEqualTo("success");

    assertThat(kurir.sandbox().inbox(to))
        .extracting(InboxEntry::linkPreview)
        .containsExactly(false, true, true);
    JsonNode inbox =
        new ObjectMapper()
            .readTree(
                kurir
                    .get(
                        "/sandbox/phones/" + to.replace("+", "%2B") + "/inbox",
                        "Authorization",
                        "Bearer " + TestGateway.ADMIN_TOKEN)
                    .body());
    assertThat(inbox.get("messages").get(0).get("linkPreview").asBoolean()).isFalse();
    assertThat(inbox.get("messages").get(1).get("linkPreview").asBoolean()).isTrue();
  }

  /** The flag is kept with the message: it still holds when the message goes out later. */
  @Test
  void aHeldAsyncSendKeepsSkipLinkAcrossARestart() {
    String to = Numbers.fresh();
    Reply reply =
        post(
            "/api/async_send_message",
            "\"phone_no\":\""
                + to
                + "\",\"message\":\"https://kurir.example.com\",\"skip_link\":1,\"pendingTime\":30");
    assertThat(reply.body()).matches("\\d+");

    kurir.restart(); // the flag now comes from the stored message, not from the request
    clock.advance(Duration.ofSeconds(30));
    Eventually.until("sent after 30 s", () -> kurir.sandbox().inbox(to).size() == 1);
    assertThat(kurir.sandbox().inbox(to).getFirst().linkPreview()).isFalse();
  }
}
