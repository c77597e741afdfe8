package io.kurir.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition that another thread makes true (a sender loop, the sandbox's receipts). It
 * returns as soon as the condition holds; the timeout only bounds a failing test.
 *
 * <p>The bound is a hang guard, never a measure of speed: on a busy machine (a full suite beside
 * other builds, 2 cores) an event that takes milliseconds alone can take seconds. So every wait
 * lasts at least {@link #GUARD}; a longer timeout may be given for work that is slow even on an
 * idle machine. A test that means "promptly" proves it by state (a frozen settable clock under
 * which a lease never runs out, a later message through the same path), not by a short bound.
 */
public final class Eventually {
  /** The shortest hang guard: costs nothing while the suite is green. */
  public static final Duration GUARD = Duration.ofSeconds(60);

  private Eventually() {}

  public static void until(String what, BooleanSupplier condition) {
    until(what, GUARD, condition);
  }

  /** {@link #until(String, BooleanSupplier)}, waiting {@code timeout} if that is longer. */
  public static void until(String what, Duration timeout, BooleanSupplier condition) {
    Duration guard = timeout.compareTo(GUARD) > 0 ? timeout : GUARD;
    long deadline = System.nanoTime() + guard.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "timed out after " + guard.toSeconds() + " s waiting until " + what);
      }
      LockSupport.parkNanos(Duration.ofMillis(5).toNanos()); // a poll interval, not a fixed delay
    }
  }
}
