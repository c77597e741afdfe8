package io.kurir.message;

import static io.kurir.message.SenderParts.message;
import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.store.Database;
import io.kurir.testing.Eventually;
import io.kurir.testing.TestDatabases;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sender's hand-overs alone: when an accept may hand messages straight to the sender, the bound
 * on express hand-overs, a caller's withdrawal racing the loop's turn, hand-overs after the sender
 * stopped taking them, and where handed-over messages go in the claim window.
 */
class HandOversTest {
  @TempDir Path dir;
  private Database db;
  private final SenderWakes wakes = new SenderWakes();
  private HandOvers handOvers;
  private final Instant now = Instant.parse("2026-03-02T10:00:00Z");

  @BeforeEach
  void open() {
    db = TestDatabases.open(TestDatabases.at(dir.resolve("k.db")));
    handOvers = new HandOvers(wakes, new MessageStore(db), 2);
    wakes.lock.lock();
    try {
      handOvers.openGuarded();
    } finally {
      wakes.lock.unlock();
    }
  }

  @AfterEach
  void close() {
    db.close();
  }

  /** The sender's loop looked at its queue and found it empty, and may send now. */
  private void idle() {
    wakes.lock.lock();
    try {
      wakes.workArrived = false;
      wakes.queueEmpty = true;
      wakes.nextSendNanos = System.nanoTime() - 1;
    } finally {
      wakes.lock.unlock();
    }
  }

  @Test
  void anIdleSenderTakesAnyMessageAndABusyOneOnlySyncOnesWithinTheBound() {
    Message async = message(1, 7, "+6281", false, now);
    assertThat(handOvers.reserve(List.of(async), now, () -> true)).as("work arrived").isFalse();
    idle();
    assertThat(handOvers.reserve(List.of(async), now, () -> false)).as("no lease").isFalse();
    assertThat(handOvers.reserve(List.of(async), now, () -> true)).isTrue();
    assertThat(handOvers.inFlight()).isTrue();
    assertThat(handOvers.reserve(List.of(message(2, 7, "+6282", false, now)), now, () -> true))
        .as("not idle while one is being committed")
        .isFalse();

    List<Message> sync =
        List.of(message(3, 7, "+6283", true, now), message(4, 7, "+6284", true, now));
    assertThat(handOvers.reserve(sync, now, () -> true)).as("express").isTrue();
    assertThat(handOvers.syncOutstanding()).isEqualTo(2);
    assertThat(handOvers.reserve(List.of(message(5, 7, "+6285", true, now)), now, () -> true))
        .as("beyond the bound of express hand-overs")
        .isFalse();
    assertThat(
            handOvers.reserve(
                List.of(message(6, 7, "+6286", true, now.plusSeconds(1))), now, () -> true))
        .as("not due yet")
        .isFalse();
  }

  @Test
  void aWithdrawnMessageNeverTakesItsTurnAndAStartedOneCannotBeWithdrawn() {
    Message first = message(1, 7, "+6281", true, now);
    Message second = message(2, 7, "+6282", true, now);
    assertThat(handOvers.reserve(List.of(first, second), now, () -> true)).isTrue();
    handOvers.handOver(List.of(first, second));

    assertThat(handOvers.withdrawUnsent(first.id())).isTrue();
    assertThat(handOvers.takeTurn(first)).as("its caller was told first").isFalse();
    assertThat(handOvers.takeTurn(second)).isTrue();
    assertThat(handOvers.withdrawUnsent(second.id())).as("already started").isFalse();
    assertThat(handOvers.syncOutstanding()).isZero();
    handOvers.done(second);
    assertThat(handOvers.withdrawUnsent(second.id())).isFalse();
  }

  @Test
  void aHandOverAfterTheSenderStoppedTakingThemGoesBackToTheQueue() {
    idle();
    Message m = message(1, 7, "+6281", true, now);
    assertThat(handOvers.reserve(List.of(m), now, () -> true)).isTrue();
    handOvers.close(new ArrayDeque<>());
    wakes.lock.lock();
    try {
      wakes.workArrived = false;
    } finally {
      wakes.lock.unlock();
    }
    handOvers.handOver(List.of(m));

    assertThat(wakes.handedOver).isEmpty();
    assertThat(handOvers.syncOutstanding()).isZero();
    assertThat(handOvers.inFlight()).isFalse();
    Eventually.until(
        "the loop is woken once it is back in the queue",
        () -> {
          wakes.lock.lock();
          try {
            return wakes.workArrived;
          } finally {
            wakes.lock.unlock();
          }
        });
  }

  @Test
  void syncHandOversGoAfterTheSyncMessagesFirstInTheWindowAndAheadOfAsyncOnes() {
    Message claimedSync = message(1, 7, "+6281", true, now);
    Message claimedAsync = message(2, 7, "+6282", false, now);
    Message handedSync = message(3, 7, "+6283", true, now);
    Message handedAsync = message(4, 7, "+6284", false, now);
    ArrayDeque<Message> window = new ArrayDeque<>(List.of(claimedSync, claimedAsync));
    wakes.handedOver.addAll(List.of(handedSync, handedAsync));

    handOvers.takeInto(window);

    assertThat(window).containsExactly(claimedSync, handedSync, claimedAsync, handedAsync);
    assertThat(wakes.handedOver).isEmpty();
  }
}
