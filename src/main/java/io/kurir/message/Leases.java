package io.kurir.message;

import io.kurir.store.Database;
import java.time.Duration;
import java.time.Instant;
import org.jdbi.v3.core.Handle;

/**
 * Which sender may send for a device: the owner of its lease row, until the lease expires. An owner
 * renews its leases while it lives; another takes a lease over only once it has expired, so a
 * device's messages are claimed by one sender at a time, on one node or several. An owner that
 * starts again takes its own leases back at once.
 *
 * <p>Thread-safe; every write goes through the group-commit writer.
 */
final class Leases {
  private final Database db;
  private final String owner;
  private final Duration ttl;

  Leases(Database db, String owner, Duration ttl) {
    this.db = db;
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
    long until = now.plus(ttl).toEpochMilli();
    return db.writes()
        .write(
            h -> {
              int taken =
                  h.createUpdate(
                          "UPDATE device_lease SET owner = ?, expires_at = ? WHERE device_id = ?"
                              + " AND (owner = ? OR expires_at < ?)")
                      .bind(0, owner)
                      .bind(1, until)
                      .bind(2, deviceId)
                      .bind(3, owner)
                      .bind(4, now.toEpochMilli())
                      .execute();
              if (taken > 0) {
                return Take.LEFT_BEHIND;
              }
              // Portable "insert if absent": a row another node inserts meanwhile wins.
              int inserted =
                  h.createUpdate(
                          "INSERT INTO device_lease (device_id, owner, expires_at) VALUES (?, ?, ?)"
                              + " ON CONFLICT (device_id) DO NOTHING")
                      .bind(0, deviceId)
                      .bind(1, owner)
                      .bind(2, until)
                      .execute();
              return inserted > 0 ? Take.FREE : Take.REFUSED;
            });
  }

  /**
   * Extends every lease this owner holds that has not run out; returns how many. One that ran out
   * stays run out, even if nobody took it yet: another node may be taking it now, so this owner
   * takes it again like any other ({@link #acquire}).
   */
  int renewAll(Instant now) {
    return db.writes()
        .write(
            h ->
                h.createUpdate(
                        "UPDATE device_lease SET expires_at = ? WHERE owner = ? AND expires_at >= ?")
                    .bind(0, now.plus(ttl).toEpochMilli())
                    .bind(1, owner)
                    .bind(2, now.toEpochMilli())
                    .execute());
  }

  /** Whether this owner still holds the device's lease. */
  boolean holds(long deviceId) {
    try {
      return db.jdbi().withHandle(h -> holds(h, deviceId, owner));
    } catch (java.sql.SQLException e) {
      throw new org.jdbi.v3.core.statement.UnableToExecuteStatementException(e, null);
    }
  }

  /** Whether {@code owner} holds the device's lease, in the caller's transaction. */
  static boolean holds(Handle h, long deviceId, String owner) throws java.sql.SQLException {
    // Plain JDBC: it runs in every claim's transaction.
    try (java.sql.PreparedStatement q =
        h.getConnection()
            .prepareStatement("SELECT 1 FROM device_lease WHERE device_id = ? AND owner = ?")) {
      q.setLong(1, deviceId);
      q.setString(2, owner);
      try (java.sql.ResultSet rs = q.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** Gives the device's lease up (a clean stop), so that another node need not wait for it. */
  java.util.concurrent.CompletableFuture<Integer> release(long deviceId) {
    return db.writes()
        .submit(
            h ->
                h.createUpdate("DELETE FROM device_lease WHERE device_id = ? AND owner = ?")
                    .bind(0, deviceId)
                    .bind(1, owner)
                    .execute());
  }
}
