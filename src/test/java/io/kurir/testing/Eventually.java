package io.kurir.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition that another thread makes true (a sender loop, the sandbox's receipts). It
 * returns as soon as the condition holds; the timeout only bounds a failing test.
 *
 * <p>The bound is not a measure of speed: on a busy machine (a full suite beside other builds, 2
 * cores) an event that takes milliseconds alone can take seconds. The default, {@link #DEFAULT}, is
 * twice the old 10 s and still below the product's 30 s fallbacks (a sender's idle wait, its
 * periodic look at its device, the schedule runner's longest sleep): a test waiting for a wake-up
 * still fails when only the fallback would bring the event, instead of passing late. Work that is
 * slow even on an idle machine (other processes, hundreds of deliveries) and waits that nothing
 * else could end (a future, a latch) take {@link #GUARD}. A test that means "promptly" proves it by
 * state (a frozen clock under which no lease runs out, a later message through the same path) or by
 * a bound well below the fallback it tells apart, never by a short bound.
 */
public final class Eventually {
  /** The default bound: below the product's 30 s fallbacks, with room for a busy machine. */
  public static final Duration DEFAULT = Duration.ofSeconds(20);

  /** A hang guard for slow work, and for waits that no fallback could end. */
  public static final Duration GUARD = Duration.ofSeconds(60);

  private Eventually() {}

  public static void until(String what, BooleanSupplier condition) {
    until(what, DEFAULT, condition);
  }

  public static void until(String what, Duration timeout, BooleanSupplier condition) {
    until(what, timeout, Duration.ofMillis(5), condition);
  }

  /**
   * Polls {@code condition} every {@code every}: for a condition that costs something to ask (a
   * fake's retried delivery), where a 5 ms poll would flood the other side.
   */
  public static void until(
      String what, Duration timeout, Duration every, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "timed out after "
                + timeout.toMillis()
                + " ms waiting until "
                + what
                + "; "
                + ThreadDump.write(what));
      }
      LockSupport.parkNanos(every.toNanos()); // a poll interval, not a fixed delay
    }
  }
}
