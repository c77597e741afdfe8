package io.kurir.console;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Limits failed console sign-ins per client address, so that a token or license code cannot be
 * guessed by trying: a Bucket4j bucket per address holds {@link #MAX_FAILURES} tries and gets them
 * back over {@link #WINDOW}, one every {@code WINDOW / MAX_FAILURES} (90 s). An address that used
 * them all is refused until the next comes back: 10 guesses at once, then one every 90 s, at most
 * 10 per 15 minutes on average. Kept per node: a guesser spread over several nodes gets that many
 * tries on each, still far too few to guess a 32-character secret.
 *
 * <p>Thread-safe.
 */
public final class SignInLimiter {
  public static final int MAX_FAILURES = 10;
  public static final Duration WINDOW = Duration.ofMinutes(15);

  /** At most this many addresses are remembered; the least recently seen go first beyond. */
  private static final int MAX_ADDRESSES = 100_000;

  private final TimeMeter time;
  // An address whose bucket is full again after WINDOW has nothing to remember.
  private final Cache<String, Bucket> failures =
      Caffeine.newBuilder().maximumSize(MAX_ADDRESSES).expireAfterAccess(WINDOW).build();

  public SignInLimiter(Clock clock) {
    this.time = new ClockTime(clock);
  }

  /**
   * Takes one try from {@code address}'s bucket, in one atomic step: false when none is left. A
   * check and a later record of the failure let parallel guesses all pass the check before any was
   * recorded (60 at once got 12 tries instead of 10). A sign-in that succeeds gives its try back
   * ({@link #succeeded}).
   */
  public boolean tryAttempt(String address) {
    return failures.get(address, a -> newBucket()).tryConsume(1);
  }

  /** Gives back the try a successful sign-in from {@code address} took: only failures count. */
  public void succeeded(String address) {
    Bucket bucket = failures.getIfPresent(address);
    if (bucket != null) {
      bucket.addTokens(1);
    }
  }

  private Bucket newBucket() {
    return Bucket.builder()
        .addLimit(l -> l.capacity(MAX_FAILURES).refillGreedy(MAX_FAILURES, WINDOW))
        .withCustomTimePrecision(time)
        .build();
  }

  /** The injected clock as Bucket4j's time source, so tests move time instead of sleeping. */
  private record ClockTime(Clock clock) implements TimeMeter {
    @Override
    public long currentTimeNanos() {
      Instant now = clock.instant();
      return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    @Override
    public boolean isWallClockBased() {
      return true;
    }
  }
}
