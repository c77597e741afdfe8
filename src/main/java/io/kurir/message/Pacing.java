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

  long nextGapNanos() {
    long jitterNanos = jitter.toNanos();
    long extra = jitterNanos > 0 ? ThreadLocalRandom.current().nextLong(jitterNanos + 1) : 0;
    return minGap.toNanos() + extra;
  }
}
