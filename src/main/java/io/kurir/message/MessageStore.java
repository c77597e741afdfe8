package io.kurir.message;

import io.kurir.store.Database;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.statement.StatementContext;

/** The SQL of messages and incoming messages. State changes are guarded in SQL, not in memory. */
final class MessageStore {
  private final Database db;
  private final StatusHook hook;

  MessageStore(Database db, StatusHook hook) {
    this.db = db;
    this.hook = hook;
  }

  private static final String INSERT =
      "INSERT INTO message (id, device_id, recipient, recipient_type, kind, body, api, sync, retry,"
          + " attempts, state, reason, not_before, created_at, sent_at, status_at, media_name,"
          + " media_type, media_path)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

  /**
   * Stores new messages, if {@code guard} (when given) holds in the same transaction; the future
   * completes once they are committed, with whether they were stored.
   */
  CompletableFuture<Boolean> insert(List<Message> messages, Optional<Messages.Guard> guard) {
    return db.writes()
        .submit(
            h -> {
              if (guard.isPresent() && !guard.get().holds(h, messages.getFirst().id())) {
                return false; // the guard wrote nothing either
              }
              insertRows(h, messages);
              return true;
            });
  }

  /**
   * Stores each message whose guard holds when it runs, in one transaction with the guards; the
   * future completes after the commit with, per message, whether it was stored.
   */
  CompletableFuture<boolean[]> insertGuarded(List<Message> messages, List<Messages.Guard> guards) {
    return db.writes()
        .submit(
            h -> {
              boolean[] stored = new boolean[messages.size()];
              List<Message> kept = new java.util.ArrayList<>(messages.size());
              for (int i = 0; i < messages.size(); i++) {
                stored[i] = guards.get(i).holds(h, messages.get(i).id());
                if (stored[i]) {
                  kept.add(messages.get(i));
                }
              }
              if (!kept.isEmpty()) {
                insertRows(h, kept);
              }
              return stored;
            });
  }

  // Plain JDBC on the two statements every message passes through: the accept path is the
  // hottest in the gateway, and binding through Jdbi costs more than SQLite's insert itself.
  private static void insertRows(Handle h, List<Message> messages) throws SQLException {
    try (PreparedStatement insert = h.getConnection().prepareStatement(INSERT)) {
      for (Message m : messages) {
        insert.setLong(1, m.id());
        insert.setLong(2, m.deviceId());
        insert.setString(3, m.recipient());
        insert.setString(4, m.toGroup() ? "group" : "number");
        insert.setString(5, m.kind());
        insert.setString(6, m.body());
        insert.setString(7, m.api());
        insert.setInt(8, m.sync() ? 1 : 0);
        insert.setInt(9, m.retry() ? 1 : 0);
        insert.setInt(10, m.attempts());
        insert.setString(11, m.state().wireName());
        insert.setString(12, m.reason().orElse(null));
        insert.setLong(13, m.notBefore().toEpochMilli());
        insert.setLong(14, m.createdAt().toEpochMilli());
        if (m.sentAt().isPresent()) {
          insert.setLong(15, m.sentAt().get().toEpochMilli());
        } else {
          insert.setNull(15, Types.BIGINT);
        }
        insert.setLong(16, m.statusAt().toEpochMilli());
        insert.setString(17, m.media().map(MediaRef::name).orElse(null));
        insert.setString(18, m.media().map(MediaRef::mimeType).orElse(null));
        insert.setString(19, m.media().map(r -> r.path().toString()).orElse(null));
        if (messages.size() == 1) {
          insert.executeUpdate();
        } else {
          insert.addBatch();
        }
      }
      if (messages.size() > 1) {
        insert.executeBatch();
      }
    }
    try (PreparedStatement event = h.getConnection().prepareStatement(INSERT_EVENT)) {
      for (Message m : messages) {
        bindEvent(event, m.id(), m.state(), null, m.createdAt());
        event.addBatch();
      }
      event.executeBatch();
    }
  }

  /**
   * Moves a message to {@code next} if its current state allows it; true when it moved. The first
   * move out of {@code pending} records the time it went out; {@code attempted} counts a hand-over
   * to the driver.
   */
  boolean moveTo(long id, MessageState next, Instant at, String reason, boolean attempted) {
    return moveLater(id, next, at, reason, attempted, true).join();
  }

