package io.kurir.campaign;

import io.kurir.driver.Drivers;
import io.kurir.store.Database;
import io.kurir.tenant.Device;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * What the {@link SafeSending} policy allows each device of a campaign's pool now: how many
 * campaign sends it has left today (its warm-up cap less what it sent), and when its next campaign
 * send may go (its last one plus its random gap, or later while too many of its messages went
 * unanswered). Decided per device, across every campaign that uses it: two campaigns on one number
 * share its cap and its gap.
 *
 * <p>Rotation weighted by the remaining caps shows twice: a device with less left of its day has
 * its gap stretched in proportion ({@code most left in the pool / its own left}), so that over a
 * day each device spends the same share of what it has left; and when several devices may take a
 * recipient at once, {@link WeightedRotation} picks among them by what they have left.
 *
 * <p>Measured on the injected clock, the day in the operator's time zone. Not thread-safe: the
 * campaign runner's thread only.
 */
final class SendAllowance {
  /** Why a device takes no campaign recipient now, beyond its gap. */
  static final String DAILY_CAP = "daily_cap";

  static final String UNANSWERED = "unanswered";

  /**
   * What one device may do now.
   *
   * @param device the device
   * @param remaining its campaign sends left today ({@link Integer#MAX_VALUE}: no cap)
   * @param dueAt when its next campaign send may go
   * @param held why it takes none, beyond its gap: {@link #DAILY_CAP} or {@link #UNANSWERED}
   * @param oneOnly whether it may take one recipient at most now: its next send is a gap away, or
   *     it is under the cap on the share nobody answered and trickles, one message a hold
   */
  record Slot(Device device, int remaining, Instant dueAt, Optional<String> held, boolean oneOnly) {
    boolean due(Instant now) {
      return remaining > 0 && !dueAt.isAfter(now);
    }
  }

  private final SafeSending policy;
  private final Drivers drivers;
  private final SafeSendingStore store;
  private final ZoneId zone;
  private final RandomGenerator random;

  /** Each device's gap before its next campaign send, drawn once per send. */
  private final Map<Long, Duration> gaps = new HashMap<>();

  /** When each device was first linked: it never changes once known. */
  private final Map<Long, Instant> linked = new HashMap<>();

  /** Devices the runner has seen waiting for their slot since their last release. */
  private final Set<Long> waitedFor = new HashSet<>();

  SendAllowance(
      SafeSending policy, Drivers drivers, Database db, ZoneId zone, RandomGenerator random) {
    this.policy = policy;
    this.drivers = drivers;
    this.store = new SafeSendingStore(db);
    this.zone = zone;
    this.random = random;
  }

  /** What each device of {@code pool} may do at {@code now}, in the pool's order. */
  List<Slot> slots(List<Device> pool, Instant now) {
    Instant dayStart = dayStart(now);
    Map<Long, Integer> remaining = new HashMap<>();
    Map<Long, SafeSending> policies = new HashMap<>();
    int most = 0;
    for (Device d : pool) {
      // The gateway's policy, with the device's own figures over it.
      SafeSending p = policy.over(drivers.configOf(d.ref()));
      policies.put(d.id(), p);
      int left = Integer.MAX_VALUE;
      if (p.capped()) {
        left = Math.max(0, p.capOnDay(day(d, now)) - store.usedSince(d.id(), dayStart));
      }
      remaining.put(d.id(), left);
      if (p.capped()) {
        most = Math.max(most, left); // an uncapped device (a Cloud API number) weighs on nobody
      }
    }
    List<Slot> slots = new ArrayList<>(pool.size());
    for (Device d : pool) {
      SafeSending p = policies.get(d.id());
      int left = remaining.get(d.id());
      Optional<Instant> last = store.lastReleased(d.id());
      Instant due = now;
      Optional<String> held = Optional.empty();
      // With a gap, a device's next send is a gap away: one at a time. Without, up to its window.
      boolean oneOnly = p.gapMax().isPositive();
      if (last.isPresent()) {
        Duration gap = gaps.computeIfAbsent(d.id(), k -> p.gap(random));
        // The weighting: less left of the day, a longer gap (never shorter than the drawn one).
        if (p.capped() && left > 0 && left < most) {
          gap = Duration.ofMillis((long) (gap.toMillis() * ((double) most / left)));
        }
        due = last.get().plus(gap);
        if (p.watchesAnswers()) {
          var answers = store.answers(d.id(), now.minus(p.answerTime()), p.unansweredWindow());
          if (p.tooManyUnanswered(answers.looked(), answers.unanswered())) {
            oneOnly = true;
            Instant after = last.get().plus(p.unansweredHold());
            if (after.isAfter(due)) {
              due = after;
            }
            if (due.isAfter(now)) {
              held = Optional.of(UNANSWERED);
            }
          }
        }
      }
      if (left == 0) {
        held = Optional.of(DAILY_CAP);
      }
      if (due.isAfter(now) && left > 0) {
        waitedFor.add(d.id());
      }
      slots.add(new Slot(d, left, due, held, oneOnly));
    }
    return slots;
  }

  /**
   * The moment the device's release at {@code now} was planned for: its slot when the runner had to
   * wait for it, else {@code now} (it was free when a recipient came).
   */
  Instant planned(Slot slot, Instant now) {
    return waitedFor.contains(slot.device().id()) && slot.dueAt().isBefore(now)
        ? slot.dueAt()
        : now;
  }

  /** The device took a recipient: its next gap is drawn afresh. */
  void released(long deviceId) {
    gaps.remove(deviceId);
    waitedFor.remove(deviceId);
  }

  /** The start of the day after {@code now}'s, in the operator's zone: when caps start over. */
  Instant nextDay(Instant now) {
    return now.atZone(zone).toLocalDate().plusDays(1).atStartOfDay(zone).toInstant();
  }

  private Instant dayStart(Instant now) {
    return now.atZone(zone).toLocalDate().atStartOfDay(zone).toInstant();
  }

  /** The device's day of campaign sending: 1 on the day it was first linked (or never was). */
  private long day(Device d, Instant now) {
    Instant first = linked.get(d.id());
    if (first == null) {
      Optional<Instant> found = store.firstLinked(d.id());
      if (found.isEmpty()) {
        return 1;
      }
      first = found.get();
      linked.put(d.id(), first);
    }
    LocalDate from = first.atZone(zone).toLocalDate();
    LocalDate today = now.atZone(zone).toLocalDate();
    return Math.max(1, ChronoUnit.DAYS.between(from, today) + 1);
  }
}
