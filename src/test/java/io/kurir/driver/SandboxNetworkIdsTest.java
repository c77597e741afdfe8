package io.kurir.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.Gateway;
import io.kurir.config.Settings;
import io.kurir.config.SettingsLoader;
import io.kurir.config.SettingsLoader.Profile;
import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestTables;
import io.kurir.time.SettableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sandbox network lives in the gateway's process: after a restart it is a new network, but the
 * database remembers the network ids of every message, in and out. The new network's ids must not
 * collide with them, or a new incoming message is dropped as a redelivery and the receipts of a new
 * send move an old message.
 */
class SandboxNetworkIdsTest {
  @TempDir Path dir;
  final SettableClock clock = TestGateway.settableClock();
  final HttpClient http = HttpClient.newHttpClient();

  private Settings settings() {
    return SettingsLoader.load(
        Profile.SERVE,
        List.of(
            "--server.host=127.0.0.1",
            "--server.port=0",
            "--data.dir=" + dir.resolve("data"),
            "--drivers.sandbox.pacing.min-gap=0ms",
            "--drivers.sandbox.pacing.jitter=0ms",
            "--drivers.sandbox.delivery-after=1s",
            "--drivers.sandbox.read-after=2s"),
        Map.of(),
        dir);
  }

  private long send(Gateway gateway, Device device, String to) throws Exception {
    HttpResponse<String> reply =
        http.send(
            HttpRequest.newBuilder(URI.create(gateway.baseUrl() + "/api/async_send_message"))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"key\":\""
                            + device.ecoKey()
                            + "\",\"phone_no\":\""
                            + to
                            + "\",\"message\":\"hi\"}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return Long.parseLong(reply.body());
  }

  private static MessageState state(Gateway gateway, Device device, long id) {
    return gateway.messages().find(device, id).orElseThrow().state();
  }

  private static int incoming(Gateway gateway, long deviceId) {
    return TestTables.of(gateway.database()).inboundOf(deviceId).size();
  }

  /** One run of the gateway: a message in, a message out and read. Returns the one sent. */
  private long oneRun(Gateway gateway, Device device, int incomingBefore) throws Exception {
    gateway.sandbox().pair(device.id(), device.number());
    assertThat(gateway.sandbox().injectIncoming(device.id(), Numbers.fresh(), "halo")).isTrue();
    assertThat(incoming(gateway, device.id()))
        .as("a new message, not a redelivery")
        .isEqualTo(incomingBefore + 1);
    long id = send(gateway, device, Numbers.fresh());
    Eventually.until("sent", () -> state(gateway, device, id) == MessageState.SENT);
    clock.advance(Duration.ofSeconds(3));
    Eventually.until("read", () -> state(gateway, device, id) == MessageState.READ);
    return id;
  }

  @Test
  void aRestartedSandboxGivesIdsThatDoNotCollideWithTheStoredOnes() throws Exception {
    Device device;
    long first;
    try (Gateway gateway = Gateway.start(settings(), clock)) {
      var partner = gateway.tenants().createPartner("P", "");
      var license = gateway.tenants().createLicense(partner.id(), "L", "", null, List.of());
      device = gateway.tenants().createDevice(license.id(), "+6281100007901", "sandbox");
      first = oneRun(gateway, device, 0);
    }
    try (Gateway gateway = Gateway.start(settings(), clock)) {
      long second = oneRun(gateway, device, 1);
      assertThat(state(gateway, device, first)).isEqualTo(MessageState.READ);
      TestTables tables = TestTables.of(gateway.database());
      String[] ids =
          java.util.stream.Stream.of(first, second)
              .map(id -> tables.message(id).flatMap(TestTables.MessageRow::networkId).orElse(null))
              .toArray(String[]::new);
      assertThat(ids).hasSize(2).doesNotHaveDuplicates();
    }
  }
}
