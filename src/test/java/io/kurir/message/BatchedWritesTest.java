package io.kurir.message;

import static io.kurir.message.SenderParts.message;
import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.CoreNode;
import io.kurir.testing.HeldWriter;
import io.kurir.time.SettableClock;
import io.kurir.webhook.Events;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the writer keeps for one transaction and writes just before its commit: the history lines of
 * every task in one batch, the event log's events numbered once. A batch that fails is run again
 * one task per transaction, and then each transaction writes only its own task's lines and events:
 * nothing is lost, nothing is written twice, numbers stay gapless and in order. (On PostgreSQL:
 * {@link BatchedWritesPostgresTest}.)
 */
class BatchedWritesTest {
  private static final int MESSAGES =
      21; // their rows read as 16, then 5 padded to 16 (EventStore.messages)

  @TempDir Path dir;
  final SettableClock clock = new SettableClock(Instant.parse("2026-03-02T10:00:00Z"));
  private CoreNode node;
  Device device;
  private Events events;
  MessageStores stores;

  @BeforeEach
  void open() {
    StoresWithEvents on = StoresWithEvents.open(dir.resolve("k.db"), clock, "+6281100007501");
    node = on.node();
    device = on.device();
    events = on.events();
    stores = on.stores();
  }

  @AfterEach
  void close() {
    node.close();
  }

  @Test
  void aBadTaskInABatchCostsItsNeighboursNoLineAndNoEventAndNumbersStayInOrder() throws Exception {
    long before = events.last(device.licenseId());
    Instant at = clock.instant();
    // The writer is held, so that everything below waits for it and is taken as one batch.
    CountDownLatch release = HeldWriter.hold(node.db());
    List<Long> ids = new ArrayList<>();
    List<CompletableFuture<?>> tasks = new ArrayList<>();
    for (int i = 0; i < MESSAGES; i++) {
      long id = 9_000_000L + i;
      ids.add(id);
      tasks.add(
          stores
              .queue()
              .insert(List.of(message(id, device.id(), "+628111", false, at)), Optional.empty()));
      if (i == MESSAGES / 2) {
        // A task that fails in the middle of the batch, after history lines and events of its
        // neighbours were kept for the commit.
        tasks.add(
            node.db().writes().submit(h -> h.execute("INSERT INTO no_such_table VALUES (1)")));
      }
    }
    // Each message fails right after it is stored, in the same batch: a status event each.
    for (long id : ids) {
      tasks.add(
          stores
              .outcomes()
              .moveLater(
                  id, MessageState.FAILED, Set.of(MessageState.PENDING), at, "withdrawn", true));
    }
    release.countDown();
    int failed = 0;
    for (CompletableFuture<?> t : tasks) {
      failed += t.handle((r, e) -> e != null ? 1 : 0).get(10, TimeUnit.SECONDS);
    }
    assertThat(failed).as("the bad task alone").isEqualTo(1);

    for (long id : ids) {
      assertThat(stores.reads().events(id))
          .as("message %d's history: each line once, in order", id)
          .extracting(MessageEvent::state)
          .containsExactly(MessageState.PENDING, MessageState.FAILED);
    }
    List<Events.Event> stored =
        events.after(device.licenseId(), OptionalLong.empty(), before, 1000);
    assertThat(stored)
        .as("numbered on from the last one, without a gap")
        .extracting(Events.Event::sequence)
        .containsExactlyElementsOf(
            java.util.stream.LongStream.rangeClosed(before + 1, before + MESSAGES)
                .boxed()
                .toList());
    assertThat(stored)
        .as("one status event per message, in the order of the changes")
        .extracting(e -> e.data().replaceAll(".*\"message_id\":\"(\\d+)\".*", "$1"))
        .containsExactlyElementsOf(ids.stream().map(String::valueOf).toList());
    assertThat(events.last(device.licenseId())).isEqualTo(before + MESSAGES);
  }

  @Test
  void anAcceptRepeatingAnotherIdFailsAloneAndTheRestAreStoredOnce() throws Exception {
    Instant at = clock.instant();
    // Accepts only, one of them a second insert of an id: on PostgreSQL the batch's one multi-row
    // insert commits as it runs (MessageRowStore.NewMessages#commitsAsItStores). It fails whole,
    // and each accept is then tried alone: a part committed before the failure would make its
    // accepts fail on their second try, though stored.
    CountDownLatch release = HeldWriter.hold(node.db());
    List<CompletableFuture<Boolean>> accepts = new ArrayList<>();
    for (int i = 0; i < MESSAGES; i++) {
      accepts.add(
          stores
              .queue()
              .insert(
                  List.of(message(9_300_000L + i, device.id(), "+628111", false, at)),
                  Optional.empty()));
    }
    CompletableFuture<Boolean> again =
        stores
            .queue()
            .insert(
                List.of(message(9_300_000L + MESSAGES - 1, device.id(), "+628112", false, at)),
                Optional.empty());
    release.countDown();

    for (CompletableFuture<Boolean> accepted : accepts) {
      assertThat(accepted.get(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(again).failsWithin(10, TimeUnit.SECONDS);
    for (int i = 0; i < MESSAGES; i++) {
      Message stored = stores.reads().find(9_300_000L + i).orElseThrow();
      assertThat(stored.recipient()).isEqualTo("+628111");
      assertThat(stores.reads().events(stored.id()))
          .extracting(MessageEvent::state)
          .containsExactly(MessageState.PENDING);
    }
  }

  @Test
  void aCancelWhoseGuardDoesNotHoldLeavesNoHistoryLine() throws Exception {
    Message m = message(9_100_000L, device.id(), "+628111", false, clock.instant());
    assertThat(stores.queue().insert(List.of(m), Optional.empty()).get(10, TimeUnit.SECONDS))
        .isTrue();
    // The move happens inside the savepoint, then the guard refuses: both roll back, and so does
    // the history line the move kept for the commit.
    assertThat(stores.outcomes().cancel(m.id(), "cancelled", clock.instant(), (tx, id) -> false))
        .isFalse();
    assertThat(stores.reads().events(m.id()))
        .extracting(MessageEvent::state)
        .containsExactly(MessageState.PENDING);
    assertThat(stores.outcomes().cancel(m.id(), "cancelled", clock.instant(), (tx, id) -> true))
        .isTrue();
    assertThat(stores.reads().events(m.id()))
        .extracting(MessageEvent::state)
        .containsExactly(MessageState.PENDING, MessageState.FAILED);
  }
}
