package io.kurir.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit: every write of the gateway is a task run by one writer thread, which takes all the
 * tasks waiting at that moment and commits them in one transaction. A caller's future completes
 * only after the commit that holds its task, so "answered" still means "durable", while a burst of
 * concurrent requests costs one fsync instead of one each.
 *
 * <p>If a batch fails, its tasks are run again one per transaction so that one bad task cannot take
 * its neighbours down with it. Tasks must therefore touch only the database, never memory.
 *
 * <p>A store may keep state for the length of one transaction ({@link #perTransaction}) and write
 * it just before the commit: rows of many tasks sent to the server as one statement, a counter
 * bumped once per transaction instead of once per task. Such state belongs to the transaction, so a
 * batch that fails and is run again one task at a time starts each transaction with none.
 *
 * <p>Thread-safe; {@link #close} finishes the tasks already submitted.
 */
public final class WriteQueue implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WriteQueue.class);
  private static final int MAX_BATCH = 512;
  private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(60);

  private final Jdbi jdbi;
  private final Dialect dialect;
  // Three lanes: what a caller is waiting for (accepting a message, a sync outcome) goes ahead of a
  // sender's bookkeeping (claims and outcomes of async sends), which goes ahead of what nobody
  // waits for (delivery receipts), so that an OTP is not stuck behind a campaign. `waiting` counts
  // the tasks in every lane.
  private final Queue<Pending<?>> urgent = new ConcurrentLinkedQueue<>();
  private final Queue<Pending<?>> forSenders = new ConcurrentLinkedQueue<>();
  private final Queue<Pending<?>> background = new ConcurrentLinkedQueue<>();
  // Whether the last batch carried work of the later lanes: the next batch then takes callers'
  // tasks alone when there are any, so a caller waits for a short commit, not for one full of a
  // campaign's bookkeeping; the batch after takes every lane again, so none is starved.
  private boolean lastBatchMixed;
  private final Semaphore waiting = new Semaphore(0);
  private final Thread writer;
  private final Runnable connectionsLost;
  private volatile boolean closed;

  private static final class Pending<T> {
    final HandleCallback<T, Exception> work;
    final boolean addsOnly; // see submitAdding
    final CompletableFuture<T> done = new CompletableFuture<>();
    T result;

    Pending(HandleCallback<T, Exception> work) {
      this(work, false);
    }

    Pending(HandleCallback<T, Exception> work, boolean addsOnly) {
      this.work = work;
      this.addsOnly = addsOnly;
    }

    void run(Handle handle) throws Exception {
      result = work.withHandle(handle);
    }

    void succeed() {
      done.complete(result);
    }
  }

  private static final Pending<Void> STOP = new Pending<>(h -> null);

  /**
   * What a store keeps for the length of one writer transaction (see {@link #perTransaction}):
   * written by {@link #flush} after the transaction's last task and before its commit, in the
   * transaction, on the writer's thread.
   */
  public interface BeforeCommit {
    /** Writes what was kept; a failure fails the transaction, as a task's own would. */
    void flush(Transaction tx) throws Exception;

    /**
     * Whether it stores rows that the other states may read at their flush (new messages, whose
     * status events are made from their rows): such states are flushed first.
     */
    default boolean storesRows() {
      return false;
    }
  }

  /**
   * A {@link BeforeCommit} that writes all or nothing, and may be run as a transaction's only write
   * so that it commits as it runs ({@link Dialect#commitAsItRuns}).
   */
  public interface AllOrNothing extends BeforeCommit {
    /** Whether it is few enough statements now for the driver to send them before one sync. */
    boolean commitsAsItStores();

    /**
     * After the connection was lost while it committed as it stored, whether what it wrote is in
     * the database, looked at on {@code fresh}: the writer then tells its tasks done, or runs them
     * again, rather than leave their callers not knowing.
     */
    boolean foundAfterLoss(Handle fresh) throws Exception;
  }

  /** The writer transaction under way on this thread, if any: its handle and its stores' state. */
  private static final ThreadLocal<OpenTransaction> OPEN = new ThreadLocal<>();

  private static final class OpenTransaction {
    final Handle handle;
    final java.util.Map<Class<?>, BeforeCommit> states = new java.util.LinkedHashMap<>();
    boolean flushing;

    OpenTransaction(Handle handle) {
      this.handle = handle;
    }

    /**
     * Writes the rows kept so far ({@link BeforeCommit#storesRows}) before a task that may read or
     * change them runs; later tasks keep theirs in new states.
     */
    void storeRowsNow() throws Exception {
      for (var it = states.values().iterator(); it.hasNext(); ) {
        BeforeCommit state = it.next();
        if (state.storesRows()) {
          it.remove();
          state.flush(Transaction.of(handle));
        }
      }
    }

    /**
     * Flushes the transaction's one state, if that is all it has to write and nothing went to the
     * database yet, so that it commits as it runs; false, having written nothing, otherwise.
     */
    boolean flushAsCommit(Dialect dialect, java.util.function.Consumer<AllOrNothing> committing)
        throws Exception {
      if (states.size() != 1
          || !(states.values().iterator().next() instanceof AllOrNothing only)
          || !only.commitsAsItStores()) {
        return false;
      }
      flushing = true;
      return dialect.commitAsItRuns(
          handle.getConnection(),
          () -> {
            committing.accept(only); // from here, a lost connection leaves the outcome to look at
            only.flush(Transaction.of(handle));
          });
    }

    void flush() throws Exception {
      flushing = true;
      for (BeforeCommit state : states.values()) {
        if (state.storesRows()) {
          state.flush(Transaction.of(handle));
        }
      }
      for (BeforeCommit state : states.values()) {
        if (!state.storesRows()) {
          state.flush(Transaction.of(handle));
        }
      }
    }
  }

  /**
   * The state of kind {@code kind} kept for the writer transaction that {@code handle} runs, made
   * by {@code make} at its first use in the transaction and {@linkplain BeforeCommit#flush flushed}
   * before its commit (in order of first use, those that {@linkplain BeforeCommit#storesRows store
   * rows} first); {@code make} may give null, to find a state only if the transaction has one. Null
   * when {@code tx} is not a writer transaction (a tool's or a test's own) or is being flushed: the
   * caller then writes at once.
   */
  public static <S extends BeforeCommit> S perTransaction(
      Transaction tx, Class<S> kind, java.util.function.Supplier<S> make) {
    OpenTransaction open = OPEN.get();
    if (open == null || open.handle != tx.handle() || open.flushing) {
      return null;
    }
    return kind.cast(open.states.computeIfAbsent(kind, k -> make.get()));
  }

  WriteQueue(Jdbi jdbi, Dialect dialect) {
    this(jdbi, dialect, () -> {});
  }

  /**
   * @param connectionsLost told when the writer lost its connection: the pool's other connections
   *     went the same way (a server restart), and handing them out again would lose the reconnect
   *     attempts to connections known dead
   */
  WriteQueue(Jdbi jdbi, Dialect dialect, Runnable connectionsLost) {
    this.jdbi = jdbi;
    this.dialect = dialect;
    this.connectionsLost = connectionsLost;
    this.writer = Thread.ofPlatform().name("kurir-writer").daemon(true).start(this::writeLoop);
  }

  private volatile java.util.function.LongConsumer commitTimes = nanos -> {};

  /**
   * Tells {@code commitTimes} how many nanoseconds each batch took to run and commit, from now on
   * (the gateway's metrics). On the writer's thread: it must be quick.
   */
  public void observeCommits(java.util.function.LongConsumer commitTimes) {
    this.commitTimes = commitTimes;
  }

  /** Whether the writer takes writes: open, and its thread alive (health). */
  public boolean running() {
    return !closed && writer.isAlive();
  }

  private enum Lane {
    CALLER,
    SENDER,
    BACKGROUND
  }

  /** Runs {@code work} in a shared transaction; the future completes after its commit. */
  public <T> CompletableFuture<T> submit(HandleCallback<T, Exception> work) {
    return submit(work, Lane.CALLER);
  }

  /**
   * {@link #submit}, for a task that only adds rows and reads or changes none that another task of
   * its transaction added (an accept's new messages): the rows the tasks before it keep for the
   * commit ({@link BeforeCommit#storesRows}) stay kept while it runs. Before any other task, they
   * are written: a task that changes a message (the withdrawal of one whose caller gave up) finds
   * it stored.
   */
  public <T> CompletableFuture<T> submitAdding(HandleCallback<T, Exception> work) {
    return submit(new Pending<>(work, true), Lane.CALLER);
  }

  /**
   * {@link #submit}, for a sender's bookkeeping no caller waits for (the claim of a window of async
   * messages, the outcome of an async send): it may wait one short commit behind callers' tasks.
   */
  public <T> CompletableFuture<T> submitForSender(HandleCallback<T, Exception> work) {
    return submit(work, Lane.SENDER);
  }

  /**
   * {@link #submit}, for bookkeeping that may wait behind what callers are waiting for. When {@link
   * #MAX_BACKGROUND} such writes wait already (a network reports receipts faster than the disk
   * takes them), the caller is held until there is room: memory stays bounded, and the pressure
   * goes back to whoever reports (a driver's receipt thread, a network's webhook call).
   */
  public <T> CompletableFuture<T> submitInBackground(HandleCallback<T, Exception> work) {
    try {
      backgroundRoom.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<T> done = submit(work, Lane.BACKGROUND);
    done.whenComplete((r, e) -> backgroundRoom.release());
    return done;
  }

  /**
   * {@link #submitInBackground} without its wait for room, for the groups of a {@link
   * GroupedWrites}: it bounds the items that wait itself, its groups are few, and it queues some
   * from the writer's own thread, which must never wait for room that only the writer gives back.
   */
  public <T> CompletableFuture<T> submitGroupInBackground(HandleCallback<T, Exception> work) {
    return submit(work, Lane.BACKGROUND);
  }

  /** Background writes that may wait at once; see {@link #submitInBackground}. */
  static final int MAX_BACKGROUND = 20_000;

  private final Semaphore backgroundRoom = new Semaphore(MAX_BACKGROUND);

  private <T> CompletableFuture<T> submit(HandleCallback<T, Exception> work, Lane lane) {
    return submit(new Pending<>(work), lane);
  }

  private <T> CompletableFuture<T> submit(Pending<T> pending, Lane lane) {
    if (closed) {
      pending.done.completeExceptionally(new IllegalStateException("the database is closed"));
      return pending.done;
    }
    enqueue(pending, lane);
    if (closed && (stopped || !writer.isAlive())) {
      refuseAll(new IllegalStateException("the database is closed"));
    }
    return pending.done;
  }

  /** {@link #submit} for work outside the stores, which sees the transaction only as a type. */
  public <T> CompletableFuture<T> submitIn(Transaction.Work<T> work) {
    return submit(h -> work.in(Transaction.of(h)));
  }

  /** {@link #write} for work outside the stores, which sees the transaction only as a type. */
  public <T> T writeIn(Transaction.Work<T> work) {
    return write(h -> work.in(Transaction.of(h)));
  }

  /**
   * Runs {@code work} in a shared transaction and returns its result once committed. A commit that
   * takes longer than {@link #WRITE_TIMEOUT} (a disk that stopped answering) fails the caller
   * instead of holding it forever; the write itself may still complete.
   */
  public <T> T write(HandleCallback<T, Exception> work) {
    return await(submit(work));
  }

  /**
   * The result of a write submitted (here, or through {@link GroupedWrites}) once committed, as
   * {@link #write} waits for it.
   */
  public static <T> T await(CompletableFuture<T> committed) {
    try {
      return committed.get(WRITE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException("the database did not commit within " + WRITE_TIMEOUT, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a commit", e);
    } catch (ExecutionException e) {
      throw unwrap(e.getCause());
    }
  }

  private static RuntimeException unwrap(Throwable cause) {
    if (cause instanceof CompletionException ce && ce.getCause() != null) {
      cause = ce.getCause();
    }
    return cause instanceof RuntimeException re ? re : new IllegalStateException(cause);
  }

  private void writeLoop() {
    Handle handle;
    try {
      handle = jdbi.open();
    } catch (Throwable e) {
      log.error("the database writer cannot open a connection", e);
      refuseForGood(e);
      return;
    }
    List<Pending<?>> batch = new ArrayList<>();
    while (true) {
      batch.clear();
      try {
        takeBatch(batch);
      } catch (InterruptedException e) {
        continue; // only close() stops the writer, and it does so with STOP
      }
      boolean stop = batch.remove(STOP);
      handle = commitOrReconnect(handle, batch);
      if (stop) {
        closeQuietly(handle);
        // Tasks that raced with close() are refused rather than silently dropped.
        refuseForGood(new IllegalStateException("database closed"));
        return;
      }
    }
  }

  /** Waits before each new connection after a lost one: the server may be restarting. */
  private static final List<Duration> RECONNECT_WAITS =
      List.of(Duration.ZERO, Duration.ofMillis(250), Duration.ofSeconds(1), Duration.ofSeconds(3));

  /**
   * Commits {@code batch} on {@code handle}; when the connection is lost (a PostgreSQL server that
   * restarted, a network cut) opens a new one, and runs the batch again there if it had certainly
   * not committed. Returns the handle to use next.
   */
  private Handle commitOrReconnect(Handle handle, List<Pending<?>> batch) {
    if (handle == null && !batch.isEmpty()) {
      handle = reopen();
      if (handle == null) {
        IllegalStateException down = new IllegalStateException("the database cannot be reached");
        batch.forEach(p -> p.done.completeExceptionally(down));
        return null;
      }
    }
    for (int attempt = 0; ; attempt++) {
      committing = false;
      try {
        long started = System.nanoTime();
        commitBatch(handle, batch, 0);
        commitTimes.accept(System.nanoTime() - started);
        return handle;
      } catch (ConnectionLost lost) {
        log.warn("the database writer lost its connection; opening a new one", lost.getCause());
        closeQuietly(handle);
        connectionsLost.run();
        handle = reopen();
        // Tasks committed before the cut (a batch split one per transaction) are done.
        batch.removeIf(p -> p.done.isDone());
        boolean notCommitted = !lost.duringCommit;
        if (lost.committedAsStored != null && handle != null) {
          // All or nothing (a server that restarted before it came, most often): look which.
          // Its tasks are done if it is there; the others of the batch (a split's later ones)
          // never ran, and run again with it if it is not.
          try {
            if (lost.committedAsStored.foundAfterLoss(handle)) {
              lost.transaction.forEach(Pending::succeed);
              batch.removeIf(p -> p.done.isDone());
              if (batch.isEmpty()) {
                return handle;
              }
            }
            notCommitted = true;
          } catch (Exception lookFailed) {
            log.warn(
                "the database writer cannot tell whether its last batch committed", lookFailed);
          }
        }
        boolean retry = notCommitted && handle != null && attempt < 2;
        if (!retry) {
          // A commit cut off midway may or may not have happened: the callers hear of it rather
          // than have their tasks run twice. Without a handle, the next batch connects again.
          batch.forEach(p -> p.done.completeExceptionally(lost.getCause()));
          return handle;
        }
      } catch (Throwable e) { // never leave callers waiting on a writer that is gone
        log.error("the database writer failed a batch", e);
        batch.forEach(p -> p.done.completeExceptionally(e));
        return handle;
      }
    }
  }

  /** A new connection, or null when the database stays unreachable through every wait. */
  private Handle reopen() {
    for (Duration wait : RECONNECT_WAITS) {
      try {
        Thread.sleep(wait);
        return jdbi.open();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      } catch (RuntimeException e) {
        log.warn("the database writer cannot connect yet: {}", e.getMessage());
      }
    }
    return null;
  }

  private static void closeQuietly(Handle handle) {
    if (handle == null) {
      return;
    }
    try {
      handle.close();
    } catch (RuntimeException e) {
      // the connection is gone already
    }
  }

  private void enqueue(Pending<?> pending, Lane lane) {
    switch (lane) {
      case CALLER -> urgent.add(pending);
      case SENDER -> forSenders.add(pending);
      case BACKGROUND -> background.add(pending);
    }
    waiting.release();
  }

  /**
   * Waits for work, then takes up to MAX_BATCH tasks, callers' first; callers' alone right after a
   * batch that carried other work (see lastBatchMixed).
   */
  private void takeBatch(List<Pending<?>> batch) throws InterruptedException {
    waiting.acquire();
    boolean callersOnly = lastBatchMixed && !urgent.isEmpty();
    int taken = 0;
    Pending<?> next;
    while (taken < MAX_BATCH && (next = urgent.poll()) != null) {
      batch.add(next);
      taken++;
    }
    int callers = taken;
    while (!callersOnly && taken < MAX_BATCH && (next = pollEither()) != null) {
      batch.add(next);
      taken++;
    }
    lastBatchMixed = taken > callers;
    // One permit was taken above; each further task's permit is released right after its add.
    waiting.acquireUninterruptibly(Math.max(0, taken - 1));
  }

  private Pending<?> pollEither() {
    Pending<?> p = urgent.poll();
    if (p == null) {
      p = forSenders.poll();
    }
    return p != null ? p : background.poll();
  }

  /** Set once the writer takes no more work: a task queued after it is refused by its submitter. */
  private volatile boolean stopped;

  /**
   * Refuses what waits, and what comes later: a task queued after the first pass, while the thread
   * is still alive, is found by the second, or its submitter sees {@link #stopped} and refuses it.
   */
  private void refuseForGood(Throwable cause) {
    refuseAll(cause);
    stopped = true;
    refuseAll(cause);
  }

  /** Whether the calling thread is the writer's own (a task running, or a commit's callbacks). */
  public boolean onWriterThread() {
    return Thread.currentThread() == writer;
  }

  private void refuseAll(Throwable cause) {
    closed = true;
    Pending<?> late;
    while ((late = pollEither()) != null) {
      late.done.completeExceptionally(cause);
    }
  }

  /** Set while {@code COMMIT} runs: a connection lost then leaves the outcome unknown. */
  private boolean committing;

  /** The one state of a transaction that commits as it stores, while it does (flushAsCommit). */
  private AllOrNothing committedAsStored;

  /** The connection went away under a batch; {@code duringCommit}: at its very commit. */
  private static final class ConnectionLost extends RuntimeException {
    final boolean duringCommit;
    final AllOrNothing committedAsStored; // null: an ordinary COMMIT, or none yet
    final List<Pending<?>> transaction; // the tasks of the transaction cut off

    ConnectionLost(
        Throwable cause,
        boolean duringCommit,
        AllOrNothing committedAsStored,
        List<Pending<?>> transaction) {
      super(cause);
      this.duringCommit = duringCommit;
      this.committedAsStored = committedAsStored;
      this.transaction = transaction;
    }
  }

  private void commitBatch(Handle handle, List<Pending<?>> batch, int busyRetries) {
    if (batch.isEmpty()) {
      return;
    }
    try {
      committing = false; // a batch that failed before this one may have left it set
      committedAsStored = null;
      handle.begin();
      OpenTransaction open = new OpenTransaction(handle);
      OPEN.set(open);
      try {
        for (Pending<?> p : batch) {
          if (!p.addsOnly) {
            open.storeRowsNow();
          }
          p.run(handle);
        }
        // On PostgreSQL a transaction of new messages alone is one round trip, not two.
        if (!open.flushAsCommit(
            dialect,
            only -> {
              committing = true;
              committedAsStored = only;
            })) {
          open.flush();
        }
      } finally {
        OPEN.remove();
      }
      committing = true;
      handle.commit(); // nothing to send after flushAsCommit
      committing = false;
      batch.forEach(Pending::succeed);
    } catch (
        Throwable batchFailure) { // an Error too: the transaction must not leak into the next batch
      if (Dialect.anyCause(batchFailure, dialect::isConnectionLost)) {
        throw new ConnectionLost(batchFailure, committing, committedAsStored, List.copyOf(batch));
      }
      rollbackQuietly(handle);
      boolean busy = Dialect.anyCause(batchFailure, dialect::isBusy);
      if (busy && busyRetries >= 3) {
        // Still locked by another process: splitting would make every task wait it out again.
        batch.forEach(p -> p.done.completeExceptionally(batchFailure));
        return;
      }
      if (busy) {
        // Another process holds the database (./kurir admin): the whole batch waits its turn,
        // rather than each task waiting out the busy timeout on its own.
        commitBatch(handle, batch, busyRetries + 1);
        return;
      }
      if (batch.size() == 1) {
        batch.getFirst().done.completeExceptionally(batchFailure);
        return;
      }
      for (Pending<?> p : batch) {
        commitBatch(handle, List.of(p), busyRetries);
      }
    }
  }

  private static void rollbackQuietly(Handle handle) {
    try {
      handle.rollback();
    } catch (RuntimeException e) {
      log.warn("rollback failed", e);
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    enqueue(STOP, Lane.BACKGROUND); // after everything already submitted
    try {
      writer.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
