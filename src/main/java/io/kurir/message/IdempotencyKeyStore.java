package io.kurir.message;

import io.kurir.store.Database;
import io.kurir.store.Transaction;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;

/** The SQL of idempotency keys (table {@code idempotency_key}). */
final class IdempotencyKeyStore {
  /** What the first request with a key stored: its fingerprint and the ids it answered. */
  record Row(String fingerprint, List<Long> ids) {}

  private final Database db;

  IdempotencyKeyStore(Database db) {
    this.db = db;
  }

  /** The row of {@code key} on the device, if it was written after {@code after}; a read. */
  Optional<Row> find(long deviceId, String key, Instant after) {
    return db.jdbi().withHandle(h -> find(h, deviceId, key, after));
  }

  /** {@link #find(long, String, Instant)} in the caller's transaction. */
  static Optional<Row> find(Transaction tx, long deviceId, String key, Instant after) {
    return find(tx.handle(), deviceId, key, after);
  }

  private static Optional<Row> find(Handle h, long deviceId, String key, Instant after) {
    return h.createQuery(
            "SELECT fingerprint, ids FROM idempotency_key"
                + " WHERE device_id = ? AND idem_key = ? AND created_at > ?")
        .bind(0, deviceId)
        .bind(1, key)
        .bind(2, after.toEpochMilli())
        .map((rs, ctx) -> new Row(rs.getString("fingerprint"), ids(rs.getString("ids"))))
        .findOne();
  }

  /**
   * Writes the row of {@code key} on the device, replacing an expired one, in the caller's
   * transaction.
   */
  static void put(
      Transaction tx, long deviceId, String key, String fingerprint, List<Long> ids, Instant at) {
    tx.handle()
        .createUpdate(
            "INSERT INTO idempotency_key (device_id, idem_key, fingerprint, ids, created_at)"
                + " VALUES (?, ?, ?, ?, ?)"
                + " ON CONFLICT (device_id, idem_key) DO UPDATE SET fingerprint ="
                + " excluded.fingerprint, ids = excluded.ids, created_at = excluded.created_at")
        .bind(0, deviceId)
        .bind(1, key)
        .bind(2, fingerprint)
        .bind(3, ids.stream().map(String::valueOf).collect(Collectors.joining(",")))
        .bind(4, at.toEpochMilli())
        .execute();
  }

  /** Deletes the rows written at or before {@code cutoff}; nobody waits for it. */
  java.util.concurrent.CompletableFuture<Integer> prune(Instant cutoff) {
    return db.writes()
        .submit(
            h ->
                h.createUpdate("DELETE FROM idempotency_key WHERE created_at <= ?")
                    .bind(0, cutoff.toEpochMilli())
                    .execute());
  }

  private static List<Long> ids(String joined) {
    return joined.isEmpty()
        ? List.of()
        : Arrays.stream(joined.split(",")).map(Long::valueOf).toList();
  }
}
