package io.kurir.message;

import io.kurir.store.Database;
import java.time.Duration;
import java.time.Instant;

/**
 * Which sender may send for a device: the owner of its lease row, until the lease expires. An owner
 * renews its leases while it lives; another takes a lease over only once it has expired, so a
 * device's messages are claimed by one sender at a time, on one node or several. An owner that
 * starts again takes its own leases back at once.
 *
 * <p>Thread-safe; every write goes through the group-commit writer.
 */
final class Leases {
  private final LeaseStore store;
  private final String owner;
  private final Duration ttl;

  Leases(Database db, String owner, Duration ttl) {
    this.store = new LeaseStore(db);
    this.owner = owner;
    this.ttl = ttl;
  }

  String owner() {
    return owner;
  }

  Duration ttl() {
    return ttl;
  }

  /** What taking a device's lease found. */
  enum Take {
    /** Another owner holds it, and it has not run out. */
    REFUSED,
    /** Nobody held it: the last holder gave it up cleanly (or there was none). */
    FREE,
    /**
     * A holder that did not give it up left it: an earlier run of this owner that was cut off, or
     * another owner whose lease ran out. What that holder left {@code sending} follows the crash
     * rule.
     */
    LEFT_BEHIND
  }

  /** Takes the device's lease if it is free, expired or this owner's. */
  Take acquire(long deviceId, Instant now) {
    return store.acquire(deviceId, owner, now.plus(ttl).toEpochMilli(), now);
  }

  /**
   * Extends every lease this owner holds that has not run out; returns how many. One that ran out
   * stays run out, even if nobody took it yet: another node may be taking it now, so this owner
   * takes it again like any other ({@link #acquire}).
   */
  int renewAll(Instant now) {
    return store.renewAll(owner, now.plus(ttl), now);
  }

  /** Whether this owner still holds the device's lease. */
  boolean holds(long deviceId) {
    return store.holds(deviceId, owner);
  }

  /** Gives the device's lease up (a clean stop), so that another node need not wait for it. */
  java.util.concurrent.CompletableFuture<Integer> release(long deviceId) {
    return store.release(deviceId, owner);
  }

  /** Every device that is switched on, with its lease if any, by id. */
  java.util.List<LeaseStore.Row> devicesWithLeases() {
    return store.devicesWithLeases();
  }
}
