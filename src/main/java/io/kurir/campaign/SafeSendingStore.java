package io.kurir.campaign;

import io.kurir.store.Database;
import java.time.Instant;
import java.util.Optional;

/**
 * The SQL of the safe-sending policy: what it reads of a device's history to decide its campaign
 * sends. It reads the device's state changes ({@code device_event}: when it was first linked), the
 * message queue's table and incoming messages (its sends of the day, the replies it got), and
 * campaigns' recipients. It writes nothing: the policy's decisions are recorded with the recipients
 * it releases ({@link CampaignStore#hand}). Plain, portable SQL.
 *
 * <p>Thread-safe.
 */
final class SafeSendingStore {
  /** Of a device's last campaign messages: how many were looked at, how many nobody answered. */
  record Answers(int looked, int unanswered) {}

  private final Database db;

  SafeSendingStore(Database db) {
    this.db = db;
  }

  /** When the device was first linked: its first change to {@code online}, if it ever was. */
  Optional<Instant> firstLinked(long deviceId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT MIN(at) FROM device_event WHERE device_id = ?"
                            + " AND new_state = 'online'")
                    .bind(0, deviceId)
                    .mapTo(Long.class)
                    .findOne()
                    .map(Instant::ofEpochMilli));
  }

  /**
   * The device's sends since {@code from} as the ramp counts them: its campaign messages handed
   * over since then (sent or still queued) and its other messages sent since then.
   */
  int usedSince(long deviceId, Instant from) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT (SELECT COUNT(*) FROM campaign_recipient r"
                            + " WHERE r.device_id = :device AND r.handed_at >= :from)"
                            + " + (SELECT COUNT(*) FROM message m WHERE m.device_id = :device"
                            + " AND m.sent_at >= :from AND NOT EXISTS (SELECT 1 FROM"
                            + " campaign_recipient r WHERE r.message_id = m.id))")
                    .bind("device", deviceId)
                    .bind("from", from.toEpochMilli())
                    .mapTo(Integer.class)
                    .one());
  }

  /** When the device's last campaign message was released, on any campaign. */
  Optional<Instant> lastReleased(long deviceId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT MAX(handed_at) FROM campaign_recipient" + " WHERE device_id = ?")
                    .bind(0, deviceId)
                    .mapTo(Long.class)
                    .findOne()
                    .map(Instant::ofEpochMilli));
  }

  /**
   * Of the device's last {@code window} campaign messages sent no later than {@code sentBy}: how
   * many, and how many got no reply. Answered is what a campaign's {@code replied} counts: a
   * message from the recipient to the device after the hand-over.
   */
  Answers answers(long deviceId, Instant sentBy, int window) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT COUNT(*) AS looked, COALESCE(SUM(CASE WHEN EXISTS (SELECT 1 FROM"
                            + " inbound_message i WHERE i.device_id = t.device_id AND (i.sender ="
                            + " t.recipient OR '+' || i.sender = t.recipient) AND i.received_at"
                            + " >= t.handed_at) THEN 0 ELSE 1 END), 0) AS unanswered FROM (SELECT"
                            + " r.device_id, r.handed_at, m.recipient FROM campaign_recipient r"
                            + " JOIN message m ON m.id = r.message_id WHERE r.device_id = :device"
                            + " AND r.handed_at <= :by AND m.sent_at IS NOT NULL"
                            + " AND m.sent_at <= :by ORDER BY r.handed_at DESC LIMIT :window) t")
                    .bind("device", deviceId)
                    .bind("by", sentBy.toEpochMilli())
                    .bind("window", window)
                    .map((rs, ctx) -> new Answers(rs.getInt("looked"), rs.getInt("unanswered")))
                    .one());
  }
}
