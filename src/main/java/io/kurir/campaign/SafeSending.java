package io.kurir.campaign;

import io.kurir.driver.DeviceConfig;
import io.kurir.driver.Pacing;
import io.kurir.driver.Values;
import java.time.Duration;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * The safe-sending policy of campaigns, per device, on top of its driver's pacing (issue 30, item
 * 3): what keeps a campaign from looking like the bulk sender that WhatsApp bans. Every figure is a
 * setting ({@code campaigns.safe-sending.*}); docs/decisions.md ("Safe sending") says why each
 * default is what it is.
 *
 * <ul>
 *   <li>a <b>warm-up ramp</b>: a device's campaign sends a day are capped at {@code warmUpStart} on
 *       the day it was first linked, growing by {@code warmUpGrowthPercent} each day after, up to
 *       {@code dailyCap}. The device's other sends of the day count against it (WhatsApp sees the
 *       number's volume, not Kurir's categories); they are never held by it;
 *   <li>a <b>random gap</b> between two campaign sends of one device, uniform from {@code gapMin}
 *       to {@code gapMax}: a machine-regular rhythm is what bulk-sender detection looks for;
 *   <li>a cap on the <b>share nobody answered</b>: when more than {@code unansweredMaxPercent} of
 *       the device's last {@code unansweredWindow} campaign messages sent at least {@code
 *       answerTime} ago got no reply, its next campaign send waits {@code unansweredHold} after its
 *       last one: the device slows to a trickle until people answer again.
 * </ul>
 *
 * @param warmUpStart campaign sends on a device's first day; 0: no ramp (the daily cap from day 1)
 * @param warmUpGrowthPercent how much the day's cap grows each day, in percent of the day before
 * @param dailyCap the most campaign sends a day once warmed up; 0: no cap and no ramp
 * @param gapMin the least time between two campaign sends of a device
 * @param gapMax the most; the gap is drawn uniformly between the two
 * @param unansweredWindow how many of the device's last campaign messages are looked at
 * @param unansweredMaxPercent the share of those nobody answered past which the device holds; 100:
 *     never
 * @param answerTime how long a message is given to be answered before it counts as unanswered
 * @param unansweredHold how long after its last campaign send a device at that cap waits
 */
public record SafeSending(
    int warmUpStart,
    int warmUpGrowthPercent,
    int dailyCap,
    Duration gapMin,
    Duration gapMax,
    int unansweredWindow,
    int unansweredMaxPercent,
    Duration answerTime,
    Duration unansweredHold) {

  /** The defaults of {@code ./kurir serve}: careful, each explained in docs/decisions.md. */
  public static final SafeSending DEFAULT =
      new SafeSending(
          20,
          50,
          500,
          Duration.ofSeconds(10),
          Duration.ofSeconds(30),
          30,
          90,
          Duration.ofMinutes(30),
          Duration.ofHours(1));

  /** Cap, gaps and unanswered cap off: campaigns paced by their window alone. */
  public static final SafeSending OFF =
      new SafeSending(0, 0, 0, Duration.ZERO, Duration.ZERO, 1, 100, Duration.ZERO, Duration.ZERO);

  public SafeSending {
    if (warmUpStart < 0 || warmUpGrowthPercent < 0 || dailyCap < 0) {
      throw new IllegalArgumentException("safe-sending caps cannot be negative");
    }
    if (gapMin.isNegative() || gapMax.compareTo(gapMin) < 0) {
      throw new IllegalArgumentException("the gap's maximum must be at least its minimum");
    }
    if (unansweredWindow < 1 || unansweredMaxPercent < 0 || unansweredMaxPercent > 100) {
      throw new IllegalArgumentException("the unanswered window is 1 or more, its share 0..100");
    }
    if (answerTime.isNegative() || unansweredHold.isNegative()) {
      throw new IllegalArgumentException("safe-sending times cannot be negative");
    }
  }

  /**
   * This policy with a device's own figures ({@code pacing.campaign-*} in its configuration,
   * checked when it was stored), which win over the gateway's; a gap given one end only keeps its
   * ends in order.
   */
  public SafeSending over(DeviceConfig config) {
    if (config.values().keySet().stream().noneMatch(k -> k.startsWith("pacing.campaign-"))) {
      return this;
    }
    int start = count(config, Pacing.CAMPAIGN_WARM_UP_START_KEY).orElse(warmUpStart);
    int cap = count(config, Pacing.CAMPAIGN_DAILY_CAP_KEY).orElse(dailyCap);
    Duration min = duration(config, Pacing.CAMPAIGN_GAP_MIN_KEY).orElse(gapMin);
    Duration max = duration(config, Pacing.CAMPAIGN_GAP_MAX_KEY).orElse(gapMax);
    if (max.compareTo(min) < 0) {
      if (config.get(Pacing.CAMPAIGN_GAP_MAX_KEY).isPresent()) {
        min = max;
      } else {
        max = min;
      }
    }
    return new SafeSending(
        start,
        warmUpGrowthPercent,
        cap,
        min,
        max,
        unansweredWindow,
        unansweredMaxPercent,
        answerTime,
        unansweredHold);
  }

  private static Optional<Integer> count(DeviceConfig config, String key) {
    return config
        .get(key)
        .map(String::strip)
        .filter(v -> v.matches("\\d{1,9}"))
        .map(Integer::valueOf);
  }

  private static Optional<Duration> duration(DeviceConfig config, String key) {
    return config.get(key).flatMap(Values::duration);
  }

  /** Whether a device has a daily cap for campaigns at all. */
  public boolean capped() {
    return dailyCap > 0;
  }

  /**
   * The device's cap of campaign sends on its {@code day}-th day (1: the day it was first linked);
   * {@link Integer#MAX_VALUE} when there is no cap.
   */
  public int capOnDay(long day) {
    if (!capped()) {
      return Integer.MAX_VALUE;
    }
    if (warmUpStart == 0) {
      return dailyCap;
    }
    double cap = warmUpStart;
    for (long d = 1; d < day && cap < dailyCap; d++) {
      cap = Math.ceil(cap * (100 + warmUpGrowthPercent) / 100.0);
      if (warmUpGrowthPercent == 0) {
        break;
      }
    }
    return (int) Math.min(dailyCap, cap);
  }

  /** A gap drawn uniformly from {@code gapMin} to {@code gapMax}. */
  public Duration gap(RandomGenerator random) {
    long min = gapMin.toMillis();
    long max = gapMax.toMillis();
    return Duration.ofMillis(max > min ? random.nextLong(min, max + 1) : min);
  }

  /** Whether the cap on the share nobody answered can ever hold a device. */
  public boolean watchesAnswers() {
    return unansweredMaxPercent < 100;
  }

  /** Whether {@code unanswered} of {@code looked} (a full window) is past the cap. */
  public boolean tooManyUnanswered(int looked, int unanswered) {
    return watchesAnswers()
        && looked >= unansweredWindow
        && unanswered * 100L > (long) unansweredMaxPercent * looked;
  }
}
