package io.kurir.webhook;

import io.kurir.store.Database;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What operators see of the outbox: deliveries that ended {@code failed} or {@code dead}, and
 * replaying one (it goes back into the outbox as new, with a fresh retry period).
 *
 * <p>Thread-safe.
 */
public final class WebhookDeliveries {
  /** One delivery, as operators see it. */
  public record Delivery(
      long id,
      long deviceId,
      String url,
      String event,
      String payload,
      String state,
      int attempts,
      Optional<String> lastError,
      Instant createdAt,
      Optional<Instant> finishedAt) {}

  private final Database db;
  private final Clock clock;

  public WebhookDeliveries(Database db, Clock clock) {
    this.db = db;
    this.clock = clock;
  }

  /**
   * Deliveries in {@code state} (failed, dead, pending or delivered), newest first, at most 500.
   */
  public List<Delivery> list(String state) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT * FROM webhook_delivery WHERE state = ? ORDER BY id DESC LIMIT 500")
                    .bind(0, state)
                    .map(
                        (rs, ctx) -> {
                          long finished = rs.getLong("finished_at");
                          boolean unfinished = rs.wasNull();
                          return new Delivery(
                              rs.getLong("id"),
                              rs.getLong("device_id"),
                              rs.getString("url"),
                              rs.getString("event"),
                              rs.getString("payload"),
                              rs.getString("state"),
                              rs.getInt("attempts"),
                              Optional.ofNullable(rs.getString("last_error")),
                              Instant.ofEpochMilli(rs.getLong("created_at")),
                              unfinished
                                  ? Optional.empty()
                                  : Optional.of(Instant.ofEpochMilli(finished)));
                        })
                    .list());
  }

  /**
   * Sends a failed or dead delivery again: pending, due now, with a new retry period. False when
   * there is no such delivery, or it is not failed or dead.
   */
  public boolean replay(long id) {
    long now = clock.millis();
    return db.writes()
            .write(
                h ->
                    h.createUpdate(
                            "UPDATE webhook_delivery SET state = 'pending', attempts = 0,"
                                + " next_attempt_at = ?, created_at = ?, finished_at = NULL"
                                + " WHERE id = ? AND state IN ('failed', 'dead')")
                        .bind(0, now)
                        .bind(1, now)
                        .bind(2, id)
                        .execute())
        > 0;
  }
}
