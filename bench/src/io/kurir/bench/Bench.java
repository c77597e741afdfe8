package io.kurir.bench;

import io.javalin.config.RoutesConfig;
import io.kurir.Gateway;
import io.kurir.api.ErrorStyle;
import io.kurir.api.RouteTable;
import io.kurir.config.Settings;
import io.kurir.config.SettingsLoader;
import io.kurir.config.SettingsLoader.Profile;
import io.kurir.message.Messages;
import io.kurir.message.Recipient;
import io.kurir.message.SendRequest;
import io.kurir.store.Database;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.tenant.Tenants;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code ./kurir bench}: one gateway on a temporary SQLite database with the sandbox driver and
 * pacing off, measured row by row with the same load generator (wrk), side by side with a no-op
 * endpoint of the same server. Prints a table and writes it to {@code bench/results/latest.md}.
 */
public final class Bench {
  /**
   * How long each endpoint is driven before its row: long enough for the JIT's second tier to be
   * done with its paths (after 3 s it still took a tenth of the CPU in the sync row). Every row of
   * an endpoint warms up as long, so that rows compared with each other (PostgreSQL's accept with
   * SQLite's) are measured alike.
   */
  static final Duration WARM_UP = Duration.ofSeconds(6);

  private static final String RECIPIENT = "+6281234567890";

  /** One line of the table. */
  public record Row(
      String name, String figure, double perSecond, String p50, String p99, String note) {}

  private final Duration duration;
  private final java.util.Set<String> only;
  private final Wrk wrk;
  private final Path work;
  private final List<Row> rows = new ArrayList<>();
  private double noopPerSecond;

  private Bench(Duration duration, java.util.Set<String> only, Wrk wrk, Path work) {
    this.duration = duration;
    this.only = only;
    this.wrk = wrk;
    this.work = work;
  }

  public static void main(String[] args) throws Exception {
    Duration duration = Duration.ofSeconds(10);
    int connections = 64;
    java.util.Set<String> only = java.util.Set.of();
    for (String a : args) {
      if (a.startsWith("--duration=")) {
        duration = Duration.ofSeconds(Long.parseLong(a.substring(11).replace("s", "")));
      } else if (a.startsWith("--only=")) {
        only = java.util.Set.of(a.substring(7).split(","));
      } else if (a.startsWith("--connections=")) {
        connections = Integer.parseInt(a.substring(14));
      } else {
        System.err.println(
            "usage: kurir bench [--duration=10s] [--connections=64]"
                + " [--only=startup,idle,pending,noop,async,sync,e2e,otp,report,bots,scheduler,"
                + "webhooks,webhook-retries,postgres,failover,campaigns,campaign-lateness,"
                + "postgres-campaigns,native,events,waha,gowa]");
        System.exit(2);
      }
    }
    Path work = Files.createTempDirectory("kurir-bench");
    try {
      Bench bench = new Bench(duration, only, new Wrk(2, connections, work), work);
      bench.run();
    } finally {
      deleteTree(work);
    }
    System.exit(0);
  }

  private boolean wanted(String row) {
    return only.isEmpty() || only.contains(row);
  }

  /** Whether any row of the main gateway (noop and what is measured against it) is wanted. */
  private boolean wantsMain() {
    return Stream.of("noop", "async", "sync", "e2e", "otp", "report", "native")
        .anyMatch(this::wanted);
  }

