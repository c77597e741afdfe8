package io.kurir.webhook;

import io.kurir.store.Database;
import io.kurir.store.Transaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * The SQL of the event log: {@code event} (each license's events by sequence) and {@code
 * event_sequence} (each license's last number). Plain, portable SQL.
 *
 * <p>Thread-safe.
 */
final class EventStore {
  private final Database db;

  EventStore(Database db) {
    this.db = db;
  }

  /**
   * Stores an event of device {@code deviceId}, numbered after its license's previous one; in the
   * caller's transaction. The counter row stays locked until that transaction ends, so numbers
   * follow commit order on PostgreSQL too (a reader that saw number n never later sees a smaller
   * one appear). The event as stored, or empty when the device does not exist.
   */
  static Optional<Events.Event> append(
      Transaction tx, long deviceId, String type, String data, Instant at) {
    try (PreparedStatement license = connection(tx).prepareStatement(LICENSE_OF_DEVICE)) {
      license.setLong(1, deviceId);
      try (ResultSet rs = license.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(append(tx, rs.getLong(1), deviceId, type, data, at));
      }
    } catch (SQLException e) {
      throw new UnableToExecuteStatementException(e, null);
    }
  }

  // Plain JDBC on the event log's statements: every status change of every message appends an
  // event on the writer's thread, where binding through Jdbi cost more than the inserts.
  private static final String LICENSE_OF_DEVICE = "SELECT license_id FROM device WHERE id = ?";
  private static final String NEXT_SEQUENCE =
      "INSERT INTO event_sequence (license_id, last_seq) VALUES (?, 1) ON CONFLICT (license_id)"
          + " DO UPDATE SET last_seq = event_sequence.last_seq + 1 RETURNING last_seq";
  private static final String INSERT_EVENT =
      "INSERT INTO event (license_id, seq, device_id, type, created_at, data)"
          + " VALUES (?, ?, ?, ?, ?, ?)";

  /** {@link #append}, for a device whose license the caller read in the same transaction. */
  static Events.Event append(
      Transaction tx, long licenseId, long deviceId, String type, String data, Instant at) {
    try {
      return insert(connection(tx), licenseId, deviceId, type, data, at);
    } catch (SQLException e) {
      throw new UnableToExecuteStatementException(e, null);
    }
  }

  private static Events.Event insert(
      Connection c, long licenseId, long deviceId, String type, String data, Instant at)
      throws SQLException {
    long seq;
    try (PreparedStatement next = c.prepareStatement(NEXT_SEQUENCE)) {
      next.setLong(1, licenseId);
      try (ResultSet rs = next.executeQuery()) {
        rs.next();
        seq = rs.getLong(1);
      }
    }
    try (PreparedStatement insert = c.prepareStatement(INSERT_EVENT)) {
      insert.setLong(1, licenseId);
      insert.setLong(2, seq);
      insert.setLong(3, deviceId);
      insert.setString(4, type);
      insert.setLong(5, at.toEpochMilli());
      insert.setString(6, data);
      insert.executeUpdate();
    }
    return new Events.Event(licenseId, seq, deviceId, type, at, data);
  }

  private static Connection connection(Transaction tx) {
    return tx.handle().getConnection();
  }

  /**
   * The license's events after sequence {@code after}, oldest first, at most {@code limit}; only
   * device {@code deviceId}'s when given.
   */
  List<Events.Event> after(long licenseId, OptionalLong deviceId, long after, int limit) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT license_id, seq, device_id, type, created_at, data FROM event"
                            + " WHERE license_id = :license AND seq > :after"
                            + (deviceId.isPresent() ? " AND device_id = :device" : "")
                            + " ORDER BY seq LIMIT :limit")
                    .bind("license", licenseId)
                    .bind("after", after)
                    .bind("device", deviceId.orElse(0))
                    .bind("limit", limit)
                    .map(
                        (rs, ctx) ->
                            new Events.Event(
                                rs.getLong("license_id"),
                                rs.getLong("seq"),
                                rs.getLong("device_id"),
                                rs.getString("type"),
                                Instant.ofEpochMilli(rs.getLong("created_at")),
                                rs.getString("data")))
                    .list());
  }

  /**
   * The first sequence number the license still holds an event for, or the next it will give when
   * it holds none: an {@code after} below this minus one asks for events that were deleted.
   */
  long oldestKept(long licenseId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT COALESCE((SELECT MIN(seq) FROM event WHERE license_id = :l),"
                            + " (SELECT last_seq + 1 FROM event_sequence WHERE license_id = :l),"
                            + " 1)")
                    .bind("l", licenseId)
                    .mapTo(Long.class)
                    .one());
  }

  /** The license's last sequence number, 0 before its first event. */
  long last(long licenseId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT last_seq FROM event_sequence WHERE license_id = ?")
                    .bind(0, licenseId)
                    .mapTo(Long.class)
                    .findOne()
                    .orElse(0L));
  }

  /** Deletes up to {@code batch} events stored before {@code before}; how many. */
  int prune(Instant before, int batch) {
    return db.writes()
        .write(
            h ->
                h.createUpdate(
                        "DELETE FROM event WHERE (license_id, seq) IN (SELECT license_id, seq"
                            + " FROM event WHERE created_at < ? LIMIT ?)")
                    .bind(0, before.toEpochMilli())
                    .bind(1, batch)
                    .execute());
  }

  /** The number (E.164) of device {@code deviceId}, which exists; in the caller's transaction. */
  static String deviceNumber(Transaction tx, long deviceId) {
    return tx.handle()
        .createQuery("SELECT number FROM device WHERE id = ?")
        .bind(0, deviceId)
        .mapTo(String.class)
        .one();
  }

  /** What a message's status event tells of it; in the caller's transaction. */
  record MessageFacts(
      long licenseId, long deviceId, String recipient, String recipientType, String api) {}

  private static final String MESSAGE_FACTS =
      "SELECT d.license_id, m.device_id, m.recipient, m.recipient_type, m.api"
          + " FROM message m JOIN device d ON d.id = m.device_id WHERE m.id = ?";

  static Optional<MessageFacts> message(Transaction tx, long messageId) {
    try (PreparedStatement facts = connection(tx).prepareStatement(MESSAGE_FACTS)) {
      facts.setLong(1, messageId);
      try (ResultSet rs = facts.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new MessageFacts(
                rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getString(4), rs.getString(5)));
      }
    } catch (SQLException e) {
      throw new UnableToExecuteStatementException(e, null);
    }
  }
}
