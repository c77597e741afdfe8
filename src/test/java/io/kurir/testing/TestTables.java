package io.kurir.testing;

import io.kurir.store.Database;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * What tests read of the database, in one place: typed rows of the tables tests look at, so that a
 * test says what it expects of a message, an incoming message, a webhook delivery or a lease, and a
 * change of the schema is made here once instead of in every test. Reads only: a test arranges
 * state through the gateway (or, for a broken state, says so where it writes).
 *
 * <p>Thread-safe: every read takes its own connection.
 */
public final class TestTables {
  private final Database db;

  private TestTables(Database db) {
    this.db = db;
  }

  public static TestTables of(Database db) {
    return new TestTables(db);
  }

  public static TestTables of(TestGateway kurir) {
    return new TestTables(kurir.gateway().database());
  }

  /** The rows {@code sql} answers with {@code args} bound in order, each mapped by {@code row}. */
  private <T> List<T> rows(String sql, RowMapper<T> row, Object... args) {
    return db.jdbi()
        .withHandle(
            h -> {
              var q = h.createQuery(sql);
              for (int i = 0; i < args.length; i++) {
                q.bind(i, args[i]);
              }
              return q.map(row).list();
            });
  }

  private static Optional<Long> optionalLong(ResultSet rs, String column) throws SQLException {
    return Optional.ofNullable(rs.getObject(column)).map(v -> ((Number) v).longValue());
  }

  // --- message

  /** A stored message, as its columns say. */
  public record MessageRow(
      long id,
      long deviceId,
      String recipient,
      String api,
      String state,
      String reason,
      Optional<String> networkId,
      Optional<Long> statusAt) {}

  private static final String MESSAGE_COLUMNS =
      "SELECT id, device_id, recipient, api, state, reason, network_id, status_at FROM message";

  private List<MessageRow> messagesWhere(String where, Object... args) {
    return rows(
        MESSAGE_COLUMNS + where + " ORDER BY id",
        (rs, ctx) ->
            new MessageRow(
                rs.getLong("id"),
                rs.getLong("device_id"),
                rs.getString("recipient"),
                rs.getString("api"),
                rs.getString("state"),
                rs.getString("reason"),
                Optional.ofNullable(rs.getString("network_id")),
                optionalLong(rs, "status_at")),
        args);
  }

  /** Every stored message, oldest id first. */
  public List<MessageRow> messages() {
    return messagesWhere("");
  }

  /** The device's stored messages, in any state, oldest id first. */
  public List<MessageRow> messagesOf(long deviceId) {
    return messagesWhere(" WHERE device_id = ?", deviceId);
  }

  /** The stored messages to {@code recipient} (E.164 or an id), from any device. */
  public List<MessageRow> messagesTo(String recipient) {
    return messagesWhere(" WHERE recipient = ?", recipient);
  }

  public Optional<MessageRow> message(long id) {
    return messagesWhere(" WHERE id = ?", id).stream().findFirst();
  }

  /** Receipts that came before the message they are for carried its network id. */
  public int earlyReceipts() {
    return count("SELECT COUNT(*) FROM early_receipt");
  }

  /** How many history lines of message {@code messageId} record a move to {@code state}. */
  public int historyLines(long messageId, String state) {
    // The first line is told from the message's row (first_state), the others are stored.
    return count("SELECT COUNT(*) FROM message WHERE id = ? AND first_state = ?", messageId, state)
        + count(
            "SELECT COUNT(*) FROM message_event WHERE message_id = ? AND state = ?",
            messageId,
            state);
  }

  // --- inbound_message

  /** A stored incoming message. */
  public record InboundRow(
      long id,
      long deviceId,
      String sender,
      Optional<String> senderId,
      Optional<String> groupId,
      String body,
      Optional<String> networkId,
      Optional<Long> replyMessageId,
      Optional<String> mediaType,
      Optional<String> mediaPath,
      long receivedAt,
      Optional<String> kind,
      Optional<String> content) {}

