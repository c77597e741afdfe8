package io.kurir.driver;

import io.kurir.store.Database;
import io.kurir.store.GroupedWrites;
import io.kurir.store.WriteQueue;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.Handle;

/**
 * A driver's per-device state that must outlive the process and be readable by every node: a
 * session name on an engine, a last-seen inbound time, a pairing in progress. Keys are the driver's
 * own. Writes go through the group-commit writer and are durable when they return.
 *
 * <p>Thread-safe.
 */
public final class DeviceSessionStore {
  private final Database db;
  private final Clock clock;
  private final String driver;

  public DeviceSessionStore(Database db, Clock clock, String driver) {
    this.db = db;
    this.clock = clock;
    this.driver = driver;
    this.puts =
        new GroupedWrites<>(db.writes(), db.writes()::submit, this::putAll, MAX_WAITING, () -> {});
  }

  /** Puts ({@link #putIfAbsent}) that may wait for the writer at once. */
  private static final int MAX_WAITING = 20_000;

  private record Put(long deviceId, String key, String value) {}

  private final GroupedWrites<Put, String> puts;

  public Optional<String> get(long deviceId, String key) {
    return db.jdbi().withHandle(h -> valueIn(h, deviceId, key));
  }

  private Optional<String> valueIn(Handle h, long deviceId, String key) {
    return h.createQuery(
            "SELECT value FROM driver_state WHERE device_id = ? AND driver = ? AND key = ?")
        .bind(0, deviceId)
        .bind(1, driver)
        .bind(2, key)
        .mapTo(String.class)
        .findOne();
  }

  /**
   * A value that {@link #putSecret} stored encrypted, decrypted. Its key must be one of {@link
   * io.kurir.store.StoredSecrets.SessionSecrets#KEYS}, so that values written by older versions in
   * plaintext are encrypted at start-up too.
   */
  public Optional<String> getSecret(long deviceId, String key) {
    return get(deviceId, key).map(db.secrets()::open);
  }

  /** Stores a secret (a key that signs an engine's webhooks) encrypted; see {@link #getSecret}. */
  public void putSecret(long deviceId, String key, String value) {
    put(deviceId, key, db.secrets().seal(value));
  }

  public void put(long deviceId, String key, String value) {
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "INSERT INTO driver_state (device_id, driver, key, value, updated_at)"
                            + " VALUES (?, ?, ?, ?, ?) ON CONFLICT (device_id, driver, key)"
                            + " DO UPDATE SET value = excluded.value,"
                            + " updated_at = excluded.updated_at")
                    .bind(0, deviceId)
                    .bind(1, driver)
                    .bind(2, key)
                    .bind(3, value)
                    .bind(4, clock.millis())
                    .execute());
  }

  /**
   * Whether several gateways share this store (PostgreSQL): what one node writes, the others read.
   */
  public boolean sharedBetweenNodes() {
    return !db.dialect().singleWriter();
  }

  /**
   * Stores {@code value} under {@code key} unless the key has a value already; returns the value
   * kept (the earlier one, if any). Durable when it returns; one winner when nodes race.
   */
  public String putIfAbsent(long deviceId, String key, String value) {
    // With the others waiting for the writer, in one statement (the sandbox records every send
    // this way: on PostgreSQL a round trip a message sent, before the group).
    return WriteQueue.await(puts.add(new Put(deviceId, key, value)));
  }

  /**
   * The puts of a group: one insert per 64, which tells what it stored; the value kept is read only
   * for a key that had one.
   */
  private List<String> putAll(Handle h, List<Put> all, boolean[] afterCommit) throws SQLException {
    Map<Put, String> kept = new IdentityHashMap<>();
    long now = clock.millis();
    for (List<Put> part : GroupedWrites.parts(all)) {
      int size = GroupedWrites.paddedSize(part.size());
      Map<String, String> stored = new HashMap<>(); // device/key → the value this insert stored
      try (PreparedStatement insert = h.getConnection().prepareStatement(putSql(size))) {
        int p = 1;
        for (int i = 0; i < size; i++) {
          Put put = i < part.size() ? part.get(i) : null; // padding: no key, not inserted
          insert.setLong(p++, put == null ? 0 : put.deviceId());
          insert.setString(p++, driver);
          insert.setString(p++, put == null ? null : put.key());
          insert.setString(p++, put == null ? null : put.value());
          insert.setLong(p++, now);
        }
        try (ResultSet rs = insert.executeQuery()) {
          while (rs.next()) {
            stored.put(rs.getLong(1) + "/" + rs.getString(2), rs.getString(3));
          }
        }
      }
      for (Put put : part) {
        // A key put twice in one insert: whichever row the database kept is every put's answer.
        String value = stored.get(put.deviceId() + "/" + put.key());
        kept.put(put, value != null ? value : valueIn(h, put.deviceId(), put.key()).orElseThrow());
      }
    }
    List<String> values = new ArrayList<>(all.size());
    all.forEach(put -> values.add(kept.get(put)));
    return values;
  }

  private static final Map<Integer, String> PUT_SQL = new ConcurrentHashMap<>();

  /**
   * {@code size} puts, rows without a key left out (the padding), returning the keys stored. The
   * rows are read from a {@code VALUES} list by its columns' default names, the same on both
   * databases; SQLite needs the {@code WHERE} to tell an upsert's {@code ON} from a join's.
   */
  private static String putSql(int size) {
    return PUT_SQL.computeIfAbsent(
        size,
        n ->
            "INSERT INTO driver_state (device_id, driver, key, value, updated_at)"
                + " SELECT column1, column2, column3, column4, column5 FROM (VALUES "
                + String.join(", ", Collections.nCopies(n, "(?, ?, ?, ?, ?)"))
                + ") AS v WHERE column3 IS NOT NULL"
                + " ON CONFLICT (device_id, driver, key) DO NOTHING RETURNING device_id, key, value");
  }

  /**
   * Removes this driver's keys that start with {@code prefix} and were written before {@code at}.
   */
  public void removeOlderThan(String prefix, java.time.Instant at) {
    db.writes()
        .submit(
            h ->
                h.createUpdate(
                        "DELETE FROM driver_state WHERE driver = ? AND key LIKE ? AND updated_at < ?")
                    .bind(0, driver)
                    .bind(1, prefix.replace("%", "") + "%")
                    .bind(2, at.toEpochMilli())
                    .execute());
  }

  public void remove(long deviceId, String key) {
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "DELETE FROM driver_state WHERE device_id = ? AND driver = ? AND key = ?")
                    .bind(0, deviceId)
                    .bind(1, driver)
                    .bind(2, key)
                    .execute());
  }
}
