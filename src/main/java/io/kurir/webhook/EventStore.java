package io.kurir.webhook;

import io.kurir.store.Database;
import io.kurir.store.Transaction;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.jdbi.v3.core.Handle;
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
    return licenseOf(tx, deviceId)
        .map(
            license ->
                appendAll(tx, List.of(new NewEvent(license, deviceId, type, data, at))).getFirst());
  }

  /** An event to store, of a device of license {@code licenseId}. */
  record NewEvent(long licenseId, long deviceId, String type, String data, Instant at) {}

  /** The license of device {@code deviceId}, deleted or not; empty when there is no such device. */
  static Optional<Long> licenseOf(Transaction tx, long deviceId) {
    return tx.handle()
        .createQuery("SELECT license_id FROM device WHERE id = ?")
        .bind(0, deviceId)
        .mapTo(Long.class)
        .findOne();
  }

  /**
   * Stores {@code events}, each numbered after its license's previous one in the order given, in
   * the caller's transaction; the events as stored, in that order. Each license's counter moves
   * once, by its number of events (its row locked until the transaction ends), the licenses in
   * ascending order so that two nodes' transactions never wait for each other in a circle; the
   * events go to the server as one batch.
   */
  static List<Events.Event> appendAll(Transaction tx, List<NewEvent> events) {
    Map<Long, Integer> counts = new TreeMap<>();
    events.forEach(e -> counts.merge(e.licenseId(), 1, Integer::sum));
    Map<Long, long[]> next = new HashMap<>(); // per license: the next number to give
    Handle h = tx.handle();
    // Plain JDBC: once per license and writer transaction, where Jdbi's mapping cost as much as
    // the statement.
    try (PreparedStatement bump = h.getConnection().prepareStatement(BUMP_SEQUENCE)) {
      for (Map.Entry<Long, Integer> c : counts.entrySet()) {
        bump.setLong(1, c.getKey());
        bump.setLong(2, c.getValue());
        long last;
        try (ResultSet rs = bump.executeQuery()) {
          rs.next();
          last = rs.getLong(1);
        }
        next.put(c.getKey(), new long[] {last - c.getValue() + 1});
      }
    } catch (SQLException e) {
      throw new UnableToExecuteStatementException(e, null);
    }
    List<Events.Event> stored = new ArrayList<>(events.size());
    try (PreparedStatement insert =
        h.getConnection()
            .prepareStatement(
                "INSERT INTO event (license_id, seq, device_id, type, created_at, data)"
                    + " VALUES (?, ?, ?, ?, ?, ?)")) {
      for (NewEvent e : events) {
        long seq = next.get(e.licenseId())[0]++;
        insert.setLong(1, e.licenseId());
        insert.setLong(2, seq);
        insert.setLong(3, e.deviceId());
        insert.setString(4, e.type());
        insert.setLong(5, e.at().toEpochMilli());
        insert.setString(6, e.data());
        insert.addBatch();
        stored.add(new Events.Event(e.licenseId(), seq, e.deviceId(), e.type(), e.at(), e.data()));
      }
      insert.executeBatch();
    } catch (SQLException e) {
      throw new UnableToExecuteStatementException(e, null);
    }
    return stored;
  }

  private static final String BUMP_SEQUENCE =
      "INSERT INTO event_sequence (license_id, last_seq) VALUES (?, ?)"
          + " ON CONFLICT (license_id)"
          + " DO UPDATE SET last_seq = event_sequence.last_seq + excluded.last_seq"
          + " RETURNING last_seq";

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
  record MessageFacts(long deviceId, String recipient, String recipientType, String api) {}

  /** {@link #message} of each of {@code messageIds}, by id; those that do not exist are missing. */
  static Map<Long, MessageFacts> messages(Transaction tx, List<Long> messageIds) {
    Map<Long, MessageFacts> found = new HashMap<>();
    int from = 0;
    try {
      while (from < messageIds.size()) {
        int left = messageIds.size() - from;
        // A few list lengths only, the last id repeated to fill one: the same few statements
        // each time, which SQLite's cache and PostgreSQL's prepared statements keep (a statement
        // per length was parsed and planned anew each time).
        int size = IN_SIZES[IN_SIZES.length - 1];
        for (int s : IN_SIZES) {
          if (s >= left) {
            size = s;
            break;
          }
        }
        try (PreparedStatement q =
            tx.handle().getConnection().prepareStatement(MESSAGES_IN.get(size))) {
          for (int i = 0; i < size; i++) {
            q.setLong(i + 1, messageIds.get(from + Math.min(i, left - 1)));
          }
          try (ResultSet rs = q.executeQuery()) {
            while (rs.next()) {
              found.put(
                  rs.getLong(1),
                  new MessageFacts(
                      rs.getLong(2), rs.getString(3), rs.getString(4), rs.getString(5)));
            }
          }
        }
        from += Math.min(size, left);
      }
    } catch (SQLException e) {
      throw new UnableToExecuteStatementException(e, null);
    }
    return found;
  }

  private static final int[] IN_SIZES = {1, 4, 16, 64, 256};

  private static final Map<Integer, String> MESSAGES_IN = new HashMap<>();

  static {
    for (int size : IN_SIZES) {
      MESSAGES_IN.put(
          size,
          "SELECT id, device_id, recipient, recipient_type, api FROM message WHERE id IN ("
              + String.join(", ", java.util.Collections.nCopies(size, "?"))
              + ")");
    }
  }

  static Optional<MessageFacts> message(Transaction tx, long messageId) {
    return tx.handle()
        .createQuery("SELECT device_id, recipient, recipient_type, api FROM message WHERE id = ?")
        .bind(0, messageId)
        .map(
            (rs, ctx) ->
                new MessageFacts(
                    rs.getLong("device_id"),
                    rs.getString("recipient"),
                    rs.getString("recipient_type"),
                    rs.getString("api")))
        .findOne();
  }
}
