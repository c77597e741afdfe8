package io.kurir.message;

import io.kurir.store.Database;
import io.kurir.store.Dialect;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.statement.Query;

/**
 * The SQL of {@link MessageSearch}: operators' searches over messages and incoming messages, reads
 * only.
 *
 * <p>Thread-safe.
 */
final class MessageSearchStore {
  private final Database db;

  MessageSearchStore(Database db) {
    this.db = db;
  }

  /** See {@link MessageSearch#find}; {@code limit} already bounded. */
  List<Message> find(MessageSearch.Criteria c, int limit) {
    // Before any connection is taken: a text too long to search is refused (SearchTooLong).
    Optional<String> textPattern = c.text().map(Dialect::containsPattern);
    List<String> where = new ArrayList<>();
    if (!c.deviceIds().isEmpty()) {
      where.add("device_id IN (<devices>)");
    }
    c.id().ifPresent(v -> where.add("id = :id"));
    c.recipient().ifPresent(v -> where.add("recipient = :recipient"));
    c.state().ifPresent(v -> where.add("state = :state"));
    c.text().ifPresent(v -> where.add(db.dialect().bodyLike("text")));
    c.from().ifPresent(v -> where.add("created_at >= :from"));
    c.to().ifPresent(v -> where.add("created_at < :to"));
    String sql =
        "SELECT * FROM message"
            + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where))
            + " ORDER BY id DESC LIMIT :limit";
    return db.jdbi()
        .withHandle(
            h -> {
              Query q = h.createQuery(sql);
              if (!c.deviceIds().isEmpty()) {
                q.bindList("devices", List.copyOf(c.deviceIds()));
              }
              c.id().ifPresent(v -> q.bind("id", v));
              c.recipient().ifPresent(v -> q.bind("recipient", v));
              c.state().ifPresent(v -> q.bind("state", v.wireName()));
              textPattern.ifPresent(v -> q.bind("text", v));
              c.from().ifPresent(v -> q.bind("from", v.toEpochMilli()));
              c.to().ifPresent(v -> q.bind("to", v.toEpochMilli()));
              q.bind("limit", limit);
              return q.map(MessageRowStore::message).list();
            });
  }

  /** See {@link MessageSearch#countByStateSince}. */
  Map<String, Long> countByStateSince(Instant since) {
    Map<String, Long> counts = new LinkedHashMap<>();
    db.jdbi()
        .useHandle(
            h ->
                h.createQuery(
                        "SELECT state, COUNT(*) AS n FROM message WHERE created_at >= ?"
                            + " GROUP BY state ORDER BY state")
                    .bind(0, since.toEpochMilli())
                    .map((rs, ctx) -> Map.entry(rs.getString("state"), rs.getLong("n")))
                    .forEach(e -> counts.put(e.getKey(), e.getValue())));
    return counts;
  }

  /** See {@link MessageSearch#acceptedPerHour}. */
  Map<Long, long[]> acceptedPerHour(List<Long> deviceIds, Instant from, int hours) {
    long start = from.toEpochMilli();
    long hour = 3_600_000L;
    Map<Long, long[]> counts = new LinkedHashMap<>();
    // A few hundred devices a query: the IN list stays far below any driver's bound on parameters,
    // and each device is a range of the (device_id, created_at) index, read without the table.
    for (int i = 0; i < deviceIds.size(); i += 500) {
      List<Long> chunk = deviceIds.subList(i, Math.min(deviceIds.size(), i + 500));
      db.jdbi()
          .useHandle(
              h ->
                  h.createQuery(
                          "SELECT device_id, (created_at - :start) / :hour AS b, COUNT(*) AS n"
                              + " FROM message WHERE device_id IN (<devices>)"
                              + " AND created_at >= :start AND created_at < :end"
                              + " GROUP BY device_id, b")
                      .bindList("devices", chunk)
                      .bind("start", start)
                      .bind("hour", hour)
                      .bind("end", start + hour * hours)
                      .map((rs, ctx) -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)})
                      .forEach(
                          row ->
                              counts.computeIfAbsent(row[0], d -> new long[hours])[(int) row[1]] +=
                                  row[2]));
    }
    return counts;
  }

  /** See {@link MessageSearch#received}; {@code limit} already bounded. */
  List<MessageSearch.Received> received(long deviceId, int limit) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT id, device_id, sender, body, received_at, group_id, media_type,"
                            + " keyword FROM inbound_message WHERE device_id = ?"
                            + " ORDER BY received_at DESC, id DESC LIMIT ?")
                    .bind(0, deviceId)
                    .bind(1, limit)
                    .map(
                        (rs, ctx) ->
                            new MessageSearch.Received(
                                rs.getLong("id"),
                                rs.getLong("device_id"),
                                rs.getString("sender"),
                                rs.getString("body"),
                                Instant.ofEpochMilli(rs.getLong("received_at")),
                                Optional.ofNullable(rs.getString("group_id")),
                                Optional.ofNullable(rs.getString("media_type")),
                                Optional.ofNullable(rs.getString("keyword"))))
                    .list());
  }
}
