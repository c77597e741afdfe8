package io.kurir.message;

import io.kurir.content.CloudMessageJson;
import io.kurir.store.Dialect;
import io.kurir.store.Transaction;
import io.kurir.store.WriteQueue;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * What the message stores share, in the caller's transaction: the guarded state change and its
 * history row, and the mapping of a {@code message} row. No state.
 */
final class MessageRowStore {
  private MessageRowStore() {}

  /** Tells {@code hook} of what it took once {@code write} committed. */
  static CompletableFuture<Boolean> committed(
      StatusHook hook, CompletableFuture<Boolean> write, boolean[] hooked) {
    return write.thenApply(
        done -> {
          if (hooked[0]) {
            hook.committed();
          }
          return done;
        });
  }

  /** The guarded state change and its event row, in the caller's transaction. */
  static boolean move(
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
    history(h, id, next, reason, at);
    return true;
  }

  /**
   * Adds a line to message {@code id}'s history ({@code message_event}) in the caller's
   * transaction. In a writer transaction the lines of all its tasks go to the server together, in
   * one batch before the commit (nothing reads a message's history in the transaction that writes
   * it); in order, so each message's history keeps its order.
   */
  static void history(Handle h, long id, MessageState state, String reason, Instant at)
      throws SQLException {
    History later = WriteQueue.perTransaction(Transaction.of(h), History.class, History::new);
    if (later != null) {
      later.lines.add(new HistoryLine(id, state, reason, at));
      return;
    }
    try (PreparedStatement event = h.getConnection().prepareStatement(INSERT_EVENT)) {
      bindEvent(event, id, state, reason, at);
      event.executeUpdate();
    }
  }

  /**
   * Where the history lines added from now on in the caller's transaction start: {@link
   * #forgetHistorySince} drops them again, for a savepoint rolled back (the lines written at once
   * roll back with it; those waiting for the commit would not).
   */
  static int historyMark(Handle h) {
    History later = WriteQueue.perTransaction(Transaction.of(h), History.class, () -> null);
    return later == null ? 0 : later.lines.size();
  }

  /** Drops the history lines added after {@code mark} ({@link #historyMark}). */
  static void forgetHistorySince(Handle h, int mark) {
    History later = WriteQueue.perTransaction(Transaction.of(h), History.class, () -> null);
    if (later != null) {
      later.lines.subList(mark, later.lines.size()).clear();
    }
  }

  private record HistoryLine(long id, MessageState state, String reason, Instant at) {}

  /** The history lines of one writer transaction, written in one batch before its commit. */
  private static final class History implements WriteQueue.BeforeCommit {
    final List<HistoryLine> lines = new ArrayList<>();

    @Override
    public void flush(Transaction tx) throws SQLException {
      if (lines.isEmpty()) {
        return;
      }
      try (PreparedStatement event = tx.handle().getConnection().prepareStatement(INSERT_EVENT)) {
        for (HistoryLine l : lines) {
          bindEvent(event, l.id(), l.state(), l.reason(), l.at());
          event.addBatch();
        }
        event.executeBatch();
      }
    }
  }

  static final String INSERT =
      "INSERT INTO message (id, device_id, recipient, recipient_type, kind, body, api, sync, retry,"
          + " attempts, state, reason, not_before, created_at, sent_at, status_at, media_name,"
          + " media_type, media_path, media_url, link_preview, content, first_state)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

  /**
   * The messages a writer transaction accepts, stored in one batch: on PostgreSQL one statement
   * (the driver rewrites the batch into one multi-row insert) instead of a round trip per accepted
   * call. Kept only while the transaction's tasks are accepts ({@link WriteQueue#submitAdding});
   * they are written before any other task runs (the withdrawal of a message whose caller gave up
   * must find it) and before the status events made at the commit ({@link
   * WriteQueue.BeforeCommit#storesRows}). A task that fails takes its rows with it: the transaction
   * is rolled back and its tasks run again one by one.
   */
  static final class NewMessages implements WriteQueue.AllOrNothing {
    private final List<Message> rows = new ArrayList<>();
    private final List<Instant> claimedAt = new ArrayList<>(); // per row; null: stored pending

