package io.kurir.driver;

import io.kurir.store.Database;
import java.time.Clock;
import java.util.Optional;

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
  }

  public Optional<String> get(long deviceId, String key) {
    return db.jdbi().withHandle(h -> valueIn(h, deviceId, key));
  }

  private Optional<String> valueIn(org.jdbi.v3.core.Handle h, long deviceId, String key) {
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
    return db.writes()
        .write(
            h -> {
              // The insert tells what it stored: the read is needed only when a value was there
              // (one statement, not two, for the sandbox's record of every send on PostgreSQL).
              Optional<String> stored =
                  h.createQuery(
                          "INSERT INTO driver_state (device_id, driver, key, value, updated_at)"
                              + " VALUES (?, ?, ?, ?, ?) ON CONFLICT (device_id, driver, key)"
                              + " DO NOTHING RETURNING value")
                      .bind(0, deviceId)
                      .bind(1, driver)
                      .bind(2, key)
                      .bind(3, value)
                      .bind(4, clock.millis())
                      .mapTo(String.class)
                      .findOne();
              return stored.isPresent() ? stored.get() : valueIn(h, deviceId, key).orElseThrow();
            });
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
