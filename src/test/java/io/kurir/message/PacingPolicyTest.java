package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.OutgoingMessage;
import io.kurir.driver.SendOutcome;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.LogCapture;
import io.kurir.testing.ScriptedDriver;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Pacing as a policy ({@code pacing.in-flight}, {@code pacing.recipient-gap}, {@code
 * pacing.daily-cap}, set per device here): several sends under way at once with order kept per
 * recipient, a least gap between two sends to one number while other numbers go ahead, and a daily
 * cap that holds the rest until the next day. The driver under test takes its time over each send
 * and records what overlapped.
 */
// Not @Isolated: its LogCapture waits for its own device's daily-cap line, which no other class
// logs; the lock keeps it from another LogCapture, which would set the same loggers' levels.
@ResourceLock(LogCapture.LOG)
class PacingPolicyTest {
  @TempDir Path dir;
  final SettableClock clock = TestGateway.settableClock();
  final ScriptedDriver driver = new ScriptedDriver("scripted", false, clock);
  TestGateway kurir;

  /** A send as the driver saw it: to whom, what, and when it started and ended (nanoTime). */
  record Seen(String to, String text, long startNanos, long endNanos) {}

  final List<Seen> seen = new CopyOnWriteArrayList<>();
  final AtomicInteger underWay = new AtomicInteger();
  final AtomicInteger mostUnderWay = new AtomicInteger();

  /**
   * Sends under way at once that a test expects: each send waits until that many were (once), so
   * that a busy machine, slow to start the next send, cannot end one before the next begins.
   */
  volatile int overlapWanted;

  final Set<String> recipientsUnderWay = ConcurrentHashMap.newKeySet();
  final AtomicInteger sameRecipientOverlaps = new AtomicInteger();

  @AfterEach
  void stop() {
    if (kurir != null) {
      kurir.close();
    }
  }

  private Device start(Map<String, String> config) {
    kurir = TestGateway.start(dir, clock, new ScriptedDriver.Factory(driver));
    return kurir.newDevice("+6281100007801", "scripted", config);
  }

  /** Each send to {@code to} takes {@code takes} and is recorded. */
  private void slow(String to, int sends, Duration takes) {
    Function<OutgoingMessage, SendOutcome> answer =
        m -> {
          long start = System.nanoTime();
          mostUnderWay.accumulateAndGet(underWay.incrementAndGet(), Math::max);
          if (!recipientsUnderWay.add(m.recipient())) {
            sameRecipientOverlaps.incrementAndGet();
          }
          Eventually.until(
              overlapWanted + " sends under way at once",
              () -> mostUnderWay.get() >= overlapWanted);
          try {
            // A slow network, on purpose: a send stays under way for a while, so that a sender
            // that broke its in-flight bound would start another meanwhile (the bound is what
            // is tested, and nothing tells of a send that did not start).
            Thread.sleep(takes);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          recipientsUnderWay.remove(m.recipient());
          underWay.decrementAndGet();
          seen.add(new Seen(m.recipient(), m.text(), start, System.nanoTime()));
          return SendOutcome.Sent.of(ScriptedDriver.networkIdOf(m.id()), clock.instant());
        };
    for (int i = 0; i < sends; i++) {
      driver.then(to, answer);
    }
  }

  private long send(Device device, String to, String text) {
    Reply reply = kurir.sendAsync(device, to, text);
    assertThat(reply.body()).matches("\\d+");
    return Long.parseLong(reply.body());
  }

  private MessageState state(Device device, long id) {
    return kurir.gateway().messages().find(device, id).orElseThrow().state();
  }

  private List<String> textsTo(String to) {
    return seen.stream().filter(s -> s.to().equals(to)).map(Seen::text).toList();
  }

  @Test
  void severalSendsAreUnderWayAtOnceWhileEachRecipientGetsItsMessagesInOrder() {
    Device device = start(Map.of("pacing.in-flight", "4"));
    overlapWanted = 3;
    List<String> recipients = List.of("+6281200000001", "+6281200000002", "+6281200000003");
    recipients.forEach(to -> slow(to, 4, Duration.ofMillis(300)));
    driver.holdSends(); // the whole queue is there before the first send
    for (int i = 0; i < 4; i++) {
      for (String to : recipients) {
        send(device, to, to.substring(to.length() - 1) + "-" + i);
      }
    }
    driver.release();
    Eventually.until("12 sends done", () -> seen.size() == 12);

    assertThat(mostUnderWay.get()).as("sends under way at once").isEqualTo(3);
    assertThat(sameRecipientOverlaps.get()).as("two sends to one number at once").isZero();
    for (String to : recipients) {
      String n = to.substring(to.length() - 1);
      assertThat(textsTo(to)).containsExactly(n + "-0", n + "-1", n + "-2", n + "-3");
    }
  }

  @Test
  void inFlightIsAtMostWhatThePacingSays() {
    Device device = start(Map.of("pacing.in-flight", "2"));
    overlapWanted = 2;
    List<String> recipients = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      recipients.add("+628130000001" + i);
      slow(recipients.getLast(), 1, Duration.ofMillis(200));
    }
    driver.holdSends();
    recipients.forEach(to -> send(device, to, "hi"));
    driver.release();
    Eventually.until("6 sends done", () -> seen.size() == 6);
    assertThat(mostUnderWay.get()).isEqualTo(2);
  }

