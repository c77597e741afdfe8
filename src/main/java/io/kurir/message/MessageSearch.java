package io.kurir.message;

import io.kurir.store.Database;
import io.kurir.store.Dialect;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.statement.Query;

/**
 * What operators look messages up by (the web console): device, number, id, state, a piece of the
 * text and a time range; and how many messages reached each state in a period.
 *
 * <p>Thread-safe.
 */
public final class MessageSearch {
  /** At most this many messages answer one search, newest first. */
  public static final int MAX_ROWS = 200;

  /**
   * What to look for; an empty field matches every message.
   *
   * @param deviceIds the devices to look in (empty: every device)
   * @param recipient an E.164 number or group id, exactly
   * @param text a piece of the text, in any case
   * @param from the earliest creation time, inclusive
   * @param to the latest creation time, exclusive
   */
  public record Criteria(
      Set<Long> deviceIds,
      Optional<Long> id,
      Optional<String> recipient,
      Optional<MessageState> state,
      Optional<String> text,
      Optional<Instant> from,
      Optional<Instant> to,
      int limit) {

    /** Every message (the newest {@link #MAX_ROWS}); narrow it with the {@code with…} methods. */
    public static Criteria any() {
      Optional<Instant> none = Optional.empty();
      return new Criteria(
          Set.of(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          none,
          none,
          MAX_ROWS);
    }

    public Criteria withDevices(Set<Long> ids) {
      return new Criteria(ids, id, recipient, state, text, from, to, limit);
    }

    public Criteria withId(Optional<Long> messageId) {
      return new Criteria(deviceIds, messageId, recipient, state, text, from, to, limit);
    }

    public Criteria withRecipient(Optional<String> address) {
      return new Criteria(deviceIds, id, address, state, text, from, to, limit);
    }

    public Criteria withState(Optional<MessageState> s) {
      return new Criteria(deviceIds, id, recipient, s, text, from, to, limit);
    }

    public Criteria withText(Optional<String> piece) {
      return new Criteria(deviceIds, id, recipient, state, piece, from, to, limit);
    }

    /** Created at {@code start} or later and before {@code end}. */
    public Criteria withPeriod(Optional<Instant> start, Optional<Instant> end) {
      return new Criteria(deviceIds, id, recipient, state, text, start, end, limit);
    }

    public Criteria withLimit(int rows) {
      return new Criteria(deviceIds, id, recipient, state, text, from, to, rows);
    }
  }

  private final Database db;

  public MessageSearch(Database db) {
    this.db = db;
  }

  /**
   * The messages that match, newest first, at most {@code criteria.limit()} ({@link #MAX_ROWS}).
   *
   * @throws io.kurir.store.SearchTooLong when the text is longer than {@link
   *     Dialect#MAX_SEARCH_CHARS}
   */
  public List<Message> find(Criteria c) {
    // Before any connection is taken: a text too long to search is refused (SearchTooLong).
    Optional<String> textPattern = c.text().map(Dialect::containsPattern);
    List<String> where = new ArrayList<>();
    if (!c.deviceIds().isEmpty()) {
      where.add("device_id IN (<devices>)");
    }
    c.id().ifPresent(v -> where.add("id = :id"));
    c.recipient().ifPresent(v -> where.add("recipient = :recipient"));
    c.state().ifPresent(v -> where.add("state = :state"));
    c.text().ifPresent(v -> where.add(db.dialect().lowerLike("body", "text")));
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
              q.bind("limit", Math.min(Math.max(c.limit(), 1), MAX_ROWS));
              return q.map(MessageRows::message).list();
            });
  }

  /** How many messages created since {@code since} are in each state now, by state name. */
  public Map<String, Long> countByStateSince(Instant since) {
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

  /**
   * A message a device received, as stored when it arrived.
   *
   * @param groupId the group it was written in, if it was
   * @param mediaType the MIME type of its image or file, if it carried one
   * @param keyword the auto-reply keyword it matched, if any
   */
  public record Received(
      long id,
      long deviceId,
      String sender,
      String body,
      Instant receivedAt,
      Optional<String> groupId,
      Optional<String> mediaType,
      Optional<String> keyword) {}

  /** The newest messages {@code deviceId} received, newest first, at most {@code limit}. */
  public List<Received> received(long deviceId, int limit) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT id, device_id, sender, body, received_at, group_id, media_type,"
                            + " keyword FROM inbound_message WHERE device_id = ?"
                            + " ORDER BY received_at DESC, id DESC LIMIT ?")
                    .bind(0, deviceId)
                    .bind(1, Math.min(Math.max(limit, 1), MAX_ROWS))
                    .map(
                        (rs, ctx) ->
                            new Received(
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
