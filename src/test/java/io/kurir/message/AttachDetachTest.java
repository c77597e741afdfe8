package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.CoreNode;
import io.kurir.testing.Eventually;
import io.kurir.testing.ScriptedDriver;
import io.kurir.testing.TestTables;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A driver is told which devices this gateway sends for: attach when a device's sender takes its
 * lease (before anything is sent), detach when the device is switched off or the gateway stops,
 * attach again when it is switched back on. A switched-off device's queue waits for it.
 */
class AttachDetachTest {
  @TempDir Path dir;

  private static boolean leaseHeld(CoreNode node, long deviceId) {
    return TestTables.of(node.db()).leaseOwner(deviceId).filter("node-0"::equals).isPresent();
  }

  @Test
  void atStartEveryDeviceSwitchedOnIsAttachedQueueOrNot() {
    Device idle;
    Device off;
    // Made, and one switched off, by an earlier run: this start finds them so.
    try (CoreNode before =
        CoreNode.start(
            dir.resolve("k.db"), 0, Clock.systemUTC(), new ScriptedDriver("scripted", false))) {
      idle = before.newDevice("+6281100007111");
      off = before.newDevice("+6281100007112");
      before.tenants().setDeviceDisabled(off.id(), true);
    }
    ScriptedDriver driver = new ScriptedDriver("scripted", false);
    try (CoreNode node = CoreNode.start(dir.resolve("k.db"), 0, Clock.systemUTC(), driver)) {
      node.messages().resume();

      Eventually.until(
          "the idle device attached", () -> driver.events().contains("attach " + idle.id()));
      assertThat(driver.events()).doesNotContain("attach " + off.id());
    }
  }

  @Test
  void attachOnStartDetachWhenDisabledAttachAgainWhenEnabledDetachOnClose() {
    ScriptedDriver driver = new ScriptedDriver("scripted", false);
    Device device;
    Message queuedWhileOff;
    Message first;
    try (CoreNode node = CoreNode.start(dir.resolve("k.db"), 0, Clock.systemUTC(), driver)) {
      // No look at the driver here: the lease watch finds a new device within a second, and may
      // attach it before the first send (it is attached once, whoever starts its sender).
      device = node.newDevice("+6281100007101");

      first = node.send(device, "+6281234571001", "before");
      Eventually.until("sent", () -> node.stateOf(device, first.id()).wentOut());
      assertThat(driver.events()).containsExactly("attach " + device.id(), "send " + first.id());
      assertThat(leaseHeld(node, device.id())).as("the sender holds the lease").isTrue();

      node.tenants().setDeviceDisabled(device.id(), true);
      Eventually.until(
          "detached when switched off", () -> driver.events().contains("detach " + device.id()));
      Eventually.until("the lease given up", () -> !leaseHeld(node, device.id()));

      queuedWhileOff = node.send(device, "+6281234571002", "while off");
      assertThat(node.messages().queued(device.id())).isEqualTo(1);

      node.tenants().setDeviceDisabled(device.id(), false);
      Eventually.until(
          "the queued message goes out once switched on",
          () -> node.stateOf(device, queuedWhileOff.id()).wentOut());
      assertThat(leaseHeld(node, device.id())).isTrue();
      assertThat(driver.events())
          .as("nothing was sent while the device was off")
          .containsExactly(
              "attach " + device.id(),
              "send " + first.id(),
              "detach " + device.id(),
              "attach " + device.id(),
              "send " + queuedWhileOff.id());
    }
    assertThat(driver.events())
        .as("a stopping gateway lets the device go")
        .endsWith("send " + queuedWhileOff.id(), "detach " + device.id());
    assertThat(driver.sentIds()).containsExactly(first.id(), queuedWhileOff.id());
  }

  @Test
  void anAttachThatFailsIsTriedAgainBeforeAnythingIsSentAndTheCrashRuleStillApplies() {
    Path file = dir.resolve("k.db");
    Device device;
    Message cutOff;
    ScriptedDriver before = new ScriptedDriver("scripted", false);
    try (CoreNode node = CoreNode.start(file, 0, Clock.systemUTC(), before)) {
      device = node.newDevice("+6281100007103");
      before.setConnected(false);
      cutOff = node.send(device, "+6281234571021", "cut off");
    }
    ScriptedDriver driver = new ScriptedDriver("scripted", false);
    driver.failAttach(1); // the network's engine is not reachable yet when the gateway starts
    try (CoreNode node = CoreNode.start(file, 0, Clock.systemUTC(), driver)) {
      // The last run stopped (crashed) while the message was in the driver's hands.
      node.db()
          .writes()
          .write(h -> h.execute("UPDATE message SET state = 'sending' WHERE id = ?", cutOff.id()));
      node.messages().resume();

      Eventually.until(
          "the crash rule applied once attached",
          () -> node.stateOf(device, cutOff.id()) == MessageState.FAILED);
      assertThat(node.find(device, cutOff.id()).reason()).contains(FailureReason.INTERRUPTED);
      Message next = node.send(device, "+6281234571022", "next");
      Eventually.until("sent", () -> node.stateOf(device, next.id()).wentOut());
      assertThat(driver.events())
          .containsExactly(
              "attach-failed " + device.id(), "attach " + device.id(), "send " + next.id());
    }
  }

  @Test
  void aDeviceSwitchedOffWithMessagesQueuedSendsThemOnlyOnceSwitchedOn() {
    ScriptedDriver driver = new ScriptedDriver("scripted", false);
    try (CoreNode node = CoreNode.start(dir.resolve("k.db"), 0, Clock.systemUTC(), driver)) {
      Device device = node.newDevice("+6281100007102");
      driver.setConnected(false); // the phone is away: messages queue up
      List<Message> queued =
          List.of(
              node.send(device, "+6281234571011", "a"),
              node.send(device, "+6281234571012", "b"),
              node.send(device, "+6281234571013", "c"));
      Eventually.until("attached", () -> driver.events().contains("attach " + device.id()));

      node.tenants().setDeviceDisabled(device.id(), true);
      Eventually.until("detached", () -> driver.events().contains("detach " + device.id()));
      driver.setConnected(true);
      node.messages().connectionChanged(device.id(), true); // the phone is back; the device is off
      // A message the sender had claimed when the device was switched off is handed back to the
      // queue as the sender stops, which can commit after the driver heard "detach".
      Eventually.until("all three queued", () -> node.messages().queued(device.id()) == 3);

      node.tenants().setDeviceDisabled(device.id(), false);
      Eventually.until(
          "all three sent",
          () -> queued.stream().allMatch(m -> node.stateOf(device, m.id()).wentOut()));
      assertThat(driver.sentIds())
          .as("in order, after the device was switched on again")
          .containsExactlyElementsOf(queued.stream().map(Message::id).toList());
      int reattached = driver.events().lastIndexOf("attach " + device.id());
      int detached = driver.events().indexOf("detach " + device.id());
      assertThat(reattached).isGreaterThan(detached);
      assertThat(driver.events().indexOf("send " + queued.getFirst().id()))
          .isGreaterThan(reattached);
    }
  }
}
