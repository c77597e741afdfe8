package io.kurir.message;

import io.kurir.store.Database;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;
import org.jdbi.v3.core.statement.StatementContext;

/** The SQL of messages and incoming messages. State changes are guarded in SQL, not in memory. */
final class MessageStore {
  private final Database db;

  MessageStore(Database db) {
    this.db = db;
  }

  /** Stores new messages; the future completes once they are committed. */
  CompletableFuture<Void> insert(List<Message> messages) {
    return db.writes()
        .submit(
            h -> {
              PreparedBatch batch =
                  h.prepareBatch(
                      "INSERT INTO message (id, device_id, recipient, recipient_type, kind, body,"
                          + " api, sync, retry, attempts, state, reason, not_before, created_at,"
                          + " sent_at, status_at)"
                          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
              for (Message m : messages) {
                batch
                    .bind(0, m.id())
                    .bind(1, m.deviceId())
                    .bind(2, m.recipient())
                    .bind(3, m.toGroup() ? "group" : "number")
                    .bind(4, m.kind())
                    .bind(5, m.body())
                    .bind(6, m.api())
                    .bind(7, m.sync() ? 1 : 0)
                    .bind(8, m.retry() ? 1 : 0)
                    .bind(9, m.attempts())
                    .bind(10, m.state().wireName())
                    .bind(11, m.reason().orElse(null))
                    .bind(12, m.notBefore().toEpochMilli())
                    .bind(13, m.createdAt().toEpochMilli())
                    .bind(14, m.sentAt().map(Instant::toEpochMilli).orElse(null))
                    .bind(15, m.statusAt().toEpochMilli())
                    .add();
              }
              batch.execute();
              return null;
            });
  }

  /**
   * Moves a message to {@code next} if its current state allows it; true when it moved. The first
   * move out of {@code pending} records the time it went out; {@code attempted} counts a hand-over
   * to the driver.
   */
  boolean moveTo(long id, MessageState next, Instant at, String reason, boolean attempted) {
    String from =
        next.predecessors().stream()
            .map(s -> "'" + s.wireName() + "'")
            .collect(Collectors.joining(", "));
    String sentAt = next.wentOut() ? "COALESCE(sent_at, :at)" : "sent_at";
    String attempts = attempted ? "attempts + 1" : "attempts";
    return db.writes()
            .write(
                h ->
                    h.createUpdate(
                            "UPDATE message SET state = :state, status_at = :at, reason = :reason,"
                                + " sent_at = "
                                + sentAt
                                + ", attempts = "
                                + attempts
                                + " WHERE id = :id AND state IN ("
                                + from
                                + ")")
                        .bind("state", next.wireName())
                        .bind("at", at.toEpochMilli())
                        .bind("reason", reason)
                        .bind("id", id)
                        .execute())
        > 0;
  }

  /** Keeps a message pending for another attempt after {@code notBefore}. */
  void scheduleRetry(long id, int attempts, Instant notBefore, String lastFailure) {
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "UPDATE message SET attempts = ?, not_before = ?, reason = ?"
                            + " WHERE id = ? AND state = 'pending'")
                    .bind(0, attempts)
                    .bind(1, notBefore.toEpochMilli())
                    .bind(2, lastFailure)
                    .bind(3, id)
                    .execute());
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

  /** Every message still to be sent, in id order: what the sender loops pick up at start. */
  List<Message> pending() {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM message WHERE state = 'pending' ORDER BY id")
                    .map(MessageStore::message)
                    .list());
  }

  void insertIncoming(long id, long deviceId, String sender, String text, Instant at) {
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "INSERT INTO inbound_message (id, device_id, sender, body, received_at)"
                            + " VALUES (?, ?, ?, ?, ?)")
                    .bind(0, id)
                    .bind(1, deviceId)
                    .bind(2, sender)
                    .bind(3, text)
                    .bind(4, at.toEpochMilli())
                    .execute());
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
        Instant.ofEpochMilli(rs.getLong("status_at")));
  }
}