  @Test
  void withoutAnInFlightSettingADeviceSendsOneAtATime() {
    Device device = start(Map.of());
    for (int i = 0; i < 4; i++) {
      String to = "+628140000001" + i;
      slow(to, 1, Duration.ofMillis(100));
      send(device, to, "hi");
    }
    Eventually.until("4 sends done", () -> seen.size() == 4);
    assertThat(mostUnderWay.get()).isEqualTo(1);
  }

  @Test
  void aRecipientGapSpacesSendsToOneNumberWhileOtherNumbersGoAhead() {
    Device device = start(Map.of("pacing.recipient-gap", "1s"));
    String a = "+6281500000001";
    String b = "+6281500000002";
    slow(a, 2, Duration.ZERO);
    slow(b, 1, Duration.ZERO);
    driver.holdSends();
    send(device, a, "a1");
    send(device, a, "a2");
    send(device, b, "b1");
    driver.release();
    Eventually.until("3 sends done", () -> seen.size() == 3);

    assertThat(seen).extracting(Seen::text).containsExactly("a1", "b1", "a2");
    Duration aGap = Duration.ofNanos(seen.get(2).startNanos() - seen.get(0).endNanos());
    assertThat(aGap).isGreaterThanOrEqualTo(Duration.ofMillis(950));
  }

  @Test
  void aDailyCapHoldsTheRestUntilTheNextDayInTheOperatorsZone() throws Exception {
    try (LogCapture logs = LogCapture.of(DeviceSender.class)) {
      Device device = start(Map.of("pacing.daily-cap", "2"));
      String to = "+6281600000001";
      slow(to, 4, Duration.ZERO);
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        ids.add(send(device, to, "m" + i));
      }
      Eventually.until("two sent", () -> seen.size() == 2);
      // The sender tells that it holds the rest: a sender that ignored the cap never would.
      Eventually.until(
          "the sender holds the rest for the next day",
          () -> logs.saw("device " + device.id() + ": daily cap reached (2 of 2 today)"));
      // What the sender claimed goes back to the queue, unsent. Waited for: beside busy cores a
      // message can be handed to the sender in the instant it finds itself over the cap, and goes
      // back at the hold's next look (seen once in a full run beside two CPU hogs).
      Eventually.until(
          "the rest back in the queue",
          () ->
              state(device, ids.get(2)) == MessageState.PENDING
                  && state(device, ids.get(3)) == MessageState.PENDING);
      assertThat(seen).hasSize(2);

      // The test clock starts at 03:00 UTC, 10:00 in Jakarta: 14 hours later it is the next day.
      clock.set(clock.instant().plus(Duration.ofHours(14)));
      Eventually.until("the rest sent the next day", () -> seen.size() == 4);
      assertThat(seen).extracting(Seen::text).containsExactly("m0", "m1", "m2", "m3");
      assertThat(clock.instant()).isAfterOrEqualTo(Instant.parse("2026-03-10T17:00:00Z"));
    }
  }
}
