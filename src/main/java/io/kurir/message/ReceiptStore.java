package io.kurir.message;

import static io.kurir.message.MessageRowStore.committed;
import static io.kurir.message.MessageRowStore.move;

import io.kurir.store.Database;
import io.kurir.store.Transaction;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;

/**
 * The SQL of what the network reports after a send: the send's own outcome (its network id), and
 * receipts keyed by network id, kept in {@code early_receipt} when they come before the send's
 * outcome is committed.
 */
final class ReceiptStore {
  private final Database db;
  private final StatusHook hook;
  private final ReceiptGroupStore groups;
  private final SentRecordStore sent;

  ReceiptStore(Database db, StatusHook hook) {
    this.db = db;
    this.hook = hook;
    this.groups = new ReceiptGroupStore(db, hook, this::keepIfEarly);
    this.sent = new SentRecordStore(db, hook, this::applyEarlyReceipts);
  }

  /**
   * Records a send the network took: {@code sending → sent}, with its network id, and any receipt
   * that arrived for that network id before this commit; with the other sends recorded while the
   * writer is busy ({@link SentRecordStore}). Not waited for by the sender; {@code callerWaits}: a
   * sync caller is told once it is committed.
   */
  CompletableFuture<Boolean> recordSent(
      long id, long deviceId, Optional<String> networkId, Instant at, boolean callerWaits) {
    return sent.add(new SentRecordStore.Sent(id, deviceId, networkId, at), callerWaits);
  }

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
    return committed(hook, db.writes().submit(update), hooked);
  }

  private boolean applyEarlyReceipts(Handle h, long id, long deviceId, String networkId)
      throws SQLException {
    return applyEarlyReceipts(h, id, deviceId, networkId, false);
  }

  /**
   * {@code known}: the caller's statement saw early receipts for the network id, so the table is
   * not skipped on the word of {@link #earlyReceiptsMayExist}, which a transaction rolled back
   * after it was cleared could have left wrong.
   */
  private boolean applyEarlyReceipts(
      Handle h, long id, long deviceId, String networkId, boolean known) throws SQLException {
    if (!known && !earlyReceiptsMayExist(h)) {
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
        hooked |= hook.moved(Transaction.of(h), id, next, r.reason(), r.at());
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
   * commit per receipt. Applied with the other receipts that wait for the writer ({@link
   * ReceiptGroupStore}).
   */
  void receiptByNetworkId(
      long deviceId, String networkId, MessageState next, String reason, Instant at, Instant now) {
    groups.add(new ReceiptGroupStore.Receipt(deviceId, networkId, next, reason, at, now));
  }

  /**
   * A receipt that moved no message: kept in {@code early_receipt} when no message carries its
   * network id yet (it came faster than the send's own outcome); a late or repeated one changes
   * nothing.
   */
  private void keepIfEarly(Handle h, ReceiptGroupStore.Receipt r) throws SQLException {
    if (!idsOfNetworkId(h, r.deviceId(), r.networkId()).isEmpty()) {
      return;
    }
    earlyReceiptsMayExist = true; // before the insert, on the writer's thread
    h.createUpdate(
            "INSERT INTO early_receipt (device_id, network_id, status, reason, at, received_at)"
                + " VALUES (?, ?, ?, ?, ?, ?)")
        .bind(0, r.deviceId())
        .bind(1, r.networkId())
        .bind(2, r.next().wireName())
        .bind(3, r.reason())
        .bind(4, r.at().toEpochMilli())
        .bind(5, r.receivedAt().toEpochMilli())
        .execute();
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

  /** Receipts for network ids that no message took within {@code keep} are dropped. */
  void pruneEarlyReceipts(Instant olderThan) {
    db.writes()
        .submitInBackground(
            h ->
                h.createUpdate("DELETE FROM early_receipt WHERE received_at < ?")
                    .bind(0, olderThan.toEpochMilli())
                    .execute());
  }
}
