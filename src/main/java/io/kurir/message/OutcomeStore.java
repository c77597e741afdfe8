package io.kurir.message;

import static io.kurir.message.MessageRowStore.committed;
import static io.kurir.message.MessageRowStore.forgetHistorySince;
import static io.kurir.message.MessageRowStore.history;
import static io.kurir.message.MessageRowStore.historyMark;
import static io.kurir.message.MessageRowStore.move;

import io.kurir.store.Database;
import io.kurir.store.Transaction;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jdbi.v3.core.HandleCallback;

/**
 * The SQL of a message's state changes outside the claim: outcomes, withdrawals of messages never
 * handed to a driver, cancels, retries and history notes. Each change is guarded by the states it
 * may come from, and tells the {@link StatusHook} in the same transaction.
 */
final class OutcomeStore {
  private final Database db;
  private final StatusHook hook;

  OutcomeStore(Database db, StatusHook hook) {
    this.db = db;
    this.hook = hook;
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
            hooked[0] |= hook.moved(Transaction.of(h), id, next, reason, at);
          }
          return moved;
        };
    return committed(
        hook, urgent ? db.writes().submit(update) : db.writes().submitInBackground(update), hooked);
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
                      hooked[0] |=
                          hook.moved(Transaction.of(h), id, MessageState.FAILED, reason, at);
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
        hook,
        db.writes()
            .submit(
                h -> {
                  for (long id : ids) {
                    if (move(
                        h, id, MessageState.FAILED, Set.of(MessageState.PENDING), at, reason)) {
                      hooked[0] |=
                          hook.moved(Transaction.of(h), id, MessageState.FAILED, reason, at);
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
                  int historyMark = historyMark(h);
                  if (!move(h, id, MessageState.FAILED, Set.of(MessageState.PENDING), at, reason)
                      || !also.holds(Transaction.of(h), id)) {
                    c.rollback(savepoint); // neither, then
                    c.releaseSavepoint(savepoint);
                    forgetHistorySince(h, historyMark);
                    return false;
                  }
                  c.releaseSavepoint(savepoint);
                  hooked[0] = hook.moved(Transaction.of(h), id, MessageState.FAILED, reason, at);
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
                String why =
                    lastFailure + "; attempt " + attempts + " failed, retry at " + notBefore;
                history(h, id, MessageState.PENDING, why, failedAt);
              }
              return moved > 0;
            });
  }

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
}
