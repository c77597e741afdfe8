package io.kurir.schedule;

import io.kurir.message.IdempotencyKeys;
import io.kurir.message.MessageState;
import io.kurir.store.Database;
import io.kurir.store.Transaction;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * The SQL of schedules. Every change is a guarded update ({@code WHERE state = ...}), so that two
 * runners, on one node or several sharing a database, can never both hand one schedule over.
 */
final class ScheduleStore {
  private static final Duration MINUTE = Duration.ofMinutes(1);

  private final Database db;

  ScheduleStore(Database db) {
    this.db = db;
  }

  /** What {@link #insertWithinLimit} did. */
  enum Insert {
    STORED,
    /** The device has its limit of schedules in that minute: nothing stored. */
    MINUTE_FULL,
    /** A request with the same idempotency key was stored before: nothing stored. */
    KEY_TAKEN
  }

  /**
   * Stores a schedule unless its device has {@code limit} schedules (not removed) in the same
   * minute already, or a request with the same idempotency key ({@code claim}) was stored before;
   * checked and inserted in one transaction, so concurrent requests cannot both take the last
   * place, nor both store one key.
   */
  Insert insertWithinLimit(Schedule s, int limit, Optional<IdempotencyKeys.Claim> claim) {
    return db.writes()
        .write(
            h -> {
              // The key first: a repeat is not refused for the place its first request took.
              if (claim.isPresent() && claim.get().takenIn(Transaction.of(h))) {
                return Insert.KEY_TAKEN;
              }
              if (countInMinute(h, s.deviceId(), s.dueAt()) >= limit) {
                return Insert.MINUTE_FULL;
              }
              h.createUpdate(
                      "INSERT INTO schedule (id, device_id, api_type, body, target, url, filename,"
                          + " due_at, created_at, state, status_at)"
                          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'waiting', ?)")
                  .bind(0, s.id())
                  .bind(1, s.deviceId())
                  .bind(2, s.apiType().wireName())
                  .bind(3, s.body())
                  .bind(4, s.target())
                  .bind(5, s.url().orElse(null))
                  .bind(6, s.filename().orElse(null))
                  .bind(7, s.dueAt().toEpochMilli())
                  .bind(8, s.createdAt().toEpochMilli())
                  .bind(9, s.createdAt().toEpochMilli())
                  .execute();
              if (claim.isPresent()) {
                claim.get().recordIn(Transaction.of(h), List.of(s.id()));
              }
              return Insert.STORED;
            });
  }

  /** Schedules (not removed) of a device in the minute of {@code at}. */
  int countInMinute(long deviceId, Instant at) {
    return db.jdbi().withHandle(h -> countInMinute(h, deviceId, at));
  }

  private static int countInMinute(Handle h, long deviceId, Instant at) {
    long start = at.toEpochMilli() - Math.floorMod(at.toEpochMilli(), MINUTE.toMillis());
    return h.createQuery(
            "SELECT COUNT(*) FROM schedule WHERE device_id = ? AND due_at >= ? AND due_at < ?"
                + " AND state <> 'removed'")
        .bind(0, deviceId)
        .bind(1, start)
        .bind(2, start + MINUTE.toMillis())
        .mapTo(Integer.class)
        .one();
  }

  private static final String SELECT =
      "SELECT s.*, m.state AS message_state, m.reason AS message_reason FROM schedule s"
          + " LEFT JOIN message m ON m.id = s.message_id";

