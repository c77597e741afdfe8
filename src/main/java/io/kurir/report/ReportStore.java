package io.kurir.report;

import io.kurir.store.Database;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The SQL of {@link Reports}: a device's messages in a period, filtered in the database.
 *
 * <p>Thread-safe.
 */
final class ReportStore {
  private final Database db;

  ReportStore(Database db) {
    this.db = db;
  }

  /**
   * The device's messages created in [{@code from}, {@code to}), whose text contains {@code
   * pattern} when given, newest first, at most {@code limit}, as many as {@code budget} keeps of
   * them (read one at a time).
   */
  List<Reports.Row> newest(
      long deviceId,
      long from,
      long to,
      Optional<String> pattern,
      int limit,
      Function<Stream<Reports.Row>, List<Reports.Row>> budget) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT id, body, kind, recipient, state, reason, created_at FROM message"
                            + " WHERE device_id = :device AND created_at >= :from"
                            + " AND created_at < :to"
                            + (pattern.isPresent()
                                ? " AND " + db.dialect().bodyLike("pattern")
                                : "")
                            + " ORDER BY created_at DESC, id DESC LIMIT :limit")
                    .bind("device", deviceId)
                    .bind("from", from)
                    .bind("to", to)
                    .bind("pattern", pattern.orElse(""))
                    .bind("limit", limit)
                    .map(
                        (rs, ctx) ->
                            new Reports.Row(
                                rs.getLong("id"),
                                rs.getString("body"),
                                rs.getString("kind"),
                                rs.getString("recipient"),
                                rs.getString("state"),
                                Reports.failureReason(
                                    rs.getString("state"), rs.getString("reason")),
                                Instant.ofEpochMilli(rs.getLong("created_at"))))
                    .withStream(budget::apply));
  }

  /** Whether the device has any message created in [{@code from}, {@code to}). */
  boolean anyIn(long deviceId, long from, long to) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT 1 FROM message WHERE device_id = ? AND created_at >= ?"
                            + " AND created_at < ? LIMIT 1")
                    .bind(0, deviceId)
                    .bind(1, from)
                    .bind(2, to)
                    .mapTo(Integer.class)
                    .findOne()
                    .isPresent());
  }
}
