package io.kurir.message;

import io.kurir.store.Database;
import java.time.Instant;
import org.jdbi.v3.core.Handle;

/**
 * The SQL of devices' leases ({@code device_lease}); {@link Leases} says who may hold one.
 *
 * <p>Thread-safe; every write goes through the group-commit writer.
 */
final class LeaseStore {
  private final Database db;

  LeaseStore(Database db) {
    this.db = db;
  }

  /**
   * Takes the device's lease for {@code owner} until {@code until} if it is free, expired or
   * theirs.
   */
  Leases.Take acquire(long deviceId, String owner, long until, Instant now) {
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
                return Leases.Take.LEFT_BEHIND;
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
              return inserted > 0 ? Leases.Take.FREE : Leases.Take.REFUSED;
            });
  }

  /**
   * Extends every lease {@code owner} holds that has not run out; returns how many. One that ran
   * out stays run out, even if nobody took it yet: another node may be taking it now, so this owner
   * takes it again like any other ({@link Leases#acquire}).
   */
  int renewAll(String owner, Instant until, Instant now) {
    return db.writes()
        .write(
            h ->
                h.createUpdate(
                        "UPDATE device_lease SET expires_at = ? WHERE owner = ? AND expires_at >= ?")
                    .bind(0, until.toEpochMilli())
                    .bind(1, owner)
                    .bind(2, now.toEpochMilli())
                    .execute());
  }

  /** Whether {@code owner} still holds the device's lease. */
  boolean holds(long deviceId, String owner) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT COUNT(*) FROM device_lease WHERE device_id = ? AND owner = ?")
                        .bind(0, deviceId)
                        .bind(1, owner)
                        .mapTo(Long.class)
                        .one()
                    > 0);
  }

  /**
   * Whether {@code owner} holds the device's lease and the device is switched on, in the caller's
   * transaction: what a hand-over's insert looks at, as a claim does (MessageStore.claimSql).
   */
  static boolean maySend(Handle h, long deviceId, String owner) throws java.sql.SQLException {
    // Plain JDBC: it runs in every hand-over's transaction.
    try (java.sql.PreparedStatement q =
        h.getConnection()
            .prepareStatement(
                "SELECT 1 FROM device_lease l JOIN device d ON d.id = l.device_id"
                    + " WHERE l.device_id = ? AND l.owner = ? AND d.disabled = 0")) {
      q.setLong(1, deviceId);
      q.setString(2, owner);
      try (java.sql.ResultSet rs = q.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** {@code owner} gives the device's lease up (a clean stop). */
  java.util.concurrent.CompletableFuture<Integer> release(long deviceId, String owner) {
    return db.writes()
        .submit(
            h ->
                h.createUpdate("DELETE FROM device_lease WHERE device_id = ? AND owner = ?")
                    .bind(0, deviceId)
                    .bind(1, owner)
                    .execute());
  }

  /** A device (switched on) and its lease's owner and expiry, if it has a lease row. */
  record Row(long deviceId, String owner, long expiresAt) {}

  /** Every device that is switched on, with its lease if any, by id. */
  java.util.List<Row> devicesWithLeases() {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT d.id, l.owner, l.expires_at FROM device d"
                            + " LEFT JOIN device_lease l ON l.device_id = d.id"
                            + " WHERE d.disabled = 0 ORDER BY d.id")
                    .map((rs, ctx) -> new Row(rs.getLong(1), rs.getString(2), rs.getLong(3)))
                    .list());
  }
}
