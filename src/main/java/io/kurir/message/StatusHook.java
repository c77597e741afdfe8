package io.kurir.message;

import java.sql.SQLException;
import java.time.Instant;
import org.jdbi.v3.core.Handle;

/**
 * Told of every state a message moves to after {@code pending}, inside the transaction that moves
 * it: the outgoing-message webhook stores its event there, so that the event and the change are
 * committed together.
 */
public interface StatusHook {
  StatusHook NONE =
      new StatusHook() {
        @Override
        public boolean moved(
            Handle h, long messageId, MessageState state, String reason, Instant at) {
          return false;
        }

        @Override
        public boolean mayWant(Handle h) {
          return false;
        }
      };

  /**
   * Whether {@link #moved} may store anything now; false lets a caller skip finding what it would
   * be told (a receipt's message id). In the caller's transaction.
   */
  default boolean mayWant(Handle h) throws SQLException {
    return true;
  }

  /**
   * @return true when it stored something that someone must be told of after the commit
   */
  boolean moved(Handle h, long messageId, MessageState state, String reason, Instant at)
      throws SQLException;

  /** After the commit of a transaction in which {@link #moved} returned true. */
  default void committed() {}
}
