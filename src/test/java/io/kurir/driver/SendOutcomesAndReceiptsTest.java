package io.kurir.driver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.driver.Receipt.Status;
import io.kurir.message.Message;
import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.ScriptedDriver;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.TestTables;
import io.kurir.testing.WebhookReceiver;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a driver answers for a send, and what its network reports afterwards, as the gateway records
 * it: network ids, receipts keyed by them (also when they come before the send's outcome), failures
 * after {@code sent}, sends the network accepted and decides later, permanent failures, and answers
 * that are not attempts. The driver is a {@link ScriptedDriver}; the clock only moves when a test
 * moves it.
 */
class SendOutcomesAndReceiptsTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String[] AUTH = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};

  @TempDir Path dir;
  final SettableClock clock = TestGateway.settableClock();
  final ScriptedDriver driver = new ScriptedDriver("scripted", false, clock);
  TestGateway kurir;
  Device device;

  @BeforeEach
  void start() {
    kurir =
        TestGateway.start(
            dir,
            clock,
            new ScriptedDriver.Factory(driver),
            "--media.allow-private-addresses=true",
            "--send.sync-timeout=10s");
    device = kurir.newDevice("+6281100007201", "scripted", Map.of());
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  private long send(String to, String extraFields) {
    Reply reply =
        kurir.postJson(
            "/api/async_send_message",
            "{\"key\":\""
                + device.ecoKey()
                + "\",\"phone_no\":\""
                + to
                + "\",\"message\":\"hello\""
                + extraFields
                + "}");
    assertThat(reply.body()).matches("\\d+");
    return Long.parseLong(reply.body());
  }

  private Message message(long id) {
    return kurir.gateway().messages().find(device, id).orElseThrow();
  }

  private MessageState state(long id) {
    return message(id).state();
  }

  private Optional<String> networkIdOf(long id) {
    return kurir.networkIdOf(id);
  }

  private int earlyReceipts() {
    return TestTables.of(kurir).earlyReceipts();
  }

  private void receipt(String networkId, Status status, Optional<String> reason) {
    driver
        .listener()
        .receipt(Receipt.ofNetworkId(device.id(), networkId, status, reason, clock.instant()));
  }

  private JsonNode adminMessage(long id) throws Exception {
    Reply reply = kurir.get("/admin/messages/" + id, AUTH);
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    return JSON.readTree(reply.body());
  }

  private JsonNode deliveryStatus(long id) throws Exception {
    return JSON.readTree(
        kurir
            .postJson(
                "/api/check_delivery_status",
                "{\"key\":\"" + device.ecoKey() + "\",\"messageId\":\"" + id + "\"}")
            .body());
  }

  @Test
  void theNetworkIdOfASendIsStoredAndReceiptsByThatIdMoveTheMessage() throws Exception {
    long id = send(Numbers.fresh(), "");
    Eventually.until("sent", () -> state(id) == MessageState.SENT);
    assertThat(networkIdOf(id)).contains(ScriptedDriver.networkIdOf(id));

    receipt(ScriptedDriver.networkIdOf(id), Status.DELIVERED, Optional.empty());
    Eventually.until("delivered", () -> state(id) == MessageState.DELIVERY);
    assertThat(deliveryStatus(id).get("message").get("status").asText()).isEqualTo("delivery");

    receipt(ScriptedDriver.networkIdOf(id), Status.READ, Optional.empty());
    Eventually.until("read", () -> state(id) == MessageState.READ);
    assertThat(deliveryStatus(id).get("message").get("status").asText()).isEqualTo("read");
    assertThat(adminMessage(id).get("events"))
        .extracting(e -> e.get("state").asText())
        .containsExactly("pending", "sending", "sent", "delivery", "read");
  }

  @Test
  void aReceiptForTheSameNetworkIdOfAnotherDeviceDoesNotMoveTheMessage() {
    Device other = kurir.newDevice("+6281100007202", "scripted", Map.of());
    long id = send(Numbers.fresh(), "");
    Eventually.until("sent", () -> state(id) == MessageState.SENT);

    driver
        .listener()
        .receipt(
            Receipt.ofNetworkId(
                other.id(),
                ScriptedDriver.networkIdOf(id),
                Status.READ,
                Optional.empty(),
                clock.instant()));
    // Receipts are recorded in order: once this one has moved its message, the one before was
    // recorded too.
    receipt(ScriptedDriver.networkIdOf(id), Status.DELIVERED, Optional.empty());
    Eventually.until("delivered", () -> state(id) == MessageState.DELIVERY);
    assertThat(earlyReceipts()).as("kept for the other device's own message, if it comes").isOne();
  }

  @Test
  void receiptsThatComeBeforeTheSendsOutcomeIsRecordedAreAppliedOnceItIs() throws Exception {
    String to = Numbers.fresh();
    Instant at = clock.instant();
    driver.then(
        to,
        m -> {
          // The network reports delivery and reading before the send's own answer is recorded.
          driver
              .listener()
              .receipt(
                  Receipt.ofNetworkId(
                      device.id(),
                      "EARLY-1",
                      Status.DELIVERED,
                      Optional.empty(),
                      at.plusMillis(1)));
          driver
              .listener()
              .receipt(
                  Receipt.ofNetworkId(
                      device.id(), "EARLY-1", Status.READ, Optional.empty(), at.plusMillis(2)));
          Eventually.until("both receipts kept", () -> earlyReceipts() == 2);
          return SendOutcome.Sent.of("EARLY-1", at);
        });
    long id = send(to, "");

    Eventually.until("read", () -> state(id) == MessageState.READ);
    assertThat(networkIdOf(id)).contains("EARLY-1");
    assertThat(earlyReceipts()).as("matched and removed").isZero();
    assertThat(adminMessage(id).get("events"))
        .extracting(e -> e.get("state").asText())
        .containsExactly("pending", "sending", "sent", "delivery", "read");
  }

  @Test
  void aReceiptThatComesBeforeAnAcceptedSendsNetworkIdIsAppliedOnceItIsRecorded() {
    String to = Numbers.fresh();
    driver.then(
        to,
        m -> {
          receipt("EARLY-ACC", Status.DELIVERED, Optional.empty());
          Eventually.until("the receipt kept", () -> earlyReceipts() == 1);
          return new SendOutcome.Accepted(Optional.of("EARLY-ACC"));
        });
    long id = send(to, "");

    Eventually.until("delivered", () -> state(id) == MessageState.DELIVERY);
    assertThat(earlyReceipts()).isZero();
  }

  @Test
  void aReceiptByKurirsOwnIdMovesTheMessage() {
    long id = send(Numbers.fresh(), "");
    Eventually.until("sent", () -> state(id) == MessageState.SENT);

    driver.listener().receipt(Receipt.of(device.id(), id, Status.READ, clock.instant()));
    Eventually.until("read", () -> state(id) == MessageState.READ);
  }

  @Test
  void aFailureReportedAfterSentFailsTheMessageWithItsReasonEverywhere() throws Exception {
    WebhookReceiver receiver = new WebhookReceiver();
    try (receiver) {
      var license = kurir.licenseOf(device);
      kurir.postForm(
          "/v2.0/webhook",
          "license="
              + license.code()
              + "&no_wa=6281100007201&action=set_outgoing&url="
              + receiver.url("/out"));
      long id = send(Numbers.fresh(), "");
      long other = send(Numbers.fresh(), "");
      Eventually.until(
          "both sent", () -> state(id) == MessageState.SENT && state(other) == MessageState.SENT);

      receipt(ScriptedDriver.networkIdOf(id), Status.FAILED, Optional.of("undeliverable"));
      Eventually.until("failed", () -> state(id) == MessageState.FAILED);
      assertThat(message(id).reason()).contains("undeliverable");

      // A late delivery receipt does not bring it back; once the next receipt (recorded after it)
      // has moved its own message, the late one was looked at.
      receipt(ScriptedDriver.networkIdOf(id), Status.DELIVERED, Optional.empty());
      receipt(ScriptedDriver.networkIdOf(other), Status.DELIVERED, Optional.empty());
      Eventually.until("the other delivered", () -> state(other) == MessageState.DELIVERY);
      assertThat(state(id)).isEqualTo(MessageState.FAILED);

      assertThat(deliveryStatus(id).get("message").get("status").asText()).isEqualTo("failed");
      JsonNode admin = adminMessage(id);
      assertThat(admin.get("message").get("state").asText()).isEqualTo("failed");
      assertThat(admin.get("message").get("reason").asText()).isEqualTo("undeliverable");
      assertThat(admin.get("events"))
          .extracting(e -> e.get("state").asText())
          .containsExactly("pending", "sending", "sent", "failed");

      Eventually.until(
          "the failure reaches the outgoing webhook",
          () ->
              receiver.received().stream()
                  .map(WebhookReceiver.Received::json)
                  .anyMatch(
                      e ->
                          e.get("messageId").asText().equals(Long.toString(id))
                              && e.get("status").asText().equals("failed")));
      List<JsonNode> ofMessage =
          receiver.received().stream()
              .map(WebhookReceiver.Received::json)
              .filter(e -> e.get("messageId").asText().equals(Long.toString(id)))
              .toList();
      assertThat(ofMessage)
          .extracting(e -> e.get("status").asText())
          .containsExactly("sent", "failed");
      assertThat(ofMessage.getLast().get("reason").asText()).isEqualTo("undeliverable");
    }
  }

  @Test
  void anAcceptedSendStaysSendingUntilItsOutcomeOrAReceiptComes() {
    String toOutcome = Numbers.fresh();
    String toReceipt = Numbers.fresh();
    driver.then(toOutcome, m -> new SendOutcome.Accepted(Optional.of("ACC-1")));
    driver.then(toReceipt, m -> new SendOutcome.Accepted(Optional.of("ACC-2")));
    long decidedLater = send(toOutcome, "");
    long receipted = send(toReceipt, "");
    long after = send(Numbers.fresh(), "");

    Eventually.until("the queue went on", () -> state(after) == MessageState.SENT);
    Eventually.until(
        "the network ids of the accepted sends recorded",
        () ->
            networkIdOf(decidedLater).equals(Optional.of("ACC-1"))
                && networkIdOf(receipted).equals(Optional.of("ACC-2")));
    assertThat(state(decidedLater)).isEqualTo(MessageState.SENDING);
    assertThat(state(receipted)).isEqualTo(MessageState.SENDING);

    driver
        .listener()
        .outcome(device.id(), decidedLater, SendOutcome.Sent.of("ACC-1", clock.instant()));
    Eventually.until("sent once reported", () -> state(decidedLater) == MessageState.SENT);

    receipt("ACC-2", Status.DELIVERED, Optional.empty());
    Eventually.until("delivered by its receipt", () -> state(receipted) == MessageState.DELIVERY);

    // An outcome for a message that is not sending any more changes nothing.
    driver.listener().outcome(device.id(), after, new SendOutcome.NotFound());
    assertThat(state(after)).isEqualTo(MessageState.SENT);
    assertThat(driver.sentIds()).containsExactly(decidedLater, receipted, after);
  }

  @Test
  void anAcceptedSendReportedLaterAsNotSentGoesBackToTheQueueAndOutAgain() {
    String to = Numbers.fresh();
    driver.then(to, m -> new SendOutcome.Accepted(Optional.of("ACC-3")));
    long id = send(to, "");
    Eventually.until("accepted", () -> networkIdOf(id).equals(Optional.of("ACC-3")));

    // The network could not send it after all (the session dropped): not an attempt, and the
    // device's sender, idle since its queue emptied, must look at its queue again.
    driver.listener().outcome(device.id(), id, new SendOutcome.DeviceUnavailable());
    // Within half the sender's 30 s idle wait: it was woken, and a busy machine has room.
    Eventually.until("sent again", Duration.ofSeconds(15), () -> state(id) == MessageState.SENT);
    assertThat(message(id).attempts()).isOne();
    assertThat(driver.sentIds()).containsExactly(id, id);
  }

  @Test
  void anAcceptedSendIsNotCutOffByARestartAndItsReceiptStillCounts() {
    String to = Numbers.fresh();
    driver.then(to, m -> new SendOutcome.Accepted(Optional.of("ACC-R")));
    long id = send(to, "");
    Eventually.until("accepted", () -> networkIdOf(id).equals(Optional.of("ACC-R")));

    // The network has the message: its outcome is not unknown, only not reported yet. A restart
    // must not take it for a send cut off mid-way (failed "interrupted" on this driver).
    kurir.restart();
    long next = send(Numbers.fresh(), ""); // the device's sender has taken its lease again
    Eventually.until("the next one sent", () -> state(next) == MessageState.SENT);
    assertThat(state(id)).isEqualTo(MessageState.SENDING);

    receipt("ACC-R", Status.DELIVERED, Optional.empty());
    Eventually.until("delivered", () -> state(id) == MessageState.DELIVERY);
    assertThat(driver.sentIds()).as("not sent again").containsExactly(id, next);
  }

  @Test
  void aSyncCallerOfAnAcceptedSendIsAnsweredWhenTheOutcomeIsReported() throws Exception {
    String to = Numbers.fresh();
    driver.then(to, m -> new SendOutcome.Accepted(Optional.of("ACC-SYNC")));
    CompletableFuture<Reply> caller =
        CompletableFuture.supplyAsync(
            () ->
                kurir.postJson(
                    "/api/send_message",
                    "{\"key\":\""
                        + device.ecoKey()
                        + "\",\"phone_no\":\""
                        + to
                        + "\","
                        + "\"message\":\"otp 1234\"}"));
    Eventually.until("the driver has it", () -> driver.sends().size() == 1);
    long id = driver.sentIds().getFirst();
    Eventually.until("accepted", () -> networkIdOf(id).equals(Optional.of("ACC-SYNC")));
    assertThat(caller).as("no answer before the outcome").isNotDone();

    driver.listener().outcome(device.id(), id, SendOutcome.Sent.of("ACC-SYNC", clock.instant()));
    assertThat(caller.get().body()).isEqualTo("success");
  }

  @Test
  void aPermanentFailureIsFinalEvenUnderFlagRetry() throws Exception {
    String to = Numbers.fresh();
    driver.then(to, m -> new SendOutcome.Permanent("recipient_blocked", "the network refused it"));
    long id = send(to, ",\"flag_retry\":\"on\"");

    Eventually.until("failed", () -> state(id) == MessageState.FAILED);
    Message failed = message(id);
    assertThat(failed.reason()).contains("recipient_blocked");
    assertThat(failed.attempts()).isOne();
    // A retry would have put it back to pending; moving the clock past any backoff sends nothing.
    clock.advance(Duration.ofHours(2));
    long next = send(Numbers.fresh(), "");
    Eventually.until("the next one sent", () -> state(next) == MessageState.SENT);
    assertThat(driver.sentIds()).containsExactly(id, next);
    assertThat(adminMessage(id).get("events"))
        .extracting(e -> e.get("state").asText())
        .containsExactly("pending", "sending", "failed");
  }

  @Test
  void aRetryAfterIsNotAnAttemptAndTheMessageGoesOutLater() {
    String to = Numbers.fresh();
    driver.then(to, m -> new SendOutcome.RetryAfter(Duration.ofMillis(50), "rate limited"));
    long id = send(to, "");

    Eventually.until(
        "back in the queue, not counted",
        () ->
            driver.sentIds().contains(id)
                && state(id) == MessageState.PENDING
                && message(id).attempts() == 0);
    assertThat(message(id).notBefore()).isAfter(clock.instant());
    assertThat(driver.sentIds()).containsExactly(id);

    clock.advance(Duration.ofSeconds(1));
    Eventually.until("sent later", () -> state(id) == MessageState.SENT);
    assertThat(message(id).attempts()).isOne();
    assertThat(driver.sentIds()).containsExactly(id, id);
  }

  @Test
  void aDeferredMessageWaitsAloneAndTheQueueGoesOn() {
    String held = Numbers.fresh();
    java.time.Instant until = clock.instant().plus(Duration.ofHours(1));
    driver.then(held, m -> new SendOutcome.Deferred(until, "a limit on new contacts"));
    long first = send(held, "");
    Eventually.until(
        "deferred, not counted",
        () ->
            driver.sentIds().contains(first)
                && state(first) == MessageState.PENDING
                && message(first).attempts() == 0);
    assertThat(message(first).notBefore().toEpochMilli()).isEqualTo(until.toEpochMilli());

    // The device's queue goes on: the next message is sent without the clock moving.
    long next = send(Numbers.fresh(), "");
    Eventually.until("the next one sent", () -> state(next) == MessageState.SENT);
    assertThat(state(first)).isEqualTo(MessageState.PENDING);
    assertThat(driver.sentIds()).containsExactly(first, next);

    clock.advance(Duration.ofHours(1));
    Eventually.until("sent at its time", () -> state(first) == MessageState.SENT);
    assertThat(message(first).attempts()).isOne();
  }

  @Test
  void aDeviceUnavailableAnswerIsNotAnAttemptAndTheMessageWaitsForTheDevice() {
    String to = Numbers.fresh();
    driver.then(to, m -> new SendOutcome.DeviceUnavailable());
    long id = send(to, "");

    Eventually.until(
        "back in the queue, not counted",
        () ->
            driver.sentIds().contains(id)
                && state(id) == MessageState.PENDING
                && message(id).attempts() == 0);
    assertThat(driver.sentIds()).containsExactly(id);

    driver.listener().connectionChanged(device.id(), true); // the device is reachable again
    Eventually.until("sent once the device is back", () -> state(id) == MessageState.SENT);
    assertThat(message(id).attempts()).isOne();
    assertThat(driver.sentIds()).containsExactly(id, id);
  }
}
