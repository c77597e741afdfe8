package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.DeviceSessionStore;
import io.kurir.tenant.Device;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session's status follows the order in which the engine was asked, not the order its answers
 * came back: a read that found {@code SCAN_QR_CODE} before the phone scanned, answered after a
 * later read found {@code WORKING}, does not unlink the device (seen beside a CPU hog: the device
 * never showed connected, as no later webhook came to mend it).
 */
class WahaStatusReadsTest {
  @TempDir Path dir;

  @Test
  void aReadAnsweredAfterALaterOneDoesNotOverwriteItsStatus() {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = f.newDevice("6281100028932", Map.of());
      WahaSessions sessions =
          new WahaSessions(
              new DeviceSessionStore(f.kurir.gateway().database(), f.clock, "waha-reads"));
      long beforeTheScan = sessions.nextRead(); // asked first, answered last
      long afterTheScan = sessions.nextRead();
      assertThat(sessions.setStatus(device.id(), "WORKING", afterTheScan)).isTrue();
      assertThat(sessions.overtaken(device.id(), beforeTheScan)).isTrue();
      assertThat(sessions.setStatus(device.id(), "SCAN_QR_CODE", beforeTheScan)).isFalse();
      assertThat(sessions.status(device.id())).contains("WORKING");
      // What Kurir learns afterwards (a read asked later, its own word) is taken.
      assertThat(sessions.setStatus(device.id(), "STOPPED")).isTrue();
      assertThat(sessions.status(device.id())).contains("STOPPED");
    }
  }
}
