package io.kurir.driver.gowa;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.DriverFactory;
import io.kurir.message.Message;
import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGowa;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestTables;
import io.kurir.time.SettableClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A gateway whose gowa driver talks to a {@link FakeGowa} started with {@code
 * --webhook=<gateway>/drivers/gowa/webhook} and Kurir's webhook secret, and helpers to drive gowa
 * devices.
 */
final class GowaFixture implements AutoCloseable {
  final SettableClock clock = TestGateway.settableClock();
  final FakeGowa gowa = new FakeGowa(clock);
  final TestGateway kurir;

  GowaFixture(Path dir, String... flags) {
    this(dir, null, flags);
  }

  /** As {@link #GowaFixture(Path, String...)}, with the gowa driver that {@code driver} makes. */
  GowaFixture(Path dir, DriverFactory driver, String... flags) {
    this(dir, driver, "", flags);
  }

  /** A GOWA run with {@code APP_BASE_PATH=basePath}, {@code drivers.gowa.url} ending in it. */
  static GowaFixture withBasePath(Path dir, String basePath) {
    return new GowaFixture(dir, null, basePath, new String[0]);
  }

  private GowaFixture(Path dir, DriverFactory driver, String basePath, String[] flags) {
    gowa.basePath(basePath);
    int port = freePort();
    List<String> all = new ArrayList<>();
    all.add("--server.port=" + port);
    all.add("--drivers.gowa.url=" + gowa.url());
    all.add("--drivers.gowa.basic-auth=" + FakeGowa.basicAuth());
    all.add("--drivers.gowa.webhook-secret=" + FakeGowa.WEBHOOK_SECRET);
    all.add("--drivers.gowa.timeout=5s");
    all.add("--drivers.gowa.pacing.min-gap=0ms");
    all.add("--drivers.gowa.pacing.jitter=0ms");
    all.addAll(List.of(flags));
    gowa.webhook("http://127.0.0.1:" + port + "/drivers/gowa/webhook");
    kurir =
        driver == null
            ? TestGateway.start(dir, clock, all.toArray(String[]::new))
            : TestGateway.start(dir, clock, driver, all.toArray(String[]::new));
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 0, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A new gowa device (with its partner and license); its slot is made on GOWA. */
  Device newDevice(String number) {
    return newDevice(number, Map.of());
  }

  Device newDevice(String number, Map<String, String> config) {
    Device device = kurir.newDevice(number, "gowa", config);
    String slot = config.getOrDefault("device-id", "kurir-" + device.id());
    Eventually.until("slot " + slot + " on GOWA", () -> gowa.slot(slot) != null);
    return device;
  }

  /** A new device whose phone scanned its QR code: online. */
  Device linked(String number) {
    Device device = newDevice(number);
    String slot = slot(device);
    assertThat(eco(device, "/api/generate_qr")).startsWith("data:image/png;base64,");
    gowa.scan(slot, number.substring(1));
    Eventually.until("online", () -> eco(device, "/api/qr_status").equals("online"));
    return device;
  }

  static String slot(Device device) {
    return "kurir-" + device.id();
  }

  String eco(Device device, String path, String... extra) {
    StringBuilder b = new StringBuilder("{\"key\":\"").append(device.ecoKey()).append('"');
    for (int i = 0; i + 1 < extra.length; i += 2) {
      b.append(",\"").append(extra[i]).append("\":\"").append(extra[i + 1]).append('"');
    }
    return kurir.postJson(path, b.append('}').toString()).body();
  }

  /** Queues a text; its Kurir id. */
  long sendAsync(Device device, String to, String text) {
    String r = eco(device, "/api/async_send_message", "phone_no", to, "message", text);
    assertThat(r).as(r).matches("\\d+");
    return Long.parseLong(r);
  }

  Message message(Device device, long id) {
    return kurir.gateway().messages().find(device, id).orElseThrow();
  }

  void awaitState(Device device, long id, MessageState state) {
    Eventually.until(
        "message " + id + " " + state.wireName(), () -> message(device, id).state() == state);
  }

  /** The tables this gateway's tests read. */
  TestTables tables() {
    return TestTables.of(kurir);
  }

  /** The device's stored incoming messages, oldest first. */
  List<TestTables.InboundRow> inbound(Device device) {
    return tables().inboundOf(device.id());
  }

  /** The device's history, oldest first: {@code "<state> <reason>"}. */
  List<String> events(Device device) {
    return tables().historyOf(device.id());
  }

  /** The device's last history entry, "" while it has none. */
  String lastEvent(Device device) {
    List<String> all = events(device);
    return all.isEmpty() ? "" : all.getLast();
  }

  TestGateway.Reply admin(String path) {
    return kurir.post(
        path, "", "application/json", "Authorization", "Bearer " + TestGateway.ADMIN_TOKEN);
  }

  License licenseOf(Device device) {
    return kurir.licenseOf(device);
  }

  Partner partnerOf(Device device) {
    return kurir.partnerOf(device);
  }

  @Override
  public void close() {
    try {
      assertThat(gowa.violations()).as("what the fake GOWA refused").isEmpty();
    } finally {
      kurir.close();
      gowa.close();
    }
  }
}
