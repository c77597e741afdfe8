package io.kurir.message;

import io.kurir.store.Database;
import io.kurir.store.Transaction;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The SQL of {@link MessageActions}: the {@code message_action} rows (a sent message revoked or
 * edited), and the received messages a read mark or a reaction names, read within a device.
 *
 * <p>Thread-safe.
 */
final class MessageActionStore {
  private final Database db;

  MessageActionStore(Database db) {
    this.db = db;
  }

  /**
   * Stores that message {@code messageId} was {@code action} (with {@code body}, the new text of an
   * edit), and runs {@code also} (the event of it) in the same transaction.
   */
  void record(
      long id,
      long messageId,
      String action,
      Optional<String> body,
      Instant at,
      Consumer<Transaction> also) {
    db.writes()
        .write(
            h -> {
              h.createUpdate(
                      "INSERT INTO message_action (id, message_id, action, body, at)"
                          + " VALUES (?, ?, ?, ?, ?)")
                  .bind(0, id)
                  .bind(1, messageId)
                  .bind(2, action)
                  .bind(3, body.orElse(null))
                  .bind(4, at.toEpochMilli())
                  .execute();
              also.accept(Transaction.of(h));
              return true;
            });
  }

  /** What was done to message {@code messageId}, oldest first. */
  List<MessageActions.Action> actions(long messageId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT action, body, at FROM message_action WHERE message_id = ?"
                            + " ORDER BY id")
                    .bind(0, messageId)
                    .map(
                        (rs, ctx) ->
                            new MessageActions.Action(
                                rs.getString("action"),
                                Optional.ofNullable(rs.getString("body")),
                                Instant.ofEpochMilli(rs.getLong("at"))))
                    .list());
  }

  /** A received message as an action names it: its network id and the chat it came in. */
  record Received(long id, Optional<String> networkId, String sender, Optional<String> group) {}

  /** Message {@code id} received by device {@code deviceId}. */
  Optional<Received> received(long deviceId, long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT id, network_id, sender, group_id FROM inbound_message"
                            + " WHERE id = ? AND device_id = ?")
                    .bind(0, id)
                    .bind(1, deviceId)
                    .map((rs, ctx) -> received(rs))
                    .findOne());
  }

  /** The message device {@code deviceId} received with the network's id {@code networkId}. */
  Optional<Received> receivedByNetworkId(long deviceId, String networkId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT id, network_id, sender, group_id FROM inbound_message"
                            + " WHERE device_id = ? AND network_id = ?")
                    .bind(0, deviceId)
                    .bind(1, networkId)
                    .map((rs, ctx) -> received(rs))
                    .findOne());
  }

  private static Received received(java.sql.ResultSet rs) throws java.sql.SQLException {
    return new Received(
        rs.getLong("id"),
        Optional.ofNullable(rs.getString("network_id")),
        rs.getString("sender"),
        Optional.ofNullable(rs.getString("group_id")));
  }

  /**
   * The network id of the latest message device {@code deviceId} received in the chat of {@code
   * chat} (a group's id when {@code group}, else the sender's address or network id) that has one.
   */
  Optional<String> latestReceived(long deviceId, String chat, boolean group) {
    String where =
        group ? "group_id = :chat" : "group_id IS NULL AND (sender = :chat OR sender_id = :chat)";
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT network_id FROM inbound_message WHERE device_id = :device"
                            + " AND network_id IS NOT NULL AND "
                            + where
                            + " ORDER BY id DESC LIMIT 1")
                    .bind("device", deviceId)
                    .bind("chat", chat)
                    .mapTo(String.class)
                    .findOne());
  }
}
