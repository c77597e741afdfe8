package io.kurir.message;

import io.kurir.content.CloudMessageJson;
import io.kurir.content.Content;
import io.kurir.content.MediaSource;
import io.kurir.content.MessageContent;
import io.kurir.content.SeedContent;
import io.kurir.store.Database;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;

/**
 * The SQL of {@link MessageHistories}: messages, their states and incoming messages, read only,
 * always within a set of devices (a caller's), so that no query reaches another license's rows.
 *
 * <p>Thread-safe.
 */
final class MessageHistoryStore {
  private final Database db;

  MessageHistoryStore(Database db) {
    this.db = db;
  }

  Optional<MessageHistories.Outgoing> outgoing(long id, Set<Long> deviceIds) {
    return db.jdbi()
        .withHandle(
            h -> {
              List<Row> rows =
                  h.createQuery("SELECT * FROM message WHERE id = :id AND device_id IN (<devices>)")
                      .bind("id", id)
                      .bindList("devices", List.copyOf(deviceIds))
                      .map((rs, ctx) -> new Row(MessageRowStore.message(rs, ctx), networkId(rs)))
                      .list();
              return withEvents(h, rows).stream().findFirst();
            });
  }

  List<MessageHistories.Outgoing> outgoing(MessageHistories.Filter f, int limit) {
    List<String> where = pageFilters(f, "created_at");
    f.state().ifPresent(v -> where.add("state = :state"));
    String sql =
        "SELECT * FROM message WHERE "
            + String.join(" AND ", where)
            + " ORDER BY id DESC LIMIT :limit";
    return db.jdbi()
        .withHandle(
            h -> {
              Query q = h.createQuery(sql).bindList("devices", List.copyOf(f.deviceIds()));
              f.state().ifPresent(v -> q.bind("state", v.wireName()));
              bindCommon(q, f, limit);
              List<Row> rows =
                  q.map((rs, ctx) -> new Row(MessageRowStore.message(rs, ctx), networkId(rs)))
                      .list();
              return withEvents(h, rows);
            });
  }

  /**
   * The conditions a page of either table shares: the caller's devices, the time window on {@code
   * timeColumn}, and the cursor (ids below {@code before}).
   */
  private static List<String> pageFilters(MessageHistories.Filter f, String timeColumn) {
    List<String> where = new ArrayList<>(List.of("device_id IN (<devices>)"));
    f.from().ifPresent(v -> where.add(timeColumn + " >= :from"));
    f.to().ifPresent(v -> where.add(timeColumn + " < :to"));
    f.before().ifPresent(v -> where.add("id < :before"));
    return where;
  }

  Optional<MessageHistories.Incoming> incoming(long id, Set<Long> deviceIds) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT * FROM inbound_message WHERE id = :id AND device_id IN (<devices>)")
                    .bind("id", id)
                    .bindList("devices", List.copyOf(deviceIds))
                    .map((rs, ctx) -> incoming(rs))
                    .findOne());
  }

  List<MessageHistories.Incoming> incoming(MessageHistories.Filter f, int limit) {
    List<String> where = pageFilters(f, "received_at");
    String sql =
        "SELECT * FROM inbound_message WHERE "
            + String.join(" AND ", where)
            + " ORDER BY id DESC LIMIT :limit";
    return db.jdbi()
        .withHandle(
            h -> {
              Query q = h.createQuery(sql).bindList("devices", List.copyOf(f.deviceIds()));
              bindCommon(q, f, limit);
              return q.map((rs, ctx) -> incoming(rs)).list();
            });
  }

  private static void bindCommon(Query q, MessageHistories.Filter f, int limit) {
    f.from().ifPresent(v -> q.bind("from", v.toEpochMilli()));
    f.to().ifPresent(v -> q.bind("to", v.toEpochMilli()));
    f.before().ifPresent(v -> q.bind("before", v));
    q.bind("limit", limit);
  }

  record Row(Message message, Optional<String> networkId) {}

  static Optional<String> networkId(ResultSet rs) throws SQLException {
    return Optional.ofNullable(rs.getString("network_id"));
  }

  /** The rows with their states, read in one query, oldest state first. */
  List<MessageHistories.Outgoing> withEvents(Handle h, List<Row> rows) {
    if (rows.isEmpty()) {
      return List.of();
    }
    Map<Long, List<MessageEvent>> events = new LinkedHashMap<>();
    rows.forEach(r -> events.put(r.message().id(), new ArrayList<>()));
    Collection<Long> ids = events.keySet();
    h.createQuery(MessageRowStore.historyLinesSql(db.dialect(), "IN (<ids>)"))
        .bindList("ids", List.copyOf(ids))
        .map(
            (rs, ctx) -> {
              events
                  .get(rs.getLong("message_id"))
                  .add(
                      new MessageEvent(
                          MessageState.ofWireName(rs.getString("state")),
                          Optional.ofNullable(rs.getString("reason")),
                          Instant.ofEpochMilli(rs.getLong("at"))));
              return 0;
            })
        .list();
    return rows.stream()
        .map(
            r ->
                new MessageHistories.Outgoing(
                    r.message(), r.networkId(), List.copyOf(events.get(r.message().id()))))
        .toList();
  }

  /** An {@code inbound_message} row read whole (package-private: chats read the same rows). */
  static MessageHistories.Incoming incoming(ResultSet rs) throws SQLException {
    Optional<String> mediaType = Optional.ofNullable(rs.getString("media_type"));
    String mediaPath = rs.getString("media_path");
    String body = rs.getString("body");
    String stored = rs.getString("content");
    String kind = rs.getString("kind");
    // Rows of every kind keep their content since V42 (a text, or an image or file reported by
    // its media alone, keeps its columns); older rows read as text, or as the image or document
    // they kept.
    MessageContent content;
    if (stored != null) {
      content = CloudMessageJson.fromStored(stored);
    } else if (kind != null && !kind.equals("text") && !SeedContent.isSeedKind(kind)) {
      content = MessageContent.of(mediaOnly(kind, body, mediaPath));
    } else if (mediaType.isPresent()) {
      content =
          MessageContent.of(
              mediaType.get().startsWith("image/")
                  ? new Content.Image(MediaSource.NONE, body)
                  : new Content.Document(MediaSource.NONE, body, fileName(mediaPath)));
    } else {
      content = MessageContent.of(new Content.Text(body, false));
    }
    return new MessageHistories.Incoming(
        rs.getLong("id"),
        rs.getLong("device_id"),
        rs.getString("sender"),
        body,
        Instant.ofEpochMilli(rs.getLong("received_at")),
        Optional.ofNullable(rs.getString("network_id")),
        Optional.ofNullable(rs.getString("group_id")),
        mediaType,
        content,
        Optional.ofNullable(rs.getString("sender_name")),
        mediaPath != null);
  }

  /** A media kind reported by its file alone (its content names no source), as the driver did. */
  private static Content mediaOnly(String kind, String caption, String mediaPath) {
    return switch (kind) {
      case "video" -> new Content.Video(MediaSource.NONE, caption);
      case "audio" -> new Content.Audio(MediaSource.NONE, false);
      case "sticker" -> new Content.Sticker(MediaSource.NONE, false);
      case "document" -> new Content.Document(MediaSource.NONE, caption, fileName(mediaPath));
      default -> new Content.Image(MediaSource.NONE, caption);
    };
  }

  private static String fileName(String path) {
    return path == null ? "" : java.nio.file.Path.of(path).getFileName().toString();
  }
}
