package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduled probe: a status change the engine did not post is noticed and recorded as a device
 * event; messages wait while the engine is down and go once it is back.
 */
class WahaHealthTest {
  @TempDir Path dir;

  private static List<String> events(WahaFixture f, Device device) {
    return f.texts(
        "SELECT new_state || ' ' || COALESCE(reason, '') FROM device_event"
            + " WHERE device_id = ? ORDER BY at, rowid",
        device.id());
  }

  @Test
  void aSilentChangeIsNoticedAndMessagesWaitForAnEngineThatIsDown() {
    try (WahaFixture f = new WahaFixture(dir, "--drivers.waha.health-every=100ms")) {
      Device device = f.newDevice("+6281100008401", Map.of());
      String name = "kurir-" + device.id();
      f.awaitSession(name, "SCAN_QR_CODE");
      f.waha.scan(name, "6281100008401");
      Eventually.until(
          "online recorded",
          () -> events(f, device).stream().anyMatch(e -> e.startsWith("online")));

      f.waha.silently(name, "FAILED");
      Eventually.until(
          "noticed by the probe",
          () ->
              events(f, device).stream()
                  .anyMatch(e -> e.startsWith("failed") && e.contains("health probe")));

      f.waha.silently(name, "WORKING");
      Eventually.until("working again", () -> events(f, device).getLast().startsWith("online"));
      f.waha.down();
      long id = f.sendAsync(device, "6281100008409", "menunggu");
      Eventually.until(
          "engine seen down", () -> f.eco(device, "/api/qr_status").equals("port_down"));
      assertThat(f.message(device, id).state()).isIn(MessageState.PENDING, MessageState.SENDING);
      f.waha.up();
      f.awaitState(device, id, MessageState.SENT);
    }
  }
}
