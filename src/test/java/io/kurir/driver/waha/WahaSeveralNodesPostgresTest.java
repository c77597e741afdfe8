package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeWaha;
import io.kurir.testing.OnPostgreSQL;
import io.kurir.testing.QrCamera;
import io.kurir.testing.TestDatabases;
import io.kurir.testing.TestGateway;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two gateways on one PostgreSQL database and one WAHA engine: the node that does not hold a device
 * answers its {@code generate_qr} and {@code qr_status} from the driver state both share, and a
 * message it accepts for the device is sent by the node that holds it.
 */
@OnPostgreSQL
class WahaSeveralNodesPostgresTest {
  @TempDir Path dir;
  @TempDir Path otherDir;

  @Test
  void theNodeThatDoesNotHoldADeviceAnswersItsQrAndItsSendsGoOutThroughTheHolder()
      throws Exception {
    try (WahaFixture f = new WahaFixture(dir, "--node.id=1")) {
      Device device = f.newDevice("+6281100008301", Map.of());
      String name = "kurir-" + device.id();
      f.awaitSession(name, "SCAN_QR_CODE"); // attached by the node that created it

      List<String> flags = new ArrayList<>();
      flags.add("--node.id=2");
      flags.add("--drivers.waha.url=" + f.waha.url());
      flags.add("--drivers.waha.api-key=" + FakeWaha.API_KEY);
      flags.add("--drivers.waha.pacing.min-gap=0ms");
      flags.add("--drivers.waha.pacing.jitter=0ms");
      flags.addAll(TestDatabases.flags(dir.resolve("data").resolve("kurir.db")));
      try (TestGateway other = TestGateway.start(otherDir, f.clock, flags.toArray(String[]::new))) {
        String key = "{\"key\":\"" + device.ecoKey() + "\"";
        String qr = other.postJson("/api/generate_qr", key + "}").body();
        assertThat(QrCamera.read(qr))
            .as("the engine's QR, through the other node")
            .startsWith("2@");
        assertThat(other.postJson("/api/qr_status", key + "}").body()).isEqualTo("none");

        f.waha.scan(name, "6281100008301");
        Eventually.until(
            "online, seen by the other node",
            () -> other.postJson("/api/qr_status", key + "}").body().equals("online"));

        String id =
            other
                .postJson(
                    "/api/async_send_message",
                    key + ",\"phone_no\":\"6281100008302\",\"message\":\"lewat node 2\"}")
                .body();
        assertThat(id).matches("\\d+");
        f.awaitState(device, Long.parseLong(id), MessageState.SENT);
        assertThat(f.waha.sent()).hasSize(1);
        assertThat(f.waha.sent().getFirst().body().path("session").asText()).isEqualTo(name);
      }
    }
  }
}