  private List<InboundRow> inboundWhere(String where, Object... args) {
    return rows(
        "SELECT id, device_id, sender, sender_id, group_id, body, network_id, reply_message_id,"
            + " media_type, media_path, received_at, kind, content FROM inbound_message"
            + where
            + " ORDER BY id",
        (rs, ctx) ->
            new InboundRow(
                rs.getLong("id"),
                rs.getLong("device_id"),
                rs.getString("sender"),
                Optional.ofNullable(rs.getString("sender_id")),
                Optional.ofNullable(rs.getString("group_id")),
                rs.getString("body"),
                Optional.ofNullable(rs.getString("network_id")),
                optionalLong(rs, "reply_message_id"),
                Optional.ofNullable(rs.getString("media_type")),
                Optional.ofNullable(rs.getString("media_path")),
                rs.getLong("received_at"),
                Optional.ofNullable(rs.getString("kind")),
                Optional.ofNullable(rs.getString("content"))),
        args);
  }

  /** Every stored incoming message, by id (the order stored). */
  public List<InboundRow> inbound() {
    return inboundWhere("");
  }

  /** The device's stored incoming messages, by id (the order stored). */
  public List<InboundRow> inboundOf(long deviceId) {
    return inboundWhere(" WHERE device_id = ?", deviceId);
  }

  /** The incoming messages from {@code sender} (as stored: E.164 or a network id). */
  public List<InboundRow> inboundFrom(String sender) {
    return inboundWhere(" WHERE sender = ?", sender);
  }

  // --- device_event, driver_state

  /** An entry of a device's history: the state it moved to, why, and when. */
  public record DeviceEventRow(String oldState, String newState, Optional<String> reason, long at) {
    /** {@code "<state> <reason>"}, the reason empty when there is none. */
    public String stateAndReason() {
      return newState + " " + reason.orElse("");
    }
  }

  /** The device's history, oldest first (entries of the same time in the order recorded). */
  public List<DeviceEventRow> deviceEventsOf(long deviceId) {
    return rows(
        "SELECT old_state, new_state, reason, at FROM device_event WHERE device_id = ?"
            + " ORDER BY at, "
            + db.dialect().insertionOrder(),
        (rs, ctx) ->
            new DeviceEventRow(
                rs.getString("old_state"),
                rs.getString("new_state"),
                Optional.ofNullable(rs.getString("reason")),
                rs.getLong("at")),
        deviceId);
  }

  /** The device's history, oldest first, each entry as {@code "<state> <reason>"}. */
  public List<String> historyOf(long deviceId) {
    return deviceEventsOf(deviceId).stream().map(DeviceEventRow::stateAndReason).toList();
  }

  /** What a device's driver keeps under {@code key} (as stored: sealed values stay sealed). */
  public Optional<String> driverState(long deviceId, String key) {
    return rows(
            "SELECT value FROM driver_state WHERE device_id = ? AND key = ?",
            (rs, ctx) -> rs.getString(1),
            deviceId,
            key)
        .stream()
        .findFirst();
  }

  // --- webhook_delivery

  /** A webhook delivery: its state, attempts, last error and claim. */
  public record DeliveryRow(
      long id,
      String event,
      String state,
      int attempts,
      Optional<String> lastError,
      Optional<Long> claimToken,
      Optional<Long> claimUntil) {}

  private List<DeliveryRow> deliveriesWhere(String where, Object... args) {
    return rows(
        "SELECT id, event, state, attempts, last_error, claim_token, claim_until"
            + " FROM webhook_delivery"
            + where
            + " ORDER BY id",
        (rs, ctx) ->
            new DeliveryRow(
                rs.getLong("id"),
                rs.getString("event"),
                rs.getString("state"),
                rs.getInt("attempts"),
                Optional.ofNullable(rs.getString("last_error")),
                optionalLong(rs, "claim_token"),
                optionalLong(rs, "claim_until")),
        args);
  }

