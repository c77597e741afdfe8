package io.kurir.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A clock that moves only when told to. Tests inject it instead of sleeping; loops that wait for a
 * due time register {@link #onChange} so that moving the clock wakes them at once.
 *
 * <p>Thread-safe.
 */
public final class SettableClock extends Clock {
  private volatile Instant now;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

  public SettableClock(Instant start) {
    this.now = start;
  }

  public void advance(Duration by) {
    set(now.plus(by));
  }

  public synchronized void set(Instant instant) {
    now = instant;
    listeners.forEach(Runnable::run);
  }

  /** Runs {@code listener} every time the clock is moved. */
  public void onChange(Runnable listener) {
    listeners.add(listener);
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public long millis() {
    return now.toEpochMilli();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new IllegalArgumentException("SettableClock is always UTC; convert instants instead");
  }
}
