package io.kurir.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition that another thread makes true (a sender loop, the sandbox's receipts). It
 * returns as soon as the condition holds; the timeout only bounds a failing test.
 *
 * <p>The default bound is a hang guard, never a measure of speed: on a busy machine (a full suite
 * beside other builds, 2 cores) an event that takes milliseconds alone can take seconds, and a
 * generous guard costs nothing while the suite is green. Give a timeout only when it is the
 * assertion (the event must come before a slower fallback would bring it, such as a 30 s idle
 * look), and leave a busy machine room below that fallback; a longer one suits work that is slow
 * even on an idle machine.
 */
public final class Eventually {
  /** The default bound: a hang guard. */
  public static final Duration GUARD = Duration.ofSeconds(60);

  private Eventually() {}

  public static void until(String what, BooleanSupplier condition) {
    until(what, GUARD, condition);
  }

  public static void until(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "timed out after " + timeout.toMillis() + " ms waiting until " + what);
      }
      LockSupport.parkNanos(Duration.ofMillis(5).toNanos()); // a poll interval, not a fixed delay
    }
  }
}
