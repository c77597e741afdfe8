package io.kurir.message;

import static io.kurir.message.MessageRowStore.history;

import io.kurir.store.Database;
import io.kurir.store.GroupedWrites;
import io.kurir.store.Transaction;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receipts keyed by network id, applied a group at a time ({@link GroupedWrites}): the receipts
 * that came while the writer was busy go into its next transaction together, as one guarded move
 * per state for all of them instead of one per receipt (on PostgreSQL each statement is a round
 * trip on the writer's connection, and a network sends two or three receipts for every message).
 * Receipts of one message in one group (its delivery and its read) are applied in the order they
 * came, each in a statement of its own ("rounds"), so its history and its status events are those
 * of receipts applied one by one.
 */
final class ReceiptGroupStore {
  private static final Logger log = LoggerFactory.getLogger(ReceiptGroupStore.class);

  /**
   * Receipts that may wait at once, as {@code WriteQueue.MAX_BACKGROUND} for background writes:
   * beyond, the driver's receipt thread is held until a group commits.
   */
  static final int MAX_WAITING = 20_000;

  record Receipt(
      long deviceId,
      String networkId,
      MessageState next,
      String reason,
      Instant at,
      Instant receivedAt) {}

  /** What to do with a receipt that moved no message (it may have come before its send's id). */
  interface Unmoved {
    void unmoved(Handle h, Receipt r) throws SQLException;
  }

  private final StatusHook hook;
  private final Unmoved unmoved;
  private final GroupedWrites<Receipt, Boolean> groups;

  ReceiptGroupStore(Database db, StatusHook hook, Unmoved unmoved) {
    this.hook = hook;
    this.unmoved = unmoved;
    this.groups =
        new GroupedWrites<>(
            db.writes(),
            db.writes()::submitGroupInBackground,
            this::apply,
            MAX_WAITING,
            hook::committed);
  }

  /** Applies {@code r} with the next group; not waited for. */
  void add(Receipt r) {
    groups
        .add(r)
        .exceptionally(
            failure -> {
              log.warn(
                  "a receipt for network id {} could not be stored: {}",
                  r.networkId(),
                  failure.toString());
              return false;
            });
  }

  /** Whether each receipt moved a message. */
  private List<Boolean> apply(Handle h, List<Receipt> receipts, boolean[] hooked)
      throws SQLException {
    Map<Receipt, Boolean> moved = new java.util.IdentityHashMap<>();
    for (List<Receipt> round :
        GroupedWrites.rounds(receipts, r -> new Key(r.deviceId(), r.networkId()))) {
      Map<MessageState, List<Receipt>> byState = new LinkedHashMap<>();
      round.forEach(r -> byState.computeIfAbsent(r.next(), k -> new ArrayList<>()).add(r));
      for (var e : byState.entrySet()) {
        for (List<Receipt> part : GroupedWrites.parts(e.getValue())) {
          applyPart(h, e.getKey(), part, hooked, moved);
        }
      }
    }
    List<Boolean> results = new ArrayList<>(receipts.size());
    receipts.forEach(r -> results.add(moved.get(r)));
    return results;
  }

  private record Key(long deviceId, String networkId) {}

  private void applyPart(
      Handle h,
      MessageState next,
      List<Receipt> part,
      boolean[] hooked,
      Map<Receipt, Boolean> movedAny)
      throws SQLException {
    int size = GroupedWrites.paddedSize(part.size());
    Map<Key, List<Long>> moved = new HashMap<>();
    try (PreparedStatement move = h.getConnection().prepareStatement(sql(next, size))) {
      int p = 1;
      for (int i = 0; i < size; i++) {
        Receipt r = i < part.size() ? part.get(i) : null; // padding matches no row
        move.setLong(p++, r == null ? 0 : r.deviceId());
        move.setString(p++, r == null ? null : r.networkId());
        move.setLong(p++, r == null ? 0 : r.at().toEpochMilli());
        if (r == null || r.reason() == null) {
          move.setNull(p++, Types.VARCHAR);
        } else {
          move.setString(p++, r.reason());
        }
      }
      try (ResultSet rs = move.executeQuery()) {
        while (rs.next()) {
          moved
              .computeIfAbsent(new Key(rs.getLong(2), rs.getString(3)), k -> new ArrayList<>(1))
              .add(rs.getLong(1));
        }
      }
    }
    boolean wanted = !moved.isEmpty() && hook.mayWant(Transaction.of(h));
    for (Receipt r : part) {
      List<Long> ids = moved.get(new Key(r.deviceId(), r.networkId()));
      movedAny.put(r, ids != null);
      if (ids == null) {
        unmoved.unmoved(h, r);
        continue;
      }
      for (long id : ids) {
        history(h, id, next, r.reason(), r.at());
        if (wanted) {
          hooked[0] |= hook.moved(Transaction.of(h), id, next, r.reason(), r.at());
        }
      }
    }
  }

  private static final Map<String, String> SQL = new ConcurrentHashMap<>();

  /**
   * The guarded move of {@code size} receipts to {@code next}, each by (device, network id),
   * returning the ids it moved with the key that moved them. The receipts are a {@code VALUES} list
   * named by a {@code WITH} (SQLite names no columns of a {@code VALUES} in {@code FROM}); its
   * columns' names differ from the message's, as {@code RETURNING} may name only those on SQLite.
   */
  static String sql(MessageState next, int size) {
    return SQL.computeIfAbsent(
        next + ":" + size,
        k -> {
          String states =
              ReceiptStore.receiptFrom(next).stream()
                  .map(s -> "'" + s.wireName() + "'")
                  .sorted()
                  .collect(Collectors.joining(", "));
          String rows = String.join(", ", java.util.Collections.nCopies(size, "(?, ?, ?, ?)"));
          return "WITH r (r_device, r_network, r_at, r_reason) AS (VALUES "
              + rows
              + ") UPDATE message SET state = '"
              + next.wireName()
              + "', status_at = r.r_at, reason = r.r_reason"
              + (next.wentOut() ? ", sent_at = COALESCE(sent_at, r.r_at)" : "")
              + " FROM r WHERE message.device_id = r.r_device AND message.network_id = r.r_network"
              + " AND message.state IN ("
              + states
              + ") RETURNING id, device_id, network_id";
        });
  }
}
