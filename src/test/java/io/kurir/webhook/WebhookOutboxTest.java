package io.kurir.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.device.DeviceState;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestTables;
import io.kurir.testing.TricklingReceiver;
import io.kurir.testing.TricklingReceiver.Connection;
import io.kurir.testing.TricklingReceiver.Trickle;
import io.kurir.testing.WebhookReceiver;
import io.kurir.testing.WebhookReceiver.Received;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The outbox against real receivers on loopback: never twice to a healthy receiver, one deadline
 * for a whole attempt however slowly a receiver answers, and the ordering rule (a refused event
 * holds back the rest for at most {@link WebhookOutbox#HOLD}; one message's statuses stay in
 * order).
 */
class WebhookOutboxTest {
  @TempDir Path dir;

  static final String[] PRIVATE_URLS = {"--media.allow-private-addresses=true"};

  List<Device> devicesWithStatusWebhook(TestGateway kurir, int count, int first, String url) {
    List<Device> devices = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Device d =
          kurir.newDevice(String.format(Locale.ROOT, "+62811%07d", first + i), /* paired */ false);
      kurir.gateway().deviceStates().setStatusWebhook(d.id(), url + "/" + i);
      devices.add(d);
    }
    return devices;
  }

  Map<String, Object> delivery(TestGateway kurir, String eventId) {
    return TestTables.of(kurir).deliveryColumns(Long.parseLong(eventId));
  }

  long count(TestGateway kurir, String state, int attempts) {
    return TestTables.of(kurir).deliveries().stream()
        .filter(d -> d.state().equals(state) && (attempts < 0 || d.attempts() == attempts))
        .count();
  }

  // --- never twice

  /**
   * Issue 12: 80 devices × 30 state changes to one healthy receiver. The outbox before claims
   * delivered 85 to 757 of these 2,400 events twice.
   */
  @Test
  void aHealthyReceiverGetsEachOfManyEventsExactlyOnce() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver();
        TestGateway kurir = TestGateway.start(dir, PRIVATE_URLS)) {
      List<Device> devices = devicesWithStatusWebhook(kurir, 80, 4_000_000, receiver.url("/s"));
      List<Thread> changers = new ArrayList<>();
      for (Device d : devices) {
        changers.add(
            Thread.ofVirtual()
                .start(
                    () -> {
                      for (int k = 0; k < 30; k++) {
                        DeviceState next = k % 2 == 0 ? DeviceState.ONLINE : DeviceState.OFFLINE;
                        kurir.gateway().deviceStates().record(d.id(), next, "test");
                      }
                    }));
      }
      for (Thread t : changers) {
        t.join();
      }
      Eventually.until(
          "all 2,400 events delivered",
          Duration.ofSeconds(180), // a hang guard for heavy work on a busy machine
          () -> count(kurir, "delivered", -1) == 2400);
      kurir.stop(); // attempts under way end before this returns: nothing can arrive later
      assertThat(receiver.distinctEvents()).isEqualTo(2400);
      assertThat(receiver.duplicates()).as("events received twice").isZero();
      assertThat(receiver.received()).hasSize(2400);
    }
  }

  // --- one deadline per attempt

  /**
   * Slack over the 2 s deadline for a busy machine: wide, since what it tells apart is a receiver
   * that would hold the connection for an hour.
   */
  static final Duration BUSY_SLACK = Duration.ofSeconds(10);

  /**
   * Waits for the first connection to {@code receiver} to be closed by Kurir, and checks that the
   * attempt ended at its 2 s deadline: not before 2 s after the event was stored at {@code
   * storedNanos} (the deadline starts after that), and with the connection open for no more than
   * the deadline and {@link #BUSY_SLACK}.
   */
  static void endedAtTheDeadline(TricklingReceiver receiver, long storedNanos) throws Exception {
    Eventually.until("Kurir connects", () -> !receiver.connections().isEmpty());
    Connection c = receiver.connections().getFirst();
    long closed = c.closedNanos().get(Eventually.GUARD.toSeconds(), TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(closed - storedNanos))
        .isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    assertThat(Duration.ofNanos(closed - c.acceptedNanos()))
        .isLessThan(Duration.ofSeconds(2).plus(BUSY_SLACK));
  }

  @Test
  void anAttemptEndsAtTheTimeoutWhenTheReceiverTricklesItsBody() throws Exception {
    try (TricklingReceiver slow = new TricklingReceiver(Trickle.BODY);
        TestGateway kurir =
            TestGateway.start(
                dir, "--media.allow-private-addresses=true", "--webhook.timeout=2s")) {
      Device d = devicesWithStatusWebhook(kurir, 1, 4_100_000, slow.url("/body")).getFirst();
      long stored = System.nanoTime();
      kurir.gateway().deviceStates().record(d.id(), DeviceState.ONLINE, "test");

      endedAtTheDeadline(slow, stored);
      Eventually.until(
          "the attempt recorded as failed, to be retried", () -> count(kurir, "pending", 1) == 1);
      String error = TestTables.of(kurir).deliveries().getFirst().lastError().orElse(null);
      assertThat(error).isEqualTo("no complete answer within 2000 ms");
    }
  }

  @Test
  void anAttemptEndsAtTheTimeoutWhenTheReceiverTricklesItsHeaders() throws Exception {
    try (TricklingReceiver slow = new TricklingReceiver(Trickle.EVERYTHING);
        TestGateway kurir =
            TestGateway.start(
                dir, "--media.allow-private-addresses=true", "--webhook.timeout=2s")) {
      Device d = devicesWithStatusWebhook(kurir, 1, 4_200_000, slow.url("/all")).getFirst();
      long stored = System.nanoTime();
      kurir.gateway().deviceStates().record(d.id(), DeviceState.ONLINE, "test");

      endedAtTheDeadline(slow, stored);
      Eventually.until("the attempt recorded", () -> count(kurir, "pending", 1) == 1);
    }
  }

  /**
   * Issue 12: 64 receivers that trickle their answers took every delivery slot for as long as they
   * liked. Now each holds its slot for the timeout at most.
   */
  @Test
  void eightySlowReceiversDelayAHealthyOneByOneTimeoutAtMost() throws Exception {
    try (TricklingReceiver slow = new TricklingReceiver(Trickle.BODY);
        WebhookReceiver healthy = new WebhookReceiver();
        TestGateway kurir =
            TestGateway.start(
                dir, "--media.allow-private-addresses=true", "--webhook.timeout=2s")) {
      List<Device> slowDevices = devicesWithStatusWebhook(kurir, 80, 4_300_000, slow.url("/s"));
      Device fine = devicesWithStatusWebhook(kurir, 1, 4_400_000, healthy.url("/h")).getFirst();
      for (Device d : slowDevices) {
        kurir.gateway().deviceStates().record(d.id(), DeviceState.ONLINE, "test");
      }
      Eventually.until(
          "every delivery slot is taken by a slow receiver",
          () -> slow.connections().size() >= WebhookOutbox.MAX_IN_FLIGHT);

      long t0 = System.nanoTime();
      kurir.gateway().deviceStates().record(fine.id(), DeviceState.ONLINE, "test");
      Eventually.until("the healthy receiver gets its event", () -> !healthy.received().isEmpty());
      Duration waited = Duration.ofNanos(System.nanoTime() - t0);
      assertThat(waited).isLessThan(Duration.ofSeconds(2).plus(BUSY_SLACK)); // one timeout at most

      for (Connection c : slow.connections().subList(0, WebhookOutbox.MAX_IN_FLIGHT)) {
        Duration lived =
            Duration.ofNanos(
                c.closedNanos().get(Eventually.GUARD.toSeconds(), TimeUnit.SECONDS)
                    - c.acceptedNanos());
        assertThat(lived).isLessThan(Duration.ofSeconds(2).plus(BUSY_SLACK));
      }
    }
  }

  // --- order

  /** Until when event {@code eventId} holds back the later events to its URL. */
  Instant heldUntil(TestGateway kurir, String eventId) {
    Object held = delivery(kurir, eventId).get("held_until");
    return Instant.ofEpochMilli(((Number) held).longValue());
  }

  Instant nextAttempt(TestGateway kurir, String eventId) {
    return Instant.ofEpochMilli(
        ((Number) delivery(kurir, eventId).get("next_attempt_at")).longValue());
  }

  int attempts(TestGateway kurir, String eventId) {
    return ((Number) delivery(kurir, eventId).get("attempts")).intValue();
  }

  List<String> messagesOf(List<Received> received) {
    return received.stream().map(r -> r.json().get("message").asText()).toList();
  }

  @Test
  void aRefusedEventHoldsBackTheLaterOnesForAMinuteThenTheyGoOn() throws Exception {
    SettableClock clock = TestGateway.settableClock();
    try (WebhookReceiver receiver = new WebhookReceiver();
        TestGateway kurir = TestGateway.start(dir, clock, PRIVATE_URLS)) {
      Device d = kurir.newDevice("+6281100008201", true);
      License l = kurir.licenseOf(d);
      kurir.postForm(
          "/v2.0/webhook",
          "license=" + l.code() + "&no_wa=6281100008201&action=set&url=" + receiver.url("/in"));
      receiver.refuseWhen(r -> r.body().contains("racun")); // its handler chokes on this one
      String sender = Numbers.fresh();

      kurir.sandbox().injectIncoming(d.id(), sender, "racun");
      Eventually.until("the first attempt", () -> receiver.received().size() == 1);
      String refused = receiver.received().getFirst().eventId();
      Eventually.until("its failure recorded", () -> attempts(kurir, refused) == 1);
      Instant firstFailure = clock.instant();
      assertThat(heldUntil(kurir, refused)).isEqualTo(firstFailure.plus(WebhookOutbox.HOLD));

      kurir.sandbox().injectIncoming(d.id(), sender, "pesan 2");
      kurir.sandbox().injectIncoming(d.id(), sender, "pesan 3");
      for (int attempt = 2; attempt <= 3; attempt++) { // after 10-12 s, then 20-24 s more
        clock.set(nextAttempt(kurir, refused));
        int made = attempt;
        Eventually.until("retried", () -> attempts(kurir, refused) == made);
        assertThat(messagesOf(receiver.received()))
            .as("the later events wait while it is retried within the hold")
            .containsOnly("racun")
            .hasSize(attempt);
      }
      assertThat(nextAttempt(kurir, refused))
          .as("its fourth attempt comes after the hold")
          .isAfter(firstFailure.plus(WebhookOutbox.HOLD));

      clock.set(firstFailure.plus(WebhookOutbox.HOLD));
      Eventually.until(
          "the later events go on once the hold is over",
          () -> messagesOf(receiver.received()).contains("pesan 3"));
      assertThat(messagesOf(receiver.received()))
          .containsExactly("racun", "racun", "racun", "pesan 2", "pesan 3");

      // The refused event is still tried, on its own schedule, and its number shows its place.
      receiver.refuseWhen(r -> false);
      Eventually.until(
          "its next retry scheduled", () -> nextAttempt(kurir, refused).isAfter(clock.instant()));
      clock.set(nextAttempt(kurir, refused));
      Eventually.until(
          "delivered at last", () -> "delivered".equals(delivery(kurir, refused).get("state")));
      Received last = receiver.received().getLast();
      assertThat(last.json().get("message").asText()).isEqualTo("racun");
      assertThat(last.sequence()).isEqualTo("1");
      assertThat(
              receiver.received().stream()
                  .filter(r -> !r.body().contains("racun"))
                  .map(Received::sequence))
          .containsExactly("2", "3");
    }
  }

  @Test
  void theStatusesOfOneMessageStayInOrderBehindARefusedOne() throws Exception {
    SettableClock clock = TestGateway.settableClock();
    try (WebhookReceiver receiver = new WebhookReceiver();
        TestGateway kurir = TestGateway.start(dir, clock, PRIVATE_URLS)) {
      Device d = kurir.newDevice("+6281100008202", true);
      License l = kurir.licenseOf(d);
      kurir.postForm(
          "/v2.0/webhook",
          "license="
              + l.code()
              + "&no_wa=6281100008202&action=set_outgoing&url="
              + receiver.url("/out"));
      // The receiver chokes on the "sent" of the first message only.
      receiver.refuseWhen(
          r -> r.body().contains("\"message\":\"racun\"") && r.body().contains("\"sent\""));

      kurir.postJson(
          "/api/async_send_message",
          "{\"key\":\""
              + d.ecoKey()
              + "\",\"phone_no\":\""
              + Numbers.fresh()
              + "\","
              + "\"message\":\"racun\"}");
      Eventually.until("its sent event tried", () -> receiver.received().size() == 1);
      String refused = receiver.received().getFirst().eventId();
      Eventually.until("its failure recorded", () -> attempts(kurir, refused) == 1);
      Instant firstFailure = clock.instant();
      kurir.postJson(
          "/api/async_send_message",
          "{\"key\":\""
              + d.ecoKey()
              + "\",\"phone_no\":\""
              + Numbers.fresh()
              + "\","
              + "\"message\":\"biasa\"}");
      Eventually.until(
          "the second message sent (its event waits)", () -> count(kurir, "pending", -1) == 2);
      clock.advance(Duration.ofSeconds(3)); // both delivered (1 s) and read (2 s) on the sandbox
      Eventually.until("their receipts' events stored", () -> count(kurir, "pending", -1) == 6);

      clock.set(firstFailure.plus(WebhookOutbox.HOLD));
      Eventually.until(
          "the second message's statuses, in order",
          () -> receiver.received().stream().filter(r -> r.body().contains("biasa")).count() == 3);
      assertThat(
              receiver.received().stream()
                  .filter(r -> r.body().contains("biasa"))
                  .map(r -> r.json().get("status").asText()))
          .containsExactly("sent", "delivery", "read");
      assertThat(
              receiver.received().stream()
                  .filter(r -> r.body().contains("racun"))
                  .map(r -> r.json().get("status").asText()))
          .as("the first message's delivery and read wait for its sent")
          .containsOnly("sent");

      receiver.refuseWhen(r -> false);
      Eventually.until(
          "its next retry scheduled", () -> nextAttempt(kurir, refused).isAfter(clock.instant()));
      clock.set(nextAttempt(kurir, refused));
      Eventually.until(
          "the first message's statuses, in order",
          () -> count(kurir, "pending", -1) == 0 && receiver.received().size() >= 8);
      List<String> first =
          receiver.received().stream()
              .filter(r -> r.body().contains("racun"))
              .map(r -> r.json().get("status").asText())
              .toList();
      assertThat(first.subList(0, first.size() - 3)).containsOnly("sent"); // the refused tries
      assertThat(first.subList(first.size() - 3, first.size()))
          .containsExactly("sent", "delivery", "read");
    }
  }

  @Test
  void eachEventCarriesItsSequenceNumberAndTime() throws Exception {
    SettableClock clock = TestGateway.settableClock();
    try (WebhookReceiver receiver = new WebhookReceiver();
        TestGateway kurir = TestGateway.start(dir, clock, PRIVATE_URLS)) {
      List<Device> devices = devicesWithStatusWebhook(kurir, 2, 4_500_000, receiver.url("/s"));
      for (int k = 0; k < 3; k++) {
        for (Device d : devices) {
          kurir
              .gateway()
              .deviceStates()
              .record(d.id(), k % 2 == 0 ? DeviceState.ONLINE : DeviceState.OFFLINE, "test");
        }
        clock.advance(Duration.ofMillis(1500));
      }
      Eventually.until("all six", () -> receiver.received().size() == 6);
      for (Device d : devices) {
        List<Received> ofDevice =
            receiver.received().stream()
                .filter(r -> r.json().get("device").asText().equals(Long.toString(d.id())))
                .toList();
        assertThat(ofDevice).extracting(Received::sequence).containsExactly("1", "2", "3");
        assertThat(ofDevice)
            .extracting(Received::eventTime)
            .containsExactly(
                "2026-03-10T03:00:00.000Z", "2026-03-10T03:00:01.500Z", "2026-03-10T03:00:03.000Z");
      }
    }
  }
}
