package io.kurir.bench;

import io.kurir.Gateway;
import io.kurir.bench.Bench.Row;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The rows on PostgreSQL: durable accept and end-to-end on one node, the same end-to-end with two
 * nodes on one database (the load generator, both nodes and PostgreSQL share the machine), beside
 * the SQLite rows of the same run. PostgreSQL comes from {@code KURIR_BENCH_POSTGRES_URL} (a
 * database of a server whose user may create databases, with {@code KURIR_BENCH_POSTGRES_USER} and
 * {@code KURIR_BENCH_POSTGRES_PASSWORD}), or is a throwaway cluster started from the machine's
 * server binaries ({@code /usr/lib/postgresql/<version>/bin}, as the {@code postgres} user when
 * root), with {@code fsync} on: commits are as durable as SQLite's {@code synchronous=FULL}.
 *
 * <p>With {@code KURIR_BENCH_POSTGRES_STATEMENTS} set, the throwaway cluster loads {@code
 * pg_stat_statements} and the accept and end-to-end rows print the statements the server ran for
 * them, counted per message accepted or sent: where a message's round trips go. The extension costs
 * the server a little, so those runs are for the analysis, not for the figures.
 */
final class NodesBench implements AutoCloseable {
  private static final String RECIPIENT = "+6281234567890";
  private static final int DEVICES = 100;

  /** Starts a gateway named {@code name} with extra settings flags. */
  interface Starter {
    Gateway start(String name, String... flags);
  }

  private final Starter start;
  private final Wrk wrk;
  private final Path work;
  private final Duration duration;
  private final List<Row> rows;
  private String adminUrl;
  private String user;
  private String password;
  private Path cluster; // null: a server given by the environment
  private Path binaries;
  private int databases;
  private final boolean statements = System.getenv("KURIR_BENCH_POSTGRES_STATEMENTS") != null;

  NodesBench(Starter start, Wrk wrk, Path work, Duration duration, List<Row> rows) {
    this.start = start;
    this.wrk = wrk;
    this.work = work;
    this.duration = duration;
    this.rows = rows;
  }

