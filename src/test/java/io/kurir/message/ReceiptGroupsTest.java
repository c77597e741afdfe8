package io.kurir.message;

import static io.kurir.message.SenderParts.message;
import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.store.IdGenerator;
import io.kurir.tenant.Device;
import io.kurir.testing.CoreNode;
import io.kurir.testing.ScriptedDriver;
import io.kurir.time.SettableClock;
import io.kurir.time.Timestamps;
import io.kurir.webhook.Events;
import io.kurir.webhook.MessageWebhooks;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
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
 * ReceiptGroups}), and the result is that of receipts applied one by one: each message's receipts
 * in the order they came, one history line and one status event each, a receipt for an id no
 * message carries yet kept for later, a late one changing nothing. (On PostgreSQL: {@link
 * ReceiptGroupsPostgresTest}.)
 */
class ReceiptGroupsTest {
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
    node = CoreNode.start(dir.resolve("k.db"), 0, clock, new ScriptedDriver("scripted", false));
    device = node.newDevice("+6281100007601");
    node.tenants().setDeviceDisabled(device.id(), true); // no sender takes what the test stores
    IdGenerator ids = new IdGenerator(clock, 0);
    events = new Events(node.db(), ids, clock, Duration.ofDays(7), () -> {});
    stores =
        MessageStores.open(
            node.db(),
            new MessageWebhooks(
                node.db(),
                ids,
                clock,
                new Timestamps(ZoneId.of("Asia/Jakarta")),
                () -> {},
                events,
                "127.0.0.1",
                () -> 0));
  }

  @AfterEach
  void close() {
    node.close();
  }

  @Test
  void receiptsThatWaitForTheWriterTogetherEndAsIfAppliedOneByOne() throws Exception {
    Instant at = clock.instant();
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i <= MESSAGES; i++) { // the last one fails
      long id = 9_200_000L + i;
      ids.add(id);
      assertThat(
              stores
                  .queue()
                  .insert(List.of(message(id, device.id(), "+628111", false, at)), Optional.empty())
                  .get(10, TimeUnit.SECONDS))
          .isTrue();
    }
    // Sent, with their network ids (how is not what this test is about).
    node.db()
        .writes()
        .write(
            h -> {
              for (int i = 0; i < ids.size(); i++) {
                h.execute(
                    "UPDATE message SET state = 'sent', network_id = ? WHERE id = ?",
                    "net-" + i,
                    ids.get(i));
              }
              return null;
            });
    long before = events.last(device.licenseId());

    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Object> holding =
        node.db()
            .writes()
            .submit(
                h -> {
                  held.countDown();
                  release.await();
                  return null;
                });
    assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
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
    release.countDown();
    assertThat(holding).succeedsWithin(Duration.ofSeconds(10));
    // A background write after them commits with them or after them.
    node.db().writes().submitInBackground(h -> null).get(10, TimeUnit.SECONDS);

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

    Map<Long, List<String>> statuses = new HashMap<>();
    for (Events.Event e : events.after(device.licenseId(), OptionalLong.empty(), before, 1000)) {
      Matcher m = STATUS.matcher(e.data());
      assertThat(m.find()).as(e.data()).isTrue();
      statuses.computeIfAbsent(Long.parseLong(m.group(1)), k -> new ArrayList<>()).add(m.group(2));
    }
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
}
