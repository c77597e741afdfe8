package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.CoreNode;
import io.kurir.testing.HeldWriter;
import io.kurir.time.SettableClock;
import io.kurir.webhook.Events;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Receipts keyed by network id that wait for the writer are applied together ({@link
 * ReceiptGroupStore}), and the result is that of receipts applied one by one: each message's
 * receipts in the order they came, one history line and one status event each, a receipt for an id
 * no message carries yet kept for later, a late one changing nothing. (On PostgreSQL: {@link
 * GroupedOutcomesPostgresTest}.)
 */
class GroupedOutcomesTest {
  /** More than one statement's worth (64) of each state. */
  private static final int MESSAGES = 70;

  private static final Pattern STATUS =
      Pattern.compile("\"message_id\":\"(\\d+)\".*\"status\":\"([a-z]+)\"");

  @TempDir Path dir;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-03-02T10:00:00Z"));
  private CoreNode node;
  private Device device;
  private Events events;
  private MessageStores stores;

  @BeforeEach
  void open() {
    StoresWithEvents on = StoresWithEvents.open(dir.resolve("k.db"), clock, "+6281100007601");
    node = on.node();
    device = on.device();
    events = on.events();
    stores = on.stores();
  }

  @AfterEach
  void close() {
    node.close();
  }