  private void run() throws Exception {
    if (wanted("startup")) {
      startUp();
    }
    if (wanted("idle")) {
      idleDevices();
    }
    if (wanted("pending")) {
      millionPending();
    }
    if (wanted("bots")) {
      new BotBench(rows).run();
    }
    if (wanted("scheduler")) {
      new ScheduleBench(this::start, rows).run();
    }
    if (wanted("webhooks") || wanted("webhook-retries")) {
      // Receivers on loopback: allowed here, as an operator would for an internal receiver.
      WebhookBench webhooks =
          new WebhookBench(
              name -> start(name, List.of(), "--media.allow-private-addresses=true"),
              wrk,
              duration,
              rows);
      if (wanted("webhooks")) {
        webhooks.fanOut();
      }
      if (wanted("webhook-retries")) {
        webhooks.retries();
      }
    }
    if (wanted("campaigns") || wanted("campaign-lateness")) {
      CampaignBench campaigns =
          new CampaignBench((name, flags) -> start(name, List.of(), flags), rows);
      if (wanted("campaigns")) {
        campaigns.expansion("", "campaigns");
      }
      if (wanted("campaign-lateness")) {
        campaigns.lateness("campaign send lateness", 10_000, "0s", "0s");
        campaigns.lateness("campaign send lateness, random gaps", 1_000, "200ms", "600ms");
      }
    }
    if (wanted("events")) {
      new EventsBench(name -> start(name, List.of()), wrk, duration, rows).run();
    }
    if (wanted("waha") || wanted("gowa")) {
      DriverBench drivers =
          new DriverBench((name, flags) -> start(name, List.of(), flags), wrk, rows);
      if (wanted("waha")) {
        drivers.waha();
      }
      if (wanted("gowa")) {
        drivers.gowa();
      }
    }
    if (wanted("postgres") || wanted("failover") || wanted("postgres-campaigns")) {
      // PostgreSQL beside SQLite: one node, then two nodes on one database; then kill -9 of a node.
      try (NodesBench nodes =
          new NodesBench(
              (name, flags) -> start(name, List.of(), flags), wrk, work, duration, rows)) {
        if (wanted("postgres")) {
          nodes.run();
        }
        if (wanted("failover")) {
          new FailoverBench(nodes, work, rows).run();
        }
        if (wanted("postgres-campaigns")) {
          nodes.server();
          new CampaignBench((name, flags) -> start(name, List.of(), flags), rows)
              .expansion("PostgreSQL: ", "pg-campaigns", nodes.flags(nodes.freshDatabase(), 1));
        }
      }
    }
    if (!wantsMain()) {
      print();
      return;
    }
    try (Gateway gateway = start("main", List.of(new NoopRoutes()))) {
      Tenants tenants = gateway.tenants();
      License license = newLicense(tenants);
      Device async = newDevice(gateway, license, "+6281100000001");
      Device sync = newDevice(gateway, license, "+6281100000002");
      Device otp = newDevice(gateway, license, "+6281100000003");
      String base = gateway.baseUrl();

      log("warming up");
      Duration warmUp = WARM_UP;
      wrk.postJson(base + "/bench/noop", body(async.ecoKey()), warmUp);
      wrk.postJson(base + "/api/async_send_message", body(async.ecoKey()), warmUp);
      wrk.postJson(base + "/api/send_message", body(sync.ecoKey()), warmUp);
      gateway.sandbox().unpair(async.id());
      gateway.sandbox().pair(async.id(), async.number());
      // The warm-up queued tens of thousands of messages: they go out before the noop row, which
      // would otherwise share the cores with their sending and understate the ceiling.
      waitUntilNothingPending(gateway, Duration.ofMinutes(5));

      log("noop");
      // The same body as the send rows, so that only what the gateway does with it differs.
      Wrk.Result noop = wrk.postJson(base + "/bench/noop", body(async.ecoKey()), duration);
      noopPerSecond = noop.perSecond();
      add("noop", noop, "POST /bench/noop on the same server, same body, not read: the ceiling");

      if (wanted("async")) {
        log("async_send_message");
        // The device is offline: this row measures durable acceptance alone. Sending is the
        // end-to-end row's measure (with pacing on, one device sends about one message a second).
        gateway.sandbox().unpair(async.id());
        Wrk.Result accepted =
            wrk.postJson(base + "/api/async_send_message", body(async.ecoKey()), duration);
        add(
            "async_send_message",
            accepted,
            "each reply after its own commit (group commit); device offline, so accepting only");
      }
      if (wanted("native")) {
        log("POST /v1/messages (native API)");
        add(
            "v1 send (POST /v1/messages)",
            NativeBench.accept(gateway, wrk, duration),
            "Kurir API v1, license API key as bearer, Cloud API message object; device offline,"
                + " so accepting only, as async_send_message; target ≥ 0.5 × noop");
      }
      if (wanted("sync")) {
        log("send_message (sync)");
        Wrk.Result sent = wrk.postJson(base + "/api/send_message", body(sync.ecoKey()), duration);
        add("send_message (sync)", sent, "one device; reply after the sent outcome is committed");
      }
      if (wanted("e2e")) {
        endToEnd(gateway, license);
      }
      if (wanted("otp")) {
        otpBehindQueue(gateway, otp);
      }
      if (wanted("report")) {
        reportOverAMillion(gateway, license);
      }
    }
    print();
  }

