package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kurir.tenant.Device;
import io.kurir.tenant.TenantException;
import io.kurir.testing.CoreNode;
import io.kurir.testing.Eventually;
import io.kurir.testing.ScriptedDriver;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deleting a device: its sender stops at once and its driver detaches it, what it had queued ends
 * {@code failed} ({@code device_deleted}) and a sync caller waiting on it is answered, the message
 * in the driver's hands keeps its outcome, nothing more is sent, its credentials stop working and
 * its number may be linked again; its history stays.
 */
class DeviceDeleteTest {
  @TempDir Path dir;

  @Test
  void aDeletedDeviceIsDetachedAtOnceAndItsQueueEndsFailed() throws Exception {
    ScriptedDriver driver = new ScriptedDriver("scripted", false);
    try (CoreNode node = CoreNode.start(dir.resolve("k.db"), 0, Clock.systemUTC(), driver)) {
      Device device = node.newDevice("+6281100007201");
      driver.holdSends(); // the first message stays in the driver's hands while the rest queue up
      Message inHand = node.send(device, "+6281234572001", "in the driver's hands");
      Eventually.until("handed to the driver", () -> driver.sentIds().contains(inHand.id()));
      List<Message> queued =
          List.of(
              node.send(device, "+6281234572002", "queued"),
              node.send(device, "+6281234572003", "queued, flag_retry", true));
      Message sync = syncMessage(node, device, "+6281234572004");
      CompletableFuture<SendResult> syncCaller =
          CompletableFuture.supplyAsync(
              () ->
                  node.messages()
                      .awaitFirstOutcome(
                          sync, Instant.now().plus(Eventually.GUARD), Instant.now()));

      // The send under way ends after the delete began: the delete waits for it. Released only
      // once the delete waits for the sender's stop (it asked the sender to stop before that):
      // released earlier, as a 300 ms timer on a busy machine did, the sender would send the next
      // queued message before it is told. The wait is seen in the deleting thread's stack.
      CompletableFuture<Device> delete = new CompletableFuture<>();
      Thread deleter =
          Thread.ofPlatform()
              .name("deleter")
              .start(
                  () -> {
                    try {
                      delete.complete(node.tenants().deleteDevice(device.id()));
                    } catch (RuntimeException e) {
                      delete.completeExceptionally(e);
                    }
                  });
      Eventually.until(
          "the delete waits for the device's sender to stop",
          () ->
              java.util.Arrays.stream(deleter.getStackTrace())
                  .anyMatch(
                      f ->
                          f.getClassName().equals(DeviceSender.class.getName())
                              && f.getMethodName().equals("awaitStop")));
      assertThat(delete)
          .as("the delete waits for the send in the driver's hands (held)")
          .isNotDone();
      assertThat(driver.events()).doesNotContain("detach " + device.id());
      long released = System.nanoTime();
      driver.release();
      delete.get(Eventually.GUARD.toSeconds(), TimeUnit.SECONDS);
      // Not a speed test: the delete sits out its 15 s grace if it does not wake on the stop.
      assertThat(Duration.ofNanos(System.nanoTime() - released))
          .as("the delete returns when the sender stopped, not after its grace")
          .isLessThan(Duration.ofSeconds(10));

      assertThat(driver.events()).contains("detach " + device.id());
      assertThat(syncCaller.get(Eventually.GUARD.toSeconds(), TimeUnit.SECONDS))
          .isEqualTo(SendResult.FAILED);
      assertThat(node.stateOf(device, inHand.id()).wentOut())
          .as("what the driver had keeps its outcome")
          .isTrue();
      for (Message m : List.of(queued.get(0), queued.get(1), sync)) {
        Message stored = node.find(device, m.id());
        assertThat(stored.state()).as("message %s", m.id()).isEqualTo(MessageState.FAILED);
        assertThat(stored.reason()).contains(FailureReason.DEVICE_DELETED);
      }
      assertThat(node.messages().queued(device.id())).isZero();

      // Nothing more goes out, even when the network comes back: certain without waiting, since
      // every message of the device is final (sent, or failed above) and its sender has stopped
      // (the delete waited for it), so there is nothing left that could go out.
      node.messages().connectionChanged(device.id(), true);
      assertThat(driver.sentIds()).containsExactly(inHand.id());

      assertThatThrownBy(() -> node.tenants().deviceForEcoKey(device.ecoKey()))
          .isInstanceOfSatisfying(
              TenantException.class,
              e -> assertThat(e.reason()).isEqualTo(TenantException.Reason.NOT_FOUND));
      assertThatThrownBy(() -> node.tenants().deleteDevice(device.id()))
          .as("a second delete finds nothing")
          .isInstanceOfSatisfying(
              TenantException.class,
              e -> assertThat(e.reason()).isEqualTo(TenantException.Reason.NOT_FOUND));
      assertThat(node.tenants().devices()).extracting(Device::id).doesNotContain(device.id());
      Device again = node.newDevice("+6281100007201");
      assertThat(again.id()).as("the number may be linked again").isNotEqualTo(device.id());
    }
  }

