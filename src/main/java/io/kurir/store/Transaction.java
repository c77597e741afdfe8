package io.kurir.store;

import org.jdbi.v3.core.Handle;

/**
 * One open write transaction, as code outside the stores sees it: something to pass on to a store's
 * method so that its statements join the caller's commit (a webhook event stored with the status
 * change it reports, an idempotency key with the messages it stored). Only store classes (named
 * {@code ...Store}) open it up with {@link #handle()}; {@code StoresOwnTheirTablesTest} holds the
 * rest of the code to that, so that no class outside the stores sees Jdbi.
 *
 * <p>Valid only inside the work it was given to, on that work's thread; not thread-safe.
 */
public final class Transaction {
  private final Handle handle;

  private Transaction(Handle handle) {
    this.handle = handle;
  }

  /** The transaction of {@code handle}; for store classes and the write queue only. */
  public static Transaction of(Handle handle) {
    return new Transaction(handle);
  }

  /** The Jdbi handle of this transaction; for store classes only. */
  public Handle handle() {
    return handle;
  }

  /** Work done in a transaction; the transaction commits after it returns. */
  @FunctionalInterface
  public interface Work<T> {
    T in(Transaction tx) throws Exception;
  }
}
