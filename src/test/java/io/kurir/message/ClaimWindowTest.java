package io.kurir.message;

import static io.kurir.message.SenderParts.message;
import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.Pacing;
import io.kurir.tenant.Device;
import io.kurir.testing.CoreNode;
import io.kurir.testing.ScriptedDriver;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sender's claim window alone, on a real database, the scripted driver and the settable clock:
 * what it claims (due messages, sync first, as many as the pace covers), committed {@code sending}
 * only while the lease is held; what it gives back; sync callers refused while the device is not
 * connected. No sender runs: the messages are stored directly, and nothing wakes a loop.
 */
class ClaimWindowTest {
  @TempDir Path dir;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-03-02T10:00:00Z"));
  private CoreNode node;
  private Device device;
  private MessageStores stores;
  private DeviceLease lease;
  private final Outcomes outcomes = new Outcomes();
  private final AtomicBoolean canSend = new AtomicBoolean(true);

  @BeforeEach
  void open() {
    Path file = dir.resolve("k.db");
    try (CoreNode first = CoreNode.start(file, 0, clock, new ScriptedDriver("scripted", false))) {
      device = first.newDevice("+6281100007401");
    }
    // Opened again, the node starts no sender (a gateway's start resumes the queues, this does
    // not): the window under test is the only one that claims, under a lease of its own.
    node = CoreNode.start(file, 0, clock, new ScriptedDriver("scripted", false));
    stores = MessageStores.open(node.db(), StatusHook.NONE);
    Leases leases = new Leases(node.db(), "window-test", Duration.ofSeconds(30));
    assertThat(leases.acquire(device.id(), clock.instant()))
        .as("the first node's sender let its lease go at its stop")
        .isNotEqualTo(Leases.Take.REFUSED);
    // No ownership: a window only claims under the lease, it never takes or gives it.
    lease = new DeviceLease(device.id(), leases, null, Duration.ofSeconds(5));
  }

  @AfterEach
  void close() {
    node.close();
  }

  private ClaimWindow window(Pacing pacing, SenderWakes wakes) {
    SendPacing pace =
        new SendPacing(() -> pacing, clock, node.tenants().zone(), f -> 0, System::nanoTime);
    return new ClaimWindow(
        device.id(),
        wakes,
        new HandOvers(wakes, stores.queue(), ClaimWindow.MAX_CLAIM),
        lease,
        pace,
        stores,
        outcomes,
        MediaFetch.NONE,
        node.driver(),
        clock,
        canSend::get,
        Duration.ofSeconds(10));
  }

  private List<Message> store(Message... messages) throws Exception {
    assertThat(stores.queue().insert(List.of(messages), Optional.empty()).get(10, TimeUnit.SECONDS))
        .isTrue();
    return List.of(messages);
  }

  private MessageState stateOf(long id) {
    return stores.reads().find(id).orElseThrow().state();
  }

  @Test
  void aFillClaimsTheDueMessagesSyncFirstAndCommitsThemSending() throws Exception {
    Instant now = clock.instant();
    store(
        message(101, device.id(), "+6281", false, now),
        message(102, device.id(), "+6282", true, now),
        message(103, device.id(), "+6283", false, now.plusSeconds(60)));
    ClaimWindow window = window(Pacing.OFF, new SenderWakes());

    window.fill();

    assertThat(window.claimed()).extracting(Message::id).containsExactly(102L, 101L);
    assertThat(window.claimed()).allMatch(m -> m.attempts() == 1);
    assertThat(stateOf(101)).isEqualTo(MessageState.SENDING);
    assertThat(stateOf(102)).isEqualTo(MessageState.SENDING);
    assertThat(stateOf(103)).as("not due").isEqualTo(MessageState.PENDING);
  }

  @Test
  void aClaimCoversWhatThePaceSendsWithinTheHorizon() throws Exception {
    Instant now = clock.instant();
    store(
        message(101, device.id(), "+6281", false, now),
        message(102, device.id(), "+6282", false, now),
        message(103, device.id(), "+6283", false, now));
    ClaimWindow window = window(Pacing.rate(2), new SenderWakes());

    window.fill();

    assertThat(window.claimed()).extracting(Message::id).containsExactly(101L, 102L);
    assertThat(stateOf(103)).isEqualTo(MessageState.PENDING);
  }

  @Test
  void whatWasClaimedAndNotSentGoesBackUncounted() throws Exception {
    store(message(101, device.id(), "+6281", false, clock.instant()));
    ClaimWindow window = window(Pacing.OFF, new SenderWakes());
    window.fill();
    assertThat(stateOf(101)).isEqualTo(MessageState.SENDING);

    window.giveBack();

    assertThat(window.claimed()).isEmpty();
    Message back = stores.reads().find(101).orElseThrow();
    assertThat(back.state()).isEqualTo(MessageState.PENDING);
    assertThat(back.attempts()).isZero();
  }

  @Test
  void withoutTheLeaseNothingIsClaimedAndTheLeaseIsSeenLost() throws Exception {
    store(message(101, device.id(), "+6281", false, clock.instant()));
    new Leases(node.db(), "window-test", Duration.ofSeconds(30))
        .release(device.id())
        .get(10, TimeUnit.SECONDS);
    ClaimWindow window = window(Pacing.OFF, new SenderWakes());

    window.fill();

    assertThat(window.claimed()).isEmpty();
    assertThat(lease.lostSeen()).isTrue();
    assertThat(stateOf(101)).isEqualTo(MessageState.PENDING);
  }

  @Test
  void whileTheDeviceCannotSendSyncCallersAreRefusedAndItsQueueWaits() throws Exception {
    Instant now = clock.instant();
    Message sync = message(101, device.id(), "+6281", true, now);
    Message async = message(102, device.id(), "+6282", false, now);
    store(sync, async);
    outcomes.expect(sync.id());
    canSend.set(false);
    SenderWakes wakes = new SenderWakes();
    wakes.wake(true); // a sync message arrived: the window looks for sync callers
    wakes.running = false; // as when stopping: the window does not wait out the offline recheck
    ClaimWindow window = window(Pacing.OFF, wakes);

    window.fill();

    assertThat(outcomes.of(sync.id()).get(10, TimeUnit.SECONDS))
        .isEqualTo(SendResult.PHONE_OFFLINE);
    assertThat(stateOf(sync.id())).isEqualTo(MessageState.FAILED);
    assertThat(stateOf(async.id())).as("async messages wait").isEqualTo(MessageState.PENDING);
    assertThat(window.claimed()).isEmpty();
  }
}
