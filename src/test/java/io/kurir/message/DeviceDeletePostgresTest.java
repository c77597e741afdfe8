package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.CoreNode;
import io.kurir.testing.Eventually;
import io.kurir.testing.OnPostgreSQL;
import io.kurir.testing.ScriptedDriver;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/**
 * {@link DeviceDeleteTest} on PostgreSQL, and with two nodes: a device held by one node and deleted
 * through the other is detached by the first at once (the other's signal), not at its next look.
 */
@OnPostgreSQL
class DeviceDeletePostgresTest extends DeviceDeleteTest {
  @Test
  void aDeviceHeldByOneNodeAndDeletedThroughAnotherIsDetachedByTheFirst() {
    Path file = dir.resolve("k.db");
    ScriptedDriver heldBy = new ScriptedDriver("scripted", false);
    ScriptedDriver other = new ScriptedDriver("scripted", false);
    try (CoreNode one = CoreNode.start(file, 1, Clock.systemUTC(), heldBy);
        CoreNode two = CoreNode.start(file, 2, Clock.systemUTC(), other)) {
      Device device = one.newDevice("+6281100007203");
      Message sent = one.send(device, "+6281234572021", "sent by node one");
      Eventually.until("sent by node one", () -> one.stateOf(device, sent.id()).wentOut());
      heldBy.setConnected(false); // what follows waits in the queue
      Message queued = one.send(device, "+6281234572022", "queued");

      long began = System.nanoTime();
      two.tenants().deleteDevice(device.id());
      Eventually.until(
          "detached by node one", () -> heldBy.events().contains("detach " + device.id()));
      assertThat((System.nanoTime() - began) / 1_000_000)
          .as("through the signal, not the 30 s look (half of it: a busy machine's slack)")
          .isLessThan(15_000);
      Eventually.until(
          "the queue ended", () -> one.stateOf(device, queued.id()) == MessageState.FAILED);
      assertThat(one.find(device, queued.id()).reason()).contains(FailureReason.DEVICE_DELETED);
      assertThat(heldBy.sentIds()).containsExactly(sent.id());
    }
  }
}