  /** Every webhook delivery, by id. */
  public List<DeliveryRow> deliveries() {
    return deliveriesWhere("");
  }

  public Optional<DeliveryRow> delivery(long id) {
    return deliveriesWhere(" WHERE id = ?", id).stream().findFirst();
  }

  /** Every column of one webhook delivery, by name (for a test of what the row holds). */
  public Map<String, Object> deliveryColumns(long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM webhook_delivery WHERE id = ?")
                    .bind(0, id)
                    .mapToMap()
                    .one());
  }

  // --- device_lease

  /** The owner of each device's lease row, by device id. */
  public Map<Long, String> leases() {
    Map<Long, String> owners = new LinkedHashMap<>();
    db.jdbi()
        .useHandle(
            h ->
                h.createQuery("SELECT device_id, owner FROM device_lease ORDER BY device_id")
                    .map((rs, ctx) -> Map.entry(rs.getLong(1), rs.getString(2)))
                    .forEach(e -> owners.put(e.getKey(), e.getValue())));
    return owners;
  }

  /** The owner of the device's lease row, if it has one. */
  public Optional<String> leaseOwner(long deviceId) {
    return Optional.ofNullable(leases().get(deviceId));
  }

  // --- schedule, idempotency_key, per-device rows

  /** A schedule's state and reason. */
  public record ScheduleRow(String state, Optional<String> reason) {}

  public Optional<ScheduleRow> schedule(long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT state, reason FROM schedule WHERE id = ?")
                    .bind(0, id)
                    .map(
                        (rs, ctx) ->
                            new ScheduleRow(
                                rs.getString("state"), Optional.ofNullable(rs.getString("reason"))))
                    .findOne());
  }

  /** Schedules stored for the device, in any state. */
  public int schedulesOf(long deviceId) {
    return count("SELECT COUNT(*) FROM schedule WHERE device_id = ?", deviceId);
  }

  /** Rows of the idempotency key {@code key}, of any device. */
  public int idempotencyKeys(String key) {
    return count("SELECT COUNT(*) FROM idempotency_key WHERE idem_key = ?", key);
  }

  /** Tables that hold rows of a device by its {@code device_id}. */
  private static final Set<String> PER_DEVICE =
      Set.of(
          "message",
          "inbound_message",
          "upload",
          "device_event",
          "webhook_delivery",
          "schedule",
          "mobile_cs",
          "idempotency_key",
          "device_lease",
          "device_config",
          "driver_state",
          "contact_identity",
          "number_check",
          "device_hold",
          "device_signal");

  /** How many rows of {@code table} belong to the device. */
  public int rowsOfDevice(String table, long deviceId) {
    if (!PER_DEVICE.contains(table)) {
      throw new IllegalArgumentException("not a table of a device's rows: " + table);
    }
    return count("SELECT COUNT(*) FROM " + table + " WHERE device_id = ?", deviceId);
  }

  // --- campaign_recipient

  /**
   * A campaign recipient handed to the queue: its device, when it was handed and when the
   * safe-sending policy planned it (epoch milliseconds).
   */
  public record HandedRow(String phone, long deviceId, long handedAt, long plannedAt) {}

  /** The campaign's recipients handed to the queue, in the order they were handed. */
  public List<HandedRow> handed(long campaignId) {
    return rows(
        "SELECT phone, device_id, handed_at, planned_at FROM campaign_recipient"
            + " WHERE campaign_id = ? AND handed_at IS NOT NULL ORDER BY handed_at, phone",
        (rs, ctx) ->
            new HandedRow(
                rs.getString("phone"),
                rs.getLong("device_id"),
                rs.getLong("handed_at"),
                rs.getLong("planned_at")),
        campaignId);
  }

  private int count(String sql, Object... args) {
    return rows(sql, (rs, ctx) -> rs.getInt(1), args).getFirst();
  }
}
