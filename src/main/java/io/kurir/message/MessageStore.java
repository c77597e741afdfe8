package io.kurir.message;

import static io.kurir.message.MessageRowStore.history;
import static io.kurir.message.MessageRowStore.insertNow;
import static io.kurir.message.MessageRowStore.message;

import io.kurir.store.Database;
import io.kurir.store.Transaction;
import io.kurir.store.WriteQueue;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;

/**
 * The SQL of the send queue: storing messages, what is due, claims ({@code pending → sending} while
 * the lease is held) and giving claims back. State changes are guarded in SQL, not in memory; the
 * other families of the {@code message} table are in {@link OutcomeStore}, {@link ReceiptStore},
 * {@link RecoveryStore} and {@link MessageReadStore}.
 */
final class MessageStore {
  private final Database db;

  MessageStore(Database db) {
    this.db = db;
    for (int size : CLAIM_SIZES) {
      claimSql.put(size, claimSql(db.dialect().skipLocked(), size));
    }
  }

  private final java.util.Map<Integer, String> claimSql = new java.util.HashMap<>();

  /**
   * Stores new messages, if {@code guard} (when given) holds in the same transaction; the future
   * completes once they are committed, with whether they were stored.
   */
  CompletableFuture<Boolean> insert(List<Message> messages, Optional<Messages.Guard> guard) {
    return db.writes()
        .submitAdding(
            h -> {
              if (guard.isPresent()
                  && !guard.get().holds(Transaction.of(h), messages.getFirst().id())) {
                return false; // the guard wrote nothing either
              }
              insertRows(h, messages);
              return true;
            });
  }

  /**
   * Stores each message whose guard holds when it runs, in one transaction with the guards; the
   * future completes after the commit with, per message, whether it was stored.
   */
  CompletableFuture<boolean[]> insertGuarded(List<Message> messages, List<Messages.Guard> guards) {
    return db.writes()
        .submitAdding(
            h -> {
              boolean[] stored = new boolean[messages.size()];
              List<Message> kept = new java.util.ArrayList<>(messages.size());
              for (int i = 0; i < messages.size(); i++) {
                stored[i] = guards.get(i).holds(Transaction.of(h), messages.get(i).id());
                if (stored[i]) {
                  kept.add(messages.get(i));
                }
              }
              if (!kept.isEmpty()) {
                insertRows(h, kept);
              }
              return stored;
            });
  }

  // Plain JDBC on the two statements every message passes through: the accept path is the
  // hottest in the gateway, and binding through Jdbi costs more than SQLite's insert itself.
  private static void insertRows(Handle h, List<Message> messages) throws SQLException {
    insertRows(h, messages, null);
  }

  /**
   * {@link #insertRows}; with {@code claimedAt}, stored already claimed ({@code sending}, one
   * attempt, both states in the history): one statement fewer than an insert and a claim.
   */
  private static void insertRows(Handle h, List<Message> messages, Instant claimedAt)
      throws SQLException {
    MessageRowStore.NewMessages later =
        WriteQueue.perTransaction(
            Transaction.of(h), MessageRowStore.NewMessages.class, MessageRowStore.NewMessages::new);
    if (later != null) {
      later.add(messages, claimedAt);
    } else {
      insertNow(
          h.getConnection(), messages, java.util.Collections.nCopies(messages.size(), claimedAt));
    }
    if (claimedAt != null) { // the first line, the state it was stored in, is told from its row
      for (Message m : messages) {
        history(h, m.id(), MessageState.SENDING, null, claimedAt);
      }
    }
  }

  // --- the send queue

  /**
   * Up to {@code limit} messages of a device that may go now, in sending order: sync ones (a caller
   * waits) first, then by id.
   */
  List<Message> due(long deviceId, Instant now, int limit) {
    return due(deviceId, now, limit, true);
  }

  /** {@link #due}; without looking for sync messages when {@code withSync} is false. */
  List<Message> due(long deviceId, Instant now, int limit, boolean withSync) {
    return read(
        h -> {
          List<Message> due =
              withSync ? new ArrayList<>(dueOf(h, deviceId, true, now, limit)) : new ArrayList<>();
          if (due.size() < limit) {
            due.addAll(dueOf(h, deviceId, false, now, limit - due.size()));
          }
          return due;
        });
  }

