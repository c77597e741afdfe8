package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.SendOutcome;
import io.kurir.tenant.Device;
import io.kurir.testing.CoreNode;
import io.kurir.testing.Eventually;
import io.kurir.testing.ScriptedDriver;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Races around the direct hand-over of an accepted message to an idle sender, and the crash rule:
 * found by review; each failed before its fix.
 */
class QueueRacesTest {
  @TempDir Path dir;

  /** Holds the single writer until the returned latch is counted down. */
  private static CountDownLatch blockWriter(CoreNode node) throws InterruptedException {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    node.db()
        .writes()
        .submit(
            h -> {
              running.countDown();
              release.await();
              return null;
            });
    running.await();
    return release;
  }

  private static Device disabledCopy(Device d) {
    return new Device(
        d.id(),
        d.licenseId(),
        d.number(),
        d.ecoKey(),
        d.deviceKey(),
        d.crmDeviceId(),
        d.driver(),
        true,
        d.createdAt());
  }

  /** An idle sender: it sent once and its last look found the queue empty. */
  private static void idle(CoreNode node, Device device) throws InterruptedException {
    Message first = node.send(device, "+6281234579000", "warm up");
    Eventually.until("sent", () -> node.stateOf(device, first.id()).wentOut());
    Eventually.until("idle", () -> node.messages().senderIdle(device.id()));
  }

  @Test
  void aHandOverCommittedWhileTheGatewayStopsGoesBackToTheQueueAndOutAfterTheRestart()
      throws Exception {
    Path file = dir.resolve("k.db");
    Device device;
    Message accepted;
    ScriptedDriver driver = new ScriptedDriver("scripted", false);
    try (CoreNode node = CoreNode.start(file, 0, Clock.systemUTC(), driver)) {
      device = node.newDevice("+6281100007901");
      idle(node, device);
      CountDownLatch writer = blockWriter(node);
      CompletableFuture<Message> send =
          CompletableFuture.supplyAsync(() -> node.send(device, "+6281234579001", "handed over"));
      Eventually.until(
          "handed over, its commit held", () -> node.messages().handOverInFlight(device.id()));
      Thread stopper = Thread.ofVirtual().start(() -> node.messages().close());
      Eventually.until(
          "the sender stopped", () -> driver.events().contains("detach " + device.id()));
      writer.countDown();
      accepted = send.get(); // the caller is told the id: accepted
      stopper.join();
      Message handedOver = accepted;
      Eventually.until(
          "a clean stop gives an unsent hand-over back to the queue",
          () -> node.stateOf(device, handedOver.id()) == MessageState.PENDING);
    }
    ScriptedDriver next = new ScriptedDriver("scripted", false);
    try (CoreNode node = CoreNode.start(file, 0, Clock.systemUTC(), next)) {
      node.messages().resume();
      Eventually.until(
          "crash rule", () -> node.stateOf(device, accepted.id()) != MessageState.SENDING);
      Message m = node.find(device, accepted.id());
      // Docs (Shutdown): what a sender claimed and did not send goes back to pending.
      assertThat(m.state())
          .as("never sent, yet failed 'interrupted' after a clean stop")
          .isNotEqualTo(MessageState.FAILED);
    }
  }

  @Test
  void aHandOverCommittedWhileTheDeviceIsSwitchedOffAndOnIsSentOnce() throws Exception {
    ScriptedDriver driver = new ScriptedDriver("scripted", false); // does not de-duplicate
    try (CoreNode node = CoreNode.start(dir.resolve("k.db"), 0, Clock.systemUTC(), driver)) {
      Device device = node.newDevice("+6281100007902");
      idle(node, device);
      CountDownLatch writer = blockWriter(node);
      CompletableFuture<Message> send =
          CompletableFuture.supplyAsync(
              () -> node.send(device, "+6281234579002", "handed over", true)); // flag_retry
      Eventually.until(
          "handed over, its commit held", () -> node.messages().handOverInFlight(device.id()));
      // The device is switched off (what Tenants.setDeviceDisabled tells the pipeline) ...
      node.messages().deviceChanged(disabledCopy(device));
      Eventually.until("detached", () -> driver.events().contains("detach " + device.id()));
      writer.countDown(); // ... the insert commits, claimed under the still-held lease
      Message m = send.get();
      // ... and it is on again (the sender re-reads the device: enabled): takeLease runs the
      // crash rule on the handed-over message (flag_retry: pending), then step() sends it from
      // handedOver, and fill() claims it again.
      Eventually.until("sent", () -> driver.sentIds().contains(m.id()));
      Eventually.until(
          "recorded, and the sender idle again",
          () -> node.stateOf(device, m.id()).wentOut() && node.messages().senderIdle(device.id()));
      assertThat(driver.sentIds().stream().filter(id -> id == m.id()).count())
          .as("sent once by one gateway with no crash")
          .isEqualTo(1);
    }
  }

