package io.kurir.metrics;

import io.kurir.store.Database;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.jdbi.v3.core.Handle;

/**
 * The SQL of {@link QueueFigures}: the queue's, the webhook outbox's and the devices' counts, in
 * one read.
 *
 * <p>Thread-safe.
 */
final class QueueFigureStore {
  private final Database db;

  QueueFigureStore(Database db) {
    this.db = db;
  }

  QueueFigures.Figures read() {
    Map<String, Long> messages = new HashMap<>();
    Map<String, Instant> oldestMessage = new HashMap<>();
    Map<String, Long> deliveries = new HashMap<>();
    Map<String, Instant> oldestDelivery = new HashMap<>();
    Map<QueueFigures.DriverState, Long> devices = new HashMap<>();
    db.jdbi()
        .useHandle(
            h -> {
              countByState(h, "message", "'pending', 'sending'", messages, oldestMessage);
              countByState(h, "webhook_delivery", "'pending', 'dead'", deliveries, oldestDelivery);
              // A switched-off device counts as disabled, whatever its session last said: an
              // alert on offline devices should not fire for devices an operator switched off.
              h.createQuery(
                      "SELECT driver, CASE WHEN disabled <> 0 THEN 'disabled' ELSE state END AS s,"
                          + " COUNT(*) AS n FROM device WHERE deleted_at IS NULL"
                          + " GROUP BY driver, CASE WHEN disabled <> 0 THEN 'disabled' ELSE state"
                          + " END")
                  .map(
                      (rs, ctx) ->
                          Map.entry(
                              new QueueFigures.DriverState(
                                  rs.getString("driver"), rs.getString("s")),
                              rs.getLong("n")))
                  .forEach(e -> devices.put(e.getKey(), e.getValue()));
            });
    return new QueueFigures.Figures(messages, oldestMessage, deliveries, oldestDelivery, devices);
  }

  /** Rows of {@code table} in each of {@code states}, and the oldest one's creation. */
  private static void countByState(
      Handle h,
      String table,
      String states,
      Map<String, Long> counts,
      Map<String, Instant> oldest) {
    h.createQuery(
            "SELECT state, COUNT(*) AS n, MIN(created_at) AS oldest FROM "
                + table
                + " WHERE state IN ("
                + states
                + ") GROUP BY state")
        .map(
            (rs, ctx) -> {
              counts.put(rs.getString("state"), rs.getLong("n"));
              oldest.put(rs.getString("state"), Instant.ofEpochMilli(rs.getLong("oldest")));
              return rs.getString("state");
            })
        .list();
  }
}
