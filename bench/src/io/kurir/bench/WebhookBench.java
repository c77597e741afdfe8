package io.kurir.bench;

import com.sun.net.httpserver.HttpServer;
import io.kurir.Gateway;
import io.kurir.bench.Bench.Row;
import io.kurir.store.Database;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * Webhook rows. {@code webhooks}: end-to-end runs on 100 devices whose outgoing webhooks (every
 * sent, delivery and read event) go to a receiver on loopback, first with sends at full speed, then
 * paced below what the outbox keeps up with; events per second, the lag from each event to its
 * arrival, and the events the receiver got twice. {@code webhook-retries}: the gaps between the
 * attempts of an event a receiver keeps refusing, and how long it held back the next event (about 3
 * minutes of real time).
 */
final class WebhookBench {
  private static final String RECIPIENT = "+6281234567890";
  private static final int DEVICES = 100;
  private static final int PACED_PER_SECOND = 200;
  private static final Duration WARM_UP = Duration.ofSeconds(6);

  private final Function<String, Gateway> start;
  private final Wrk wrk;
  private final Duration duration;
  private final List<Row> rows;

  WebhookBench(Function<String, Gateway> start, Wrk wrk, Duration duration, List<Row> rows) {
    this.start = start;
    this.wrk = wrk;
    this.duration = duration;
    this.rows = rows;
  }

  /** One request the receiver got: its event id and time, and when it arrived (epoch ms). */
  record Arrival(String eventId, String sequence, long eventAt, long arrivedAt, String body) {}

  /** A receiver on loopback that records every request and answers as told. */
  static final class Receiver implements AutoCloseable {
    final HttpServer server;
    final ConcurrentLinkedQueue<Arrival> arrivals = new ConcurrentLinkedQueue<>();
    final Map<String, Integer> copies = new ConcurrentHashMap<>();
    // The senders' ends of the connections requests came on: how well keep-alive holds.
    final java.util.Set<InetSocketAddress> connections = ConcurrentHashMap.newKeySet();
    volatile java.util.function.Predicate<String> refuse = body -> false;

    Receiver() throws Exception {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1000);
      server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
      server.createContext(
          "/",
          exchange -> {
            long arrived = System.currentTimeMillis();
            connections.add(exchange.getRemoteAddress());
            String body =
                new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            var h = exchange.getRequestHeaders();
            String id = h.getFirst("X-Kurir-Event-Id");
            long eventAt = Instant.parse(h.getFirst("X-Kurir-Event-Time")).toEpochMilli();
            arrivals.add(new Arrival(id, h.getFirst("X-Kurir-Sequence"), eventAt, arrived, body));
            boolean refused = refuse.test(body);
            if (!refused) {
              copies.merge(id, 1, Integer::sum);
            }
            exchange.sendResponseHeaders(refused ? 500 : 200, -1);
            exchange.close();
          });
      server.start();
    }

