package io.kurir.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kurir.testing.TestDatabases;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Group commit on a real SQLite file (and on PostgreSQL: {@link WriteQueuePostgresTest}). */
class WriteQueueTest {
  @TempDir protected Path dir;

  private Database open() {
    Database db = Database.open(TestDatabases.at(dir.resolve("t.db")));
    db.jdbi()
        .useHandle(
            h ->
                h.execute(
                    "CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)"));
    return db;
  }

  private static long count(Database db) {
    return db.jdbi()
        .withHandle(h -> h.createQuery("SELECT COUNT(*) FROM t").mapTo(Long.class).one());
  }

  @Test
  void concurrentWritesAreAllCommittedBeforeTheirFuturesComplete() {
    try (Database db = open()) {
      List<CompletableFuture<Integer>> done = new ArrayList<>();
      for (int i = 0; i < 2000; i++) {
        int id = i;
        done.add(db.writes().submit(h -> h.execute("INSERT INTO t (id, v) VALUES (?, 'x')", id)));
      }
      CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).join();
      assertThat(count(db)).isEqualTo(2000);
    }
  }

  @Test
  void aFailingTaskFailsAloneAndItsNeighboursCommit() {
    try (Database db = open()) {
      List<CompletableFuture<Integer>> done = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        int id = i == 50 ? 7 : i; // id 7 twice: a primary key violation in the middle of a batch
        done.add(db.writes().submit(h -> h.execute("INSERT INTO t (id, v) VALUES (?, 'x')", id)));
      }
      long failed = done.stream().filter(f -> f.handle((v, e) -> e != null).join()).count();
      assertThat(failed).isEqualTo(1);
      assertThat(done.get(50)).isCompletedExceptionally();
      assertThat(count(db)).isEqualTo(99);
    }
  }

  @Test
  void writeRethrowsTheTasksException() {
    try (Database db = open()) {
      assertThatThrownBy(() -> db.writes().write(h -> h.execute("INSERT INTO nowhere VALUES (1)")))
          .hasMessageContaining("nowhere");
    }
  }

  @Test
  void whatWasCommittedSurvivesReopening() {
    try (Database db = open()) {
      db.writes().write(h -> h.execute("INSERT INTO t (id, v) VALUES (1, 'kept')"));
    }
    try (Database db = open()) {
      String kept =
          db.jdbi()
              .withHandle(
                  h -> h.createQuery("SELECT v FROM t WHERE id = 1").mapTo(String.class).one());
      assertThat(kept).isEqualTo("kept");
    }
  }

  @Test
  void writesAfterCloseAreRefusedNotLost() {
    Database db = open();
    db.close();
    assertThat(db.writes().submit(h -> 1)).isCompletedExceptionally();
  }

  @Test
  void anErrorInATaskFailsThatTaskAndTheWriterGoesOn() {
    try (Database db = open()) {
      CompletableFuture<Object> broken =
          db.writes()
              .submit(
                  h -> {
                    throw new AssertionError("a bug in a task");
                  });
      assertThat(broken).failsWithin(java.time.Duration.ofSeconds(5));
      db.writes().write(h -> h.execute("INSERT INTO t (id, v) VALUES (1, 'after')"));
      assertThat(count(db)).isEqualTo(1);
    }
  }

  @Test
  void afterABatchOfSendersBookkeepingACallerCommitsAloneThenEveryLaneAgain() throws Exception {
    try (Database db = open()) {
      java.util.concurrent.CountDownLatch firstBatchHeld =
          new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.CountDownLatch releaseFirst = new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.atomic.AtomicBoolean senderRan =
          new java.util.concurrent.atomic.AtomicBoolean();
      java.util.concurrent.atomic.AtomicBoolean lateSenderRan =
          new java.util.concurrent.atomic.AtomicBoolean();
      // A batch of a sender's bookkeeping is being written...
      db.writes()
          .submitForSender(
              h -> {
                firstBatchHeld.countDown();
                releaseFirst.await();
                return null;
              });
      firstBatchHeld.await();
      // ...while more bookkeeping and a caller's task arrive. The sender's task looks whether the
      // caller's commit is done when it runs: a caller committed in a batch of its own is, one
      // that shares the sender's batch is not (futures complete on the writer after each commit).
      java.util.concurrent.atomic.AtomicReference<CompletableFuture<Object>> callerRef =
          new java.util.concurrent.atomic.AtomicReference<>();
      boolean[] callerCommittedFirst = {false};
      CompletableFuture<Object> sender =
          db.writes()
              .submitForSender(
                  h -> {
                    callerCommittedFirst[0] = callerRef.get().isDone();
                    return senderRan.getAndSet(true);
                  });
      CompletableFuture<Object> caller = db.writes().submit(h -> null);
      callerRef.set(caller);
      releaseFirst.countDown();

      assertThat(caller).succeedsWithin(java.time.Duration.ofSeconds(5));
      assertThat(sender).succeedsWithin(java.time.Duration.ofSeconds(5));
      assertThat(callerCommittedFirst[0])
          .as("the caller's task was committed in a batch of its own, before the sender's")
          .isTrue();

      // A stream of callers does not starve the sender: the batch after a callers-only one takes
      // every lane.
      java.util.concurrent.CountDownLatch secondHeld = new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.CountDownLatch releaseSecond =
          new java.util.concurrent.CountDownLatch(1);
      db.writes()
          .submitForSender(
              h -> {
                secondHeld.countDown();
                releaseSecond.await();
                return null;
              });
      secondHeld.await();
      // The caller's task, committed alone, hands in another caller's task as it runs: callers are
      // waiting again when the writer takes its next batch.
      List<CompletableFuture<Object>> next = new ArrayList<>();
      boolean[] lateRanWithNext = {false};
      CompletableFuture<Object> held =
          db.writes()
              .submit(
                  h -> {
                    CompletableFuture<Object> again = db.writes().submit(h2 -> null);
                    again.thenRun(() -> lateRanWithNext[0] = lateSenderRan.get());
                    next.add(again);
                    return null;
                  });
      CompletableFuture<Object> late =
          db.writes().submitForSender(h -> lateSenderRan.getAndSet(true));
      releaseSecond.countDown();
      assertThat(held).succeedsWithin(java.time.Duration.ofSeconds(5));
      assertThat(next.getFirst()).succeedsWithin(java.time.Duration.ofSeconds(5));
      assertThat(late).succeedsWithin(java.time.Duration.ofSeconds(5));
      assertThat(lateRanWithNext[0]).isTrue();
    }
  }

  /** Rows kept for one writer transaction, inserted into {@code t} in one batch at its end. */
  static final class KeptRows implements WriteQueue.BeforeCommit {
    static final List<Integer> flushedSizes = new java.util.concurrent.CopyOnWriteArrayList<>();
    final List<Integer> ids = new ArrayList<>();

    @Override
    public void flush(Transaction tx) throws Exception {
      try (java.sql.PreparedStatement insert =
          tx.handle().getConnection().prepareStatement("INSERT INTO t (id, v) VALUES (?, 'x')")) {
        for (int id : ids) {
          insert.setInt(1, id);
          insert.addBatch();
        }
        insert.executeBatch();
      }
      flushedSizes.add(ids.size());
    }
  }

  /** A task that keeps row {@code id} for its transaction's end. */
  private static CompletableFuture<Boolean> keepRow(Database db, int id) {
    return db.writes()
        .submit(
            h ->
                WriteQueue.perTransaction(Transaction.of(h), KeptRows.class, KeptRows::new)
                    .ids
                    .add(id));
  }

  @Test
  void whatTasksKeepForTheirTransactionIsWrittenOnceBeforeItsCommitAndABadRowFailsItsTaskAlone()
      throws Exception {
    try (Database db = open()) {
      KeptRows.flushedSizes.clear();
      java.util.concurrent.CountDownLatch release = io.kurir.testing.HeldWriter.hold(db);
      List<CompletableFuture<Boolean>> done = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        done.add(keepRow(db, i == 50 ? 7 : i)); // id 7 twice: the batch's last statement fails
      }
      release.countDown();
      long failed = done.stream().filter(f -> f.handle((v, e) -> e != null).join()).count();
      assertThat(failed).isEqualTo(1);
      assertThat(done.get(50)).isCompletedExceptionally();
      assertThat(count(db)).as("every other row, once").isEqualTo(99);
      assertThat(KeptRows.flushedSizes)
          .as("the failed batch run again one task per transaction, each with its own row")
          .hasSize(99)
          .containsOnly(1);

      // A batch that fails nothing writes the rows of all its tasks at once.
      KeptRows.flushedSizes.clear();
      release = io.kurir.testing.HeldWriter.hold(db);
      List<CompletableFuture<Boolean>> more = new ArrayList<>();
      for (int i = 100; i < 110; i++) {
        more.add(keepRow(db, i));
      }
      release.countDown();
      CompletableFuture.allOf(more.toArray(CompletableFuture[]::new)).join();
      assertThat(count(db)).isEqualTo(109);
      assertThat(KeptRows.flushedSizes).containsExactly(10);
    }
  }

  /** Counts, at its flush, the rows of {@code t}: a reader of rows another state stores. */
  static final class RowCounter implements WriteQueue.BeforeCommit {
    long seen = -1;

    @Override
    public void flush(Transaction tx) {
      seen = tx.handle().createQuery("SELECT COUNT(*) FROM t").mapTo(Long.class).one();
    }
  }

  @Test
  void aStateThatStoresRowsIsFlushedBeforeTheStatesThatReadThemWhateverTheirOrder()
      throws Exception {
    try (Database db = open()) {
      RowCounter[] counter = new RowCounter[1];
      db.writes()
          .submit(
              h -> {
                // The reader is used first in the transaction; the rows come after.
                counter[0] =
                    WriteQueue.perTransaction(Transaction.of(h), RowCounter.class, RowCounter::new);
                WriteQueue.perTransaction(Transaction.of(h), StoredRows.class, StoredRows::new)
                    .ids
                    .addAll(List.of(1, 2, 3));
                return null;
              })
          .join();
      assertThat(counter[0].seen).as("the rows stored before the reader's flush").isEqualTo(3);
    }
  }

  @Test
  void rowsKeptByAddingTasksAreStoredBeforeAnyOtherTaskOfTheirTransactionRuns() throws Exception {
    try (Database db = open()) {
      java.util.concurrent.CountDownLatch release = io.kurir.testing.HeldWriter.hold(db);
      List<CompletableFuture<?>> adds = new ArrayList<>();
      for (int id = 1; id <= 3; id++) {
        adds.add(storeRow(db, id));
      }
      // In the same transaction: a task that changes what the adds kept finds it stored.
      CompletableFuture<Integer> changed =
          db.writes().submit(h -> h.execute("UPDATE t SET v = 'changed' WHERE id <= 3"));
      adds.add(storeRow(db, 4));
      release.countDown();
      assertThat(changed.join()).as("the three rows kept before it").isEqualTo(3);
      CompletableFuture.allOf(adds.toArray(CompletableFuture[]::new)).join();
      assertThat(count(db)).isEqualTo(4);
    }
  }

  /** An adding task that keeps row {@code id} as a stored row until the commit. */
  private static CompletableFuture<Boolean> storeRow(Database db, int id) {
    return db.writes()
        .submitAdding(
            h ->
                WriteQueue.perTransaction(Transaction.of(h), StoredRows.class, StoredRows::new)
                    .ids
                    .add(id));
  }

  /** {@link KeptRows} that says it stores rows. */
  static final class StoredRows implements WriteQueue.BeforeCommit {
    final KeptRows rows = new KeptRows();
    final List<Integer> ids = rows.ids;

    @Override
    public void flush(Transaction tx) throws Exception {
      rows.flush(tx);
    }

    @Override
    public boolean storesRows() {
      return true;
    }
  }

  @Test
  void outsideTheWritersTransactionsNothingIsKept() {
    try (Database db = open()) {
      db.jdbi()
          .useTransaction(
              h ->
                  assertThat(
                          WriteQueue.perTransaction(
                              Transaction.of(h), KeptRows.class, KeptRows::new))
                      .isNull());
    }
  }
}
