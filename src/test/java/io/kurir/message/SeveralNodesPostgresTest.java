package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.store.Database;
import io.kurir.store.InstanceLock;
import io.kurir.tenant.Device;
import io.kurir.testing.CoreNode;
import io.kurir.testing.Eventually;
import io.kurir.testing.OnPostgreSQL;
import io.kurir.testing.ScriptedDriver;
import io.kurir.testing.TestDatabases;
import io.kurir.testing.TestTables;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several nodes on one PostgreSQL database, in one JVM: each holds its node's instance lock (so
 * that the others count it as live), and they share the devices through their leases.
 */
@OnPostgreSQL
class SeveralNodesPostgresTest {
  @TempDir Path dir;

  private static Map<Long, String> owners(Database db) {
    return TestTables.of(db).leases();
  }

  private static long held(Database db, String owner, List<Device> devices) {
    Map<Long, String> owners = owners(db);
    return devices.stream().filter(d -> owner.equals(owners.get(d.id()))).count();
  }

  /**
   * A clock that never moves: no lease runs out, so a device that changes nodes was handed over (or
   * taken back by its own owner), never taken because its lease expired. "At once, not after the
   * lease time" is then certain without timing it, however busy the machine.
   */
  private static Clock frozen() {
    return new SettableClock(Instant.parse("2026-03-10T03:00:00Z"));
  }

  /**
   * A holder that nobody tells of a message finds it after its idle wait (30 s); a bound at half of
   * that tells the two apart and leaves a busy machine room (the signal takes milliseconds alone).
   */
  private static final Duration TOLD_WITHIN = Duration.ofSeconds(15);

  private InstanceLock lock(int node) {
    return Database.lockInstance(TestDatabases.at(dir.resolve("k.db")), node);
  }

  /** A new device that {@code node} sent one message for: its sender runs there, holding it. */
  private static Device sentOnce(CoreNode node, String number, String to) {
    Device device = node.newDevice(number);
    Message warm = node.send(device, to, "warm");
    Eventually.until("the node sends", () -> node.stateOf(device, warm.id()).wentOut());
    return device;
  }

  /** Accepts a sync send of {@code text} to {@code to} on {@code node}: its caller then waits. */
  private static Message syncSend(CoreNode node, Device device, String to, String text) {
    return node.messages()
        .accept(
            device,
            new SendRequest(
                List.of(Recipient.number(to)), "text", text, "test", true, false, Duration.ZERO))
        .getFirst();
  }

