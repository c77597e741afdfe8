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
}
