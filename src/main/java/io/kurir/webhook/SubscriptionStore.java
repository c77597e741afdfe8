package io.kurir.webhook;

import io.kurir.store.Database;
import io.kurir.store.Transaction;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * The SQL of webhook subscriptions ({@code webhook_subscription}); their secrets are stored sealed
 * and handed out sealed. Plain, portable SQL.
 *
 * <p>Thread-safe.
 */
final class SubscriptionStore {
  /**
   * A subscription as stored; {@code sealedSecret} is sealed ({@link io.kurir.store.SecretBox}).
   */
  record Row(
      long id,
      long licenseId,
      String url,
      List<String> events,
      String sealedSecret,
      Instant createdAt,
      WebhookSubscriptions.Format format) {}

  private final Database db;

  SubscriptionStore(Database db) {
    this.db = db;
  }

  void insert(Row row) {
    db.writes()
        .write(
            h -> {
              Events.subscriptionsChanging(Transaction.of(h));
              return h.createUpdate(
                      "INSERT INTO webhook_subscription (id, license_id, url, events, secret,"
                          + " created_at, format) VALUES (?, ?, ?, ?, ?, ?, ?)")
                  .bind(0, row.id())
                  .bind(1, row.licenseId())
                  .bind(2, row.url())
                  .bind(3, String.join(",", row.events()))
                  .bind(4, row.sealedSecret())
                  .bind(5, row.createdAt().toEpochMilli())
                  .bind(6, row.format().wireName())
                  .execute();
            });
  }

  /** The license's subscriptions that are not removed, oldest first. */
  List<Row> of(long licenseId) {
    return db.jdbi().withHandle(h -> of(Transaction.of(h), licenseId));
  }

  /** {@link #of(long)} in the caller's transaction. */
  static List<Row> of(Transaction tx, long licenseId) {
    // Plain JDBC: read for every event appended, on the writer's thread.
    try (PreparedStatement of = tx.handle().getConnection().prepareStatement(OF_LICENSE)) {
      of.setLong(1, licenseId);
      try (ResultSet rs = of.executeQuery()) {
        List<Row> rows = new ArrayList<>();
        while (rs.next()) {
          rows.add(row(rs));
        }
        return rows;
      }
    } catch (SQLException e) {
      throw new UnableToExecuteStatementException(e, null);
    }
  }

  private static final String OF_LICENSE =
      "SELECT id, license_id, url, events, secret, created_at, format FROM webhook_subscription"
          + " WHERE license_id = ? AND deleted_at IS NULL ORDER BY id";

  /**
   * Removes the license's subscription {@code id}, and ends its pending deliveries as failed (an
   * attempt under way keeps its claim and is recorded); false when the license has no such one.
   */
  boolean remove(long licenseId, long id, Instant now) {
    return db.writes()
        .write(
            h -> {
              Events.subscriptionsChanging(Transaction.of(h));
              int removed =
                  h.createUpdate(
                          "UPDATE webhook_subscription SET deleted_at = ? WHERE id = ?"
                              + " AND license_id = ? AND deleted_at IS NULL")
                      .bind(0, now.toEpochMilli())
                      .bind(1, id)
                      .bind(2, licenseId)
                      .execute();
              if (removed == 1) {
                WebhookStore.endForSubscription(Transaction.of(h), id, now);
              }
              return removed == 1;
            });
  }

  /**
   * The latest deliveries of the license's subscription {@code id}, removed or not, newest first.
   */
  List<WebhookDeliveries.Delivery> recentDeliveries(long licenseId, long id, int limit) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT d.id, d.device_id, d.url, d.event, d.payload, d.state, d.attempts,"
                            + " d.last_error, d.created_at, d.finished_at FROM webhook_delivery d"
                            + " JOIN webhook_subscription s ON s.id = d.subscription_id"
                            + " WHERE s.id = ? AND s.license_id = ? ORDER BY d.id DESC LIMIT ?")
                    .bind(0, id)
                    .bind(1, licenseId)
                    .bind(2, limit)
                    .map((rs, ctx) -> WebhookStore.listed(rs))
                    .list());
  }

  private static Row row(ResultSet rs) throws SQLException {
    return new Row(
        rs.getLong("id"),
        rs.getLong("license_id"),
        rs.getString("url"),
        List.copyOf(new LinkedHashSet<>(Arrays.asList(rs.getString("events").split(",")))),
        rs.getString("secret"),
        Instant.ofEpochMilli(rs.getLong("created_at")),
        WebhookSubscriptions.Format.ofWireName(rs.getString("format"))
            .orElse(WebhookSubscriptions.Format.STANDARD));
  }
}
