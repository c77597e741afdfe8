package io.kurir.driver.gowa;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.DeviceSessionStore;
import io.kurir.tenant.Device;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A slot's status follows the order in which GOWA was asked, not the order the answers came back:
 * the gateway's attach of a new device (answered "not paired") that finishes after the linking's
 * read found it logged in does not write the older status over the newer one (the device looked not
 * connected, and a send answered DeviceUnavailable).
 */
class GowaSlotsTest {
  @TempDir Path dir;

  @Test
  void aStatusReadBeforeANewerOneDoesNotOverwriteIt() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.newDevice("+6281100028931");
      GowaSlots slots =
          new GowaSlots(new DeviceSessionStore(f.kurir.gateway().database(), f.clock, "gowa"));
      long attach = slots.nextRead(); // asked first, answered last
      long linking = slots.nextRead();
      assertThat(slots.setStatus(device.id(), GowaStatus.LOGGED_IN, linking)).isTrue();
      assertThat(slots.setStatus(device.id(), GowaStatus.NOT_PAIRED, attach)).isFalse();
      assertThat(slots.status(device.id())).contains(GowaStatus.LOGGED_IN);
      // What Kurir learns afterwards (a read asked later, its own word) is taken.
      assertThat(slots.setStatus(device.id(), GowaStatus.PAIRED_AWAY)).isTrue();
      assertThat(slots.status(device.id())).contains(GowaStatus.PAIRED_AWAY);
    }
  }
}
