package io.kurir.driver;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How fast one device sends: a minimum gap between two sends plus up to {@code jitter} of random
 * extra time, so that a device never sends in a machine-regular rhythm (the anti-ban delay a
 * WhatsApp Web engine needs), or a steady rate with no jitter (what the Cloud API allows). Measured
 * in real time: it is a rate limit on the network, not a business deadline.
 *
 * <p>Each driver has its own default ({@code drivers.<name>.pacing.*}); a device may override it
 * with the configuration keys {@link #MIN_GAP_KEY} and {@link #JITTER_KEY}.
 */
public record Pacing(Duration minGap, Duration jitter) {

  public static final Pacing OFF = new Pacing(Duration.ZERO, Duration.ZERO);

  /** Device configuration key that overrides the driver's minimum gap. */
  public static final String MIN_GAP_KEY = "pacing.min-gap";

  /** Device configuration key that overrides the driver's jitter. */
  public static final String JITTER_KEY = "pacing.jitter";

  /**
   * The longest a sync message (a caller waits, usually for an OTP) waits for the pacing gap after
   * the previous send: sync sends are what people trigger one at a time, and a caller behind a
   * campaign's gap would otherwise time out on a device that is online.
   */
  public static final Duration SYNC_GAP_CAP = Duration.ofMillis(500);

  public Pacing {
    if (minGap.isNegative() || jitter.isNegative()) {
      throw new IllegalArgumentException("pacing gaps cannot be negative");
    }
  }

  /** Sends at most {@code perSecond} messages a second, evenly spaced. */
  public static Pacing rate(double perSecond) {
    if (!(perSecond > 0)) {
      throw new IllegalArgumentException("a rate must be positive");
    }
    return new Pacing(Duration.ofNanos((long) (1_000_000_000L / perSecond)), Duration.ZERO);
  }

  /** The gap before a sync message: the pacing gap, but no longer than {@link #SYNC_GAP_CAP}. */
  public long syncGapNanos() {
    return Math.min(minGap.toNanos(), SYNC_GAP_CAP.toNanos());
  }

  /** The average gap between two sends. */
  public long meanGapNanos() {
    return minGap.toNanos() + jitter.toNanos() / 2;
  }

  /** The gap after a send: the minimum plus a random part of the jitter. */
  public long nextGapNanos() {
    long jitterNanos = jitter.toNanos();
    long extra = jitterNanos > 0 ? ThreadLocalRandom.current().nextLong(jitterNanos + 1) : 0;
    return minGap.toNanos() + extra;
  }
}