  Optional<Schedule> find(long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(SELECT + " WHERE s.id = ?")
                    .bind(0, id)
                    .map(ScheduleStore::schedule)
                    .findOne());
  }

  /** Waiting schedules, earliest due first, at most {@code limit} (the console's list). */
  List<Schedule> waiting(int limit) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(SELECT + " WHERE s.state = 'waiting' ORDER BY s.due_at, s.id LIMIT ?")
                    .bind(0, limit)
                    .map(ScheduleStore::schedule)
                    .list());
  }

  /** How many schedules wait with a due time before {@code before}. */
  long countWaitingDueBefore(Instant before) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT COUNT(*) FROM schedule WHERE state = 'waiting' AND due_at < ?")
                    .bind(0, before.toEpochMilli())
                    .mapTo(Long.class)
                    .one());
  }

  /**
   * Waiting schedules due by {@code now}, earliest first (by id within a time), leaving out the
   * devices in {@code skipped} (a handful: those with a fetch in progress).
   */
  List<Schedule> due(Instant now, Collection<Long> skipped, int limit) {
    String notSkipped = notIn("s.device_id", skipped);
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        SELECT
                            + " WHERE s.state = 'waiting' AND s.due_at <= ?"
                            + notSkipped
                            + " ORDER BY s.due_at, s.id LIMIT ?")
                    .bind(0, now.toEpochMilli())
                    .bind(1, limit)
                    .map(ScheduleStore::schedule)
                    .list());
  }

  /** When the earliest waiting schedule of a device not in {@code skipped} is due, if any waits. */
  Optional<Instant> nextDue(Collection<Long> skipped) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT MIN(due_at) FROM schedule WHERE state = 'waiting'"
                            + notIn("device_id", skipped))
                    .mapTo(Long.class)
                    .findOne()
                    .map(Instant::ofEpochMilli));
  }

  /** {@code AND column NOT IN (ids)}, or nothing for no ids; ids are numbers, never text. */
  private static String notIn(String column, Collection<Long> ids) {
    return ids.isEmpty()
        ? ""
        : " AND "
            + column
            + " NOT IN ("
            + ids.stream().map(String::valueOf).collect(Collectors.joining(", "))
            + ")";
  }

  /** Claims a waiting schedule for fetching its URL; true when this caller got it. */
  boolean claim(long id, long token, int node, Instant expires, Instant now) {
    return db.writes()
            .write(
                h ->
                    h.createUpdate(
                            "UPDATE schedule SET state = 'claimed', claim_token = ?,"
                                + " claimed_by = ?, claim_expires = ?, status_at = ?"
                                + " WHERE id = ? AND state = 'waiting'")
                        .bind(0, token)
                        .bind(1, node)
                        .bind(2, expires.toEpochMilli())
                        .bind(3, now.toEpochMilli())
                        .bind(4, id)
                        .execute())
        == 1;
  }

  /**
   * Gives claims back: those that expired (their node died mid-fetch), and every claim of {@code
   * node} when it is starting (it cannot be fetching anything yet).
   */
  int releaseClaims(Instant now, Optional<Integer> startingNode) {
    return db.writes()
        .write(
            h ->
                h.createUpdate(
                        "UPDATE schedule SET state = 'waiting', claim_token = NULL,"
                            + " claimed_by = NULL, claim_expires = NULL"
                            + " WHERE state = 'claimed' AND (claim_expires < ? OR claimed_by = ?)")
                    .bind(0, now.toEpochMilli())
                    .bind(1, startingNode.orElse(-1))
                    .execute());
  }

  /**
   * The guard of a hand-over, run in the transaction that stores the message: moves the schedule to
   * {@code handed} if it is still waiting (a text) or still claimed by {@code token} (a fetched
   * file), recording the message's id. False when it was removed or someone else took it.
   */
  static boolean hand(
      Transaction tx, long scheduleId, Optional<Long> token, long messageId, Instant at)
      throws SQLException {
    Handle h = tx.handle();
    String sql =
        "UPDATE schedule SET state = 'handed', message_id = ?, status_at = ?,"
            + " claim_token = NULL, claim_expires = NULL WHERE id = ? AND "
            + (token.isPresent() ? "state = 'claimed' AND claim_token = ?" : "state = 'waiting'");
    try (PreparedStatement update = h.getConnection().prepareStatement(sql)) {
      update.setLong(1, messageId);
      update.setLong(2, at.toEpochMilli());
      update.setLong(3, scheduleId);
      if (token.isPresent()) {
        update.setLong(4, token.get());
      }
      return update.executeUpdate() == 1;
    }
  }

  /**
   * The guard of taking a handed schedule back (its message was still queued): moves it to {@code
   * removed} if it is still handed with that message.
   */
  static boolean unhand(Transaction tx, long scheduleId, long messageId, Instant at)
      throws SQLException {
    Handle h = tx.handle();
    try (PreparedStatement update =
        h.getConnection()
            .prepareStatement(
                "UPDATE schedule SET state = 'removed', status_at = ?"
                    + " WHERE id = ? AND state = 'handed' AND message_id = ?")) {
      update.setLong(1, at.toEpochMilli());
      update.setLong(2, scheduleId);
      update.setLong(3, messageId);
      return update.executeUpdate() == 1;
    }
  }

  /** Records that a schedule could not become a message (its claim, or it waiting, held). */
  boolean fail(long id, Optional<Long> token, String reason, Instant at) {
    String guard =
        token.isPresent() ? "state = 'claimed' AND claim_token = ?" : "state = 'waiting'";
    return db.writes()
            .write(
                h -> {
                  var update =
                      h.createUpdate(
                              "UPDATE schedule SET state = 'failed', reason = ?, status_at = ?,"
                                  + " claim_token = NULL, claim_expires = NULL WHERE id = ? AND "
                                  + guard)
                          .bind(0, reason)
                          .bind(1, at.toEpochMilli())
                          .bind(2, id);
                  token.ifPresent(t -> update.bind(3, t));
                  return update.execute();
                })
        == 1;
  }

  /**
   * Fails every schedule of a device that has not been handed over yet (waiting, or claimed while
   * its file is fetched: that claim's hand-over then finds it gone); returns how many.
   */
  int failAllOf(long deviceId, String reason, Instant at) {
    return db.writes()
        .write(
            h ->
                h.createUpdate(
                        "UPDATE schedule SET state = 'failed', reason = ?, status_at = ?,"
                            + " claim_token = NULL, claim_expires = NULL"
                            + " WHERE device_id = ? AND state IN ('waiting', 'claimed')")
                    .bind(0, reason)
                    .bind(1, at.toEpochMilli())
                    .bind(2, deviceId)
                    .execute());
  }

  /** Removes a schedule that has not been handed over yet; true when it was removed now. */
  boolean remove(long id, Instant at) {
    return db.writes()
            .write(
                h ->
                    h.createUpdate(
                            "UPDATE schedule SET state = 'removed', status_at = ?,"
                                + " claim_token = NULL, claim_expires = NULL"
                                + " WHERE id = ? AND state IN ('waiting', 'claimed')")
                        .bind(0, at.toEpochMilli())
                        .bind(1, id)
                        .execute())
        == 1;
  }

  long maxId() {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT MAX(id) FROM schedule")
                    .mapTo(Long.class)
                    .findOne()
                    .orElse(0L));
  }

  private static Schedule schedule(ResultSet rs, StatementContext ctx) throws SQLException {
    long messageId = rs.getLong("message_id");
    boolean noMessage = rs.wasNull();
    String messageState = rs.getString("message_state");
    return new Schedule(
        rs.getLong("id"),
        rs.getLong("device_id"),
        ApiType.ofWireName(rs.getString("api_type")).orElseThrow(),
        rs.getString("body"),
        rs.getString("target"),
        Optional.ofNullable(rs.getString("url")),
        Optional.ofNullable(rs.getString("filename")),
        Instant.ofEpochMilli(rs.getLong("due_at")),
        Instant.ofEpochMilli(rs.getLong("created_at")),
        ScheduleState.ofWireName(rs.getString("state")),
        Optional.ofNullable(rs.getString("reason")),
        noMessage ? Optional.empty() : Optional.of(messageId),
        Optional.ofNullable(messageState).map(MessageState::ofWireName),
        Optional.ofNullable(rs.getString("message_reason")));
  }
}