  /** Keeps the fetched image or file of a message that is still pending; true when it was. */
  boolean attachMedia(long id, MediaRef media) {
    return db.writes()
            .write(
                h ->
                    h.createUpdate(
                            "UPDATE message SET media_name = ?, media_type = ?, media_path = ?"
                                + " WHERE id = ? AND state = 'pending'")
                        .bind(0, media.name())
                        .bind(1, media.mimeType())
                        .bind(2, media.path().toString())
                        .bind(3, id)
                        .execute())
        > 0;
  }

  /** Up to {@code limit} sync messages of a device that may go now, by id. */
  List<Message> dueSync(long deviceId, Instant now, int limit) {
    return read(h -> dueOf(h, deviceId, true, now, limit));
  }

  /** A read on a pooled connection; a database error is unchecked, as Jdbi's own are. */
  private <T> T read(HandleCallback<T, SQLException> work) {
    try {
      return db.jdbi().withHandle(work);
    } catch (SQLException e) {
      throw new org.jdbi.v3.core.statement.UnableToExecuteStatementException(e, null);
    }
  }

  // Plain JDBC on the queries a sender runs for every claim: binding through Jdbi costs more
  // than SQLite's index seek itself.
  private static List<Message> dueOf(Handle h, long deviceId, boolean sync, Instant now, int limit)
      throws SQLException {
    try (PreparedStatement q = h.getConnection().prepareStatement(DUE)) {
      q.setLong(1, deviceId);
      q.setInt(2, sync ? 1 : 0);
      q.setLong(3, now.toEpochMilli());
      q.setInt(4, limit);
      List<Message> due = new ArrayList<>();
      try (ResultSet rs = q.executeQuery()) {
        while (rs.next()) {
          due.add(message(rs, null));
        }
      }
      return due;
    }
  }

  static final String DUE =
      "SELECT * FROM message WHERE device_id = ? AND state = 'pending' AND sync = ?"
          + " AND not_before <= ? ORDER BY id LIMIT ?";

  /** When the device's earliest held message (pendingTime, retry backoff) may go, if it has one. */
  Optional<Instant> nextNotBefore(long deviceId) {
    return read(
        h -> {
          try (PreparedStatement q = h.getConnection().prepareStatement(NEXT_NOT_BEFORE)) {
            q.setLong(1, deviceId);
            try (ResultSet rs = q.executeQuery()) {
              long min = rs.next() ? rs.getLong(1) : 0;
              return rs.wasNull() || min == 0
                  ? Optional.<Instant>empty()
                  : Optional.of(Instant.ofEpochMilli(min));
            }
          }
        });
  }

  /**
   * A device's queue: its pending messages. Both values of {@code sync} are named so that SQLite's
   * planner, which has no statistics to tell the indexes apart, takes the queue's partial index
   * ({@code message_queue}: device, sync, id, pending only) instead of walking every message the
   * device ever sent through {@code message_device_recipient}; {@code QueueQueryPlanTest}.
   */
  static final String QUEUE_OF_DEVICE = "device_id = ? AND state = 'pending' AND sync IN (0, 1)";

  static final String NEXT_NOT_BEFORE =
      "SELECT MIN(not_before) FROM message WHERE " + QUEUE_OF_DEVICE;

  static final String PENDING_IDS =
      "SELECT id FROM message WHERE " + QUEUE_OF_DEVICE + " ORDER BY id LIMIT ?";

  static final String PENDING_SYNC_IDS =
      "SELECT id FROM message WHERE device_id = ? AND state = 'pending' AND sync = 1"
          + " ORDER BY id LIMIT ?";

  static final String PENDING_COUNT = "SELECT COUNT(*) FROM message WHERE " + QUEUE_OF_DEVICE;

  static final String PENDING_SYNC_COUNT =
      "SELECT COUNT(*) FROM message WHERE device_id = ? AND state = 'pending' AND sync = 1";

  /** Up to {@code limit} messages of a device still waiting in its queue, oldest first. */
  List<Long> pendingIds(long deviceId, int limit) {
    return pendingIds(deviceId, PENDING_IDS, limit);
  }

  /** Sync messages of a device still waiting in its queue (not {@code flag_retry}). */
  List<Long> waitingSyncCallers(long deviceId) {
    return pendingIds(deviceId, PENDING_SYNC_IDS, 512);
  }

  private List<Long> pendingIds(long deviceId, String sql, int limit) {
    return db.jdbi()
        .withHandle(
            h -> h.createQuery(sql).bind(0, deviceId).bind(1, limit).mapTo(Long.class).list());
  }