  /** {@code count} messages stored, each moved to {@code state} with network id net-i. */
  private List<Long> messagesIn(String state, int count) throws Exception {
    Instant at = clock.instant();
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      long id = 9_200_000L + i;
      ids.add(id);
      assertThat(
              stores
                  .queue()
                  .insert(
                      List.of(SenderParts.message(id, device.id(), "+628111", false, at)),
                      Optional.empty())
                  .get(10, TimeUnit.SECONDS))
          .isTrue();
    }
    // How they got there is not what this test is about.
    node.db()
        .writes()
        .write(
            h -> {
              for (int i = 0; i < ids.size(); i++) {
                h.execute(
                    "UPDATE message SET state = ?, network_id = ? WHERE id = ?",
                    state,
                    state.equals("sending") ? null : "net-" + i,
                    ids.get(i));
              }
              return null;
            });
    return ids;
  }

  /** Releases the writer, and waits until what waited for it is committed. */
  private void release(CountDownLatch writer) throws Exception {
    writer.countDown();
    // A write after all of it, on the lane that comes last, commits with it or after it.
    node.db().writes().submitInBackground(h -> null).get(10, TimeUnit.SECONDS);
  }

  /** The message.status events of the license after {@code before}, per message. */
  private Map<Long, List<String>> statusEvents(long before) {
    Map<Long, List<String>> statuses = new HashMap<>();
    for (Events.Event e : events.after(device.licenseId(), OptionalLong.empty(), before, 1000)) {
      Matcher m = STATUS.matcher(e.data());
      assertThat(m.find()).as(e.data()).isTrue();
      statuses.computeIfAbsent(Long.parseLong(m.group(1)), k -> new ArrayList<>()).add(m.group(2));
    }
    return statuses;
  }

  @Test
  void receiptsThatWaitForTheWriterTogetherEndAsIfAppliedOneByOne() throws Exception {
    Instant at = clock.instant();
    List<Long> ids = messagesIn("sent", MESSAGES + 1); // the last one fails
    long before = events.last(device.licenseId());
    CountDownLatch writer = HeldWriter.hold(node.db());
    // While the writer is held: each message's delivery and then its read, interleaved with the
    // others'; the first's delivery again, late; a failure; a receipt no message carries yet.
    ReceiptStore receipts = stores.receipts();
    for (int i = 0; i < MESSAGES; i++) {
      receipts.receiptByNetworkId(
          device.id(), "net-" + i, MessageState.DELIVERY, null, at.plusMillis(i), at);
      if (i > 0) {
        receipts.receiptByNetworkId(
            device.id(), "net-" + (i - 1), MessageState.READ, null, at.plusMillis(1000 + i), at);
      }
      if (i == 1) { // the first's delivery again, after its read: in the same statement's reach
        receipts.receiptByNetworkId(
            device.id(), "net-0", MessageState.DELIVERY, null, at.plusSeconds(3), at);
      }
    }
    receipts.receiptByNetworkId(
        device.id(), "net-" + (MESSAGES - 1), MessageState.READ, null, at.plusSeconds(2), at);
    receipts.receiptByNetworkId(
        device.id(), "net-" + MESSAGES, MessageState.FAILED, "blocked", at.plusSeconds(4), at);
    receipts.receiptByNetworkId(
        device.id(), "net-unknown", MessageState.DELIVERY, null, at.plusSeconds(5), at);
    release(writer);

    for (int i = 0; i < MESSAGES; i++) {
      long id = ids.get(i);
      assertThat(stores.reads().events(id))
          .as("message %d's history", i)
          .extracting(MessageEvent::state)
          .containsExactly(MessageState.PENDING, MessageState.DELIVERY, MessageState.READ);
      assertThat(stores.reads().find(id).orElseThrow().state()).isEqualTo(MessageState.READ);
    }
    Message failed = stores.reads().find(ids.get(MESSAGES)).orElseThrow();
    assertThat(failed.state()).isEqualTo(MessageState.FAILED);
    assertThat(failed.reason()).contains("blocked");

    Map<Long, List<String>> statuses = statusEvents(before);
    for (int i = 0; i < MESSAGES; i++) {
      assertThat(statuses.get(ids.get(i)))
          .as("message %d's status events", i)
          .containsExactly("delivery", "read");
    }
    assertThat(statuses.get(ids.get(MESSAGES))).containsExactly("failed");
    assertThat(statuses).hasSize(MESSAGES + 1);

    List<String> kept =
        node.db()
            .jdbi()
            .withHandle(
                h ->
                    h.createQuery("SELECT network_id || ' ' || status FROM early_receipt")
                        .mapTo(String.class)
                        .list());
    assertThat(kept)
        .as("kept until a message carries its id")
        .containsExactly("net-unknown delivery");
  }

  @Test
  void sendsRecordedWhileTheWriterIsBusyAreRecordedTogetherEachWithItsOwnOutcome()
      throws Exception {
    Instant at = clock.instant();
    List<Long> ids = messagesIn("sending", MESSAGES);
    // The network's receipt for the third came before its send was recorded: kept.
    receiptsFor(List.of("net-2"), MessageState.DELIVERY, at.plusSeconds(10));
    // The fourth was moved further by a receipt by Kurir's own id already.
    assertThat(
            stores
                .outcomes()
                .moveLater(
                    ids.get(3),
                    MessageState.DELIVERY,
                    ReceiptStore.receiptFrom(MessageState.DELIVERY),
                    at,
                    null,
                    true)
                .get(10, TimeUnit.SECONDS))
        .isTrue();
    long before = events.last(device.licenseId());

    CountDownLatch writer = HeldWriter.hold(node.db());
    List<CompletableFuture<Boolean>> recorded = new ArrayList<>();
    for (int i = 0; i < MESSAGES; i++) {
      recorded.add(
          stores
              .receipts()
              .recordSent(
                  ids.get(i), device.id(), Optional.of("net-" + i), at.plusMillis(i), i % 2 == 0));
    }
    release(writer);

    for (int i = 0; i < MESSAGES; i++) {
      assertThat(recorded.get(i).get(10, TimeUnit.SECONDS))
          .as("message %d moved by its record", i)
          .isEqualTo(i != 3);
      Message m = stores.reads().find(ids.get(i)).orElseThrow();
      long id = ids.get(i);
      String networkId =
          node.db()
              .jdbi()
              .withHandle(
                  h ->
                      h.createQuery("SELECT network_id FROM message WHERE id = ?")
                          .bind(0, id)
                          .mapTo(String.class)
                          .one());
      assertThat(networkId).as("message %d's network id", i).isEqualTo("net-" + i);
      List<MessageState> expected =
          switch (i) {
            case 2 -> List.of(MessageState.PENDING, MessageState.SENT, MessageState.DELIVERY);
            case 3 -> List.of(MessageState.PENDING, MessageState.DELIVERY);
            default -> List.of(MessageState.PENDING, MessageState.SENT);
          };
      assertThat(stores.reads().events(ids.get(i)))
          .as("message %d's history", i)
          .extracting(MessageEvent::state)
          .containsExactlyElementsOf(expected);
      assertThat(m.state()).isEqualTo(expected.getLast());
    }
    Map<Long, List<String>> statuses = statusEvents(before);
    assertThat(statuses.get(ids.get(2))).containsExactly("sent", "delivery");
    assertThat(statuses.get(ids.get(3))).isNull();
    assertThat(statuses.get(ids.get(0))).containsExactly("sent");
    assertThat(statuses).hasSize(MESSAGES - 1);
  }

  private void receiptsFor(List<String> networkIds, MessageState next, Instant at)
      throws Exception {
    CountDownLatch writer = HeldWriter.hold(node.db());
    networkIds.forEach(
        n -> stores.receipts().receiptByNetworkId(device.id(), n, next, null, at, at));
    release(writer);
  }
}