    String url(String path) {
      return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    /** Forgets what was received so far. */
    void clear() {
      arrivals.clear();
      copies.clear();
      connections.clear();
    }

    /** Events answered 200 more than once. */
    long duplicates() {
      return copies.values().stream().filter(n -> n > 1).count();
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  void fanOut() throws Exception {
    log("webhook fan-out across " + DEVICES + " devices");
    try (Receiver receiver = new Receiver();
        Gateway gateway = start.apply("webhooks")) {
      Partner partner = gateway.tenants().createPartner("Bench partner", "");
      License license =
          gateway
              .tenants()
              .createLicense(partner.id(), "Bench", "", LocalDate.of(2099, 1, 1), List.of());
      List<Device> devices = new ArrayList<>();
      HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      for (int i = 0; i < DEVICES; i++) {
        String number = String.format(Locale.ROOT, "+62816%07d", 4_000_000 + i);
        Device d = gateway.tenants().createDevice(license.id(), number, "sandbox");
        gateway.sandbox().pair(d.id(), d.number());
        devices.add(d);
        String form =
            "license="
                + license.code()
                + "&no_wa="
                + number.substring(1)
                + "&action=set_outgoing&url="
                + URLEncoder.encode(receiver.url("/out/" + i), StandardCharsets.UTF_8);
        HttpResponse<String> set =
            client.send(
                HttpRequest.newBuilder(URI.create(gateway.baseUrl() + "/v2.0/webhook"))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString(form))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (!set.body().contains("success")) {
          throw new IllegalStateException("set_outgoing answered " + set.body());
        }
      }

      // At full speed: the gateway accepts as fast as wrk sends, and its events outrun the outbox.
      // The same load first for WARM_UP, its events all delivered, as the other rows warm their
      // endpoints: cold, the JIT took a third of the CPU of the measured seconds.
      String body = "{\"key\":\"%KEY%\",\"phone_no\":\"" + RECIPIENT + "\",\"message\":\"Halo\"}";
      List<String> keys = devices.stream().map(Device::ecoKey).toList();
      wrk.postJsonRotatingKeys(gateway.baseUrl() + "/api/async_send_message", body, keys, WARM_UP);
      long warmUpMessages = settledMessageCount(gateway);
      waitForEvents(gateway, receiver, 3 * warmUpMessages);
      receiver.clear();
      long started = System.currentTimeMillis();
      Wrk.Result accepted =
          wrk.postJsonRotatingKeys(
              gateway.baseUrl() + "/api/async_send_message", body, keys, duration);
      long messages = settledMessageCount(gateway) - warmUpMessages;
      waitForEvents(gateway, receiver, 3 * messages); // sent, delivery, read
      Phase full = Phase.of(receiver, started);
      rows.add(
          full.row(
              "webhook fan-out",
              String.format(
                  Locale.ROOT,
                  "after %d s of the same load whose events were all delivered first (the warm-up),"
                      + " %,d messages accepted over %d devices in %d s at full speed (%,.0f/s), each"
                      + " one's sent, delivery and read event POSTed to its device's outgoing URL"
                      + " on a loopback receiver: %,d events, made at %,.0f/s, the last arriving"
                      + " %.1f s after the first request; p50/p99: lag from the event (X-Kurir-Event-Time) to its"
                      + " arrival, mostly the queue, as events came faster than they went;"
                      + " %d received twice; %,d connections used",
                  WARM_UP.toSeconds(),
                  messages,
                  DEVICES,
                  duration.toSeconds(),
                  accepted.perSecond(),
                  full.events(),
                  full.madePerSecond(),
                  full.seconds(),
                  receiver.duplicates(),
                  receiver.connections.size())));

      // Paced below what the outbox keeps up with: the lag of one event, not of a queue.
      receiver.clear();
      started = System.currentTimeMillis();
      long paced = sendPaced(gateway, devices, PACED_PER_SECOND, duration);
      waitForEvents(gateway, receiver, 3 * paced);
      Phase steady = Phase.of(receiver, started);
      rows.add(
          steady.row(
              "webhook fan-out, paced",
              String.format(
                  Locale.ROOT,
                  "the same, with %,d messages sent at %d a second (%,d events a second): %,d"
                      + " events, made at %,.0f/s, the last arriving %.1f s after the first request"
                      + " (figure: events over that time); %d received twice; %,d connections used",
                  paced,
                  PACED_PER_SECOND,
                  3 * PACED_PER_SECOND,
                  steady.events(),
                  steady.madePerSecond(),
                  steady.seconds(),
                  receiver.duplicates(),
                  receiver.connections.size())));

      // A backlog stored in one go and delivered as fast as the outbox goes: its own capacity,
      // apart from the sending pipeline that makes the events of the phases above.
      receiver.clear();
      storeBacklog(gateway, devices, receiver);
      // One message's events wake the outbox (the backlog was stored behind its back).
      sendPaced(gateway, devices.subList(0, 1), 1, Duration.ofSeconds(1));
      waitForEvents(gateway, receiver, (long) BACKLOG_PER_DEVICE * DEVICES + 3);
      List<Arrival> backlog =
          receiver.arrivals.stream().filter(a -> a.body().startsWith("{\"backlog\"")).toList();
      long first = backlog.stream().mapToLong(Arrival::arrivedAt).min().orElseThrow();
      long last = backlog.stream().mapToLong(Arrival::arrivedAt).max().orElseThrow();
      rows.add(
          new Row(
              "webhook backlog drain",
              String.format(
                  Locale.ROOT,
                  "%,.0f events/s",
                  backlog.size() * 1000.0 / Math.max(1, last - first)),
              Double.NaN,
              "",
              "",
              String.format(
                  Locale.ROOT,
                  "%,d events stored in one transaction, %,d on each device's line, then"
                      + " delivered: from the first arrival to the last, %.1f s; %d received"
                      + " twice; %,d connections used",
                  backlog.size(),
                  BACKLOG_PER_DEVICE,
                  (last - first) / 1000.0,
                  receiver.duplicates(),
                  receiver.connections.size())));
    }
  }

  private static final int BACKLOG_PER_DEVICE = 300;

  /** Stores {@link #BACKLOG_PER_DEVICE} events on each device's line, in one transaction. */
  private static void storeBacklog(Gateway gateway, List<Device> devices, Receiver receiver) {
    // Node 15: ids of their own, apart from the gateway's (node 0).
    io.kurir.store.IdGenerator ids =
        new io.kurir.store.IdGenerator(java.time.Clock.systemUTC(), 15);
    try (Database db = Database.open(gateway.settings().databaseUrl())) {
      db.writes()
          .writeIn(
              tx -> {
                Instant now = Instant.now();
                for (int n = 0; n < BACKLOG_PER_DEVICE; n++) {
                  for (int i = 0; i < devices.size(); i++) {
                    io.kurir.webhook.WebhookOutbox.add(
                        tx,
                        ids.next(),
                        devices.get(i).id(),
                        receiver.url("/out/" + i),
                        "bench.backlog",
                        "{\"backlog\":" + n + "}",
                        now);
                  }
                }
                return null;
              });
    }
  }

  /**
   * What one phase's receiver saw: its events a second, and each event's lag; {@code madeSeconds}
   * is the time from the start to the last event's own time: the events were made at {@code events
   * / madeSeconds} a second, and an outbox that keeps up delivers at about that rate.
   */
  record Phase(long events, double seconds, double madeSeconds, List<Long> lags) {
    static Phase of(Receiver receiver, long started) {
      List<Arrival> all = new ArrayList<>(receiver.arrivals);
      long last = all.stream().mapToLong(Arrival::arrivedAt).max().orElseThrow();
      long lastMade = all.stream().mapToLong(Arrival::eventAt).max().orElseThrow();
      List<Long> lags =
          new ArrayList<>(all.stream().map(a -> a.arrivedAt() - a.eventAt()).toList());
      Collections.sort(lags);
      return new Phase(
          receiver.copies.size(), (last - started) / 1000.0, (lastMade - started) / 1000.0, lags);
    }

    /** The events a second they were made at (their own times), for the row's text. */
    double madePerSecond() {
      return events / madeSeconds;
    }

    Row row(String name, String how) {
      long p99 = lags.get((int) Math.min(lags.size() - 1, Math.ceil(lags.size() * 0.99) - 1));
      return new Row(
          name,
          String.format(Locale.ROOT, "%,.0f events/s", events / seconds),
          Double.NaN,
          lags.get(lags.size() / 2) + " ms",
          p99 + " ms",
          how);
    }
  }

  /**
   * How many messages there are once the last requests wrk left under way have been answered (it
   * stops at its duration without waiting for them).
   */
  private static long settledMessageCount(Gateway gateway) throws Exception {
    try (Database db = Database.open(gateway.settings().databaseUrl())) {
      long before = -1;
      long now = count(db, "SELECT COUNT(*) FROM message");
      while (now != before) {
        Thread.sleep(500);
        before = now;
        now = count(db, "SELECT COUNT(*) FROM message");
      }
      return now;
    }
  }

  /** Waits until the receiver has {@code expected} distinct events and nothing is pending. */
  private static void waitForEvents(Gateway gateway, Receiver receiver, long expected)
      throws Exception {
    try (Database db = Database.open(gateway.settings().databaseUrl())) {
      long deadline = System.nanoTime() + Duration.ofMinutes(15).toNanos();
      while (receiver.copies.size() < expected
          || count(db, "SELECT COUNT(*) FROM webhook_delivery WHERE state = 'pending'") > 0) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              receiver.copies.size() + " of " + expected + " events after 15 minutes");
        }
        Thread.sleep(100);
      }
    }
  }

  /** Sends {@code perSecond} async messages a second for {@code duration}, keys in turn. */
  private static long sendPaced(
      Gateway gateway, List<Device> devices, int perSecond, Duration duration) throws Exception {
    HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .executor(Executors.newVirtualThreadPerTaskExecutor())
            .build();
    URI uri = URI.create(gateway.baseUrl() + "/api/async_send_message");
    long total = perSecond * duration.toSeconds();
    long interval = 1_000_000_000L / perSecond;
    long start = System.nanoTime();
    List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> replies = new ArrayList<>();
    for (long i = 0; i < total; i++) {
      long due = start + i * interval;
      while (System.nanoTime() < due) {
        java.util.concurrent.locks.LockSupport.parkNanos(due - System.nanoTime());
      }
      String key = devices.get((int) (i % devices.size())).ecoKey();
      replies.add(
          client.sendAsync(
              HttpRequest.newBuilder(uri)
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"key\":\""
                              + key
                              + "\",\"phone_no\":\""
                              + RECIPIENT
                              + "\",\"message\":\"Halo\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString()));
    }
    for (var reply : replies) {
      if (reply.get().statusCode() != 200) {
        throw new IllegalStateException("a paced send was answered " + reply.get().body());
      }
    }
    return total;
  }

  void retries() throws Exception {
    log("webhook retry gaps (about 3 minutes)");
    try (Receiver receiver = new Receiver();
        Gateway gateway = start.apply("webhook-retries")) {
      Partner partner = gateway.tenants().createPartner("Bench partner", "");
      License license =
          gateway
              .tenants()
              .createLicense(partner.id(), "Bench", "", LocalDate.of(2099, 1, 1), List.of());
      Device d = gateway.tenants().createDevice(license.id(), "+6281690000001", "sandbox");
      gateway.sandbox().pair(d.id(), d.number());
      gateway.deviceStates().setStatusWebhook(d.id(), receiver.url("/status"));
      // Its first event (the device going offline) is refused every time; the next one waits.
      receiver.refuse = body -> body.contains("\"newState\":\"offline\"");
      gateway.sandbox().setDeviceOnline(d.id(), false);
      gateway.sandbox().setDeviceOnline(d.id(), true);
      int attempts = 5;
      long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (refusedArrivals(receiver).size() < attempts) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("fewer than " + attempts + " attempts in 5 minutes");
        }
        Thread.sleep(50);
      }
      List<Arrival> refused = refusedArrivals(receiver);
      List<String> gaps = new ArrayList<>();
      for (int i = 1; i < attempts; i++) {
        gaps.add(
            String.format(
                Locale.ROOT,
                "%.1f s",
                (refused.get(i).arrivedAt() - refused.get(i - 1).arrivedAt()) / 1000.0));
      }
      Arrival next =
          receiver.arrivals.stream()
              .filter(a -> a.body().contains("\"newState\":\"online\""))
              .findFirst()
              .orElseThrow();
      double held = (next.arrivedAt() - refused.getFirst().arrivedAt()) / 1000.0;
      rows.add(
          new Row(
              "webhook retry gaps",
              String.join(", ", gaps),
              Double.NaN,
              "",
              "",
              String.format(
                  Locale.ROOT,
                  "a device.status event its receiver answers 500 every time: time between the"
                      + " arrivals of its first %d attempts; the device's next event (sequence %s)"
                      + " arrived %.1f s after the refused one's first attempt (sequence %s)",
                  attempts,
                  next.sequence(),
                  held,
                  refused.getFirst().sequence())));
    }
  }

  private static List<Arrival> refusedArrivals(Receiver receiver) {
    return receiver.arrivals.stream()
        .filter(a -> a.body().contains("\"newState\":\"offline\""))
        .toList();
  }

  private static long count(Database db, String sql) {
    return db.jdbi().withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
  }

  private static void log(String what) {
    System.out.println("kurir bench: " + what);
  }
}
