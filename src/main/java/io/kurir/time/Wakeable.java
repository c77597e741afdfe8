package io.kurir.time;

import java.time.Clock;

/** Helpers for loops that wait until a time of the injected clock. */
public final class Wakeable {
  private Wakeable() {}

  /**
   * Registers {@code wake} to run whenever a {@link SettableClock} moves; on the system clock real
   * time passes by itself and nothing needs registering.
   */
  public static void wakeOnClockChange(Clock clock, Runnable wake) {
    if (clock instanceof SettableClock settable) {
      settable.onChange(wake);
    }
  }
}
