package io.kurir.bench;

import io.kurir.Gateway;
import io.kurir.bench.Bench.Row;
import io.kurir.store.Database;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.testing.FakeGowa;
import io.kurir.testing.FakeWaha;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The {@code waha} and {@code gowa} rows: a gateway whose devices are on the WAHA or GOWA driver,
 * talking to the fake engine of the tests ({@link FakeWaha}, {@link FakeGowa}: compiled from {@code
 * src/test} with the bench, unchanged) on loopback, pacing off. {@value #DEVICES} devices are
 * paired as the driver tests pair them (the phone scans the QR code); then about {@value #MESSAGES}
 * texts are accepted through the Eco API ({@code async_send_message} under wrk, the devices' keys
 * in turn) while the devices send, and the figure is the messages sent (the engine answered the
 * send) a second, from the first request to the last one sent, as the sandbox's end-to-end row
 * counts them. A number of requests rather than wrk's fixed time: the fakes keep every call and
 * message they got in copy-on-write lists (for the tests' assertions), whose cost grows with each
 * one, so a run of wrk's size would measure the fake's bookkeeping.
 */
final class DriverBench {
  private static final String RECIPIENT = "+6281234567890";
  private static final int DEVICES = 20;
  private static final int MESSAGES = 20_000;

  private final NodesBench.Starter start;
  private final Wrk wrk;
  private final List<Row> rows;

  DriverBench(NodesBench.Starter start, Wrk wrk, List<Row> rows) {
    this.start = start;
    this.wrk = wrk;
    this.rows = rows;
  }

  void waha() throws Exception {
    Bench.log("WAHA driver against the fake WAHA, " + DEVICES + " devices");
    try (FakeWaha waha = new FakeWaha(Clock.systemUTC())) {
      int port = Bench.freePort();
      try (Gateway gateway =
          start.start(
              "waha",
              "--server.port=" + port,
              "--public.callback-url=http://127.0.0.1:" + port,
              "--drivers.waha.url=" + waha.url(),
              "--drivers.waha.api-key=" + FakeWaha.API_KEY,
              "--drivers.waha.pacing.min-gap=0ms",
              "--drivers.waha.pacing.jitter=0ms")) {
        License license = Bench.newLicense(gateway.tenants());
        List<Device> devices = new ArrayList<>();
        for (int i = 0; i < DEVICES; i++) {
          String number = String.format(Locale.ROOT, "+62818%07d", 6_000_000 + i);
          Device d = gateway.tenants().createDevice(license.id(), number, "waha");
          String session = "kurir-" + d.id();
          await(
              "session " + session + " showing its QR code",
              () ->
                  waha.session(session) != null
                      && waha.session(session).status().equals("SCAN_QR_CODE"));
          waha.scan(session, number.substring(1));
          awaitOnline(gateway, d);
          devices.add(d);
        }
        measure(gateway, devices, "WAHA", waha::calls, waha::sent, waha::violations);
      }
    }
  }

  void gowa() throws Exception {
    Bench.log("GOWA driver against the fake GOWA, " + DEVICES + " devices");
    try (FakeGowa gowa = new FakeGowa(Clock.systemUTC())) {
      int port = Bench.freePort();
      gowa.webhook("http://127.0.0.1:" + port + "/drivers/gowa/webhook");
      try (Gateway gateway =
          start.start(
              "gowa",
              "--server.port=" + port,
              "--drivers.gowa.url=" + gowa.url(),
              "--drivers.gowa.basic-auth=" + FakeGowa.basicAuth(),
              "--drivers.gowa.webhook-secret=" + FakeGowa.WEBHOOK_SECRET,
              "--drivers.gowa.pacing.min-gap=0ms",
              "--drivers.gowa.pacing.jitter=0ms")) {
        License license = Bench.newLicense(gateway.tenants());
        List<Device> devices = new ArrayList<>();
        for (int i = 0; i < DEVICES; i++) {
          String number = String.format(Locale.ROOT, "+62819%07d", 7_000_000 + i);
          Device d = gateway.tenants().createDevice(license.id(), number, "gowa");
          String slot = "kurir-" + d.id();
          await("slot " + slot + " on GOWA", () -> gowa.slot(slot) != null);
          String qr = eco(gateway, d, "/api/generate_qr");
          if (!qr.startsWith("data:image/png;base64,")) {
            throw new IllegalStateException("generate_qr answered " + qr);
          }
          gowa.scan(slot, number.substring(1));
          awaitOnline(gateway, d);
          devices.add(d);
        }
        measure(gateway, devices, "GOWA", gowa::calls, gowa::sent, gowa::violations);
      }
    }
  }

  /**
   * Sends through the paired {@code devices} and adds the row, with what the fake {@code engine}
   * counted: its calls during the run, its sends, and what it refused (none, or the row fails).
   */
  private void measure(
      Gateway gateway,
      List<Device> devices,
      String engine,
      Supplier<List<?>> calls,
      Supplier<List<?>> sends,
      Supplier<List<String>> violations)
      throws Exception {
    int callsBefore = calls.get().size();
    Run run = send(gateway, devices);
    int during = calls.get().size() - callsBefore;
    if (!violations.get().isEmpty()) {
      throw new IllegalStateException("the fake " + engine + " refused: " + violations.get());
    }
    rows.add(run.row(engine + " driver, fake " + engine, sends.get().size(), during, engine));
  }

  /** One run's figures: messages sent, over how long, and how fast they were accepted. */
  private record Run(long accepted, long sent, double seconds, double acceptedPerSecond) {
    Row row(String name, long engineGot, int engineCalls, String engine) {
      return new Row(
          name,
          String.format(Locale.ROOT, "%,.0f msg/s", sent / seconds),
          Double.NaN, // messages sent, not requests: no ratio to the no-op's requests
          "",
          "",
          String.format(
              Locale.ROOT,
              "%,d texts accepted through async_send_message (wrk, accepted at %,.0f/s) over %d"
                  + " devices, pacing off, %,d sent %.1f s after the first request; the fake %s"
                  + " got %,d sends and %,d calls in all (%.1f a message); target ≥ 1,000 msg/s",
              accepted,
              acceptedPerSecond,
              DEVICES,
              sent,
              seconds,
              engine,
              engineGot,
              engineCalls,
              engineCalls / (double) accepted));
    }
  }

  /** Accepts about {@link #MESSAGES} texts over {@code devices} and waits until all are sent. */
  private Run send(Gateway gateway, List<Device> devices) throws Exception {
    List<Long> ids = devices.stream().map(Device::id).toList();
    String of = " FROM message WHERE device_id IN (" + join(ids) + ")";
    try (Database db = Database.open(gateway.settings().databaseUrl())) {
      long started = System.nanoTime();
      Wrk.Result accepted =
          wrk.postJsonRotatingKeysUntil(
              gateway.baseUrl() + "/api/async_send_message",
              "{\"key\":\"%KEY%\",\"phone_no\":\"" + RECIPIENT + "\",\"message\":\"Halo\"}",
              devices.stream().map(Device::ecoKey).toList(),
              () -> count(db, "SELECT COUNT(*)" + of) >= MESSAGES,
              Duration.ofMinutes(5));
      long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
      long total = -1;
      long waiting = 1;
      while (waiting > 0) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("messages still pending after 10 minutes");
        }
        Thread.sleep(20);
        // Requests wrk left in flight when it stopped may still be stored: wait for them too.
        long now = count(db, "SELECT COUNT(*)" + of);
        waiting =
            now != total
                ? 1
                : count(db, "SELECT COUNT(*)" + of + " AND state IN ('pending', 'sending')");
        total = now;
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      long sent = count(db, "SELECT COUNT(*)" + of + " AND state IN ('sent', 'delivery', 'read')");
      return new Run(total, sent, seconds, accepted.perSecond());
    }
  }

  private static void awaitOnline(Gateway gateway, Device d) throws InterruptedException {
    await(
        "device " + d.number() + " online",
        () -> eco(gateway, d, "/api/qr_status").equals("online"));
  }

  /** An Eco API call of the device with its key alone; the answer's body. */
  private static String eco(Gateway gateway, Device d, String path) {
    try {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create(gateway.baseUrl() + path))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString("{\"key\":\"" + d.ecoKey() + "\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (Exception e) {
      throw new IllegalStateException(path + " failed", e);
    }
  }

  private static void await(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not within 60 s: " + what);
      }
      Thread.sleep(20);
    }
  }

  private static String join(List<Long> ids) {
    return String.join(",", ids.stream().map(String::valueOf).toList());
  }

  private static long count(Database db, String sql) {
    return db.jdbi().withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
  }
}
