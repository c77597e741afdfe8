package io.kurir.contact;

import io.kurir.driver.ContactDirectory.CheckedNumber;
import io.kurir.driver.ContactId;
import io.kurir.store.Database;
import java.time.Instant;
import java.util.Optional;

/** The SQL of a device's contact identities ({@code contact_identity}) and number checks. */
final class ContactStore {
  private final Database db;

  ContactStore(Database db) {
    this.db = db;
  }

  /** Whether the device has this network id at all (heard from it, or learned it). */
  boolean knows(long deviceId, String address) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT 1 FROM contact_identity WHERE device_id = ? AND address = ?")
                    .bind(0, deviceId)
                    .bind(1, address)
                    .mapTo(Integer.class)
                    .findOne()
                    .isPresent());
  }

  Optional<String> phoneOf(long deviceId, String address) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT phone FROM contact_identity WHERE device_id = ? AND address = ?"
                            + " AND phone IS NOT NULL")
                    .bind(0, deviceId)
                    .bind(1, address)
                    .mapTo(String.class)
                    .findOne());
  }

  /** The newest network id of {@code kind} learned for {@code phone}. */
  Optional<String> addressOf(long deviceId, String phone, ContactId.Kind kind) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT address FROM contact_identity WHERE device_id = ? AND phone = ?"
                            + " AND kind = ? ORDER BY learned_at DESC, address LIMIT 1")
                    .bind(0, deviceId)
                    .bind(1, phone)
                    .bind(2, kind.wireName())
                    .mapTo(String.class)
                    .findOne());
  }

  /** Keeps a network id heard from with no phone; one already kept is left as it is. */
  void remember(long deviceId, ContactId id, Instant at) {
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "INSERT INTO contact_identity (device_id, address, kind, phone, learned_at)"
                            + " VALUES (?, ?, ?, NULL, ?)"
                            + " ON CONFLICT (device_id, address) DO NOTHING")
                    .bind(0, deviceId)
                    .bind(1, id.address())
                    .bind(2, id.kind().wireName())
                    .bind(3, at.toEpochMilli())
                    .execute());
  }

  /**
   * Records {@code phone} behind {@code id} and shows it in the rows that showed the id so far (the
   * incoming messages it wrote, the messages sent to it, its chat's read mark), in one transaction.
   * Nothing is written when the phone was known already: drivers teach the same pair again and
   * again.
   */
  void learn(long deviceId, String phone, ContactId id, Instant at) {
    if (phoneOf(deviceId, id.address()).filter(phone::equals).isPresent()) {
      return;
    }
    db.writes()
        .write(
            h -> {
              h.createUpdate(
                      "INSERT INTO contact_identity (device_id, address, kind, phone, learned_at)"
                          + " VALUES (?, ?, ?, ?, ?) ON CONFLICT (device_id, address)"
                          + " DO UPDATE SET phone = excluded.phone,"
                          + " learned_at = excluded.learned_at")
                  .bind(0, deviceId)
                  .bind(1, id.address())
                  .bind(2, id.kind().wireName())
                  .bind(3, phone)
                  .bind(4, at.toEpochMilli())
                  .execute();
              h.createUpdate(
                      "UPDATE inbound_message SET sender = ? WHERE device_id = ? AND sender = ?")
                  .bind(0, phone)
                  .bind(1, deviceId)
                  .bind(2, id.address())
                  .execute();
              // The chat's read mark follows its messages to the phone's chat (kept as it is when
              // the phone's chat has a mark already).
              h.createUpdate(
                      "UPDATE chat_read SET chat = ? WHERE device_id = ? AND chat = ? AND NOT EXISTS"
                          + " (SELECT 1 FROM chat_read r WHERE r.device_id = ? AND r.chat = ?)")
                  .bind(0, phone)
                  .bind(1, deviceId)
                  .bind(2, id.address())
                  .bind(3, deviceId)
                  .bind(4, phone)
                  .execute();
              h.createUpdate("DELETE FROM chat_read WHERE device_id = ? AND chat = ?")
                  .bind(0, deviceId)
                  .bind(1, id.address())
                  .execute();
              // A message still queued for the id goes to the phone too: replies reach the
              // number when it is known.
              return h.createUpdate(
                      "UPDATE message SET recipient = ? WHERE device_id = ? AND recipient = ?"
                          + " AND recipient_type = 'number'")
                  .bind(0, phone)
                  .bind(1, deviceId)
                  .bind(2, id.address())
                  .execute();
            });
  }

  /**
   * Whether a message went out to {@code address} from the device, or came in from it. Both are
   * index lookups (message_device_recipient, inbound_device_sender): this runs before sends.
   */
  boolean talkedTo(long deviceId, String address) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                            "SELECT CASE WHEN EXISTS (SELECT 1 FROM message WHERE device_id = :device"
                                + " AND recipient = :address AND recipient_type = 'number'"
                                + " AND state IN ('sent', 'delivery', 'read'))"
                                + " OR EXISTS (SELECT 1 FROM inbound_message WHERE device_id = :device"
                                + " AND sender = :address) THEN 1 ELSE 0 END")
                        .bind("device", deviceId)
                        .bind("address", address)
                        .mapTo(Integer.class)
                        .one()
                    == 1);
  }

  Optional<CheckedNumber> lastCheck(long deviceId, String phone) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT phone, on_network, chat_address, checked_at FROM number_check"
                            + " WHERE device_id = ? AND phone = ?")
                    .bind(0, deviceId)
                    .bind(1, phone)
                    .map(
                        (rs, ctx) ->
                            new CheckedNumber(
                                rs.getString("phone"),
                                rs.getInt("on_network") == 1,
                                Optional.ofNullable(rs.getString("chat_address")),
                                Instant.ofEpochMilli(rs.getLong("checked_at"))))
                    .findOne());
  }

  void recordCheck(long deviceId, String phone, CheckedNumber check) {
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "INSERT INTO number_check (device_id, phone, on_network, chat_address,"
                            + " checked_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (device_id, phone)"
                            + " DO UPDATE SET on_network = excluded.on_network,"
                            + " chat_address = excluded.chat_address,"
                            + " checked_at = excluded.checked_at")
                    .bind(0, deviceId)
                    .bind(1, phone)
                    .bind(2, check.exists() ? 1 : 0)
                    .bind(3, check.chatAddress().orElse(null))
                    .bind(4, check.at().toEpochMilli())
                    .execute());
  }
}