  @Test
  void aJoiningNodeGetsItsShareAndAStoppingNodeHandsItsDevicesOverAtOnce() {
    Path file = dir.resolve("k.db");
    Clock clock = frozen(); // no lease runs out: B's devices come to A only by B's hand-over
    try (InstanceLock lockA = lock(1);
        CoreNode a = CoreNode.start(file, 1, clock, new ScriptedDriver("scripted", true))) {
      List<Device> devices = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        Device d = a.newDevice("+62811000090" + i);
        devices.add(d);
        a.send(d, "+6281234579000", "warm " + i); // starts its sender on A
      }
      Eventually.until("A holds all four", () -> held(a.db(), "node-1", devices) == 4);

      // B counts as live (its instance lock) only once it is up and looking at the leases. Taken
      // before B started, A handed devices over while B was still starting; a device nobody
      // takes within STRAGGLER_AFTER (3 s) is taken back, and hand-overs then pause for a
      // minute: on a busy machine B's start outlasted that and the wait below ran out.
      CoreNode b = CoreNode.start(file, 2, clock, new ScriptedDriver("scripted", true));
      InstanceLock lockB = null;
      try {
        b.messages().resume();
        lockB = lock(2);
        Eventually.until(
            "B takes its share, A hands it over",
            () -> held(a.db(), "node-1", devices) == 2 && held(a.db(), "node-2", devices) == 2);

        // Every device sends, whichever node accepted the message and whichever holds it.
        List<Message> viaA = new ArrayList<>();
        List<Message> viaB = new ArrayList<>();
        for (Device d : devices) {
          viaA.add(a.send(d, "+6281234579001", "via A"));
          viaB.add(b.send(d, "+6281234579002", "via B"));
        }
        Instant sentFrom = Instant.now();
        Eventually.until(
            "every message sent by its device's holder",
            () ->
                viaA.stream()
                        .allMatch(
                            m -> a.stateOf(a.tenants().device(m.deviceId()), m.id()).wentOut())
                    && viaB.stream()
                        .allMatch(
                            m -> a.stateOf(a.tenants().device(m.deviceId()), m.id()).wentOut()));
        assertThat(Duration.between(sentFrom, Instant.now()))
            .as("a message accepted on the node that does not hold the device: the holder is told")
            .isLessThan(TOLD_WITHIN);
        assertThat(a.driver().sentIds().size() + b.driver().sentIds().size())
            .as("each message sent once, by one node")
            .isEqualTo(12);
      } finally {
        b.close();
        if (lockB != null) {
          lockB.close();
        }
        // On the frozen clock B's leases never run out: A has them only because B's clean stop
        // gave them up, at once, not after the lease time.
        Eventually.until(
            "A takes B's devices once B stopped", () -> held(a.db(), "node-1", devices) == 4);
      }
    }
  }

  @Test
  void aSyncCallerOnOneNodeGetsTheOutcomeOfASendMadeByAnother() {
    Path file = dir.resolve("k.db");
    Clock clock = frozen();
    try (InstanceLock lockA = lock(1);
        CoreNode a = CoreNode.start(file, 1, clock, new ScriptedDriver("scripted", true))) {
      Device device = sentOnce(a, "+6281100009101", "+6281234579100");
      try (InstanceLock lockB = lock(2);
          CoreNode b = CoreNode.start(file, 2, clock, new ScriptedDriver("scripted", true))) {
        Instant started = Instant.now();
        Message sync = syncSend(b, device, "+6281234579101", "wait for me");
        // The caller's deadline is only a hang guard here: a busy machine must not turn SENT into
        // TIMEOUT. Being told in time is the assertion below.
        SendResult result =
            b.messages().awaitFirstOutcome(sync, started.plus(Eventually.GUARD), started);
        assertThat(result).isEqualTo(SendResult.SENT);
        assertThat(a.driver().sentIds()).contains(sync.id());
        assertThat(b.driver().sentIds()).doesNotContain(sync.id());
        assertThat(Duration.between(started, Instant.now()))
            .as("the holder on A is told of the sync message")
            .isLessThan(TOLD_WITHIN);
      }
    }
  }

  @Test
  void aSyncSendWithdrawnByOneNodeIsNeverSentByTheNodeThatHoldsItsDevice() {
    Path file = dir.resolve("k.db");
    Clock clock = Clock.systemUTC();
    try (InstanceLock lockA = lock(1);
        CoreNode a = CoreNode.start(file, 1, clock, new ScriptedDriver("scripted", true))) {
      Device device = sentOnce(a, "+6281100009201", "+6281234579200");
      a.driver().holdSends(); // A's sender is inside its driver with the next message
      Message stuck = a.send(device, "+6281234579201", "stuck in the network");
      Eventually.until(
          "A's driver has it", () -> a.driver().sends().size() == 2); // warm, then stuck
      try (InstanceLock lockB = lock(2);
          CoreNode b = CoreNode.start(file, 2, clock, new ScriptedDriver("scripted", true))) {
        Instant started = Instant.now();
        Message sync = syncSend(b, device, "+6281234579202", "too late");
        // The caller's deadline runs out without a wait worth the name: A's driver holds the
        // send, so no deadline could see it SENT.
        SendResult result = b.messages().awaitFirstOutcome(sync, started.plusMillis(100), started);
        assertThat(result).as("told on B: it did not go out").isNotEqualTo(SendResult.SENT);
        Message withdrawn = b.find(device, sync.id());
        assertThat(withdrawn.state()).isEqualTo(MessageState.FAILED);
        assertThat(withdrawn.reason()).contains(FailureReason.TIMEOUT);

        a.driver().release();
        Message after = a.send(device, "+6281234579203", "after");
        Eventually.until("A sends on", () -> a.stateOf(device, after.id()).wentOut());
        assertThat(a.stateOf(device, stuck.id()).wentOut()).isTrue();
        assertThat(a.driver().sentIds())
            .as("withdrawn on B while A held the device: A never sends it")
            .doesNotContain(sync.id());
        assertThat(b.driver().sentIds()).isEmpty();
      }
    }
  }

  @Test
  void aLeaseThatMovedIsLetGoAndARestartedNodeTakesItsOwnBackAtOnce() {
    Path file = dir.resolve("k.db");
    // Frozen: node 1's lease below must not run out while the test runs. On the wall clock it had
    // what was left of B's last renewal (10 to 15 s); on a busy machine B let go and node 1
    // started later than that, B took the expired lease back as its own, and node 1 found it
    // taken. That is the product working (a lease that ran out is anybody's), the test racing it.
    Clock clock = frozen();
    ScriptedDriver driverA = new ScriptedDriver("scripted", true);
    ScriptedDriver driverB = new ScriptedDriver("scripted", true);
    try (InstanceLock lockB = lock(2);
        CoreNode b = CoreNode.start(file, 2, clock, driverB)) {
      Device device = b.newDevice("+6281100009201");
      Message warm = b.send(device, "+6281234579200", "warm");
      Eventually.until("B sends", () -> b.stateOf(device, warm.id()).wentOut());

      // Node 1 held the device before it was cut off, and its lease has not run out: the table
      // gives it to node 1, so B, which thought it held it, stops sending for it.
      b.db()
          .writes()
          .write(
              h ->
                  h.execute(
                      "UPDATE device_lease SET owner = 'node-1' WHERE device_id = ?", device.id()));
      Eventually.until(
          "B lets the device go", () -> driverB.events().contains("detach " + device.id()));

      try (InstanceLock lockA = lock(1);
          CoreNode a = CoreNode.start(file, 1, clock, driverA)) {
        a.messages().resume();
        // At once, not after the lease time: on the frozen clock its lease never runs out.
        Eventually.until(
            "node 1 takes its own lease back",
            () -> driverA.events().contains("attach " + device.id()));
        assertThat(owners(a.db())).containsEntry(device.id(), "node-1");
        Message after = b.send(device, "+6281234579201", "after");
        Eventually.until("sent by node 1", () -> driverA.sentIds().contains(after.id()));
        assertThat(driverB.sentIds()).doesNotContain(after.id());
      }
    }
  }

  @Test
  void aSecondNodeWithALiveNodeIdIsRefusedAndTheIdIsFreeAgainOnceItsNodeStops() {
    InstanceLock first = lock(3);
    try {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> lock(3))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("another Kurir gateway is running as node.id 3");
      try (InstanceLock other = lock(4)) {
        assertThat(TestDatabases.onPostgres()).isTrue(); // another id shares the database
      }
    } finally {
      first.close();
    }
    try (InstanceLock again = lock(3)) {
      assertThat(again).isNotNull(); // a restarted node takes its id back at once
    }
  }
}
