package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.store.Database;
import io.kurir.tenant.Device;
import io.kurir.testing.CoreNode;
import io.kurir.testing.Eventually;
import io.kurir.testing.ScriptedDriver;
import io.kurir.testing.TestTables;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Two nodes on one database: a device is sent for by the holder of its lease only; another node
 * takes it over once the lease has expired, and applies the crash rule to what the first left
 * {@code sending}.
 */
@Isolated(
    "measures the CPU time of every kurir-writer thread started meanwhile: another test's gateway would count")
class LeaseTakeoverTest {
  @TempDir Path dir;

  private static Optional<String> leaseOwner(Database db, long deviceId) {
    return TestTables.of(db).leaseOwner(deviceId);
  }

  private static Set<Long> writerThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals("kurir-writer"))
        .map(Thread::threadId)
        .collect(Collectors.toSet());
  }

  /**
   * The CPU time used by the writer threads started since {@code before} (the second node's): a
   * sender that waits for a lease must wait, not ask the database again and again.
   */
  private static long cpuNanosOfWritersSince(Set<Long> before) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long total = 0;
    for (long id : writerThreads()) {
      if (!before.contains(id)) {
        total += Math.max(0, threads.getThreadCpuTime(id));
      }
    }
    return total;
  }

  private void takeOver(boolean secondDriverDeduplicates) {
    Clock clock = Clock.systemUTC();
    Path file = dir.resolve("k.db");
    ScriptedDriver first = new ScriptedDriver("scripted", false);
    ScriptedDriver second = new ScriptedDriver("scripted", secondDriverDeduplicates);
    try (CoreNode a = CoreNode.start(file, 1, clock, first)) {
      Device device = a.newDevice("+6281100007001");
      first.holdSends(); // node A is stuck in its send: it holds the lease, m1 is "sending"
      Message m1 = a.send(device, "+6281234570001", "one");
      Eventually.until("node A sends m1", () -> first.sentIds().contains(m1.id()));
      assertThat(leaseOwner(a.db(), device.id())).contains("node-1");
      assertThat(a.stateOf(device, m1.id())).isEqualTo(MessageState.SENDING);

      Set<Long> writersBefore = writerThreads();
      try (CoreNode b = CoreNode.start(file, 2, clock, second)) {
        Message m2 = b.send(device, "+6281234570002", "two");
        long cpuBefore = cpuNanosOfWritersSince(writersBefore);
        // A negative check needs a window of time: half a second in which node B, its sender
        // started and woken by m2, must neither take the device nor send anything.
        long until = System.nanoTime() + Duration.ofMillis(500).toNanos();
        while (System.nanoTime() < until) {
          assertThat(second.events())
              .as("node B attaches nothing while A holds the lease")
              .isEmpty();
          assertThat(b.stateOf(device, m2.id())).isEqualTo(MessageState.PENDING);
          LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }
        long cpuWaiting = cpuNanosOfWritersSince(writersBefore) - cpuBefore;
        assertThat(Duration.ofNanos(cpuWaiting))
            .as("node B's database writer while its sender waits for the lease")
            .isLessThan(Duration.ofMillis(50));
        assertThat(leaseOwner(b.db(), device.id())).contains("node-1");

        // A's lease runs out (it stopped renewing it); B's sender looks again when woken.
        b.db()
            .writes()
            .write(
                h ->
                    h.execute(
                        "UPDATE device_lease SET expires_at = 0 WHERE device_id = ?", device.id()));
        Message m3 = b.send(device, "+6281234570003", "three");

        Eventually.until(
            "node B sends what waited",
            () -> second.sentIds().containsAll(List.of(m2.id(), m3.id())));
        assertThat(leaseOwner(b.db(), device.id())).contains("node-2");
        assertThat(second.events().getFirst())
            .as("attached before anything is sent")
            .isEqualTo("attach " + device.id());
        Eventually.until(
            "m2 and m3 recorded as sent",
            () -> b.stateOf(device, m3.id()).wentOut() && b.stateOf(device, m2.id()).wentOut());
        if (secondDriverDeduplicates) {
          Eventually.until("m1 sent again", () -> b.stateOf(device, m1.id()).wentOut());
          assertThat(second.sentIds()).containsExactly(m1.id(), m2.id(), m3.id());
        } else {
          Message interrupted = b.find(device, m1.id());
          assertThat(interrupted.state()).isEqualTo(MessageState.FAILED);
          assertThat(interrupted.reason()).contains(FailureReason.INTERRUPTED);
          assertThat(second.sentIds()).containsExactly(m2.id(), m3.id());
        }
      }
    }
  }

  @Test
  void anotherNodeWaitsForTheLeaseThenTakesOverAndFailsWhatWasCutOff() {
    takeOver(false);
  }

  @Test
  void aNodeTakingOverSendsAgainWhatWasCutOffWhenItsDriverDeduplicates() {
    takeOver(true);
  }
}