  /**
   * {@link #moveTo} without waiting: the future completes after the commit. Moves nobody waits for
   * ({@code urgent} false) queue behind those somebody does.
   */
  CompletableFuture<Boolean> moveLater(
      long id, MessageState next, Instant at, String reason, boolean attempted, boolean urgent) {
    String sql = moveSql(next, attempted);
    boolean[] hooked = {false};
    HandleCallback<Boolean, Exception> update =
        h -> {
          try (PreparedStatement move = h.getConnection().prepareStatement(sql)) {
            int p = 1;
            move.setLong(p++, at.toEpochMilli());
            move.setString(p++, reason);
            if (next.wentOut()) {
              move.setLong(p++, at.toEpochMilli());
            }
            move.setLong(p, id);
            if (move.executeUpdate() == 0) {
              return false;
            }
          }
          try (PreparedStatement event = h.getConnection().prepareStatement(INSERT_EVENT)) {
            bindEvent(event, id, next, reason, at);
            event.executeUpdate();
          }
          hooked[0] |= hook.moved(h, id, next, reason, at);
          return true;
        };
    CompletableFuture<Boolean> moved =
        urgent ? db.writes().submit(update) : db.writes().submitInBackground(update);
    return moved.thenApply(
        done -> {
          if (hooked[0]) {
            hook.committed();
          }
          return done;
        });
  }

  private static final Map<MessageState, String> MOVE = new EnumMap<>(MessageState.class);
  private static final Map<MessageState, String> MOVE_ATTEMPTED = new EnumMap<>(MessageState.class);

  static {
    for (MessageState next : MessageState.values()) {
      MOVE.put(next, buildMoveSql(next, false));
      MOVE_ATTEMPTED.put(next, buildMoveSql(next, true));
    }
  }

  private static String moveSql(MessageState next, boolean attempted) {
    return (attempted ? MOVE_ATTEMPTED : MOVE).get(next);
  }

  /** The guarded state change: only from a state that may precede {@code next}. */
  private static String buildMoveSql(MessageState next, boolean attempted) {
    String from =
        next.predecessors().stream()
            .map(s -> "'" + s.wireName() + "'")
            .collect(Collectors.joining(", "));
    if (from.isEmpty()) {
      from = "NULL"; // nothing moves back to pending
    }
    return "UPDATE message SET state = '"
        + next.wireName()
        + "', status_at = ?, reason = ?, sent_at = "
        + (next.wentOut() ? "COALESCE(sent_at, ?)" : "sent_at")
        + ", attempts = "
        + (attempted ? "attempts + 1" : "attempts")
        + " WHERE id = ? AND state IN ("
        + from
        + ")";
  }

  /** Fails pending messages that were never handed to the driver, in one commit. */
  void failAll(Collection<Long> ids, String reason, Instant at) {
    if (ids.isEmpty()) {
      return;
    }
    String sql = moveSql(MessageState.FAILED, false);
    boolean[] hooked = {false};
    db.writes()
        .write(
            h -> {
              try (PreparedStatement move = h.getConnection().prepareStatement(sql)) {
                for (long id : ids) {
                  move.setLong(1, at.toEpochMilli());
                  move.setString(2, reason);
                  move.setLong(3, id);
                  move.addBatch();
                }
                int[] moved = move.executeBatch();
                try (PreparedStatement event = h.getConnection().prepareStatement(INSERT_EVENT)) {
                  int i = 0;
                  for (long id : ids) {
                    if (moved[i++] > 0) {
                      bindEvent(event, id, MessageState.FAILED, reason, at);
                      event.addBatch();
                    }
                  }
                  event.executeBatch();
                }
                int i = 0;
                for (long id : ids) {
                  if (moved[i++] > 0) {
                    hooked[0] |= hook.moved(h, id, MessageState.FAILED, reason, at);
                  }
                }
              }
              return null;
            });
    if (hooked[0]) {
      hook.committed();
    }
  }

  /**
   * Fails a pending message that was taken out of its queue, with {@code also} in the same
   * transaction; true when both happened.
   */
  boolean cancel(long id, String reason, Instant at, Messages.Guard also) {
    String sql = moveSql(MessageState.FAILED, false);
    boolean[] hooked = {false};
    boolean cancelled =
        db.writes()
            .write(
                h -> {
                  // A savepoint, not a rollback: the transaction is shared with other writes.
                  java.sql.Connection c = h.getConnection();
                  java.sql.Savepoint savepoint = c.setSavepoint("cancel");
                  try (PreparedStatement move = c.prepareStatement(sql)) {
                    move.setLong(1, at.toEpochMilli());
                    move.setString(2, reason);
                    move.setLong(3, id);
                    if (move.executeUpdate() == 0 || !also.holds(h, id)) {
                      c.rollback(savepoint); // neither, then
                      c.releaseSavepoint(savepoint);
                      return false;
                    }
                  }
                  c.releaseSavepoint(savepoint);
                  try (PreparedStatement event = h.getConnection().prepareStatement(INSERT_EVENT)) {
                    bindEvent(event, id, MessageState.FAILED, reason, at);
                    event.executeUpdate();
                  }
                  hooked[0] = hook.moved(h, id, MessageState.FAILED, reason, at);
                  return true;
                });
    if (hooked[0]) {
      hook.committed();
    }
    return cancelled;
  }

