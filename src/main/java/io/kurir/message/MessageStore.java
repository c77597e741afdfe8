package io.kurir.message;

import io.kurir.store.Database;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.statement.StatementContext;

/** The SQL of messages and incoming messages. State changes are guarded in SQL, not in memory. */
final class MessageStore {
  private final Database db;
  private final StatusHook hook;

  MessageStore(Database db, StatusHook hook) {
    this.db = db;
    this.hook = hook;
    this.claimSql = claimSql(db.dialect().skipLocked());
  }

  private final String claimSql;

  private static final String INSERT =
      "INSERT INTO message (id, device_id, recipient, recipient_type, kind, body, api, sync, retry,"
          + " attempts, state, reason, not_before, created_at, sent_at, status_at, media_name,"
          + " media_type, media_path, media_url, link_preview)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

  /**
   * Stores new messages, if {@code guard} (when given) holds in the same transaction; the future
   * completes once they are committed, with whether they were stored.
   */
  CompletableFuture<Boolean> insert(List<Message> messages, Optional<Messages.Guard> guard) {
    return db.writes()
        .submit(
            h -> {
              if (guard.isPresent() && !guard.get().holds(h, messages.getFirst().id())) {
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
        .submit(
            h -> {
              boolean[] stored = new boolean[messages.size()];
              List<Message> kept = new java.util.ArrayList<>(messages.size());
              for (int i = 0; i < messages.size(); i++) {
                stored[i] = guards.get(i).holds(h, messages.get(i).id());
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
    try (PreparedStatement insert = h.getConnection().prepareStatement(INSERT)) {
      for (Message m : messages) {
        insert.setLong(1, m.id());
        insert.setLong(2, m.deviceId());
        insert.setString(3, m.recipient());
        insert.setString(4, m.toGroup() ? "group" : "number");
        insert.setString(5, m.kind());
        insert.setString(6, m.body());
        insert.setString(7, m.api());
        insert.setInt(8, m.sync() ? 1 : 0);
        insert.setInt(9, m.retry() ? 1 : 0);
        insert.setInt(10, claimedAt == null ? m.attempts() : m.attempts() + 1);
        insert.setString(11, (claimedAt == null ? m.state() : MessageState.SENDING).wireName());
        insert.setString(12, m.reason().orElse(null));
        insert.setLong(13, m.notBefore().toEpochMilli());
        insert.setLong(14, m.createdAt().toEpochMilli());
        if (m.sentAt().isPresent()) {
          insert.setLong(15, m.sentAt().get().toEpochMilli());
        } else {
          insert.setNull(15, Types.BIGINT);
        }
        insert.setLong(16, (claimedAt == null ? m.statusAt() : claimedAt).toEpochMilli());
        insert.setString(17, m.media().map(MediaRef::name).orElse(null));
        insert.setString(18, m.media().map(MediaRef::mimeType).orElse(null));
        insert.setString(19, m.media().map(r -> r.path().toString()).orElse(null));
        insert.setString(20, m.mediaUrl().orElse(null));
        insert.setInt(21, m.linkPreview() ? 1 : 0);
        if (messages.size() == 1) {
          insert.executeUpdate();
        } else {
          insert.addBatch();
        }
      }
      if (messages.size() > 1) {
        insert.executeBatch();
      }
    }
    try (PreparedStatement event = h.getConnection().prepareStatement(INSERT_EVENT)) {
      for (Message m : messages) {
        bindEvent(event, m.id(), m.state(), null, m.createdAt());
        event.addBatch();
        if (claimedAt != null) {
          bindEvent(event, m.id(), MessageState.SENDING, null, claimedAt);
          event.addBatch();
        }
      }
      event.executeBatch();
    }
  }

  /**
   * Moves a message to {@code next} if it is in one of the states {@code from}; true when it moved.
   * The first move to a state that went out records the time it went out.
   */
  boolean moveTo(long id, MessageState next, Set<MessageState> from, Instant at, String reason) {
    return moveLater(id, next, from, at, reason, true).join();
  }

  /**
   * {@link #moveTo} without waiting: the future completes after the commit. Moves nobody waits for
   * ({@code urgent} false) queue behind those somebody does.
   */
  CompletableFuture<Boolean> moveLater(
      long id,
      MessageState next,
      Set<MessageState> from,
      Instant at,
      String reason,
      boolean urgent) {
    boolean[] hooked = {false};
    HandleCallback<Boolean, Exception> update =
        h -> {
          boolean moved = move(h, id, next, from, at, reason);
          if (moved) {
            hooked[0] |= hook.moved(h, id, next, reason, at);
          }
          return moved;
        };
    return committed(
        urgent ? db.writes().submit(update) : db.writes().submitInBackground(update), hooked);
  }

  private CompletableFuture<Boolean> committed(CompletableFuture<Boolean> write, boolean[] hooked) {
    return write.thenApply(
        done -> {
          if (hooked[0]) {
            hook.committed();
          }
          return done;
        });
  }

  /** The guarded state change and its event row, in the caller's transaction. */
  private static boolean move(
      Handle h, long id, MessageState next, Set<MessageState> from, Instant at, String reason)
      throws SQLException {
    try (PreparedStatement move = h.getConnection().prepareStatement(moveSql(next, from))) {
      int p = 1;
      move.setLong(p++, at.toEpochMilli());
      move.setString(p++, reason);
      if (next.wentOut()) {
        move.setLong(p++, at.toEpochMilli());
      }
      move.setLong(p, id);
      if (move.executeUpdate() == 0) {
        return false;
      }
    }
    try (PreparedStatement event = h.getConnection().prepareStatement(INSERT_EVENT)) {
      bindEvent(event, id, next, reason, at);
      event.executeUpdate();
    }
    return true;
  }

  private static final Map<String, String> MOVE_SQL = new ConcurrentHashMap<>();

  private static String moveSql(MessageState next, Set<MessageState> from) {
    for (MessageState f : from) {
      if (!f.canMoveTo(next)) {
        throw new IllegalArgumentException(f + " cannot move to " + next);
      }
    }
    String key = next + ":" + new TreeSet<>(from);
    return MOVE_SQL.computeIfAbsent(key, k -> buildMoveSql(next, from));
  }

  /** The guarded state change: only from one of the states {@code from}. */
  private static String buildMoveSql(MessageState next, Set<MessageState> from) {
    String states =
        from.stream().map(s -> "'" + s.wireName() + "'").sorted().collect(Collectors.joining(", "));
    return "UPDATE message SET state = '"
        + next.wireName()
        + "', status_at = ?, reason = ?, sent_at = "
        + (next.wentOut() ? "COALESCE(sent_at, ?)" : "sent_at")
        + " WHERE id = ? AND state IN ("
        + states
        + ")";
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

  private static final String DUE =
      "SELECT * FROM message WHERE device_id = ? AND state = 'pending' AND sync = ?"
          + " AND not_before <= ? ORDER BY id LIMIT ?";

  /** When the device's earliest held message (pendingTime, retry backoff) may go, if it has one. */
  Optional<Instant> nextNotBefore(long deviceId) {
    return read(
        h -> {
          try (PreparedStatement q =
              h.getConnection()
                  .prepareStatement(
                      "SELECT MIN(not_before) FROM message WHERE device_id = ?"
                          + " AND state = 'pending'")) {
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

  /** Up to {@code limit} messages of a device still waiting in its queue, oldest first. */
  List<Long> pendingIds(long deviceId, int limit) {
    return pendingIds(deviceId, "", limit);
  }

  /** Sync messages of a device still waiting in its queue (not {@code flag_retry}). */
  List<Long> waitingSyncCallers(long deviceId) {
    return pendingIds(deviceId, " AND sync = 1", 512);
  }

  private List<Long> pendingIds(long deviceId, String also, int limit) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT id FROM message WHERE device_id = ? AND state = 'pending'"
                            + also
                            + " ORDER BY id LIMIT ?")
                    .bind(0, deviceId)
                    .bind(1, limit)
                    .mapTo(Long.class)
                    .list());
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
    return db.jdbi()
            .withHandle(
                h ->
                    h.createQuery("SELECT COUNT(*) FROM device WHERE id = ? AND deleted_at IS NULL")
                        .bind(0, deviceId)
                        .mapTo(Integer.class)
                        .one())
        > 0;
  }

  /** Messages waiting in a device's queue (pending), for tests and operators. */
  int pendingCount(long deviceId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT COUNT(*) FROM message WHERE device_id = ? AND state = 'pending'")
                    .bind(0, deviceId)
                    .mapTo(Integer.class)
                    .one());
  }

  /** Sync messages of a device waiting in its queue (pending): callers wait for each of them. */
  int pendingSyncCount(long deviceId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT COUNT(*) FROM message WHERE device_id = ? AND state = 'pending'"
                            + " AND sync = 1")
                    .bind(0, deviceId)
                    .mapTo(Integer.class)
                    .one());
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
   * still holds the device's lease: a message handed straight to an idle sender needs no claim of
   * its own. The future completes after the commit with the ids claimed (none: they wait, {@code
   * pending}, like any other).
   */
  CompletableFuture<Set<Long>> insertClaimed(List<Message> messages, String owner, Instant at) {
    return db.writes()
        .submit(
            h -> {
              if (!Leases.holds(h, messages.getFirst().deviceId(), owner)) {
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
      Handle h, String claimSql, long deviceId, String owner, List<Long> ids, Instant at)
      throws SQLException {
    Set<Long> claimed = new HashSet<>();
    if (!Leases.holds(h, deviceId, owner)) {
      return claimed;
    }
    try (PreparedStatement claim = h.getConnection().prepareStatement(claimSql);
        PreparedStatement event = h.getConnection().prepareStatement(INSERT_EVENT)) {
      for (long id : ids) {
        claim.setLong(1, at.toEpochMilli());
        claim.setLong(2, id);
        claim.setLong(3, deviceId);
        if (claim.executeUpdate() > 0) {
          claimed.add(id);
          bindEvent(event, id, MessageState.SENDING, null, at);
          event.addBatch();
        }
      }
      if (!claimed.isEmpty()) {
        event.executeBatch();
      }
    }
    return claimed;
  }

  /**
   * The claim of one message: guarded by its state; where rows are locked (PostgreSQL), a message
   * another transaction holds (a cancel, a withdrawal under way) is passed over, not waited for.
   */
  private static String claimSql(String skipLocked) {
    String set = "UPDATE message SET state = 'sending', attempts = attempts + 1, status_at = ?";
    String which = " WHERE id = ? AND device_id = ? AND state = 'pending'";
    return skipLocked.isEmpty()
        ? set + which
        : set + " WHERE id = (SELECT id FROM message" + which + skipLocked + ")";
  }

  /**
   * Records a send the network took: {@code sending → sent}, with its network id, and any receipt
   * that arrived for that network id before this commit. Not waited for by the sender; {@code
   * callerWaits}: a sync caller is told once it is committed.
   */
  CompletableFuture<Boolean> recordSent(
      long id, long deviceId, Optional<String> networkId, Instant at, boolean callerWaits) {
    boolean[] hooked = {false};
    HandleCallback<Boolean, Exception> update =
        h -> {
          try (PreparedStatement move = h.getConnection().prepareStatement(RECORD_SENT)) {
            move.setString(1, networkId.orElse(null));
            move.setLong(2, at.toEpochMilli());
            move.setLong(3, at.toEpochMilli());
            move.setLong(4, id);
            if (move.executeUpdate() == 0) {
              // A receipt by Kurir's id moved it further already: keep the network's id anyway,
              // for the receipts still to come.
              if (networkId.isPresent()) {
                h.createUpdate(
                        "UPDATE message SET network_id = ? WHERE id = ?"
                            + " AND (network_id IS NULL OR network_id = '')")
                    .bind(0, networkId.get())
                    .bind(1, id)
                    .execute();
                hooked[0] |= applyEarlyReceipts(h, id, deviceId, networkId.get());
              }
              return false;
            }
          }
          try (PreparedStatement event = h.getConnection().prepareStatement(INSERT_EVENT)) {
            bindEvent(event, id, MessageState.SENT, null, at);
            event.executeUpdate();
          }
          hooked[0] |= hook.moved(h, id, MessageState.SENT, null, at);
          if (networkId.isPresent()) {
            hooked[0] |= applyEarlyReceipts(h, id, deviceId, networkId.get());
          }
          return true;
        };
    return committed(
        callerWaits ? db.writes().submit(update) : db.writes().submitForSender(update), hooked);
  }

  private static final String RECORD_SENT =
      "UPDATE message SET state = 'sent', network_id = ?, status_at = ?, reason = NULL,"
          + " sent_at = COALESCE(sent_at, ?) WHERE id = ? AND state = 'sending'";

  /** Records the network id of a message still {@code sending} (an accepted send). */
  CompletableFuture<Boolean> recordNetworkId(long id, long deviceId, String networkId) {
    boolean[] hooked = {false};
    HandleCallback<Boolean, Exception> update =
        h -> {
          int set =
              h.createUpdate(
                      "UPDATE message SET network_id = ? WHERE id = ? AND device_id = ?"
                          + " AND state = 'sending' AND (network_id IS NULL OR network_id = '')")
                  .bind(0, networkId)
                  .bind(1, id)
                  .bind(2, deviceId)
                  .execute();
          hooked[0] |=
              set > 0 && !networkId.isEmpty() && applyEarlyReceipts(h, id, deviceId, networkId);
          return set > 0;
        };
    return committed(db.writes().submit(update), hooked);
  }

  private boolean applyEarlyReceipts(Handle h, long id, long deviceId, String networkId)
      throws SQLException {
    if (!earlyReceiptsMayExist(h)) {
      return false;
    }
    List<EarlyReceipt> early = new ArrayList<>();
    try (PreparedStatement q = h.getConnection().prepareStatement(EARLY_RECEIPTS)) {
      q.setLong(1, deviceId);
      q.setString(2, networkId);
      try (ResultSet rs = q.executeQuery()) {
        while (rs.next()) {
          early.add(
              new EarlyReceipt(
                  rs.getString(1), rs.getString(2), Instant.ofEpochMilli(rs.getLong(3))));
        }
      }
    }
    if (early.isEmpty()) {
      return false;
    }
    h.createUpdate("DELETE FROM early_receipt WHERE device_id = ? AND network_id = ?")
        .bind(0, deviceId)
        .bind(1, networkId)
        .execute();
    boolean hooked = false;
    for (EarlyReceipt r : early) {
      MessageState next = MessageState.ofWireName(r.status());
      if (move(h, id, next, receiptFrom(next), r.at(), r.reason())) {
        hooked |= hook.moved(h, id, next, r.reason(), r.at());
      }
    }
    return hooked;
  }

  private record EarlyReceipt(String status, String reason, Instant at) {}

  // Whether the early_receipt table may hold a row. Known only where this process is the one
  // writer (SQLite; its instance lock keeps others out): then it is set at every insert and
  // cleared only by a look that found the table empty, all on the writer thread, so a send's
  // record skips a look-up that almost always finds nothing. Several nodes always look.
  private volatile boolean earlyReceiptsMayExist = true;
  private long earlyReceiptsCheckedNanos;

  private boolean earlyReceiptsMayExist(Handle h) throws SQLException {
    if (!db.dialect().singleWriter()) {
      return true;
    }
    if (earlyReceiptsMayExist && System.nanoTime() - earlyReceiptsCheckedNanos > 1_000_000_000L) {
      // At most once a second: the table empties as receipts are applied or pruned.
      earlyReceiptsCheckedNanos = System.nanoTime();
      try (PreparedStatement q =
              h.getConnection().prepareStatement("SELECT 1 FROM early_receipt LIMIT 1");
          ResultSet rs = q.executeQuery()) {
        earlyReceiptsMayExist = rs.next();
      }
    }
    return earlyReceiptsMayExist;
  }

  private static final String EARLY_RECEIPTS =
      "SELECT status, reason, at FROM early_receipt WHERE device_id = ? AND network_id = ?"
          + " ORDER BY at";

  /** The states a receipt may move a message from: it went out, or is on its way. */
  static Set<MessageState> receiptFrom(MessageState next) {
    return switch (next) {
      case DELIVERY -> Set.of(MessageState.SENDING, MessageState.SENT);
      case READ -> Set.of(MessageState.SENDING, MessageState.SENT, MessageState.DELIVERY);
      case FAILED -> Set.of(MessageState.SENDING, MessageState.SENT);
      default -> throw new IllegalArgumentException("no receipt moves a message to " + next);
    };
  }

  /**
   * Records a receipt keyed by a network id: moves the message that carries it, or keeps the
   * receipt until a message does. Not waited for: a driver's receipt thread must not stall on a
   * commit per receipt.
   */
  void receiptByNetworkId(
      long deviceId, String networkId, MessageState next, String reason, Instant at, Instant now) {
    boolean[] hooked = {false};
    committed(
        db.writes()
            .submitInBackground(
                h -> {
                  // The guarded move by (device, network id), its event row from the same rows:
                  // two statements, and the message's id is read only when someone is told.
                  int moved;
                  try (PreparedStatement move =
                      h.getConnection().prepareStatement(receiptSql(next))) {
                    int p = 1;
                    move.setLong(p++, at.toEpochMilli());
                    move.setString(p++, reason);
                    if (next.wentOut()) {
                      move.setLong(p++, at.toEpochMilli());
                    }
                    move.setLong(p++, deviceId);
                    move.setString(p, networkId);
                    moved = move.executeUpdate();
                  }
                  if (moved > 0) {
                    try (PreparedStatement event =
                        h.getConnection().prepareStatement(RECEIPT_EVENT)) {
                      event.setString(1, next.wireName());
                      event.setString(2, reason);
                      event.setLong(3, at.toEpochMilli());
                      event.setLong(4, deviceId);
                      event.setString(5, networkId);
                      event.executeUpdate();
                    }
                    if (hook.mayWant(h)) {
                      for (long id : idsOfNetworkId(h, deviceId, networkId)) {
                        hooked[0] |= hook.moved(h, id, next, reason, at);
                      }
                    }
                    return true;
                  }
                  if (idsOfNetworkId(h, deviceId, networkId).isEmpty()) {
                    // Faster than the send's own outcome: kept until it comes.
                    earlyReceiptsMayExist = true; // before the insert, on the writer's thread
                    h.createUpdate(
                            "INSERT INTO early_receipt (device_id, network_id, status, reason, at,"
                                + " received_at) VALUES (?, ?, ?, ?, ?, ?)")
                        .bind(0, deviceId)
                        .bind(1, networkId)
                        .bind(2, next.wireName())
                        .bind(3, reason)
                        .bind(4, at.toEpochMilli())
                        .bind(5, now.toEpochMilli())
                        .execute();
                  }
                  return false; // a late or repeated receipt changes nothing
                }),
        hooked);
  }

  private static final String MESSAGE_BY_NETWORK_ID =
      "SELECT id FROM message WHERE device_id = ? AND network_id = ?";

  private static List<Long> idsOfNetworkId(Handle h, long deviceId, String networkId)
      throws SQLException {
    try (PreparedStatement find = h.getConnection().prepareStatement(MESSAGE_BY_NETWORK_ID)) {
      find.setLong(1, deviceId);
      find.setString(2, networkId);
      List<Long> ids = new ArrayList<>(1);
      try (ResultSet rs = find.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getLong(1));
        }
      }
      return ids;
    }
  }

  private static final Map<MessageState, String> RECEIPT_SQL = new ConcurrentHashMap<>();

  /**
   * A receipt's guarded move by (device, network id): the (device, network id) index finds the row
   * (no index holds the states it is guarded by, so none competes).
   */
  private static String receiptSql(MessageState next) {
    return RECEIPT_SQL.computeIfAbsent(
        next,
        n ->
            buildMoveSql(n, receiptFrom(n))
                .replace(" WHERE id = ? AND ", " WHERE device_id = ? AND network_id = ? AND "));
  }

  private static final String RECEIPT_EVENT =
      "INSERT INTO message_event (message_id, state, reason, at)"
          + " SELECT id, ?, ?, ? FROM message WHERE device_id = ? AND network_id = ?";

  /** Receipts for network ids that no message took within {@code keep} are dropped. */
  void pruneEarlyReceipts(Instant olderThan) {
    db.writes()
        .submitInBackground(
            h ->
                h.createUpdate("DELETE FROM early_receipt WHERE received_at < ?")
                    .bind(0, olderThan.toEpochMilli())
                    .execute());
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

  /**
   * Fails pending messages that were never handed to the driver, in one commit; returns those it
   * failed (a message already {@code sending} is in the driver's hands and is left alone).
   */
  Set<Long> withdraw(Collection<Long> ids, String reason, Instant at) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    boolean[] hooked = {false};
    Set<Long> withdrawn =
        db.writes()
            .write(
                h -> {
                  Set<Long> moved = new HashSet<>();
                  for (long id : ids) {
                    if (move(
                        h, id, MessageState.FAILED, Set.of(MessageState.PENDING), at, reason)) {
                      moved.add(id);
                      hooked[0] |= hook.moved(h, id, MessageState.FAILED, reason, at);
                    }
                  }
                  return moved;
                });
    if (hooked[0]) {
      hook.committed();
    }
    return withdrawn;
  }

  /**
   * {@link #withdraw} without waiting: queued behind the writes already submitted (an insert that
   * has not committed yet among them), so it withdraws what they store.
   */
  void withdrawLater(Collection<Long> ids, String reason, Instant at) {
    boolean[] hooked = {false};
    committed(
        db.writes()
            .submit(
                h -> {
                  for (long id : ids) {
                    if (move(
                        h, id, MessageState.FAILED, Set.of(MessageState.PENDING), at, reason)) {
                      hooked[0] |= hook.moved(h, id, MessageState.FAILED, reason, at);
                    }
                  }
                  return true;
                }),
        hooked);
  }

  /**
   * Fails a message that is still pending (not handed to a driver by any node), with {@code also}
   * in the same transaction; true when both happened.
   */
  boolean cancel(long id, String reason, Instant at, Messages.Guard also) {
    boolean[] hooked = {false};
    boolean cancelled =
        db.writes()
            .write(
                h -> {
                  // A savepoint, not a rollback: the transaction is shared with other writes.
                  java.sql.Connection c = h.getConnection();
                  java.sql.Savepoint savepoint = c.setSavepoint("cancel");
                  if (!move(h, id, MessageState.FAILED, Set.of(MessageState.PENDING), at, reason)
                      || !also.holds(h, id)) {
                    c.rollback(savepoint); // neither, then
                    c.releaseSavepoint(savepoint);
                    return false;
                  }
                  c.releaseSavepoint(savepoint);
                  hooked[0] = hook.moved(h, id, MessageState.FAILED, reason, at);
                  return true;
                });
    if (hooked[0]) {
      hook.committed();
    }
    return cancelled;
  }

  /**
   * Puts a message whose attempt failed back in the queue for another attempt after {@code
   * notBefore}.
   */
  CompletableFuture<Boolean> scheduleRetry(
      long id, int attempts, Instant notBefore, String lastFailure, Instant failedAt) {
    return db.writes()
        .submit(
            h -> {
              int moved =
                  h.createUpdate(
                          "UPDATE message SET state = 'pending', not_before = ?, reason = ?,"
                              + " status_at = ? WHERE id = ? AND state = 'sending'")
                      .bind(0, notBefore.toEpochMilli())
                      .bind(1, lastFailure)
                      .bind(2, failedAt.toEpochMilli())
                      .bind(3, id)
                      .execute();
              if (moved > 0) {
                try (PreparedStatement event = h.getConnection().prepareStatement(INSERT_EVENT)) {
                  String why =
                      lastFailure + "; attempt " + attempts + " failed, retry at " + notBefore;
                  bindEvent(event, id, MessageState.PENDING, why, failedAt);
                  event.executeUpdate();
                }
              }
              return moved > 0;
            });
  }

  /**
   * After a crash, a device's messages found {@code sending} (their outcome unknown): sent again
   * when the driver de-duplicates, else {@code failed} with reason {@code interrupted}, or queued
   * for another attempt under {@code flag_retry=on}. Returns how many of each. A message with a
   * network id is not among them: the network accepted it and reports its outcome later.
   */
  Recovered recoverInterrupted(long deviceId, boolean driverDeduplicates, Instant at) {
    boolean[] hooked = {false};
    Recovered recovered =
        db.writes()
            .write(
                h -> {
                  // By state alone, so that the index of sending messages is used; those with a
                  // network id (the network has them) are left out here.
                  List<long[]> interrupted =
                      h
                          .createQuery(
                              "SELECT id, retry, network_id FROM message WHERE device_id = ?"
                                  + " AND state = 'sending'")
                          .bind(0, deviceId)
                          .map(
                              (rs, ctx) ->
                                  rs.getString(3) == null
                                      ? new long[] {rs.getLong(1), rs.getLong(2)}
                                      : null)
                          .list()
                          .stream()
                          .filter(java.util.Objects::nonNull)
                          .toList();
                  int resent = 0;
                  int failed = 0;
                  for (long[] row : interrupted) {
                    long id = row[0];
                    boolean again = driverDeduplicates || row[1] != 0;
                    if (again) {
                      String why =
                          driverDeduplicates
                              ? FailureReason.INTERRUPTED
                                  + "; sent again, the network de-duplicates"
                              : FailureReason.INTERRUPTED + "; flag_retry: another attempt";
                      h.createUpdate(
                              "UPDATE message SET state = 'pending', reason = ?, status_at = ?"
                                  + " WHERE id = ? AND state = 'sending'")
                          .bind(0, driverDeduplicates ? null : FailureReason.INTERRUPTED)
                          .bind(1, at.toEpochMilli())
                          .bind(2, id)
                          .execute();
                      try (PreparedStatement event =
                          h.getConnection().prepareStatement(INSERT_EVENT)) {
                        bindEvent(event, id, MessageState.PENDING, why, at);
                        event.executeUpdate();
                      }
                      resent++;
                    } else if (move(
                        h,
                        id,
                        MessageState.FAILED,
                        Set.of(MessageState.SENDING),
                        at,
                        FailureReason.INTERRUPTED)) {
                      hooked[0] |=
                          hook.moved(h, id, MessageState.FAILED, FailureReason.INTERRUPTED, at);
                      failed++;
                    }
                  }
                  return new Recovered(resent, failed);
                });
    if (hooked[0]) {
      hook.committed();
    }
    return recovered;
  }

  /** What {@link #recoverInterrupted} did. */
  record Recovered(int queuedAgain, int failed) {}

  /**
   * Adds a history line to message {@code id} of {@code deviceId} with its current state and {@code
   * note} as the reason, changing nothing else; nothing for a message of another device. Not waited
   * for.
   */
  CompletableFuture<Integer> noteLater(long deviceId, long id, String note, Instant at) {
    return db.writes()
        .submitInBackground(
            h ->
                h.createUpdate(
                        "INSERT INTO message_event (message_id, state, reason, at)"
                            + " SELECT id, state, ?, ? FROM message WHERE id = ? AND device_id = ?")
                    .bind(0, note)
                    .bind(1, at.toEpochMilli())
                    .bind(2, id)
                    .bind(3, deviceId)
                    .execute());
  }

  private static final String INSERT_EVENT =
      "INSERT INTO message_event (message_id, state, reason, at) VALUES (?, ?, ?, ?)";

  private static void bindEvent(
      PreparedStatement event, long id, MessageState state, String reason, Instant at)
      throws SQLException {
    event.setLong(1, id);
    event.setString(2, state.wireName());
    event.setString(3, reason);
    event.setLong(4, at.toEpochMilli());
  }

  /** The states a message went through, oldest first. */
  List<MessageEvent> events(long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT state, reason, at FROM message_event WHERE message_id = ?"
                            + " ORDER BY at, "
                            + db.dialect().insertionOrder())
                    .bind(0, id)
                    .map(
                        (rs, ctx) ->
                            new MessageEvent(
                                MessageState.ofWireName(rs.getString("state")),
                                Optional.ofNullable(rs.getString("reason")),
                                Instant.ofEpochMilli(rs.getLong("at"))))
                    .list());
  }

  Optional<Message> find(long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM message WHERE id = ?")
                    .bind(0, id)
                    .map(MessageStore::message)
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
                    .map(MessageStore::message)
                    .list());
  }

  static long maxId(Handle h) {
    return h.createQuery(
            "SELECT MAX(m) FROM (SELECT MAX(id) AS m FROM message UNION ALL"
                + " SELECT MAX(id) FROM inbound_message) AS ids")
        .mapTo(Long.class)
        .findOne()
        .orElse(0L);
  }

  long maxId() {
    return db.jdbi().withHandle(MessageStore::maxId);
  }

  private static Optional<MediaRef> media(String name, String type, String path) {
    return path == null ? Optional.empty() : Optional.of(new MediaRef(name, type, Path.of(path)));
  }

  static Message message(ResultSet rs, StatementContext ctx) throws SQLException {
    long sentAt = rs.getLong("sent_at");
    boolean sentAtNull = rs.wasNull();
    return new Message(
        rs.getLong("id"),
        rs.getLong("device_id"),
        rs.getString("recipient"),
        "group".equals(rs.getString("recipient_type")),
        rs.getString("kind"),
        rs.getString("body"),
        rs.getString("api"),
        rs.getInt("sync") != 0,
        rs.getInt("retry") != 0,
        rs.getInt("attempts"),
        MessageState.ofWireName(rs.getString("state")),
        Optional.ofNullable(rs.getString("reason")),
        Instant.ofEpochMilli(rs.getLong("not_before")),
        Instant.ofEpochMilli(rs.getLong("created_at")),
        sentAtNull ? Optional.empty() : Optional.of(Instant.ofEpochMilli(sentAt)),
        Instant.ofEpochMilli(rs.getLong("status_at")),
        media(rs.getString("media_name"), rs.getString("media_type"), rs.getString("media_path")),
        Optional.ofNullable(rs.getString("media_url")),
        rs.getInt("link_preview") != 0);
  }
}
