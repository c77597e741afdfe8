package io.kurir.message;

import io.kurir.driver.Pacing;
import io.kurir.driver.SendOutcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Deque;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * A device sender's pacing: the device's {@link Pacing}, read again now and then; the gap kept per
 * recipient; the daily cap, counted from the database at the first look of each day in the
 * operator's zone, then as sends go out; how long a sync send takes, for the estimate of a sync
 * caller's wait; how many messages a claim covers.
 *
 * <p>Gaps are measured on {@code nanos} ({@link System#nanoTime} in the gateway), the day on the
 * injected clock. The loop's state except where marked: accepts read the pacing and the estimate.
 */
final class SendPacing {
  /** How often a sender reads its device's pacing again. */
  static final Duration PACING_RECHECK = Duration.ofSeconds(2);

  /** The least time a sync send is counted for in that estimate, before any send was measured. */
  private static final Duration SYNC_SEND_FLOOR = Duration.ofMillis(100);

  private static final Duration PENDING_SYNC_RECHECK = Duration.ofMillis(200);

  /** Recipients whose last send time is kept for the recipient gap, before old ones are dropped. */
  private static final int MAX_SPACED_RECIPIENTS = 10_000;

  private final Supplier<Pacing> pacingNow;
  private final Clock clock;
  private final java.time.ZoneId zone; // the operator's: where a day of the daily cap begins
  private final ToIntFunction<Instant> sentSince; // the device's sends since then, stored
  private final LongSupplier nanos;
  // Read again now and then (a device's configuration may change); read by accepts too.
  private volatile Pacing pacing;
  private volatile long pacingReadNanos;
  // How long the driver's recent sends took (a moving average), for the estimate of a sync wait.
  private volatile long recentSendNanos;
  private volatile long pendingSyncReadNanos;
  private volatile int pendingSyncSeen;
  private final Set<String> underWay = new java.util.HashSet<>(); // order holds per recipient
  private final java.util.Map<String, Long> lastSendTo = new java.util.HashMap<>();
  private java.time.LocalDate capDay; // the day sentToday counts; null before the first count
  private int sentToday;
  private long lastSendStartNanos;

  SendPacing(
      Supplier<Pacing> pacingNow,
      Clock clock,
      java.time.ZoneId zone,
      ToIntFunction<Instant> sentSince,
      LongSupplier nanos) {
    this.pacingNow = pacingNow;
    this.clock = clock;
    this.zone = zone;
    this.sentSince = sentSince;
    this.nanos = nanos;
    this.pacing = pacingNow.get();
    this.pacingReadNanos = nanos.getAsLong();
    this.pendingSyncReadNanos = nanos.getAsLong() - Duration.ofDays(1).toNanos();
    this.lastSendStartNanos = nanos.getAsLong() - Duration.ofDays(1).toNanos();
  }

  /** The device's pacing as last read. */
  Pacing now() {
    return pacing;
  }

  /** Reads the pacing again if it was not read within {@link #PACING_RECHECK}. */
  void rereadIfDue() {
    if (pacingReadNanos == 0 || nanos.getAsLong() - pacingReadNanos > PACING_RECHECK.toNanos()) {
      pacing = pacingNow.get(); // a device's configuration may change while it sends
      pacingReadNanos = nanos.getAsLong();
    }
  }

  /** The device's configuration may have changed: read the pacing at the next look. */
  void rereadSoon() {
    pacingReadNanos = 0;
  }

  /** Reads the pacing again now. */
  void reread() {
    pacingReadNanos = 0;
    pacing = pacingNow.get();
    pacingReadNanos = nanos.getAsLong();
  }

  /**
   * How long one sync send takes on this device, for the estimate of a sync caller's wait: the sync
   * gap ({@link Pacing#syncGapNanos}) or the driver's recent send time shared by the sends it may
   * have under way at once, whichever is longer; {@link #SYNC_SEND_FLOOR} stands for the send time
   * until one was measured. A measured time is used as it is: an unpaced device that sends in a
   * millisecond is not refused at 100 callers.
   */
  long syncSendNanos() {
    long send = recentSendNanos > 0 ? recentSendNanos : SYNC_SEND_FLOOR.toNanos();
    return Math.max(pacing.syncGapNanos(), send / Math.max(1, pacing.inFlight()));
  }

  /** A send took {@code took}: the estimate follows it. */
  void measured(long took) {
    recentSendNanos = recentSendNanos == 0 ? took : (recentSendNanos * 3 + took) / 4;
  }

  /**
   * The device's sync messages waiting in the database, read through {@code read} at most every
   * {@link #PENDING_SYNC_RECHECK}: the estimate of a sync caller's wait does not need it exact, and
   * a read per sync send cost the sync row a sixth of its rate (and scanned a queued campaign's
   * pending rows each time).
   */
  int pendingSyncCount(java.util.function.IntSupplier read) {
    long now = nanos.getAsLong();
    if (now - pendingSyncReadNanos > PENDING_SYNC_RECHECK.toNanos()) {
      pendingSyncSeen = read.getAsInt();
      pendingSyncReadNanos = now;
    }
    return pendingSyncSeen;
  }

  /**
   * The first claimed message whose recipient has no send under way and was not sent to within the
   * pacing's recipient gap; null when there is none.
   */
  Message nextSendable(Deque<Message> claimed) {
    if (underWay.isEmpty() && lastSendTo.isEmpty()) {
      return claimed.peekFirst();
    }
    long now = nanos.getAsLong();
    long recipientGap = pacing.recipientGap().toNanos();
    for (Message m : claimed) {
      if (underWay.contains(m.recipient())) {
        continue;
      }
      Long last = lastSendTo.get(m.recipient());
      if (last == null || now - last >= recipientGap) {
        return m;
      }
    }
    return null;
  }

  /**
   * How long until the first spaced recipient of the claimed messages may be sent to again, at most
   * {@code atMost}.
   */
  long recipientGapLeftNanos(Deque<Message> claimed, Duration atMost) {
    long now = nanos.getAsLong();
    long recipientGap = pacing.recipientGap().toNanos();
    long least = atMost.toNanos();
    for (Message m : claimed) {
      Long last = lastSendTo.get(m.recipient());
      if (last != null && !underWay.contains(m.recipient())) {
        least = Math.min(least, recipientGap - (now - last));
      }
    }
    return least;
  }

  /** A send to {@code m}'s recipient starts on its own thread: its recipient waits for it. */
  void underWay(Message m) {
    underWay.add(m.recipient());
  }

  /** A send starts now: a sync message's short gap counts from here. */
  void started() {
    lastSendStartNanos = nanos.getAsLong();
  }

  /** A send to {@code m}'s recipient ended. */
  void ended(Message m) {
    underWay.remove(m.recipient());
  }

  /**
   * What a send's {@code outcome} at {@code now} means for the recipient gap and the daily count.
   */
  void counted(Message m, SendOutcome outcome, long now) {
    boolean deferred = outcome instanceof SendOutcome.Deferred;
    if (deferred) {
      // Nothing went to the network: no recipient gap; the message waits for its own time.
    } else if (pacing.recipientGap().isPositive()) {
      lastSendTo.put(m.recipient(), now);
      if (lastSendTo.size() > MAX_SPACED_RECIPIENTS) {
        long gap = pacing.recipientGap().toNanos();
        lastSendTo.values().removeIf(t -> now - t >= gap);
      }
    } else {
      lastSendTo.clear();
    }
    if (outcome instanceof SendOutcome.Sent || outcome instanceof SendOutcome.Accepted) {
      sentToday++;
    }
  }

  /**
   * Whether the device reached its daily cap (counting the {@code inFlight} sends under way):
   * counted from the database at the first look of each day, then as sends go out.
   */
  boolean overDailyCap(int inFlight) {
    int cap = pacing.dailyCap();
    if (cap <= 0) {
      capDay = null;
      return capped = false;
    }
    java.time.LocalDate today = java.time.LocalDate.ofInstant(clock.instant(), zone);
    if (!today.equals(capDay)) {
      sentToday = sentSince.applyAsInt(today.atStartOfDay(zone).toInstant());
      capDay = today;
    }
    return capped = sentToday + inFlight >= cap;
  }

  /**
   * Whether the sender's last look found the device over its daily cap; read by the threads that
   * accept, so that what they accept then waits in the queue rather than be handed over, stored as
   * sending, and given back at the hold's next look.
   */
  boolean capped() {
    return capped;
  }

  private volatile boolean capped;

  /** The sends counted today, for the log line that says the cap holds the device. */
  int sentToday() {
    return sentToday;
  }

  /** The device's daily cap (0: none). */
  int dailyCap() {
    return pacing.dailyCap();
  }

  /** When the day after the one the cap counts begins, in the operator's zone. */
  Instant nextDay() {
    return capDay.plusDays(1).atStartOfDay(zone).toInstant();
  }

  /** The day's sends are counted again at the next look: another node may have sent some. */
  void countAgain() {
    capDay = null;
  }

  /**
   * How long to wait before sending {@code next}, {@code paceLeft} being what the pace asks: a sync
   * caller waits at most a short gap.
   */
  long wait(Message next, long paceLeft) {
    long waitNanos = paceLeft;
    if (next.sync() && waitNanos > 0) {
      waitNanos = Math.min(waitNanos, pacing.syncGapNanos() - sinceLastSendNanos());
    }
    return waitNanos;
  }

  private long sinceLastSendNanos() {
    return nanos.getAsLong() - lastSendStartNanos;
  }

  /**
   * How many messages to claim at once: what the device sends within {@code horizon} at its pace,
   * at least one and at most {@code max}.
   */
  int claimSize(Duration horizon, int max) {
    long gap = pacing.meanGapNanos();
    if (gap <= 0) {
      return max;
    }
    return (int) Math.max(1, Math.min(max, horizon.toNanos() / gap));
  }
}
