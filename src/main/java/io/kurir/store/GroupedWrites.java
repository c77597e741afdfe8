package io.kurir.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;

/**
 * Writes of one kind applied a group at a time: the items that came while the writer was busy go
 * into its next transaction together, so that a statement can carry all of them (on PostgreSQL one
 * round trip instead of one an item). Each item has its own future, completed after the commit with
 * its own result.
 *
 * <p>A group is one writer task that takes, when it first runs, the items waiting then, at most
 * {@link #MAX_GROUP} (no timer: a quiet writer runs a group of one at once; the rest of a backlog
 * goes in the next group, so a transaction stays as short as a batch of tasks would be). A group
 * whose transaction fails is run again alone with the same items, as any writer task; one that
 * fails alone is split, each item tried in a group of its own on the callers' lane, which the
 * writer takes before the senders' and the background lanes: a bad item costs only itself, and the
 * others of a group on those lanes keep their place before the next group of their kind.
 *
 * @param <T> an item
 * @param <R> an item's result
 */
public final class GroupedWrites<T, R> {
  /**
   * A group's work in the writer's transaction: one result per item, in the items' order. It may be
   * run again with the same items (a transaction that failed, a group split), so each item's write
   * must be guarded: one that took effect already changes nothing the second time.
   */
  public interface Work<T, R> {
    /**
     * @param afterCommit set its one element to have {@link GroupedWrites}'s after-commit action
     *     run once the group has committed
     */
    List<R> run(Handle h, List<T> items, boolean[] afterCommit) throws Exception;
  }

  /**
   * The lengths of a group's statement: items in one statement at most, and the shorter lists it is
   * padded to (with rows that match nothing), so that each statement is prepared once.
   */
  private static final int[] STATEMENT_SIZES = {1, 4, 16, 64};

  /** {@code items} cut into parts of at most 64, a statement each. */
  public static <T> List<List<T>> parts(List<T> items) {
    int most = STATEMENT_SIZES[STATEMENT_SIZES.length - 1];
    List<List<T>> parts = new ArrayList<>();
    for (int from = 0; from < items.size(); from += most) {
      parts.add(items.subList(from, Math.min(items.size(), from + most)));
    }
    return parts;
  }

  /**
   * {@code items} cut into rounds in which each key (the row an item changes) comes at most once,
   * each key's items in the order they came: one statement cannot change a row twice.
   */
  public static <T> List<List<T>> rounds(List<T> items, Function<T, ?> key) {
    List<List<T>> rounds = new ArrayList<>();
    java.util.Map<Object, Integer> seen = new java.util.HashMap<>();
    for (T item : items) {
      int round = seen.merge(key.apply(item), 1, Integer::sum) - 1;
      while (rounds.size() <= round) {
        rounds.add(new ArrayList<>());
      }
      rounds.get(round).add(item);
    }
    return rounds;
  }

  /** The length a part of {@code n} items is padded to. */
  public static int paddedSize(int n) {
    for (int s : STATEMENT_SIZES) {
      if (n <= s) {
        return s;
      }
    }
    throw new IllegalArgumentException(
        "a part of at most " + STATEMENT_SIZES[STATEMENT_SIZES.length - 1]);
  }

  /** The most items a group takes: {@code WriteQueue}'s batch of tasks. */
  static final int MAX_GROUP = 512;

  private record Waiting<T, R>(T item, CompletableFuture<R> done) {}

  private final WriteQueue writes;
  private final Function<HandleCallback<List<R>, Exception>, CompletableFuture<List<R>>> submit;
  private final Work<T, R> work;
  private final Runnable afterCommit;
  private final ConcurrentLinkedQueue<Waiting<T, R>> waiting = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean groupQueued = new AtomicBoolean();
  private final Semaphore room;

  /**
   * @param writes the writer; an item split from a failed group goes on its callers' lane
   * @param submit how a group goes to the writer, on a lane that never waits for room (it is called
   *     on the writer's thread too): {@link WriteQueue#submit}, {@link WriteQueue#submitForSender},
   *     {@link WriteQueue#submitGroupInBackground}
   * @param maxWaiting items that may wait at once; beyond, {@link #add} holds its caller until a
   *     group commits, so memory stays bounded and the pressure goes back to who adds
   * @param afterCommit run after the commit of a group whose work asked for it
   */
  public GroupedWrites(
      WriteQueue writes,
      Function<HandleCallback<List<R>, Exception>, CompletableFuture<List<R>>> submit,
      Work<T, R> work,
      int maxWaiting,
      Runnable afterCommit) {
    this.writes = writes;
    this.submit = submit;
    this.work = work;
    this.room = new Semaphore(maxWaiting);
    this.afterCommit = afterCommit;
  }

  /** Applies {@code item} with the next group; the future completes after its commit. */
  public CompletableFuture<R> add(T item) {
    if (writes.onWriterThread()) {
      // The writer gives room back: waiting for it here would wait for good.
      if (!room.tryAcquire()) {
        return CompletableFuture.failedFuture(
            new IllegalStateException("no room for a grouped write on the writer's own thread"));
      }
    } else {
      try {
        room.acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return CompletableFuture.failedFuture(e);
      }
    }
    CompletableFuture<R> done = new CompletableFuture<>();
    waiting.add(new Waiting<>(item, done));
    if (groupQueued.compareAndSet(false, true)) {
      submit(new Group(null));
    }
    return done;
  }

  private void submit(Group group) {
    CompletableFuture<List<R>> committed;
    try {
      committed = group.items == null ? submit.apply(group) : writes.submit(group);
    } catch (RuntimeException e) {
      committed = CompletableFuture.failedFuture(e);
    }
    committed.whenComplete(
        (results, failure) -> {
          if (group.items == null) { // never ran (the writer is closed): nor will what waits
            groupQueued.set(false);
            for (Waiting<T, R> w; (w = waiting.poll()) != null; ) {
              room.release();
              w.done().completeExceptionally(failure);
            }
            return;
          }
          List<Waiting<T, R>> taken = group.items;
          if (failure != null && taken.size() > 1) {
            taken.forEach(w -> submit(new Group(List.of(w)))); // each keeps its permit
            return;
          }
          room.release(taken.size());
          if (failure != null) {
            taken.forEach(w -> w.done().completeExceptionally(failure));
            return;
          }
          try {
            if (group.afterCommit[0]) {
              afterCommit.run();
            }
          } finally {
            for (int i = 0; i < taken.size(); i++) {
              taken.get(i).done().complete(results.get(i));
            }
          }
        });
  }

  /** One writer task: the items waiting when it first runs (kept for a run again alone). */
  private final class Group implements HandleCallback<List<R>, Exception> {
    List<Waiting<T, R>> items;
    final boolean[] afterCommit = {false};

    Group(List<Waiting<T, R>> items) {
      this.items = items;
    }

    @Override
    public List<R> withHandle(Handle h) throws Exception {
      if (items == null) {
        groupQueued.set(false); // before the drain: what is added after it queues the next group
        List<Waiting<T, R>> drained = new ArrayList<>();
        for (Waiting<T, R> w; drained.size() < MAX_GROUP && (w = waiting.poll()) != null; ) {
          drained.add(w);
        }
        items = drained;
        if (!waiting.isEmpty() && groupQueued.compareAndSet(false, true)) {
          submit(new Group(null)); // the rest of a backlog, in the next transaction
        }
      }
      afterCommit[0] = false; // a run again after a failed transaction starts anew
      List<T> of = new ArrayList<>(items.size());
      items.forEach(w -> of.add(w.item()));
      return work.run(h, of, afterCommit);
    }
  }
}
