package io.kurir.bot;

import io.kurir.content.CloudMessageJson;
import io.kurir.driver.ContactId;
import io.kurir.driver.IncomingMessage;
import io.kurir.store.Database;
import io.kurir.store.Transaction;

/**
 * The SQL of incoming messages ({@code inbound_message}) as they arrive: whether one was stored
 * already, and storing one (a redelivery by the network stores nothing).
 *
 * <p>Thread-safe.
 */
final class InboundMessageStore {
  private final Database db;

  InboundMessageStore(Database db) {
    this.db = db;
  }

  /** Whether the device stored a message with this network id already. */
  boolean isKnown(long deviceId, String networkId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT 1 FROM inbound_message WHERE device_id = ? AND network_id = ?")
                    .bind(0, deviceId)
                    .bind(1, networkId)
                    .mapTo(Integer.class)
                    .findOne()
                    .isPresent());
  }

  /**
   * The largest id an incoming message holds (0 when none): incoming and outgoing messages share
   * one id space (docs/decisions.md, "Conversations"), so the id generator continues above both.
   */
  long maxId() {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT COALESCE(MAX(id), 0) FROM inbound_message")
                    .mapTo(Long.class)
                    .one());
  }

  /**
   * Stores {@code in} as {@code id}, with the rule's keyword (null for none) and the id of its
   * reply (null for none), in the caller's transaction; false when the device has it already.
   */
  static boolean insert(Transaction tx, long id, IncomingMessage in, String keyword, Long replyId) {
    return tx.handle()
            .createUpdate(
                "INSERT INTO inbound_message (id, device_id, sender, body, received_at, keyword,"
                    + " reply_message_id, network_id, group_id, media_type, media_path, sender_id,"
                    + " kind, content, sender_name)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    + " ON CONFLICT (device_id, network_id) DO NOTHING")
            .bind(0, id)
            .bind(1, in.deviceId())
            .bind(2, in.senderAddress())
            .bind(3, in.text())
            .bind(4, in.at().toEpochMilli())
            .bind(5, keyword)
            .bind(6, replyId)
            .bind(7, in.networkId().orElse(null))
            .bind(8, in.groupId().orElse(null))
            .bind(9, in.media().map(IncomingMessage.Media::mimeType).orElse(null))
            .bind(10, in.media().map(m -> m.path().toString()).orElse(null))
            .bind(11, in.senderId().map(ContactId::address).orElse(null))
            // Every row says its kind; the content only of a message read as one of its own
            // (a location, a reaction…): a text or a seed-shaped image or file is its columns.
            .bind(12, in.asContent().kind().wireName())
            .bind(13, in.content().map(CloudMessageJson::toStored).orElse(null))
            // The name the network gave (a direct chat is shown by it), only for one that came
            // with the message; the incoming webhook's contact_name is unchanged.
            .bind(14, in.contactName().orElse(null))
            .execute()
        > 0;
  }
}
