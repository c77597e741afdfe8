package io.kurir.device;

import io.kurir.store.Database;
import io.kurir.store.Transaction;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The SQL of devices' state history ({@code device_event}) and of their queues' holds ({@code
 * device_hold}). The state itself is a column of {@code device}, written by {@link
 * io.kurir.tenant.DeviceStore}.
 *
 * <p>Thread-safe.
 */
final class DeviceStateStore {
  private final Database db;

  DeviceStateStore(Database db) {
    this.db = db;
  }

  // --- history

  /** Stores one change or step of a device's state, in the caller's transaction. */
  static void addEvent(
      Transaction tx, long deviceId, String oldState, String newState, String reason, Instant at) {
    tx.handle()
        .createUpdate(
            "INSERT INTO device_event (device_id, old_state, new_state, reason, at)"
                + " VALUES (?, ?, ?, ?, ?)")
        .bind(0, deviceId)
        .bind(1, oldState)
        .bind(2, newState)
        .bind(3, reason)
        .bind(4, at.toEpochMilli())
        .execute();
  }

  /** See {@link DeviceStates#linked}. */
  Set<Long> linked(Collection<Long> deviceIds) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT d.id FROM device d WHERE d.id IN (<ids>)"
                            + " AND (d.state IN ('online', 'offline')"
                            + " OR (d.state = 'port_down' AND (SELECT e.old_state FROM"
                            + " device_event e WHERE e.device_id = d.id AND e.new_state ="
                            + " 'port_down' ORDER BY e.at DESC, e."
                            + db.dialect().insertionOrder()
                            + " DESC LIMIT 1) IN ('online', 'offline')))")
                    .bindList("ids", List.copyOf(deviceIds))
                    .mapTo(Long.class)
                    .collect(Collectors.toSet()));
  }

  /** The new state and reason of the device's last change or step, if any. */
  Optional<List<String>> lastEvent(long deviceId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT new_state, reason FROM device_event WHERE device_id = ?"
                            + " ORDER BY at DESC, "
                            + db.dialect().insertionOrder()
                            + " DESC LIMIT 1")
                    .bind(0, deviceId)
                    .map(
                        (rs, ctx) ->
                            java.util.Arrays.asList(
                                rs.getString("new_state"), rs.getString("reason")))
                    .findOne());
  }

  /** Every change of the device's state, oldest first. */
  List<DeviceEvent> history(long deviceId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT old_state, new_state, reason, at FROM device_event"
                            + " WHERE device_id = ? ORDER BY at, "
                            + db.dialect().insertionOrder())
                    .bind(0, deviceId)
                    .map(
                        (rs, ctx) ->
                            new DeviceEvent(
                                deviceId,
                                DeviceState.ofWireName(rs.getString("old_state")),
                                DeviceState.ofWireName(rs.getString("new_state")),
                                Optional.ofNullable(rs.getString("reason")),
                                Instant.ofEpochMilli(rs.getLong("at"))))
                    .list());
  }

  // --- holds

  /** Whether the device's queue is held, in the caller's transaction. */
  static boolean held(Transaction tx, long deviceId) {
    return tx.handle()
            .createQuery("SELECT COUNT(*) FROM device_hold WHERE device_id = ?")
            .bind(0, deviceId)
            .mapTo(Integer.class)
            .one()
        > 0;
  }

  /** Holds the device's queue for {@code reason} unless it is held; true when it was not. */
  boolean hold(long deviceId, String reason, Instant at) {
    return db.writes()
        .write(
            h -> {
              boolean exists =
                  h.createQuery("SELECT COUNT(*) FROM device_hold WHERE device_id = ?")
                          .bind(0, deviceId)
                          .mapTo(Integer.class)
                          .one()
                      > 0;
              if (!exists) {
                h.createUpdate(
                        "INSERT INTO device_hold (device_id, reason, held_at) VALUES (?, ?, ?)")
                    .bind(0, deviceId)
                    .bind(1, reason)
                    .bind(2, at.toEpochMilli())
                    .execute();
              }
              return !exists;
            });
  }

  /** Ends the device's hold; how many rows went (0 when it had none). */
  int release(long deviceId) {
    return db.writes()
        .write(
            h ->
                h.createUpdate("DELETE FROM device_hold WHERE device_id = ?")
                    .bind(0, deviceId)
                    .execute());
  }

  /** Why the device is held, if it is. */
  Optional<String> holdReason(long deviceId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT reason FROM device_hold WHERE device_id = ?")
                    .bind(0, deviceId)
                    .mapTo(String.class)
                    .findOne());
  }

  /** Since when the device is held, if it is. */
  Optional<Instant> heldSince(long deviceId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT held_at FROM device_hold WHERE device_id = ?")
                    .bind(0, deviceId)
                    .mapTo(Long.class)
                    .findOne()
                    .map(Instant::ofEpochMilli));
  }

  // --- account signals

  /**
   * Stores what an engine reported of the account's limits, older than a month going; not waited
   * for (a driver's thread reports it).
   */
  java.util.concurrent.CompletableFuture<Void> addSignal(
      long deviceId, String kind, String reason, Instant at) {
    return db.writes()
        .submit(
            h -> {
              h.createUpdate(
                      "INSERT INTO device_signal (device_id, kind, reason, at) VALUES (?, ?, ?, ?)")
                  .bind(0, deviceId)
                  .bind(1, kind)
                  .bind(2, reason)
                  .bind(3, at.toEpochMilli())
                  .execute();
              h.createUpdate("DELETE FROM device_signal WHERE device_id = ? AND at < ?")
                  .bind(0, deviceId)
                  .bind(1, at.minus(java.time.Duration.ofDays(30)).toEpochMilli())
                  .execute();
              return (Void) null;
            });
  }

  /** The device's first signal at or after {@code since}: its kind and reason. */
  Optional<java.util.Map.Entry<String, String>> firstSignal(long deviceId, Instant since) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT kind, reason FROM device_signal WHERE device_id = ? AND at >= ?"
                            + " ORDER BY at LIMIT 1")
                    .bind(0, deviceId)
                    .bind(1, since.toEpochMilli())
                    .map(
                        (rs, ctx) ->
                            java.util.Map.entry(rs.getString("kind"), rs.getString("reason")))
                    .findOne());
  }
}