  @Test
  void anAcceptedSendWithoutNetworkIdStaysWithTheNetworkWhenTheDeviceIsSwitchedOffAndOn()
      throws Exception {
    ScriptedDriver driver = new ScriptedDriver("scripted", false);
    try (CoreNode node = CoreNode.start(dir.resolve("k.db"), 0, Clock.systemUTC(), driver)) {
      Device device = node.newDevice("+6281100007903");
      driver.then("+6281234579003", msg -> new SendOutcome.Accepted(Optional.empty()));
      Message m = node.send(device, "+6281234579003", "accepted, outcome later", true);
      Eventually.until("handed to the network", () -> driver.sentIds().contains(m.id()));
      Eventually.until("idle", () -> node.messages().senderIdle(device.id()));
      node.tenants().setDeviceDisabled(device.id(), true);
      Eventually.until("detached", () -> driver.events().contains("detach " + device.id()));
      node.tenants().setDeviceDisabled(device.id(), false);
      Eventually.until(
          "attached again",
          () ->
              driver.events().stream().filter(e -> e.equals("attach " + device.id())).count() == 2);
      Eventually.until("idle again", () -> node.messages().senderIdle(device.id()));
      assertThat(node.stateOf(device, m.id()))
          .as("still with the network")
          .isEqualTo(MessageState.SENDING);
      assertThat(driver.sentIds().stream().filter(id -> id == m.id()).count())
          .as("the network has it (Accepted); a switch off and on must not send it again")
          .isEqualTo(1);
    }
  }

  /**
   * Async messages accepted while a sender works through hand-overs are never left for its 30 s
   * recheck: the look for sync callers ahead of a window once took the "work arrived" mark that the
   * quiet rule (skip the database after a window of hand-overs) relies on, and a message that
   * arrived then waited 30 s.
   */
  @Test
  void asyncMessagesArrivingDuringHandOversAreNeverLeftForTheRecheck() throws Exception {
    ScriptedDriver driver = new ScriptedDriver("scripted", false);
    try (CoreNode node = CoreNode.start(dir.resolve("k.db"), 0, Clock.systemUTC(), driver)) {
      java.util.List<Device> devices = new java.util.ArrayList<>();
      for (int i = 0; i < 20; i++) {
        devices.add(node.newDevice(String.format("+62811000072%02d", i)));
      }
      node.messages().resume();
      java.util.List<Message> sent =
          java.util.Collections.synchronizedList(new java.util.ArrayList<>());
      try (var callers = java.util.concurrent.Executors.newFixedThreadPool(8)) {
        for (int round = 0; round < 40; round++) {
          // Arrivals spread out, as a sender finishes its hand-overs: a round starts once the
          // round before last was accepted, so two rounds at most overlap.
          int accepted = (round - 1) * devices.size();
          Eventually.until("round " + (round - 2) + " accepted", () -> sent.size() >= accepted);
          for (Device d : devices) {
            int r = round;
            callers.submit(() -> sent.add(node.send(d, "+62812345790" + (r % 10), "m" + r)));
          }
        }
      }
      assertThat(sent).hasSize(800);
      // Well inside the 30 s recheck (half of it: a busy machine's room): each sender looks at its
      // queue whenever something arrives.
      Eventually.until(
          "every message went out",
          java.time.Duration.ofSeconds(15),
          () -> sent.stream().allMatch(m -> node.stateOf(deviceOf(devices, m), m.id()).wentOut()));
    }
  }

  private static Device deviceOf(java.util.List<Device> devices, Message m) {
    return devices.stream().filter(d -> d.id() == m.deviceId()).findFirst().orElseThrow();
  }
}
