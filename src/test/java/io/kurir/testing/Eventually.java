package io.kurir.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition that another thread makes true (a sender loop, the sandbox's receipts). It
 * returns as soon as the condition holds; the timeout only bounds a failing test.
 */
public final class Eventually {
  private Eventually() {}

  public static void until(String what, BooleanSupplier condition) {
    until(what, Duration.ofSeconds(10), condition);
  }

  public static void until(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      LockSupport.parkNanos(Duration.ofMillis(5).toNanos()); // a poll interval, not a fixed delay
    }
  }
}
