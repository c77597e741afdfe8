package io.kurir.message;

import static io.kurir.message.MessageRowStore.history;

import io.kurir.store.Database;
import io.kurir.store.GroupedWrites;
import io.kurir.store.Transaction;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.Handle;

/**
 * The sends the network took, recorded a group at a time ({@link GroupedWrites}): {@code sending →
 * sent} with each one's network id, for every send recorded while the writer was busy, in one
 * statement (on PostgreSQL one round trip instead of one a message sent). Sends a sync caller waits
 * for go in groups of their own, on the writer's callers' lane; the others on the senders'.
 */
final class SentRecordStore {
  /** Sends whose record may wait at once (senders hold a second's worth or so each). */
  private static final int MAX_WAITING = 20_000;

  record Sent(long id, long deviceId, Optional<String> networkId, Instant at) {}

  /**
   * Applies the receipts kept for a network id before its send was recorded; whether any moved.
   * {@code known}: some are there (the move told), so the table need not be looked at first.
   */
  interface EarlyReceipts {
    boolean apply(Handle h, long id, long deviceId, String networkId, boolean known)
        throws SQLException;
  }

  private final StatusHook hook;
  private final EarlyReceipts early;
  private final GroupedWrites<Sent, Boolean> forCallers;
  private final GroupedWrites<Sent, Boolean> forSenders;

  SentRecordStore(Database db, StatusHook hook, EarlyReceipts early) {
    this.hook = hook;
    this.early = early;
    this.forCallers =
        new GroupedWrites<>(
            db.writes(), db.writes()::submit, this::apply, MAX_WAITING, hook::committed);
    this.forSenders =
        new GroupedWrites<>(
            db.writes(), db.writes()::submitForSender, this::apply, MAX_WAITING, hook::committed);
  }

  /** Records {@code s}; the future completes after the commit, with whether it moved. */
  CompletableFuture<Boolean> add(Sent s, boolean callerWaits) {
    return (callerWaits ? forCallers : forSenders).add(s);
  }

  private List<Boolean> apply(Handle h, List<Sent> sends, boolean[] hooked) throws SQLException {
    Map<Sent, Boolean> moved = new IdentityHashMap<>();
    for (List<Sent> round : GroupedWrites.rounds(sends, Sent::id)) {
      for (List<Sent> part : GroupedWrites.parts(round)) {
        applyPart(h, part, hooked, moved);
      }
    }
    List<Boolean> results = new ArrayList<>(sends.size());
    sends.forEach(s -> results.add(moved.get(s)));
    return results;
  }

  private void applyPart(Handle h, List<Sent> part, boolean[] hooked, Map<Sent, Boolean> moved)
      throws SQLException {
    int size = GroupedWrites.paddedSize(part.size());
    Map<Long, Boolean> earlyOf = new HashMap<>(); // the ids moved: whether a receipt came first
    try (PreparedStatement move = h.getConnection().prepareStatement(sql(size))) {
      int p = 1;
      for (int i = 0; i < size; i++) {
        Sent s = i < part.size() ? part.get(i) : null; // padding: a null id matches no message
        if (s == null) {
          move.setNull(p++, java.sql.Types.BIGINT);
        } else {
          move.setLong(p++, s.id());
        }
        move.setString(p++, s == null ? null : s.networkId().orElse(null));
        move.setLong(p++, s == null ? 0 : s.at().toEpochMilli());
      }
      try (ResultSet rs = move.executeQuery()) {
        while (rs.next()) {
          earlyOf.put(rs.getLong(1), rs.getBoolean(2));
        }
      }
    }
    for (Sent s : part) {
      Boolean receiptsFirst = earlyOf.get(s.id());
      moved.put(s, receiptsFirst != null);
      if (receiptsFirst == null) {
        // A receipt by Kurir's id moved it further already: keep the network's id anyway, for the
        // receipts still to come.
        if (s.networkId().isPresent()) {
          h.createUpdate(
                  "UPDATE message SET network_id = ? WHERE id = ?"
                      + " AND (network_id IS NULL OR network_id = '')")
              .bind(0, s.networkId().get())
              .bind(1, s.id())
              .execute();
          hooked[0] |= early.apply(h, s.id(), s.deviceId(), s.networkId().get(), false);
        }
        continue;
      }
      history(h, s.id(), MessageState.SENT, null, s.at());
      hooked[0] |= hook.moved(Transaction.of(h), s.id(), MessageState.SENT, null, s.at());
      if (receiptsFirst) { // known from the move itself: no look at whether any may exist
        hooked[0] |= early.apply(h, s.id(), s.deviceId(), s.networkId().get(), true);
      }
    }
  }

  private static final Map<Integer, String> SQL = new ConcurrentHashMap<>();

  /**
   * {@code sending → sent} for {@code size} sends by id, returning the ids moved and whether a
   * receipt came for the network id before (told by the move itself: on PostgreSQL a look of its
   * own was a round trip for every message sent, and almost always found nothing).
   */
  static String sql(int size) {
    return SQL.computeIfAbsent(
        size,
        n ->
            "WITH s (s_id, s_network, s_at) AS (VALUES "
                + String.join(", ", Collections.nCopies(n, "(?, ?, ?)"))
                + ") UPDATE message SET state = 'sent', network_id = s.s_network,"
                + " status_at = s.s_at, reason = NULL, sent_at = COALESCE(sent_at, s.s_at)"
                + " FROM s WHERE message.id = s.s_id AND message.state = 'sending'"
                + " RETURNING id, EXISTS (SELECT 1 FROM early_receipt e"
                + " WHERE e.device_id = message.device_id AND e.network_id = message.network_id)");
  }
}
