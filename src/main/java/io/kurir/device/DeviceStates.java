package io.kurir.device;

import io.kurir.store.Database;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The state of every device and the history of its changes. A change is stored with its time and
 * reason in the same transaction as the new state; a report of the state a device is already in
 * changes nothing.
 *
 * <p>Thread-safe.
 */
public final class DeviceStates {
  private final Database db;
  private final Clock clock;

  public DeviceStates(Database db, Clock clock) {
    this.db = db;
    this.clock = clock;
  }

  /** Moves a device to {@code next}; the change, if any, once committed. */
  public Optional<DeviceEvent> record(long deviceId, DeviceState next, String reason) {
    Instant at = clock.instant();
    return db.writes()
        .write(
            h -> {
              Optional<String> current =
                  h.createQuery("SELECT state FROM device WHERE id = ?")
                      .bind(0, deviceId)
                      .mapTo(String.class)
                      .findOne();
              if (current.isEmpty() || current.get().equals(next.wireName())) {
                return Optional.<DeviceEvent>empty();
              }
              h.createUpdate("UPDATE device SET state = ? WHERE id = ?")
                  .bind(0, next.wireName())
                  .bind(1, deviceId)
                  .execute();
              h.createUpdate(
                      "INSERT INTO device_event (device_id, old_state, new_state, reason, at)"
                          + " VALUES (?, ?, ?, ?, ?)")
                  .bind(0, deviceId)
                  .bind(1, current.get())
                  .bind(2, next.wireName())
                  .bind(3, reason)
                  .bind(4, at.toEpochMilli())
                  .execute();
              return Optional.of(
                  new DeviceEvent(
                      deviceId,
                      DeviceState.ofWireName(current.get()),
                      next,
                      Optional.ofNullable(reason),
                      at));
            });
  }

  public DeviceState current(long deviceId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT state FROM device WHERE id = ?")
                    .bind(0, deviceId)
                    .mapTo(String.class)
                    .findOne()
                    .map(DeviceState::ofWireName)
                    .orElse(DeviceState.NONE));
  }

  /** The stored state of every device, in one read. */
  public Map<Long, DeviceState> all() {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT id, state FROM device")
                    .reduceRows(
                        new HashMap<Long, DeviceState>(),
                        (map, row) -> {
                          map.put(
                              row.getColumn("id", Long.class),
                              DeviceState.ofWireName(row.getColumn("state", String.class)));
                          return map;
                        }));
  }

  /** Every change of the device's state, oldest first. */
  public List<DeviceEvent> history(long deviceId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT old_state, new_state, reason, at FROM device_event"
                            + " WHERE device_id = ? ORDER BY at, rowid")
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
}