  // --- rows

  private void startUp() throws Exception {
    log("start-up");
    Files.deleteIfExists(Path.of("target/run/kurir.jsa")); // the first start ever has no archive
    long first = timeToFirstRequest(work.resolve("startup-first"));
    List<Long> millis = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      millis.add(timeToFirstRequest(work.resolve("startup-" + i)));
    }
    millis.sort(Comparator.naturalOrder());
    rows.add(
        new Row(
            "start-up to first served request",
            millis.get(1) + " ms",
            Double.NaN,
            "",
            "",
            "median of 3 starts of ./kurir serve on a new database, from the command to the first"
                + " answered request; the very first start ("
                + first
                + " ms) also writes the class-data archive"));
  }

  private long timeToFirstRequest(Path dir) throws Exception {
    int port = freePort();
    long started = System.nanoTime();
    Process p =
        new ProcessBuilder(
                Path.of("kurir").toAbsolutePath().toString(),
                "serve",
                "--host=127.0.0.1",
                "--port=" + port,
                "--data.dir=" + dir)
            .redirectErrorStream(true)
            .redirectOutput(work.resolve("startup.log").toFile())
            .start();
    try {
      HttpClient client = HttpClient.newHttpClient();
      HttpRequest probe =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/check_number"))
              .POST(HttpRequest.BodyPublishers.ofString("{\"key\":\"x\",\"phone_no\":\"1\"}"))
              .build();
      while (true) {
        try {
          client.send(probe, HttpResponse.BodyHandlers.discarding());
          return Duration.ofNanos(System.nanoTime() - started).toMillis();
        } catch (IOException notYet) {
          if (!p.isAlive() || System.nanoTime() - started > TimeUnit.SECONDS.toNanos(30)) {
            throw new IllegalStateException("the gateway did not start; see its log", notYet);
          }
          Thread.sleep(2);
        }
      }
    } finally {
      p.destroy();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  private void idleDevices() throws Exception {
    log("10,000 idle devices");
    try (Gateway gateway = start("idle", List.of())) {
      License license = newLicense(gateway.tenants());
      List<Device> devices = new ArrayList<>();
      for (int i = 0; i < 10_000; i++) {
        String number = String.format(Locale.ROOT, "+62811%07d", 1_000_000 + i);
        Device d = gateway.tenants().createDevice(license.id(), number, "sandbox");
        gateway.sandbox().pair(d.id(), d.number());
        devices.add(d);
      }
      // One message each, so that every device has its sender loop and session, then idles.
      for (Device d : devices) {
        gateway.messages().accept(d, request(false));
      }
      waitUntilNothingPending(gateway, Duration.ofMinutes(5));
      for (int i = 0; i < 3; i++) {
        System.gc();
        Thread.sleep(200);
      }
      long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      long rss = rssBytes();
      rows.add(
          new Row(
              "10,000 idle devices: heap",
              mb(heap),
              Double.NaN,
              "",
              "",
              "heap in use after GC; each device paired, with its sender loop, after one send"));
      rows.add(new Row("10,000 idle devices: RSS", mb(rss), Double.NaN, "", "", "whole process"));
    }
  }

  /**
   * A million messages pending over 1,000 devices: the queue is the database, so they cost disk;
   * the heap holds each sender's claimed window only. Measured while the devices send.
   */
  private void millionPending() throws Exception {
    log("1,000,000 pending messages over 1,000 devices");
    List<Device> devices = new ArrayList<>();
    String dbUrl;
    try (Gateway gateway = start("pending", List.of())) {
      License license = newLicense(gateway.tenants());
      for (int i = 0; i < 1_000; i++) {
        String number = String.format(Locale.ROOT, "+62812%07d", 3_000_000 + i);
        devices.add(gateway.tenants().createDevice(license.id(), number, "sandbox"));
      }
      dbUrl = gateway.settings().databaseUrl();
    }
    long now = System.currentTimeMillis();
    insertMillion(
        dbUrl,
        8_000_000_000_000L,
        "pending",
        i -> devices.get(i % devices.size()).id(),
        i -> "Pesan antrian nomor " + i + " untuk pelanggan kami",
        i -> now);
    try (Gateway gateway = start("pending", List.of())) {
      // Waiting: every device has its sender, none can send.
      Thread.sleep(2_000);
      long waiting = heapAfterGc();
      rows.add(
          new Row(
              "1,000,000 pending over 1,000 devices: heap, waiting",
              mb(waiting),
              Double.NaN,
              "",
              "",
              "heap in use after GC once the gateway started on them; the devices are offline"));
      long startedAt = System.nanoTime();
      for (Device d : devices) {
        gateway.sandbox().pair(d.id(), d.number());
      }
      long maxHeap = 0;
      for (int i = 0; i < 5; i++) {
        Thread.sleep(2_000);
        maxHeap = Math.max(maxHeap, heapAfterGc());
      }
      double seconds = (System.nanoTime() - startedAt) / 1e9;
      long sent = countSent(gateway, devices.stream().map(Device::id).toList());
      rows.add(
          new Row(
              "1,000,000 pending over 1,000 devices: heap, sending",
              mb(maxHeap),
              Double.NaN,
              "",
              "",
              String.format(
                  Locale.ROOT,
                  "largest heap in use after GC, sampled every 2 s for %.0f s after the 1,000"
                      + " devices were paired (%,d sent by then, at %,.0f/s; the sandbox's phone"
                      + " keeps each in its inbox)",
                  seconds,
                  sent,
                  sent / seconds)));
    }
  }

  private static long heapAfterGc() throws InterruptedException {
    for (int i = 0; i < 2; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private void endToEnd(Gateway gateway, License license) throws Exception {
    log("end-to-end across 100 devices");
    List<Device> devices = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      devices.add(
          newDevice(gateway, license, String.format(Locale.ROOT, "+62813%07d", 2_000_000 + i)));
    }
    List<Long> ids = devices.stream().map(Device::id).toList();
    Instant start = Instant.now();
    Wrk.Result accepted =
        wrk.postJsonRotatingKeys(
            gateway.baseUrl() + "/api/async_send_message",
            body("%KEY%"),
            devices.stream().map(Device::ecoKey).toList(),
            duration);
    waitUntilNothingPending(gateway, ids, Duration.ofMinutes(10));
    double seconds = Duration.between(start, Instant.now()).toMillis() / 1000.0;
    long sent = countSent(gateway, ids);
    rows.add(
        new Row(
            "end-to-end accepted → sent",
            String.format(Locale.ROOT, "%,.0f msg/s", sent / seconds),
            sent / seconds,
            "",
            "",
            String.format(
                Locale.ROOT,
                "%,d messages over 100 devices, all sent %.1f s after the first request (accepted at %,.0f/s)",
                sent,
                seconds,
                accepted.perSecond())));
  }

  private void otpBehindQueue(Gateway gateway, Device device) throws Exception {
    log("OTP behind 10,000 queued messages");
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    // One OTP on an empty queue first: connecting is not part of the figure.
    client.send(
        HttpRequest.newBuilder(URI.create(gateway.baseUrl() + "/api/send_message"))
            .POST(HttpRequest.BodyPublishers.ofString(body(device.ecoKey())))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    List<Double> latencies = new ArrayList<>();
    int queuedAtOtp = 0;
    for (int round = 0; round < 5; round++) {
      List<Recipient> many = new ArrayList<>();
      for (int i = 0; i < Messages.MAX_RECIPIENTS; i++) {
        many.add(Recipient.number(RECIPIENT));
      }
      for (int batch = 0; batch < 10; batch++) { // 10 requests of 1,000
        gateway
            .messages()
            .accept(
                device,
                new SendRequest(many, "text", "campaign", "bench", false, false, Duration.ZERO));
      }
      queuedAtOtp = Math.max(queuedAtOtp, gateway.messages().queued(device.id()));
      HttpRequest otp =
          HttpRequest.newBuilder(URI.create(gateway.baseUrl() + "/api/send_message"))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(body(device.ecoKey())))
              .build();
      long t = System.nanoTime();
      HttpResponse<String> reply = client.send(otp, HttpResponse.BodyHandlers.ofString());
      latencies.add((System.nanoTime() - t) / 1e6);
      if (System.getenv("BENCH_DEBUG") != null) {
        System.err.printf(
            "otp round %d: %.1f ms, queued %d%n",
            round, latencies.getLast(), gateway.messages().queued(device.id()));
      }
      if (!reply.body().equals("success")) {
        throw new IllegalStateException("the OTP was answered " + reply.body());
      }
      gateway.sandbox().unpair(device.id()); // drop the backlog from the next round's way
      Thread.sleep(200);
      gateway.sandbox().pair(device.id(), device.number());
    }
    latencies.sort(Comparator.naturalOrder());
    rows.add(
        new Row(
            "OTP behind a 10,000-message queue",
            String.format(Locale.ROOT, "%.1f ms", latencies.get(2)),
            Double.NaN,
            String.format(Locale.ROOT, "%.1f ms", latencies.get(2)),
            String.format(Locale.ROOT, "%.1f ms (max)", latencies.getLast()),
            "sync send_message on the device whose queue holds ≥ "
                + String.format(Locale.ROOT, "%,d", queuedAtOtp)
                + " async messages; 5 rounds"));
  }

  /**
   * Writes 1,000,000 messages straight into the database, 10,000 per commit: message {@code i} has
   * id {@code firstId + i}, the device, text and time the functions give, and {@code state}.
   */
  private static void insertMillion(
      String dbUrl,
      long firstId,
      String state,
      java.util.function.IntToLongFunction deviceOf,
      java.util.function.IntFunction<String> bodyOf,
      java.util.function.IntToLongFunction atOf) {
    int attempts = state.equals("pending") ? 0 : 1;
    try (Database db = Database.open(dbUrl)) {
      for (int batch = 0; batch < 100; batch++) {
        int first = batch * 10_000;
        db.writes()
            .write(
                h -> {
                  try (var insert =
                      h.getConnection()
                          .prepareStatement(
                              "INSERT INTO message (id, device_id, recipient, recipient_type, kind,"
                                  + " body, api, sync, retry, attempts, state, not_before,"
                                  + " created_at, status_at) VALUES (?, ?, ?, 'number', 'text', ?,"
                                  + " 'bench', 0, 0, ?, ?, ?, ?, ?)")) {
                    for (int i = first; i < first + 10_000; i++) {
                      long at = atOf.applyAsLong(i);
                      insert.setLong(1, firstId + i);
                      insert.setLong(2, deviceOf.applyAsLong(i));
                      insert.setString(3, RECIPIENT);
                      insert.setString(4, bodyOf.apply(i));
                      insert.setInt(5, attempts);
                      insert.setString(6, state);
                      insert.setLong(7, at);
                      insert.setLong(8, at);
                      insert.setLong(9, at);
                      insert.addBatch();
                    }
                    insert.executeBatch();
                  }
                  return null;
                });
      }
    }
  }

  /** report_json on a device with 1,000,000 messages spread over the last 40 days. */
  private void reportOverAMillion(Gateway gateway, License license) throws Exception {
    log("report_json over a device with 1,000,000 messages");
    Device device = newDevice(gateway, license, "+6281100000009");
    long now = System.currentTimeMillis();
    long span = Duration.ofDays(40).toMillis();
    insertMillion(
        gateway.settings().databaseUrl(),
        9_000_000_000_000L,
        "read",
        i -> device.id(),
        i -> (i % 100 == 0 ? "Tagihan bulan ini " : "Halo ") + i,
        i -> now - span + (span * i / 1_000_000));
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    for (String[] q :
        new String[][] {
          {"today", ""}, {"today", "tagihan"}, {"7days", "tagihan"}, {"month", "zzz-nothing"}
        }) {
      String keyword = q[1].isEmpty() ? "" : ",\"keyword\":\"" + q[1] + "\"";
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(gateway.baseUrl() + "/api/report_json"))
              .POST(
                  HttpRequest.BodyPublishers.ofString(
                      "{\"key\":\""
                          + device.ecoKey()
                          + "\",\"time_choose\":\""
                          + q[0]
                          + "\""
                          + keyword
                          + "}"))
              .build();
      List<Double> millis = new ArrayList<>();
      int rowsSeen = 0;
      for (int i = 0; i < 5; i++) {
        long t = System.nanoTime();
        HttpResponse<String> reply = client.send(request, HttpResponse.BodyHandlers.ofString());
        millis.add((System.nanoTime() - t) / 1e6);
        rowsSeen = reply.body().split("\"message_id\"", -1).length - 1;
      }
      millis.sort(Comparator.naturalOrder());
      rows.add(
          new Row(
              "report_json " + q[0] + (q[1].isEmpty() ? "" : " keyword '" + q[1] + "'"),
              String.format(Locale.ROOT, "%.0f ms", millis.get(2)),
              Double.NaN,
              String.format(Locale.ROOT, "%.0f ms", millis.get(2)),
              String.format(Locale.ROOT, "%.0f ms (max)", millis.getLast()),
              String.format(
                  Locale.ROOT,
                  "device with 1,000,000 messages over 40 days; %,d rows returned; median of 5",
                  rowsSeen)));
    }
  }

  // --- helpers

  /**
   * The secrets key of every gateway this run starts: nodes on one PostgreSQL database, each with a
   * data folder of its own, must share one (a node with another is refused), and none then makes a
   * key file. Random per run: each run's databases are fresh.
   */
  static final String SECRETS_KEY =
      java.util.Base64.getEncoder().encodeToString(io.kurir.store.SecretBox.newKey());

  Gateway start(String name, List<RouteTable> extra, String... flags) {
    List<String> all =
        new ArrayList<>(
            List.of(
                "--server.host=127.0.0.1",
                "--server.port=0",
                "--data.dir=" + work.resolve(name),
                "--secrets.key=" + SECRETS_KEY,
                "--pacing.min-gap=0ms",
                "--pacing.jitter=0ms",
                "--sandbox.delivery-after=1s",
                "--sandbox.read-after=2s",
                // The gateway is measured, not the simulated network's file.
                "--drivers.sandbox.journal=false"));
    all.addAll(List.of(flags));
    Settings settings = SettingsLoader.load(Profile.SERVE, all, Map.of(), work);
    return Gateway.start(settings, Clock.systemUTC(), extra);
  }

  static License newLicense(Tenants tenants) {
    Partner p = tenants.createPartner("Bench partner", "");
    return tenants.createLicense(p.id(), "Bench", "", LocalDate.of(2099, 1, 1), List.of());
  }

  static Device newDevice(Gateway gateway, License license, String number) {
    Device d = gateway.tenants().createDevice(license.id(), number, "sandbox");
    gateway.sandbox().pair(d.id(), d.number());
    return d;
  }

  private static SendRequest request(boolean sync) {
    return new SendRequest(
        List.of(Recipient.number(RECIPIENT)), "text", "hello", "bench", sync, false, Duration.ZERO);
  }

  private static String body(String key) {
    return "{\"key\":\""
        + key
        + "\",\"phone_no\":\""
        + RECIPIENT
        + "\",\"message\":\"Kode OTP 123456\"}";
  }

  private void waitUntilNothingPending(Gateway gateway, Duration limit) throws Exception {
    waitUntilNothingPending(gateway, null, limit);
  }

  private void waitUntilNothingPending(Gateway gateway, List<Long> devices, Duration limit)
      throws Exception {
    long deadline = System.nanoTime() + limit.toNanos();
    try (Database db = Database.open(gateway.settings().databaseUrl())) {
      while (pending(db, devices) > 0) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("messages still pending after " + limit);
        }
        Thread.sleep(20);
      }
    }
  }

  private static long pending(Database db, List<Long> devices) {
    String where = devices == null ? "" : " AND device_id IN (" + join(devices) + ")";
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT COUNT(*) FROM message WHERE state IN ('pending', 'sending')"
                            + where)
                    .mapTo(Long.class)
                    .one());
  }

  private static long countSent(Gateway gateway, List<Long> devices) {
    try (Database db = Database.open(gateway.settings().databaseUrl())) {
      return db.jdbi()
          .withHandle(
              h ->
                  h.createQuery(
                          "SELECT COUNT(*) FROM message WHERE state IN ('sent', 'delivery', 'read')"
                              + " AND device_id IN ("
                              + join(devices)
                              + ")")
                      .mapTo(Long.class)
                      .one());
    }
  }

  private static String join(List<Long> ids) {
    return String.join(",", ids.stream().map(String::valueOf).toList());
  }

  private void add(String name, Wrk.Result r, String note) {
    if (r.failed() > 0) {
      note = note + "; " + r.failed() + " failed requests";
    }
    if (!Double.isNaN(r.gatewayCpuMicros())) {
      note =
          note
              + String.format(
                  Locale.ROOT,
                  "; CPU per request: gateway %.0f µs, wrk %.0f µs",
                  r.gatewayCpuMicros(),
                  r.wrkCpuMicros());
    }
    rows.add(
        new Row(
            name,
            String.format(Locale.ROOT, "%,.0f req/s", r.perSecond()),
            r.perSecond(),
            String.format(Locale.ROOT, "%.2f ms", r.p50ms()),
            String.format(Locale.ROOT, "%.2f ms", r.p99ms()),
            note));
  }

  private void print() throws IOException {
    StringBuilder t = new StringBuilder();
    t.append("| row | figure | × noop | p50 | p99 | how |\n");
    t.append("|---|---|---|---|---|---|\n");
    for (Row r : rows) {
      String ratio =
          Double.isNaN(r.perSecond()) || noopPerSecond == 0
              ? ""
              : String.format(Locale.ROOT, "%.2f", r.perSecond() / noopPerSecond);
      t.append(
          String.format(
              "| %s | %s | %s | %s | %s | %s |%n",
              r.name(), r.figure(), ratio, r.p50(), r.p99(), r.note()));
    }
    String machine =
        String.format(
            Locale.ROOT,
            "%d cores, %s %s, %s; load: wrk (%s), %d s per row; SQLite WAL, synchronous=FULL;"
                + " sandbox driver; pacing off",
            Runtime.getRuntime().availableProcessors(),
            System.getProperty("java.vm.name"),
            System.getProperty("java.version"),
            System.getProperty("os.name") + " " + System.getProperty("os.arch"),
            wrk.settings(),
            duration.toSeconds());
    String report =
        "# Kurir benchmark\n\n"
            + Instant.now().toString().substring(0, 19).replace('T', ' ')
            + " UTC. "
            + machine
            + ".\n\n"
            + t;
    System.out.println();
    System.out.println(report);
    Path results = Path.of("bench/results");
    Files.createDirectories(results);
    // A partial run (--only) does not replace the full run's table.
    String file =
        only.isEmpty()
            ? "latest.md"
            : "only-" + String.join("-", new java.util.TreeSet<>(only)) + ".md";
    Files.writeString(results.resolve(file), report);
    System.out.println("written to bench/results/" + file);
  }

  private static long rssBytes() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
      }
    }
    return -1;
  }

  private static String mb(long bytes) {
    return String.format(Locale.ROOT, "%.0f MB", bytes / (1024.0 * 1024));
  }

  static int freePort() throws IOException {
    try (var s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  static void log(String what) {
    System.out.println("kurir bench: " + what);
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** The no-op endpoint: what the HTTP stack alone can serve. */
  private static final class NoopRoutes implements RouteTable {
    @Override
    public String pathPrefix() {
      return "/bench/";
    }

    @Override
    public ErrorStyle errorStyle() {
      return ErrorStyle.PLAIN_TOKEN;
    }

    @Override
    public void addTo(RoutesConfig routes) {
      routes.post("/bench/noop", ctx -> ctx.result("ok"));
    }
  }
}
