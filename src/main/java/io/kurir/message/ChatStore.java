package io.kurir.message;

import io.kurir.store.Database;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;

/**
 * The SQL of {@link Chats}: one device's conversations read from its outgoing ({@code message}) and
 * incoming ({@code inbound_message}) rows, and how far each chat was read ({@code chat_read}).
 * Every query names its device, so that none reaches another device's rows.
 *
 * <p>A chat is the other side of a message: an outgoing message's recipient (a number, a network
 * id, a group id), an incoming message's group, else its sender. A phone learned for a network id
 * rewrites both columns ({@code contact/ContactStore}), so the id's chat becomes the phone's.
 *
 * <p>Thread-safe.
 */
final class ChatStore {
  /** An incoming message's chat: its group, else its sender. */
  private static final String INCOMING_IN_CHAT =
      "(group_id = :chat OR (group_id IS NULL AND sender = :chat))";

  private final Database db;
  private final MessageHistoryStore histories;

  ChatStore(Database db, MessageHistoryStore histories) {
    this.db = db;
    this.histories = histories;
  }

  /** A chat of a page: its address and the id of its newest message. */
  record ChatRow(String chat, long lastId) {}

  /**
   * Up to {@code limit} chats of {@code deviceId} whose newest message's id is below {@code
   * before}, the chat with the newest message first.
   */
  List<ChatRow> chats(long deviceId, Optional<Long> before, int limit) {
    String sql =
        "SELECT chat, MAX(id) AS last_id FROM ("
            + "SELECT recipient AS chat, id FROM message WHERE device_id = :device"
            + " UNION ALL SELECT COALESCE(group_id, sender) AS chat, id FROM inbound_message"
            + " WHERE device_id = :device) AS c GROUP BY chat"
            + (before.isPresent() ? " HAVING MAX(id) < :before" : "")
            + " ORDER BY last_id DESC LIMIT :limit";
    return db.jdbi()
        .withHandle(
            h -> {
              Query q = h.createQuery(sql).bind("device", deviceId).bind("limit", limit);
              before.ifPresent(b -> q.bind("before", b));
              return q.map((rs, ctx) -> new ChatRow(rs.getString("chat"), rs.getLong("last_id")))
                  .list();
            });
  }

  /**
   * Up to {@code limit} messages of the chat, in and out, with an id below {@code before}, newest
   * first.
   */
  List<MessageHistories.Entry> messages(
      long deviceId, String chat, Optional<Long> before, int limit) {
    String below = before.isPresent() ? " AND id < :before" : "";
    return db.jdbi()
        .withHandle(
            h -> {
              Query out =
                  h.createQuery(
                          "SELECT * FROM message WHERE device_id = :device AND recipient = :chat"
                              + below
                              + " ORDER BY id DESC LIMIT :limit")
                      .bind("device", deviceId)
                      .bind("chat", chat)
                      .bind("limit", limit);
              Query in =
                  h.createQuery(
                          "SELECT * FROM inbound_message WHERE device_id = :device AND "
                              + INCOMING_IN_CHAT
                              + below
                              + " ORDER BY id DESC LIMIT :limit")
                      .bind("device", deviceId)
                      .bind("chat", chat)
                      .bind("limit", limit);
              before.ifPresent(
                  b -> {
                    out.bind("before", b);
                    in.bind("before", b);
                  });
              List<MessageHistories.Entry> all = new ArrayList<>(outgoing(h, out));
              all.addAll(in.map((rs, ctx) -> MessageHistoryStore.incoming(rs)).list());
              all.sort(Comparator.comparingLong(MessageHistories.Entry::messageId).reversed());
              return List.copyOf(all.subList(0, Math.min(limit, all.size())));
            });
  }

  /** The message {@code id} of the device, in or out (one id space), if it has one. */
  Optional<MessageHistories.Entry> message(long deviceId, long id) {
    return db.jdbi()
        .withHandle(
            h -> {
              Query out =
                  h.createQuery("SELECT * FROM message WHERE device_id = :device AND id = :id")
                      .bind("device", deviceId)
                      .bind("id", id);
              List<MessageHistories.Outgoing> found = outgoing(h, out);
              if (!found.isEmpty()) {
                return Optional.of(found.getFirst());
              }
              return h.createQuery(
                      "SELECT * FROM inbound_message WHERE device_id = :device AND id = :id")
                  .bind("device", deviceId)
                  .bind("id", id)
                  .map((rs, ctx) -> (MessageHistories.Entry) MessageHistoryStore.incoming(rs))
                  .findOne();
            });
  }

  /**
   * How many incoming messages of the chat came after the device's last message to it (not an
   * auto-reply: a bot answering is not somebody reading) and after its read mark.
   */
  int unread(long deviceId, String chat) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT COUNT(*) FROM inbound_message WHERE device_id = :device AND "
                            + INCOMING_IN_CHAT
                            + " AND id > (SELECT COALESCE(MAX(id), 0) FROM message"
                            + " WHERE device_id = :device AND recipient = :chat AND api <> 'bot')"
                            + " AND id > COALESCE((SELECT read_up_to FROM chat_read"
                            + " WHERE device_id = :device AND chat = :chat), 0)")
                    .bind("device", deviceId)
                    .bind("chat", chat)
                    .mapTo(Integer.class)
                    .one());
  }

  /** The name the network last gave with an incoming message of the direct chat, if any. */
  Optional<String> name(long deviceId, String chat) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT sender_name FROM inbound_message WHERE device_id = :device"
                            + " AND group_id IS NULL AND sender = :chat AND sender_name IS NOT NULL"
                            + " ORDER BY id DESC LIMIT 1")
                    .bind("device", deviceId)
                    .bind("chat", chat)
                    .mapTo(String.class)
                    .findOne());
  }

  /** Marks the chat read up to its newest incoming message now; a mark never moves back. */
  void markRead(long deviceId, String chat) {
    db.writes()
        .write(
            h -> {
              long newest =
                  h.createQuery(
                          "SELECT COALESCE(MAX(id), 0) FROM inbound_message"
                              + " WHERE device_id = :device AND "
                              + INCOMING_IN_CHAT)
                      .bind("device", deviceId)
                      .bind("chat", chat)
                      .mapTo(Long.class)
                      .one();
              return h.createUpdate(
                      "INSERT INTO chat_read (device_id, chat, read_up_to) VALUES (?, ?, ?)"
                          + " ON CONFLICT (device_id, chat) DO UPDATE"
                          + " SET read_up_to = excluded.read_up_to"
                          + " WHERE excluded.read_up_to > chat_read.read_up_to")
                  .bind(0, deviceId)
                  .bind(1, chat)
                  .bind(2, newest)
                  .execute();
            });
  }

  private List<MessageHistories.Outgoing> outgoing(Handle h, Query q) {
    List<MessageHistoryStore.Row> rows =
        q.map(
                (rs, ctx) ->
                    new MessageHistoryStore.Row(
                        MessageRowStore.message(rs, ctx), MessageHistoryStore.networkId(rs)))
            .list();
    return histories.withEvents(h, rows);
  }
}
