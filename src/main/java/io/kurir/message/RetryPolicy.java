package io.kurir.message;

import java.time.Duration;
import java.util.Optional;

/**
 * How a {@code flag_retry=on} message is tried again after a failed attempt: up to {@code
 * maxRetries} more times, waiting {@code firstBackoff}, then twice as long each time.
 */
public record RetryPolicy(Duration firstBackoff, int maxRetries) {

  /** The wait before the attempt that follows {@code attemptsSoFar} attempts, if any is left. */
  Optional<Duration> backoffAfter(int attemptsSoFar) {
    if (attemptsSoFar > maxRetries) {
      return Optional.empty();
    }
    int doublings = Math.min(Math.max(attemptsSoFar - 1, 0), 20);
    return Optional.of(firstBackoff.multipliedBy(1L << doublings));
  }
}
