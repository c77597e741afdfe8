package io.kurir.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.testing.HeldWriter;
import io.kurir.testing.TestDatabases;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Items of one kind that wait for the writer are written a group per transaction, each told its own
 * result after the commit; a bad item costs only itself; a closed writer fails what waits instead
 * of keeping it.
 */
class GroupedWritesTest {
  @TempDir Path dir;

  private Database open() {
    Database db = Database.open(TestDatabases.at(dir.resolve("g.db")));
    db.jdbi().useHandle(h -> h.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)"));
    return db;
  }

  /** Inserts each item; its result is the size of the group it went in. */
  private static List<Integer> insertEach(Handle h, List<Integer> items, List<Integer> groups) {
    groups.add(items.size());
    List<Integer> sizes = new ArrayList<>();
    for (int id : items) {
      h.execute("INSERT INTO t (id) VALUES (?)", id);
      sizes.add(items.size());
    }
    return sizes;
  }

  @Test
  void whatWaitsForTheWriterGoesInOneGroupAndEachItemIsToldItsOwnResult() throws Exception {
    try (Database db = open()) {
      List<Integer> groups = new CopyOnWriteArrayList<>();
      AtomicInteger afterCommits = new AtomicInteger();
      GroupedWrites<Integer, Integer> writes =
          new GroupedWrites<>(
              db.writes(),
              db.writes()::submitForSender,
              (h, items, afterCommit) -> {
                afterCommit[0] = true;
                return insertEach(h, items, groups);
              },
              1_000,
              afterCommits::incrementAndGet);
      CountDownLatch writer = HeldWriter.hold(db);
      List<CompletableFuture<Integer>> done = new ArrayList<>();
      for (int i = 1; i <= 50; i++) {
        done.add(writes.add(i));
      }
      writer.countDown();
      for (CompletableFuture<Integer> d : done) {
        assertThat(d).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(50);
      }
      assertThat(groups).containsExactly(50);
      assertThat(afterCommits).hasValue(1);
      // A quiet writer: a group of one, at once.
      assertThat(writes.add(51)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(1);
    }
  }

  @Test
  void aBacklogLargerThanAGroupGoesInSeveralTransactions() throws Exception {
    try (Database db = open()) {
      List<Integer> groups = new CopyOnWriteArrayList<>();
      GroupedWrites<Integer, Integer> writes =
          new GroupedWrites<>(
              db.writes(),
              db.writes()::submitGroupInBackground,
              (h, items, a) -> insertEach(h, items, groups),
              10_000,
              () -> {});
      CountDownLatch writer = HeldWriter.hold(db);
      List<CompletableFuture<Integer>> done = new ArrayList<>();
      int backlog = GroupedWrites.MAX_GROUP + 88;
      for (int i = 1; i <= backlog; i++) {
        done.add(writes.add(i));
      }
      writer.countDown();
      for (CompletableFuture<Integer> d : done) {
        assertThat(d).succeedsWithin(Duration.ofSeconds(10));
      }
      assertThat(groups).containsExactly(GroupedWrites.MAX_GROUP, 88);
    }
  }

  @Test
  void aBadItemFailsAloneAndTheRestOfItsGroupIsWritten() throws Exception {
    try (Database db = open()) {
      List<Integer> groups = new CopyOnWriteArrayList<>();
      GroupedWrites<Integer, Integer> writes =
          new GroupedWrites<>(
              db.writes(),
              db.writes()::submit,
              (h, items, a) -> insertEach(h, items, groups),
              1_000,
              () -> {});
      CountDownLatch writer = HeldWriter.hold(db);
      List<CompletableFuture<Integer>> done = new ArrayList<>();
      for (int i = 1; i <= 5; i++) {
        done.add(writes.add(i == 4 ? 2 : i)); // 2 twice: the second breaks the primary key
      }
      writer.countDown();
      for (int i = 0; i < 5; i++) {
        if (i == 3) {
          assertThat(done.get(i))
              .failsWithin(Duration.ofSeconds(10))
              .withThrowableOfType(ExecutionException.class);
        } else {
          assertThat(done.get(i)).succeedsWithin(Duration.ofSeconds(10));
        }
      }
      int stored =
          db.jdbi()
              .withHandle(h -> h.createQuery("SELECT COUNT(*) FROM t").mapTo(Integer.class).one());
      assertThat(stored).isEqualTo(4);
    }
  }

  @Test
  void anAddOnTheWritersOwnThreadWithNoRoomFailsAtOnceInsteadOfWaitingForGood() throws Exception {
    try (Database db = open()) {
      GroupedWrites<Integer, Integer> writes =
          new GroupedWrites<>(
              db.writes(),
              db.writes()::submitForSender,
              (h, items, a) -> insertEach(h, items, new ArrayList<>()),
              1,
              () -> {});
      CountDownLatch writer = HeldWriter.hold(db);
      CompletableFuture<Integer> first = writes.add(1); // the only room, until its group commits
      CompletableFuture<Boolean> refusedAtOnce =
          db.writes().submit(h -> writes.add(2).isCompletedExceptionally()); // callers' lane: first
      writer.countDown();
      assertThat(refusedAtOnce).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
      assertThat(first).succeedsWithin(Duration.ofSeconds(10));
    }
  }

  @Test
  void aClosedWriterFailsWhatWaitsAndWhatComesLater() {
    Database db = open();
    GroupedWrites<Integer, Integer> writes =
        new GroupedWrites<>(
            db.writes(),
            db.writes()::submit,
            (h, items, a) -> insertEach(h, items, new ArrayList<>()),
            10,
            () -> {});
    db.close();
    for (int i = 0; i < 20; i++) { // more than may wait: each failure gives its room back
      assertThat(writes.add(i))
          .failsWithin(Duration.ofSeconds(10))
          .withThrowableOfType(ExecutionException.class);
    }
  }
}
