package io.kurir.message;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The anti-ban delay between two sends of one device: a minimum gap plus up to {@code jitter} of
 * random extra time, so that a device never sends in a machine-regular rhythm. Measured in real
 * time: it is a rate limit on the network, not a business deadline.
 */
public record Pacing(Duration minGap, Duration jitter) {

  public static final Pacing OFF = new Pacing(Duration.ZERO, Duration.ZERO);

  /**
   * The longest a sync message (a caller waits, usually for an OTP) waits for the pacing gap after
   * the previous send: sync sends are what people trigger one at a time, and a caller behind a
   * campaign's gap would otherwise time out on a device that is online.
   */
  static final Duration SYNC_GAP_CAP = Duration.ofMillis(500);

  /** The gap before a sync message: the pacing gap, but no longer than {@link #SYNC_GAP_CAP}. */
  long syncGapNanos() {
    return Math.min(minGap.toNanos(), SYNC_GAP_CAP.toNanos());
  }

  /** The average gap between two sends. */
  long meanGapNanos() {
    return minGap.toNanos() + jitter.toNanos() / 2;
  }

  long nextGapNanos() {
    long jitterNanos = jitter.toNanos();
    long extra = jitterNanos > 0 ? ThreadLocalRandom.current().nextLong(jitterNanos + 1) : 0;
    return minGap.toNanos() + extra;
  }
}