  /** Keeps a message pending for another attempt after {@code notBefore}. */
  void scheduleRetry(
      long id, int attempts, Instant notBefore, String lastFailure, Instant failedAt) {
    db.writes()
        .write(
            h -> {
              int moved =
                  h.createUpdate(
                          "UPDATE message SET attempts = ?, not_before = ?, reason = ?"
                              + " WHERE id = ? AND state = 'pending'")
                      .bind(0, attempts)
                      .bind(1, notBefore.toEpochMilli())
                      .bind(2, lastFailure)
                      .bind(3, id)
                      .execute();
              if (moved > 0) {
                try (PreparedStatement event = h.getConnection().prepareStatement(INSERT_EVENT)) {
                  String why =
                      lastFailure + "; attempt " + attempts + " failed, retry at " + notBefore;
                  bindEvent(event, id, MessageState.PENDING, why, failedAt);
                  event.executeUpdate();
                }
              }
              return moved;
            });
  }

  private static final String INSERT_EVENT =
      "INSERT INTO message_event (message_id, state, reason, at) VALUES (?, ?, ?, ?)";

  private static void bindEvent(
      PreparedStatement event, long id, MessageState state, String reason, Instant at)
      throws SQLException {
    event.setLong(1, id);
    event.setString(2, state.wireName());
    event.setString(3, reason);
    event.setLong(4, at.toEpochMilli());
  }

  /** The states a message went through, oldest first. */
  List<MessageEvent> events(long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT state, reason, at FROM message_event WHERE message_id = ?"
                            + " ORDER BY at, rowid")
                    .bind(0, id)
                    .map(
                        (rs, ctx) ->
                            new MessageEvent(
                                MessageState.ofWireName(rs.getString("state")),
                                Optional.ofNullable(rs.getString("reason")),
                                Instant.ofEpochMilli(rs.getLong("at"))))
                    .list());
  }

  Optional<Message> find(long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM message WHERE id = ?")
                    .bind(0, id)
                    .map(MessageStore::message)
                    .findOne());
  }

  /** The messages with these ids that exist. */
  List<Message> findAll(Collection<Long> ids) {
    if (ids.isEmpty()) {
      return List.of();
    }
    String in = ids.stream().map(String::valueOf).collect(Collectors.joining(", "));
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM message WHERE id IN (" + in + ")")
                    .map(MessageStore::message)
                    .list());
  }

  /** Every message still to be sent, in id order: what the sender loops pick up at start. */
  List<Message> pending() {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM message WHERE state = 'pending' ORDER BY id")
                    .map(MessageStore::message)
                    .list());
  }

  static long maxId(Handle h) {
    return h.createQuery(
            "SELECT MAX(m) FROM (SELECT MAX(id) AS m FROM message UNION ALL"
                + " SELECT MAX(id) FROM inbound_message) AS ids")
        .mapTo(Long.class)
        .findOne()
        .orElse(0L);
  }

  long maxId() {
    return db.jdbi().withHandle(MessageStore::maxId);
  }

  private static Optional<MediaRef> media(String name, String type, String path) {
    return path == null ? Optional.empty() : Optional.of(new MediaRef(name, type, Path.of(path)));
  }

  private static Message message(ResultSet rs, StatementContext ctx) throws SQLException {
    long sentAt = rs.getLong("sent_at");
    boolean sentAtNull = rs.wasNull();
    return new Message(
        rs.getLong("id"),
        rs.getLong("device_id"),
        rs.getString("recipient"),
        "group".equals(rs.getString("recipient_type")),
        rs.getString("kind"),
        rs.getString("body"),
        rs.getString("api"),
        rs.getInt("sync") != 0,
        rs.getInt("retry") != 0,
        rs.getInt("attempts"),
        MessageState.ofWireName(rs.getString("state")),
        Optional.ofNullable(rs.getString("reason")),
        Instant.ofEpochMilli(rs.getLong("not_before")),
        Instant.ofEpochMilli(rs.getLong("created_at")),
        sentAtNull ? Optional.empty() : Optional.of(Instant.ofEpochMilli(sentAt)),
        Instant.ofEpochMilli(rs.getLong("status_at")),
        media(rs.getString("media_name"), rs.getString("media_type"), rs.getString("media_path")));
  }
}