  @Test
  void aDeleteCommittedWhileASendIsHeldStopsTheMessagesAlreadyClaimedBehindIt() throws Exception {
    // The delete commits through another process on the same database (./kurir admin device
    // delete against a running gateway, or another node whose signal has not arrived yet): the
    // sender holding the device is not told. What it claimed behind the send under way must not go
    // to the driver all the same.
    Path file = dir.resolve("k.db");
    ScriptedDriver driver = new ScriptedDriver("scripted", false);
    try (CoreNode node = CoreNode.start(file, 1, Clock.systemUTC(), driver);
        CoreNode admin =
            CoreNode.start(file, 2, Clock.systemUTC(), new ScriptedDriver("x", false))) {
      Device device = node.newDevice("+6281100007204");
      driver.setConnected(false); // they wait in the queue, to be claimed in one window
      Message inHand = node.send(device, "+6281234572031", "in the driver's hands");
      List<Message> behind =
          List.of(
              node.send(device, "+6281234572032", "claimed behind it"),
              node.send(device, "+6281234572033", "claimed behind it too"));
      driver.holdSends();
      driver.setConnected(true);
      node.messages().connectionChanged(device.id(), true);
      Eventually.until("handed to the driver", () -> driver.sentIds().contains(inHand.id()));
      for (Message m : behind) {
        assertThat(node.stateOf(device, m.id()))
            .as("message %s claimed in the same window", m.id())
            .isEqualTo(MessageState.SENDING);
      }

      admin.tenants().deleteDevice(device.id()); // committed; this node's sender is not told
      driver.release();

      Eventually.until(
          "every message of the device is final",
          () ->
              java.util.stream.Stream.concat(java.util.stream.Stream.of(inHand), behind.stream())
                  .map(m -> node.stateOf(device, m.id()))
                  .allMatch(state -> state.wentOut() || state == MessageState.FAILED));
      assertThat(driver.sentIds())
          .as("nothing after the delete's commit went to the driver")
          .containsExactly(inHand.id());
      assertThat(node.stateOf(device, inHand.id()).wentOut())
          .as("the send already under way keeps its outcome")
          .isTrue();
      for (Message m : behind) {
        Message stored = node.find(device, m.id());
        assertThat(stored.state()).as("message %s", m.id()).isEqualTo(MessageState.FAILED);
        assertThat(stored.reason()).contains(FailureReason.DEVICE_DELETED);
      }
      Eventually.until("detached", () -> driver.events().contains("detach " + device.id()));
    }
  }

  @Test
  void aDeviceDeletedWhileTheGatewayWasStoppedHasItsQueueEndedAtTheNextStart() {
    Path file = dir.resolve("k.db");
    Device device;
    Message queued;
    ScriptedDriver before = new ScriptedDriver("scripted", false);
    try (CoreNode node = CoreNode.start(file, 0, Clock.systemUTC(), before)) {
      device = node.newDevice("+6281100007202");
      before.setConnected(false);
      queued = node.send(device, "+6281234572011", "queued");
    }
    // ./kurir admin device delete works on the database while the gateway is stopped.
    try (CoreNode admin = CoreNode.start(file, 0, Clock.systemUTC(), before)) {
      admin.tenants().deleteDevice(device.id());
    }
    ScriptedDriver driver = new ScriptedDriver("scripted", false);
    try (CoreNode node = CoreNode.start(file, 0, Clock.systemUTC(), driver)) {
      node.messages().resume();
      Eventually.until(
          "the queue ended", () -> node.stateOf(device, queued.id()) == MessageState.FAILED);
      assertThat(node.find(device, queued.id()).reason()).contains(FailureReason.DEVICE_DELETED);
      assertThat(driver.events()).doesNotContain("attach " + device.id());
      assertThat(driver.sentIds()).isEmpty();
    }
  }

  static Message syncMessage(CoreNode node, Device device, String to) {
    return node.messages()
        .accept(
            device,
            new SendRequest(
                List.of(Recipient.number(to)), "text", "sync", "test", true, false, Duration.ZERO))
        .getFirst();
  }
}
