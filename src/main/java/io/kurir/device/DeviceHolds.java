package io.kurir.device;

import io.kurir.store.Database;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Devices whose queue is held because their network refused the account (a driver's {@link
 * io.kurir.driver.DriverListener#hold}): stored, so that every node and a restart see it, until the
 * device is resumed (its configuration changed, an operator's retry). Whoever sends asks {@link
 * #isHeld} before each send; the answer is cached for a moment, as a sender asks often and another
 * node may resume the device.
 *
 * <p>Thread-safe.
 */
public final class DeviceHolds {
  /** How long an answer of {@link #isHeld} is reused before the database is asked again. */
  private static final long FRESH_NANOS = 1_000_000_000L;

  private record Known(Optional<String> reason, long readNanos) {}

  private final DeviceStateStore store;
  private final Clock clock;
  private final Map<Long, Known> known = new ConcurrentHashMap<>();
  // Counts holds and releases, so that an answer read while one was written is not cached: a
  // sender asking while its own send holds the device would otherwise keep "not held" for a
  // moment and send the next message.
  private final java.util.concurrent.atomic.AtomicLong changes =
      new java.util.concurrent.atomic.AtomicLong();

  public DeviceHolds(Database db, Clock clock) {
    this.store = new DeviceStateStore(db);
    this.clock = clock;
  }

  /** Holds the device's queue for {@code reason}; a second hold keeps the first reason. */
  public boolean hold(long deviceId, String reason) {
    boolean added = store.hold(deviceId, reason, clock.instant());
    changes.incrementAndGet();
    known.remove(deviceId);
    return added;
  }

  /** Ends the device's hold; false when it had none. */
  public boolean release(long deviceId) {
    int removed = store.release(deviceId);
    changes.incrementAndGet();
    known.remove(deviceId);
    return removed > 0;
  }

  /** Why the device is held, if it is. */
  public Optional<String> reason(long deviceId) {
    long now = System.nanoTime();
    Known k = known.get(deviceId);
    if (k != null && now - k.readNanos() < FRESH_NANOS) {
      return k.reason();
    }
    long seen = changes.get();
    Optional<String> reason = store.holdReason(deviceId);
    if (changes.get() == seen) {
      known.put(deviceId, new Known(reason, now));
    }
    return reason;
  }

  /** Since when the device is held, if it is (read from the database, not cached). */
  public Optional<java.time.Instant> heldSince(long deviceId) {
    return store.heldSince(deviceId);
  }

  public boolean isHeld(long deviceId) {
    return reason(deviceId).isPresent();
  }
}
