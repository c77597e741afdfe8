package io.kurir.message;

import static io.kurir.message.SenderParts.message;
import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.device.DeviceState;
import io.kurir.driver.Pacing;
import io.kurir.tenant.Device;
import io.kurir.testing.CoreNode;
import io.kurir.testing.Eventually;
import io.kurir.testing.ScriptedDriver;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sender's failing tries alone, on the settable clock: the wait after a failure ends when the
 * clock passes it or a change asks for a try now, the device's state says stuck after repeated
 * failures and works again after, and while the driver cannot attach the device its sync callers
 * are answered {@code phone_offline} instead of waiting out their time.
 */
class SenderFailuresTest {
  @TempDir Path dir;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-03-02T10:00:00Z"));
  private final List<String> trouble = new CopyOnWriteArrayList<>();
  private final SenderWakes wakes = new SenderWakes();
  private final Outcomes outcomes = new Outcomes();
  private CoreNode node;
  private Device device;
  private MessageStores stores;
  private SenderFailures failures;

  @BeforeEach
  void open() {
    node = CoreNode.start(dir.resolve("k.db"), 0, clock, new ScriptedDriver("scripted", false));
    device = node.newDevice("+6281100007501");
    // The node's own sender is paused: the part under test answers the device's sync callers.
    node.tenants().setDeviceDisabled(device.id(), true);
    stores = MessageStores.open(node.db(), StatusHook.NONE);
    Leases leases = new Leases(node.db(), "failures-test", Duration.ofSeconds(30));
    ClaimWindow window =
        new ClaimWindow(
            device.id(),
            wakes,
            new HandOvers(wakes, stores.queue(), ClaimWindow.MAX_CLAIM),
            new DeviceLease(device.id(), leases, null, Duration.ofSeconds(5)),
            new SendPacing(
                () -> Pacing.OFF, clock, node.tenants().zone(), f -> 0, System::nanoTime),
            stores,
            outcomes,
            MediaFetch.NONE,
            node.driver(),
            clock,
            () -> false,
            Duration.ofSeconds(10));
    failures =
        new SenderFailures(
            () -> device,
            node.driver(),
            wakes,
            window,
            clock,
            new SenderTrouble() {
              @Override
              public void stuck(long deviceId, String why) {
                trouble.add("stuck " + deviceId);
              }

              @Override
              public void worksAgain(long deviceId, DeviceState driverSays) {
                trouble.add("works again " + deviceId);
              }
            });
  }

  @AfterEach
  void close() {
    wakes.running = false;
    node.close();
  }

  /** Runs a failed try on its own thread, as the loop would. */
  private Thread failInBackground() {
    Instant started = clock.instant();
    return Thread.ofVirtual()
        .start(() -> failures.failedTry(new IllegalStateException("broken"), started));
  }

  @Test
  void theWaitAfterAFailureEndsWhenTheClockPassesItAndRepeatsAreRecordedStuck() throws Exception {
    Thread first = failInBackground();
    Eventually.until(
        "it waits",
        () ->
            first.getState() == Thread.State.WAITING
                || first.getState() == Thread.State.TIMED_WAITING);
    assertThat(first.isAlive()).isTrue();
    clock.advance(Duration.ofMinutes(5));
    wakes.wake(false); // as the gateway wakes senders when the clock moves
    assertThat(first.join(Duration.ofSeconds(10))).as("the wait ended on the clock").isTrue();
    assertThat(trouble).isEmpty();

    Thread second = failInBackground();
    Eventually.until("stuck recorded", () -> trouble.contains("stuck " + device.id()));
    failures.retryNow(); // the device changed: the fix may have come
    wakes.wake(false);
    assertThat(second.join(Duration.ofSeconds(10))).as("a change ends the wait").isTrue();
    assertThat(failures.failing()).isTrue();

    failures.worksAgain();
    assertThat(failures.failing()).isFalse();
    assertThat(trouble).containsExactly("stuck " + device.id(), "works again " + device.id());
  }

  @Test
  void whileTheAttachFailsSyncCallersAreToldPhoneOffline() throws Exception {
    Message sync = message(201, device.id(), "+6281", true, clock.instant());
    assertThat(stores.queue().insert(List.of(sync), Optional.empty()).get(10, TimeUnit.SECONDS))
        .isTrue();
    outcomes.expect(sync.id());
    failures.attachFailing(true);

    Thread failing = failInBackground();

    assertThat(outcomes.of(sync.id()).get(10, TimeUnit.SECONDS))
        .isEqualTo(SendResult.PHONE_OFFLINE);
    assertThat(stores.reads().find(sync.id()).orElseThrow().state()).isEqualTo(MessageState.FAILED);
    assertThat(failing.isAlive()).as("async messages wait: the try is still waited out").isTrue();
    failures.retryNow();
    wakes.wake(false);
    assertThat(failing.join(Duration.ofSeconds(10))).isTrue();
  }
}
