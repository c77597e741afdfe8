package io.kurir.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
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
 * <p>Thread-safe; {@link #close} finishes the tasks already submitted.
 */
public final class WriteQueue implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WriteQueue.class);
  private static final int MAX_BATCH = 512;

  private final Jdbi jdbi;
  private final BlockingQueue<Pending<?>> queue = new LinkedBlockingQueue<>();
  private final Thread writer;
  private volatile boolean closed;

  private static final class Pending<T> {
    final HandleCallback<T, Exception> work;
    final CompletableFuture<T> done = new CompletableFuture<>();
    T result;

    Pending(HandleCallback<T, Exception> work) {
      this.work = work;
    }

    void run(Handle handle) throws Exception {
      result = work.withHandle(handle);
    }

    void succeed() {
      done.complete(result);
    }
  }

  private static final Pending<Void> STOP = new Pending<>(h -> null);

  WriteQueue(Jdbi jdbi) {
    this.jdbi = jdbi;
    this.writer = Thread.ofPlatform().name("kurir-writer").daemon(true).start(this::writeLoop);
  }

  /** Runs {@code work} in a shared transaction; the future completes after its commit. */
  public <T> CompletableFuture<T> submit(HandleCallback<T, Exception> work) {
    Pending<T> pending = new Pending<>(work);
    if (closed) {
      pending.done.completeExceptionally(new IllegalStateException("the database is closed"));
      return pending.done;
    }
    queue.add(pending);
    return pending.done;
  }

  /** Runs {@code work} in a shared transaction and returns its result once committed. */
  public <T> T write(HandleCallback<T, Exception> work) {
    try {
      return submit(work).get();
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
    try (Handle handle = jdbi.open()) {
      List<Pending<?>> batch = new ArrayList<>();
      while (true) {
        batch.clear();
        Pending<?> first;
        try {
          first = queue.take();
        } catch (InterruptedException e) {
          continue; // only close() stops the writer, and it does so with STOP
        }
        batch.add(first);
        queue.drainTo(batch, MAX_BATCH - 1);
        boolean stop = batch.remove(STOP);
        commitBatch(handle, batch);
        if (stop) {
          // Tasks that raced with close() are refused rather than silently dropped.
          List<Pending<?>> late = new ArrayList<>();
          queue.drainTo(late);
          late.forEach(
              p -> p.done.completeExceptionally(new IllegalStateException("database closed")));
          return;
        }
      }
    } catch (RuntimeException e) {
      log.error("the database writer stopped", e);
    }
  }

  private void commitBatch(Handle handle, List<Pending<?>> batch) {
    if (batch.isEmpty()) {
      return;
    }
    try {
      handle.begin();
      for (Pending<?> p : batch) {
        p.run(handle);
      }
      handle.commit();
      batch.forEach(Pending::succeed);
    } catch (Exception batchFailure) {
      rollbackQuietly(handle);
      if (batch.size() == 1) {
        batch.getFirst().done.completeExceptionally(batchFailure);
        return;
      }
      for (Pending<?> p : batch) {
        commitBatch(handle, List.of(p));
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
    queue.add(STOP);
    try {
      writer.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