  void run() throws Exception {
    server();
    String one = freshDatabase();
    try (Gateway gateway = start.start("pg-one", flags(one, 1))) {
      License license = license(gateway);
      Device device = device(gateway, license, "+62814" + "0000001");
      String base = gateway.baseUrl();
      wrk.postJson(base + "/api/async_send_message", body(device.ecoKey()), Bench.WARM_UP);
      gateway.sandbox().unpair(device.id()); // accepting only: the device is offline
      Bench.log("PostgreSQL: async_send_message");
      if (statements) {
        sql(gateway, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
        sql(gateway, "SELECT pg_stat_statements_reset()");
      }
      Wrk.Result accepted =
          wrk.postJson(base + "/api/async_send_message", body(device.ecoKey()), duration);
      if (statements) {
        printStatements(
            gateway,
            "PostgreSQL: async_send_message",
            Math.round(accepted.perSecond() * duration.toMillis() / 1000.0));
      }
      rows.add(
          row(
              "PostgreSQL: async_send_message",
              accepted,
              "as the SQLite row, one node on PostgreSQL: each reply after its own commit"));
      Bench.log("PostgreSQL: end-to-end, one node");
      endToEnd("PostgreSQL: end-to-end, one node", List.of(gateway), license);
    }
    String two = freshDatabase();
    try (Gateway first = start.start("pg-node1", flags(two, 1));
        Gateway second = start.start("pg-node2", flags(two, 2))) {
      Bench.log("PostgreSQL: end-to-end, two nodes");
      endToEnd("PostgreSQL: end-to-end, two nodes", List.of(first, second), license(first));
    }
    // The rows above send a word; a shop's notice is a sentence or two. On PostgreSQL a long text
    // made every change of its message's row costly while the text's trigram index was on that
    // row (before V56, message_text).
    String three = freshDatabase();
    try (Gateway gateway = start.start("pg-notices", flags(three, 1))) {
      Bench.log("PostgreSQL: end-to-end, one node, 160-character texts");
      endToEnd(
          "PostgreSQL: end-to-end, one node, 160-character texts",
          List.of(gateway),
          license(gateway),
          NOTICE);
    }
  }

  /** A shop's notice of 160 characters, as the last row sends. */
  private static final String NOTICE =
      "Halo Kak Budi, pesanan Anda INV-2026-118734 sudah kami kirim hari ini lewat JNE, nomor"
          + " resi JP1234567890. Terima kasih sudah belanja di Toko Sinar Jaya Abadi!!!";

  /**
   * Messages over {@link #DEVICES} devices posted for {@code duration} to every node at once (the
   * connections split between them), and the time until all are sent.
   */
  private void endToEnd(String name, List<Gateway> nodes, License license) throws Exception {
    endToEnd(name, nodes, license, "Halo");
  }

  /** {@link #endToEnd}, each message's text {@code text}. */
  private void endToEnd(String name, List<Gateway> nodes, License license, String text)
      throws Exception {
    Gateway first = nodes.getFirst();
    List<Device> devices = new ArrayList<>();
    for (int i = 0; i < DEVICES; i++) {
      devices.add(device(first, license, String.format(Locale.ROOT, "+62815%07d", 4_000_000 + i)));
    }
    for (Gateway other : nodes.subList(1, nodes.size())) {
      devices.forEach(d -> other.sandbox().pair(d.id(), d.number()));
    }
    // The nodes share the devices out first (each node's log says how many it sends for).
    long spread = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (holders(first) < nodes.size() && System.nanoTime() < spread) {
      Thread.sleep(100);
    }
    List<String> keys = devices.stream().map(Device::ecoKey).toList();
    if (statements) {
      sql(first, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      sql(first, "SELECT pg_stat_statements_reset()");
    }
    Instant began = Instant.now();
    List<CompletableFuture<Wrk.Result>> loads = new ArrayList<>();
    // A thread per node: the common pool has one worker on two cores, which ran the nodes' loads
    // one after the other (each node then had the load alone, for half of the time).
    try (var threads = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
      for (Gateway node : nodes) {
        Wrk own = new Wrk(1, Math.max(2, 64 / nodes.size()), work);
        loads.add(
            CompletableFuture.supplyAsync(
                () ->
                    own.postJsonRotatingKeys(
                        node.baseUrl() + "/api/async_send_message",
                        body("%KEY%", text),
                        keys,
                        duration),
                threads));
      }
    }
    double acceptedPerSecond = 0;
    for (CompletableFuture<Wrk.Result> load : loads) {
      acceptedPerSecond += load.get().perSecond();
    }
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    String ofDevices =
        " AND device_id IN ("
            + String.join(",", devices.stream().map(d -> String.valueOf(d.id())).toList())
            + ")";
    while (count(first, "pending', 'sending", ofDevices) > 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("messages still pending after 10 minutes");
      }
      Thread.sleep(20);
    }
    double seconds = Duration.between(began, Instant.now()).toMillis() / 1000.0;
    long sent = count(first, "sent', 'delivery', 'read", ofDevices);
    if (statements) {
      printStatements(first, name, sent);
    }
    rows.add(
        new Row(
            name,
            String.format(Locale.ROOT, "%,.0f msg/s", sent / seconds),
            sent / seconds,
            "",
            "",
            String.format(
                Locale.ROOT,
                "%,d messages over %d devices posted to %d node(s) at once, all sent %.1f s after"
                    + " the first request (accepted at %,.0f/s); the sandbox records each id it"
                    + " receives in the database (its de-duplication across nodes)",
                sent,
                DEVICES,
                nodes.size(),
                seconds,
                acceptedPerSecond)));
  }

  private static long count(Gateway gateway, String statesInQuotes, String andWhere) {
    return gateway
        .database()
        .jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT count(*) FROM message WHERE state IN ('"
                            + statesInQuotes
                            + "')"
                            + andWhere)
                    .mapTo(Long.class)
                    .one());
  }

  private static void sql(Gateway gateway, String statement) {
    gateway.database().jdbi().useHandle(h -> h.execute(statement));
  }

  /**
   * The statements the server ran since the row began (every database's: the nodes' and this
   * benchmark's few looks), most called first, as calls and server time per message sent.
   */
  private static void printStatements(Gateway gateway, String row, long sent) {
    List<String> lines =
        gateway
            .database()
            .jdbi()
            .withHandle(
                h ->
                    h.createQuery(
                            "SELECT calls, rows, total_exec_time, query FROM pg_stat_statements"
                                + " ORDER BY calls DESC LIMIT 40")
                        .map(
                            (rs, ctx) ->
                                String.format(
                                    Locale.ROOT,
                                    "%7.3f calls/msg %7.3f rows/msg %6.1f µs/msg  %s",
                                    rs.getLong("calls") / (double) sent,
                                    rs.getLong("rows") / (double) sent,
                                    rs.getDouble("total_exec_time") * 1000 / sent,
                                    rs.getString("query").replaceAll("\\s+", " ")))
                        .list());
    Bench.log(row + ": the server's statements per message (" + sent + " messages)");
    lines.forEach(l -> System.out.println("  " + l));
  }

