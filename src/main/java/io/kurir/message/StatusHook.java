package io.kurir.message;

import io.kurir.store.Transaction;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Told of every state a message moves to after {@code pending}, inside the transaction that moves
 * it: the outgoing-message webhook stores its event there, so that the event and the change are
 * committed together. It sees that transaction as a {@link Transaction}, to hand to its own store.
 *
 * <p>An abstract class rather than an interface only so that the message store, in this package,
 * can tell it of a move from its Jdbi handle without that handle being part of the public type.
 */
public abstract class StatusHook {
  /** Stores nothing. */
  public static final StatusHook NONE =
      new StatusHook() {
        @Override
        public boolean moved(
            Transaction tx, long messageId, MessageState state, String reason, Instant at) {
          return false;
        }

        @Override
        public boolean mayWant(Transaction tx) {
          return false;
        }
      };

  /**
   * Whether {@link #moved} may store anything now; false lets a caller skip finding what it would
   * be told (a receipt's message id). In the caller's transaction.
   */
  public boolean mayWant(Transaction tx) throws SQLException {
    return true;
  }

  /**
   * @return true when it stored something that someone must be told of after the commit
   */
  public abstract boolean moved(
      Transaction tx, long messageId, MessageState state, String reason, Instant at)
      throws SQLException;

  /** After the commit of a transaction in which {@link #moved} returned true. */
  public void committed() {}
}
