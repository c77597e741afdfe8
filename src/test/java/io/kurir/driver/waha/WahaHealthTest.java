package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeWaha;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduled probe: a status change the engine did not post is noticed and recorded as a device
 * event; messages wait while the engine is down and go once it is back; a session the engine calls
 * WORKING that does not answer is reported failed, restarted, and online again once it answers; a
 * quiet one is left alone.
 */
class WahaHealthTest {
  @TempDir Path dir;

  private static List<String> events(WahaFixture f, Device device) {
    return f.events(device);
  }

  /** A new device whose number is linked on the engine, once its online state is recorded. */
  private static Device linked(WahaFixture f, String digits) {
    Device device = f.newDevice("+" + digits, Map.of());
    String name = "kurir-" + device.id();
    f.awaitSession(name, "SCAN_QR_CODE");
    f.waha.scan(name, digits);
    Eventually.until(
        "online recorded", () -> events(f, device).stream().anyMatch(e -> e.startsWith("online")));
    return device;
  }

  @Test
  void aSilentChangeIsNoticedAndMessagesWaitForAnEngineThatIsDown() {
    try (WahaFixture f = new WahaFixture(dir, "--drivers.waha.health-every=100ms")) {
      Device device = linked(f, "6281100008401");
      String name = "kurir-" + device.id();

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
      f.clock.advance(WahaDriver.RETRY_MAX); // the next try of the engine is due
      f.awaitState(device, id, MessageState.SENT);
    }
  }

  @Test
  void aStalledSessionIsReportedRestartedAndOnlineAgainWhileAQuietOneIsLeftAlone() {
    try (WahaFixture f =
        new WahaFixture(
            dir, "--drivers.waha.health-every=100ms", "--drivers.waha.probe-timeout=300ms")) {
      Device device = linked(f, "6281100008411");
      String name = "kurir-" + device.id();

      // Quiet: no events for many probes is not a stall.
      long probesBefore = f.waha.calls().stream().filter(c -> c.endsWith("/me")).count();
      Eventually.until(
          "ten probes of a quiet session",
          () ->
              f.waha.calls().stream().filter(c -> c.endsWith("/me")).count() >= probesBefore + 10);
      assertThat(f.waha.restarts(name)).isZero();
      assertThat(events(f, device)).noneMatch(e -> e.startsWith("failed"));

      // A stall: still WORKING on the engine, but the session's own call hangs.
      f.waha.stall(name, FakeWaha.Stall.HANG);
      Eventually.until(
          "the stall reported",
          () ->
              events(f, device).stream()
                  .anyMatch(e -> e.startsWith("failed") && e.contains("does not answer")));
      Eventually.until("restarted on the engine", () -> f.waha.restarts(name) == 1);
      Eventually.until("online again", () -> events(f, device).getLast().startsWith("online"));
      assertThat(f.eco(device, "/api/qr_status")).isEqualTo("online");

      // A stall whose call fails outright is one too; messages go once it is cured.
      f.waha.stall(name, FakeWaha.Stall.ERROR);
      Eventually.until("restarted again", () -> f.waha.restarts(name) == 2);
      Eventually.until(
          "reported again, then online once more",
          () ->
              events(f, device).stream().filter(e -> e.startsWith("failed")).count() == 2
                  && events(f, device).getLast().startsWith("online"));
      long id = f.sendAsync(device, "6281100008419", "setelah restart");
      f.awaitState(device, id, MessageState.SENT);
      assertThat(
              f.tables().deviceEventsOf(device.id()).stream()
                  .filter(e -> e.newState().equals("failed"))
                  .map(e -> e.reason().orElse(null)))
          .allMatch(r -> r.contains("restarting"));
    }
  }
}
