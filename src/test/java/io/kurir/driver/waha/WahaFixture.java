package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.DriverFactory;
import io.kurir.message.Message;
import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeWaha;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestTables;
import io.kurir.time.SettableClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A gateway whose waha driver talks to a {@link FakeWaha}, on a port known before it starts (the
 * engine must be told {@code public.callback-url}), and helpers to drive one waha device.
 */
final class WahaFixture implements AutoCloseable {
  static final String RESELLER_SECRET = "reseller-secret-0123456789abcdef";

  final SettableClock clock = TestGateway.settableClock();
  final FakeWaha waha = new FakeWaha(clock);
  final TestGateway kurir;
  License license;
  Partner partner;

  WahaFixture(Path dir, String... flags) {
    this(dir, null, flags);
  }

  /** As {@link #WahaFixture(Path, String...)}, with the waha driver that {@code driver} makes. */
  WahaFixture(Path dir, DriverFactory driver, String... flags) {
    int port = freePort();
    List<String> all = new ArrayList<>();
    all.add("--server.port=" + port);
    all.add("--public.callback-url=http://127.0.0.1:" + port);
    all.add("--drivers.waha.url=" + waha.url());
    all.add("--drivers.waha.api-key=" + FakeWaha.API_KEY);
    all.add("--drivers.waha.timeout=5s");
    all.add("--drivers.waha.pacing.min-gap=0ms");
    all.add("--drivers.waha.pacing.jitter=0ms");
    all.addAll(List.of(flags));
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

  /** A new waha device (with its partner and license), whose session is attached on the engine. */
  Device newDevice(String number, Map<String, String> config) {
    var tenants = kurir.gateway().tenants();
    partner =
        tenants.createPartner("Reseller " + number, "", "r" + number.substring(1), RESELLER_SECRET);
    license = tenants.createLicense(partner.id(), "Toko", "", null, List.of());
    return tenants.createDevice(license.id(), number, "waha", config);
  }

  /** A new waha device whose session the phone {@code number} scanned: online. */
  Device paired(String number) {
    Device device = newDevice(number, Map.of());
    String name = "kurir-" + device.id();
    awaitSession(name, "SCAN_QR_CODE");
    waha.scan(name, number.substring(1));
    Eventually.until("online", () -> eco(device, "/api/qr_status").equals("online"));
    return device;
  }

  /** Waits for the device's session on the engine to show {@code status}. */
  FakeWaha.Session awaitSession(String name, String status) {
    Eventually.until(
        "session " + name + " " + status,
        () -> waha.session(name) != null && waha.session(name).status().equals(status));
    return waha.session(name);
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

  Optional<String> networkId(long id) {
    return kurir.networkIdOf(id);
  }

  int storedIncoming(Device device) {
    return kurir.storedIncoming(device.id());
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

  /** The license answers {@code keyword} with {@code response} (the Partner API's bots). */
  void addBot(String keyword, String response) {
    TestGateway.Reply bot =
        kurir.post(
            "/v4.0/wa_partner/add_bot",
            "license="
                + license.code()
                + "&bot_keyword="
                + keyword
                + "&bot_response="
                + response.replace(' ', '+')
                + "&bot_type=match",
            "application/x-www-form-urlencoded",
            "Authorization",
            "Basic "
                + Base64.getEncoder()
                    .encodeToString(
                        (partner.basicUser() + ":" + RESELLER_SECRET)
                            .getBytes(StandardCharsets.UTF_8)));
    assertThat(bot.status()).as(bot.body()).isEqualTo(200);
  }

  @Override
  public void close() {
    try {
      assertThat(waha.violations()).as("what the fake WAHA refused").isEmpty();
    } finally {
      kurir.close();
      waha.close();
    }
  }
}