  /** The devices with messages still to send or whose last attempt's outcome is unknown. */
  List<Long> devicesWithWork() {
    return db.jdbi()
        .withHandle(
            h ->
                // Each half on its own partial index (a state IN (...) would scan the table).
                h.createQuery(
                        "SELECT device_id FROM message WHERE state = 'pending'"
                            + " UNION SELECT device_id FROM message WHERE state = 'sending'")
                    .mapTo(Long.class)
                    .list());
  }

  /**
   * Messages of a device that went out since {@code from} (the daily cap's count when a sender
   * starts or a day begins); a scan of the device's messages, run once a day at most.
   */
  int sentSince(long deviceId, Instant from) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT COUNT(*) FROM message WHERE device_id = ? AND sent_at >= ?")
                    .bind(0, deviceId)
                    .bind(1, from.toEpochMilli())
                    .mapTo(Integer.class)
                    .one());
  }

  /**
   * Whether the device is still there (not deleted): read by its sender right before each driver
   * call, so that a delete committed by this or another node stops what it had already claimed (see
   * docs/decisions.md, "A deleted device's claimed messages"). One primary-key read.
   */
  boolean deviceLive(long deviceId) {
    // Plain JDBC: read before every driver call, where Jdbi's binding and mapping cost ten times
    // the read itself (a tenth of the CPU of a sync send).
    return db.readPlain(
        c -> {
          try (PreparedStatement live = c.prepareStatement(DEVICE_LIVE)) {
            live.setLong(1, deviceId);
            try (ResultSet rs = live.executeQuery()) {
              return rs.next();
            }
          }
        });
  }

  private static final String DEVICE_LIVE =
      "SELECT 1 FROM device WHERE id = ? AND deleted_at IS NULL";

  /** Messages waiting in a device's queue (pending), for tests and operators. */
  int pendingCount(long deviceId) {
    return db.jdbi()
        .withHandle(h -> h.createQuery(PENDING_COUNT).bind(0, deviceId).mapTo(Integer.class).one());
  }

  /** Sync messages of a device waiting in its queue (pending): callers wait for each of them. */
  int pendingSyncCount(long deviceId) {
    return db.jdbi()
        .withHandle(
            h -> h.createQuery(PENDING_SYNC_COUNT).bind(0, deviceId).mapTo(Integer.class).one());
  }

  /**
   * Commits a sending attempt for each message that is still pending, while {@code owner} holds the
   * device's lease; the future completes after the commit with the ids that were claimed (a message
   * withdrawn or cancelled in between is not).
   */
  CompletableFuture<Set<Long>> claim(long deviceId, String owner, List<Long> ids, Instant at) {
    return claim(deviceId, owner, ids, at, true);
  }

  /**
   * {@link #claim}; {@code callerWaits} false for a window of async messages, which may then wait
   * one short commit behind what callers wait for.
   */
  CompletableFuture<Set<Long>> claim(
      long deviceId, String owner, List<Long> ids, Instant at, boolean callerWaits) {
    HandleCallback<Set<Long>, Exception> claim =
        h -> claimRows(h, claimSql, deviceId, owner, ids, at);
    return callerWaits ? db.writes().submit(claim) : db.writes().submitForSender(claim);
  }

  /**
   * Stores new messages and, in the same commit, claims them for {@code owner}'s sender when it
   * still holds the device's lease and the device is switched on: a message handed straight to an
   * idle sender needs no claim of its own. The future completes after the commit with the ids
   * claimed (none: they wait, {@code pending}, like any other).
   */
  CompletableFuture<Set<Long>> insertClaimed(List<Message> messages, String owner, Instant at) {
    // An accept like the others (it reads the lease and the device, no message): its rows are kept
    // for the
    // transaction's one insert.
    return db.writes()
        .submitAdding(
            h -> {
              if (!LeaseStore.maySend(h, messages.getFirst().deviceId(), owner)) {
                insertRows(h, messages);
                return Set.<Long>of();
              }
              insertRows(h, messages, at);
              Set<Long> claimed = new HashSet<>();
              messages.forEach(m -> claimed.add(m.id()));
              return claimed;
            });
  }

  private static Set<Long> claimRows(
      Handle h,
      java.util.Map<Integer, String> claimSql,
      long deviceId,
      String owner,
      List<Long> ids,
      Instant at)
      throws SQLException {
    Set<Long> claimed = new HashSet<>();
    // A window in one statement per size of list (1, 4, 16, 64: the list padded with its last id),
    // not one per message, which also looks at the lease: on PostgreSQL each statement is a round
    // trip.
    Set<Long> moved = new HashSet<>();
    for (int from = 0; from < ids.size(); ) {
      int size = claimSize(ids.size() - from);
      int count = Math.min(size, ids.size() - from);
      try (PreparedStatement claim = h.getConnection().prepareStatement(claimSql.get(size))) {
        int p = 1;
        claim.setLong(p++, at.toEpochMilli());
        for (int i = 0; i < size; i++) {
          claim.setLong(p++, ids.get(from + Math.min(i, count - 1)));
        }
        claim.setLong(p++, deviceId);
        claim.setLong(p++, deviceId);
        claim.setString(p, owner);
        try (ResultSet rs = claim.executeQuery()) {
          while (rs.next()) {
            moved.add(rs.getLong(1));
          }
        }
      }
      from += count;
    }
    for (long id : ids) { // the history in the window's order
      if (moved.contains(id)) {
        claimed.add(id);
        history(h, id, MessageState.SENDING, null, at);
      }
    }
    return claimed;
  }

  private static final int[] CLAIM_SIZES = {1, 4, 16, ClaimWindow.MAX_CLAIM};

  /** The size of list that takes the next {@code left} ids: the smallest that holds them all. */
  private static int claimSize(int left) {
    for (int size : CLAIM_SIZES) {
      if (left <= size) {
        return size;
      }
    }
    return CLAIM_SIZES[CLAIM_SIZES.length - 1];
  }

  /**
   * The claim of a window's messages, {@code size} ids: guarded by their state, by the lease (an
   * owner whose lease moved to another node claims nothing) and by the device being switched on (a
   * sender that looked at its device just before a switch-off committed has not paused yet, and
   * would claim what is accepted after it: a "sending" line for a message never sent); where rows
   * are locked (PostgreSQL), a message another transaction holds (a cancel, a withdrawal under way)
   * is passed over, not waited for. It returns the ids it moved.
   */
  private static String claimSql(String skipLocked, int size) {
    String set = "UPDATE message SET state = 'sending', attempts = attempts + 1, status_at = ?";
    String which =
        " WHERE id IN ("
            + String.join(", ", java.util.Collections.nCopies(size, "?"))
            + ") AND device_id = ? AND state = 'pending' AND EXISTS (SELECT 1 FROM device_lease l"
            + " JOIN device d ON d.id = l.device_id"
            + " WHERE l.device_id = ? AND l.owner = ? AND d.disabled = 0)";
    return (skipLocked.isEmpty()
            ? set + which
            : set + " WHERE id IN (SELECT id FROM message" + which + skipLocked + ")")
        + " RETURNING id";
  }

  /**
   * An attempt that did not happen (the device was not connected, the network asked to wait): the
   * message goes back to {@code pending}, and the attempt is not counted.
   */
  CompletableFuture<Boolean> unclaim(long id, Instant notBefore) {
    return db.writes()
        .submit(
            h ->
                h.createUpdate(
                            "UPDATE message SET state = 'pending', attempts = attempts - 1,"
                                + " not_before = ? WHERE id = ? AND state = 'sending'")
                        .bind(0, notBefore.toEpochMilli())
                        .bind(1, id)
                        .execute()
                    > 0);
  }

  /**
   * {@link #unclaim} by a sender that lost its lease: only while {@code owner} is still the lease's
   * owner in the table. Once another node has taken the lease, the message is that node's to
   * recover (the crash rule), and giving it back here could race its new sender.
   */
  CompletableFuture<Boolean> unclaimAsOwner(long id, Instant notBefore, String owner) {
    return db.writes()
        .submit(
            h ->
                h.createUpdate(
                            "UPDATE message SET state = 'pending', attempts = attempts - 1,"
                                + " not_before = ? WHERE id = ? AND state = 'sending'"
                                + " AND EXISTS (SELECT 1 FROM device_lease l"
                                + " WHERE l.device_id = message.device_id AND l.owner = ?)")
                        .bind(0, notBefore.toEpochMilli())
                        .bind(1, id)
                        .bind(2, owner)
                        .execute()
                    > 0);
  }
}
