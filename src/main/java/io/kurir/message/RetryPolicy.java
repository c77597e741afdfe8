package io.kurir.message;

import java.time.Duration;
import java.util.Optional;

/**
 * How a {@code flag_retry=on} message is tried again after a failed attempt: up to {@code
 * maxRetries} more times, waiting {@code firstBackoff}, then twice as long each time, at most an
 * hour.
 */
public record RetryPolicy(Duration firstBackoff, int maxRetries) {

  /** The longest wait between two attempts, however many came before. */
  public static final Duration MAX_BACKOFF = Duration.ofHours(1);

  /** The wait before the attempt that follows {@code attemptsSoFar} attempts, if any is left. */
  Optional<Duration> backoffAfter(int attemptsSoFar) {
    if (attemptsSoFar > maxRetries) {
      return Optional.empty();
    }
    int doublings = Math.min(Math.max(attemptsSoFar - 1, 0), 20);
    Duration backoff = firstBackoff.multipliedBy(1L << doublings);
    return Optional.of(backoff.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff);
  }
}