  private static int holders(Gateway gateway) {
    return gateway
        .database()
        .jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT count(DISTINCT owner) FROM device_lease")
                    .mapTo(Integer.class)
                    .one());
  }

  private static License license(Gateway gateway) {
    Partner p = gateway.tenants().createPartner("Bench partner", "");
    return gateway
        .tenants()
        .createLicense(p.id(), "Bench", "", LocalDate.of(2099, 1, 1), List.of());
  }

  private static Device device(Gateway gateway, License license, String number) {
    Device d = gateway.tenants().createDevice(license.id(), number, "sandbox");
    gateway.sandbox().pair(d.id(), d.number());
    return d;
  }

  private static String body(String key) {
    return body(key, "Halo");
  }

  private static String body(String key, String text) {
    return "{\"key\":\""
        + key
        + "\",\"phone_no\":\""
        + RECIPIENT
        + "\",\"message\":\""
        + text
        + "\"}";
  }

  private static Row row(String name, Wrk.Result r, String note) {
    return new Row(
        name,
        String.format(Locale.ROOT, "%,.0f req/s", r.perSecond()),
        r.perSecond(),
        String.format(Locale.ROOT, "%.2f ms", r.p50ms()),
        String.format(Locale.ROOT, "%.2f ms", r.p99ms()),
        r.failed() > 0 ? note + "; " + r.failed() + " failed requests" : note);
  }

  String[] flags(String database, int node) {
    return new String[] {
      "--database.url=" + database,
      "--database.user=" + user,
      "--database.password=" + password,
      "--node.id=" + node,
      // One key for every node of the database (each has its own data folder): see Bench.
      "--secrets.key=" + Bench.SECRETS_KEY
    };
  }

  // --- the server

  /** Finds or starts the server, once: the failover row may share it with the rows above. */
  void server() throws Exception {
    if (adminUrl != null) {
      return;
    }
    String given = System.getenv("KURIR_BENCH_POSTGRES_URL");
    if (given != null && !given.isBlank()) {
      adminUrl = given;
      user = System.getenv().getOrDefault("KURIR_BENCH_POSTGRES_USER", "");
      password = System.getenv().getOrDefault("KURIR_BENCH_POSTGRES_PASSWORD", "");
      return;
    }
    binaries = newestBinaries();
    boolean root = "root".equals(System.getProperty("user.name"));
    // Its own folder under the system's temporary one: the postgres user must reach it.
    cluster = Files.createTempDirectory("kurir-bench-postgres");
    if (root) {
      run(List.of("chown", "postgres", cluster.toString()), false);
    }
    Path data = cluster.resolve("data");
    run(
        List.of(
            binaries.resolve("initdb").toString(),
            "-D",
            data.toString(),
            "-U",
            "kurir",
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C.UTF-8"),
        root);
    int port = Bench.freePort();
    run(
        List.of(
            binaries.resolve("pg_ctl").toString(),
            "-D",
            data.toString(),
            "-w",
            "-l",
            cluster.resolve("log").toString(),
            "-o",
            "-p "
                + port
                + " -k "
                + cluster
                + " -c listen_addresses=127.0.0.1"
                + (statements ? " -c shared_preload_libraries=pg_stat_statements" : ""),
            "start"),
        root);
    adminUrl = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    user = "kurir";
    password = "";
  }

  String user() {
    return user;
  }

  String password() {
    return password;
  }

  /** A new empty database on the server, as a JDBC URL. */
  String freshDatabase() throws SQLException {
    String name = "kurir_bench_" + ProcessHandle.current().pid() + "_" + (++databases);
    try (Connection c = DriverManager.getConnection(adminUrl, user, password);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    }
    return adminUrl.substring(0, adminUrl.lastIndexOf('/') + 1) + name;
  }

  private static Path newestBinaries() throws Exception {
    Path root = Path.of("/usr/lib/postgresql");
    if (Files.isDirectory(root)) {
      try (Stream<Path> versions = Files.list(root)) {
        var newest =
            versions
                .filter(v -> Files.isExecutable(v.resolve("bin").resolve("initdb")))
                .max(Comparator.comparingInt(v -> Integer.parseInt(v.getFileName().toString())));
        if (newest.isPresent()) {
          return newest.get().resolve("bin");
        }
      }
    }
    throw new IllegalStateException(
        "the PostgreSQL rows need a server: set KURIR_BENCH_POSTGRES_URL (and _USER, _PASSWORD),"
            + " or install the server binaries (Debian/Ubuntu: sudo apt-get install postgresql)");
  }

  private static void run(List<String> command, boolean asPostgres) throws Exception {
    List<String> full = new ArrayList<>();
    if (asPostgres) {
      full.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    full.addAll(command);
    Process p = new ProcessBuilder(full).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
    }
  }

  /** Stops the throwaway cluster, if this started one. */
  @Override
  public void close() throws Exception {
    if (cluster != null) {
      try {
        run(
            List.of(
                binaries.resolve("pg_ctl").toString(),
                "-D",
                cluster.resolve("data").toString(),
                "-m",
                "fast",
                "stop"),
            "root".equals(System.getProperty("user.name")));
      } finally {
        run(List.of("rm", "-rf", cluster.toString()), false);
      }
    }
  }
}
