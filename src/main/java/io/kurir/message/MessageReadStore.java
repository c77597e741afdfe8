package io.kurir.message;

import io.kurir.store.Database;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** The SQL that reads messages and their history by id. */
final class MessageReadStore {
  private final Database db;

  MessageReadStore(Database db) {
    this.db = db;
  }

  List<MessageEvent> events(long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(MessageRowStore.historyLinesSql(db.dialect(), "= ?"))
                    .bind(0, id)
                    .bind(1, id)
                    .map(
                        (rs, ctx) ->
                            new MessageEvent(
                                MessageState.ofWireName(rs.getString("state")),
                                Optional.ofNullable(rs.getString("reason")),
                                Instant.ofEpochMilli(rs.getLong("at"))))
                    .list());
  }

  /**
   * The network's id of the message {@code id} of device {@code deviceId}, sent or received: what a
   * reply to it names on the network. Empty when there is no such message or it has no network id
   * yet (not sent yet).
   */
  Optional<String> networkIdOf(long deviceId, long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h
                    .createQuery(
                        "SELECT network_id FROM message WHERE id = ? AND device_id = ?"
                            + " UNION ALL SELECT network_id FROM inbound_message"
                            + " WHERE id = ? AND device_id = ?")
                    .bind(0, id)
                    .bind(1, deviceId)
                    .bind(2, id)
                    .bind(3, deviceId)
                    .mapTo(String.class)
                    .stream()
                    .filter(n -> n != null && !n.isEmpty())
                    .findFirst());
  }

  Optional<Message> find(long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM message WHERE id = ?")
                    .bind(0, id)
                    .map(MessageRowStore::message)
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
                    .map(MessageRowStore::message)
                    .list());
  }

  long maxId() {
    return db.jdbi().withHandle(MessageRowStore::maxId);
  }
}