    /** Keeps {@code messages}, claimed at {@code claimed} ({@code null}: pending). */
    void add(List<Message> messages, Instant claimed) {
      for (Message m : messages) {
        rows.add(m);
        claimedAt.add(claimed);
      }
    }

    @Override
    public void flush(Transaction tx) throws SQLException {
      if (!rows.isEmpty()) {
        insertNow(tx.handle().getConnection(), rows, claimedAt);
      }
    }

    @Override
    public boolean storesRows() {
      return true;
    }

    /**
     * One batch of inserts, which PostgreSQL's driver sends before one sync unless it counts about
     * 250 statements waiting for their replies: 200 rows stay below that even with its rewriting
     * into multi-row statements switched off (a connection setting wins over Kurir's).
     */
    @Override
    public boolean commitsAsItStores() {
      return rows.size() <= MAX_ROWS_COMMITTED_AS_STORED;
    }

    /** Whether its first message is stored: the insert is all or nothing. */
    @Override
    public boolean foundAfterLoss(org.jdbi.v3.core.Handle fresh) {
      return fresh
              .createQuery("SELECT COUNT(*) FROM message WHERE id = ?")
              .bind(0, rows.getFirst().id())
              .mapTo(Long.class)
              .one()
          > 0;
    }
  }

  /** See {@link NewMessages#commitsAsItStores}. */
  static final int MAX_ROWS_COMMITTED_AS_STORED = 200;

  /**
   * Inserts {@code messages}, each claimed at its {@code claimedAt} ({@code sending}, one attempt
   * more) or stored as it is where that is {@code null}.
   */
  static void insertNow(java.sql.Connection c, List<Message> messages, List<Instant> claimedAts)
      throws SQLException {
    try (PreparedStatement insert = c.prepareStatement(INSERT)) {
      for (int i = 0; i < messages.size(); i++) {
        Message m = messages.get(i);
        Instant claimedAt = claimedAts.get(i);
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
        insert.setString(22, m.content().map(CloudMessageJson::toStored).orElse(null));
        insert.setString(23, m.state().wireName()); // its first history line (FIRST_LINES)
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
  static String buildMoveSql(MessageState next, Set<MessageState> from) {
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

  /**
   * The query of the history lines of the messages whose id matches {@code idCondition} (such as
   * {@code = ?}, used twice), oldest first, as {@code message_id, state, reason, at}. A message's
   * first line is told from its row (FIRST_LINES: the state it was stored in, at its {@code
   * created_at}, and no reason; {@code first_state}, V55) instead of stored, which spares every
   * accept a history row; rows stored before V55 keep that line in {@code message_event}. A told
   * line goes before a stored one of the same time, where it was when it was stored first.
   */
  static String historyLinesSql(Dialect dialect, String idCondition) {
    return "SELECT id AS message_id, first_state AS state, CAST(NULL AS TEXT) AS reason,"
        + " created_at AS at, 0 AS stored, 0 AS seq FROM message WHERE id "
        + idCondition
        + " AND first_state IS NOT NULL"
        + " UNION ALL SELECT message_id, state, reason, at, 1, "
        + dialect.insertionOrder()
        + " FROM message_event WHERE message_id "
        + idCondition
        + " ORDER BY at, stored, seq";
  }

  static final String INSERT_EVENT =
      "INSERT INTO message_event (message_id, state, reason, at) VALUES (?, ?, ?, ?)";

  static void bindEvent(
      PreparedStatement event, long id, MessageState state, String reason, Instant at)
      throws SQLException {
    event.setLong(1, id);
    event.setString(2, state.wireName());
    event.setString(3, reason);
    event.setLong(4, at.toEpochMilli());
  }

  static long maxId(Handle h) {
    return h.createQuery(
            "SELECT MAX(m) FROM (SELECT MAX(id) AS m FROM message UNION ALL"
                + " SELECT MAX(id) FROM inbound_message) AS ids")
        .mapTo(Long.class)
        .findOne()
        .orElse(0L);
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
        rs.getInt("link_preview") != 0,
        Optional.ofNullable(rs.getString("content")).map(CloudMessageJson::fromStored));
  }
}
