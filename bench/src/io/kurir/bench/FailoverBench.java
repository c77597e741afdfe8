package io.kurir.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.bench.Bench.Row;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * {@code --only=failover}: the time from {@code kill -9} of a node to the first send of one of its
 * devices by another node. Three gateway processes ({@code java -jar target/run/kurir.jar serve},
 * as {@code ./kurir serve} runs it) on one PostgreSQL database, devices shared out over them, a
 * steady trickle of async sends to every device through the live nodes. Each round kills the node
 * holding the most devices, waits for the first {@code sent} of one of its devices (the {@code
 * message_event} rows the nodes write), and starts it again (same node id and data folder) for the
 * next round.
 */
final class FailoverBench {
  private static final String ADMIN_TOKEN = "bench-failover-admin-token-0123456789";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int NODES = 3;
  private static final int DEVICES = 12;
  private static final int ROUNDS = 3;

  /** A trickle, not a load: the figure is the lease, not how fast the survivors catch up. */
  private static final Duration TRICKLE_GAP = Duration.ofMillis(25);

  /**
   * A lease runs out at most 15 s after the death, a node looks every second; slack for a busy box.
   */
  private static final Duration TAKE_OVER_LIMIT = Duration.ofSeconds(45);

  private final NodesBench postgres;
  private final Path work;
  private final List<Row> rows;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  FailoverBench(NodesBench postgres, Path work, List<Row> rows) {
    this.postgres = postgres;
    this.work = work;
    this.rows = rows;
  }

  void run() throws Exception {
    Bench.log("PostgreSQL: kill -9 of a node to its devices' first send on another node");
    Path jar = Path.of("target", "run", "kurir.jar").toAbsolutePath();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "the failover row runs " + jar + ": build it (./kurir build)");
    }
    postgres.server();
    String database = postgres.freshDatabase();
    Map<Integer, Node> nodes = new HashMap<>();
    Trickle trickle = new Trickle();
    List<CompletableFuture<Node>> starting = new ArrayList<>();
    try (Connection sql =
        DriverManager.getConnection(database, postgres.user(), postgres.password())) {
      for (int id = 1; id <= NODES; id++) {
        int node = id;
        starting.add(
            CompletableFuture.supplyAsync(() -> Node.start(jar, work, database, postgres, node)));
      }
      for (CompletableFuture<Node> f : starting) {
        Node node = f.get(90, TimeUnit.SECONDS);
        nodes.put(node.id, node);
      }
      List<Long> deviceIds = devices(nodes, trickle);
      until(
          "the devices shared out over the nodes",
          Duration.ofSeconds(60),
          () -> holders(sql) == NODES);
      nodes.values().forEach(n -> trickle.targets.add(n.url));
      trickle.start();
      Thread.sleep(2_000); // sending under way on every node

      List<Long> millis = new ArrayList<>();
      for (int round = 1; round <= ROUNDS; round++) {
        Node victim = nodes.get(busiestNode(sql));
        List<Long> itsDevices = devicesOf(sql, "node-" + victim.id);
        trickle.targets.remove(victim.url);
        long killedAt = victim.kill();
        until(
            "a device of the killed node sending on another node",
            TAKE_OVER_LIMIT,
            () -> firstSentAfter(sql, itsDevices, killedAt) > 0);
        long took = firstSentAfter(sql, itsDevices, killedAt) - killedAt;
        millis.add(took);
        if (round < ROUNDS) {
          // Back to three nodes for the next round; the next victim is whichever node holds most.
          Node again = Node.start(jar, work, database, postgres, victim.id);
          nodes.put(again.id, again);
          pairAll(again, deviceIds);
          trickle.targets.add(again.url);
        }
        until(
            "lease on every device again",
            TAKE_OVER_LIMIT,
            () ->
                query(sql, "SELECT count(*) FROM device_lease WHERE expires_at > ?", now())
                    == DEVICES);
        Bench.log(
            String.format(
                Locale.ROOT,
                "round %d: node %d killed holding %d devices; first send elsewhere after %,d ms;"
                    + " now held by %s (a restarted node takes back those not yet taken over)",
                round,
                victim.id,
                itsDevices.size(),
                took,
                ownersOf(sql, itsDevices)));
      }
      rows.add(row(deviceIds.size(), millis, trickle.accepted()));
    } finally {
      trickle.stop();
      for (CompletableFuture<Node> f : starting) { // one still starting when another failed
        try {
          Node n = f.get(90, TimeUnit.SECONDS);
          if (nodes.get(n.id) != n) {
            n.stop();
          }
        } catch (ExecutionException | TimeoutException e) {
          // it did not start, and Node.start ended its process
        }
      }
      for (Node n : nodes.values()) {
        n.stop();
      }
      http.close();
    }
  }

  private Row row(int devices, List<Long> millis, int accepted) {
    List<Long> sorted = new ArrayList<>(millis);
    sorted.sort(Comparator.naturalOrder());
    String median = seconds(sorted.get(sorted.size() / 2));
    return new Row(
        "PostgreSQL: kill -9 of a node → its devices' first send on another node",
        median,
        Double.NaN,
        median,
        seconds(sorted.getLast()) + " (max)",
        String.format(
            Locale.ROOT,
            "%d gateway processes (java -jar kurir.jar serve) on one database, %d devices, async"
                + " sends every %d ms through the live nodes (%,d accepted); each round SIGKILLs the"
                + " node holding most devices, times from its exit to the first sent of one of its"
                + " devices by another node, and restarts it; %d rounds: %s. A lease lasts 15 s and"
                + " is renewed every 5 s, so it runs out 10 to 15 s after the death, and every node"
                + " looks every second: about 10 to 16 s",
            NODES,
            devices,
            TRICKLE_GAP.toMillis(),
            accepted,
            millis.size(),
            String.join(", ", millis.stream().map(FailoverBench::seconds).toList())));
  }

  private static String seconds(long millis) {
    return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
  }

  /**
   * A partner, a license and {@link #DEVICES} devices, made through node 1, paired on every node.
   */
  private List<Long> devices(Map<Integer, Node> nodes, Trickle trickle) throws Exception {
    String base = nodes.get(1).url;
    String partner =
        post(base, "/admin/partners", "{\"name\":\"Bench partner\"}").get("id").asText();
    String license =
        post(base, "/admin/licenses", "{\"partner\":\"" + partner + "\",\"name\":\"Bench\"}")
            .get("id")
            .asText();
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < DEVICES; i++) {
      String number = String.format(Locale.ROOT, "+62816%07d", 5_000_000 + i);
      JsonNode device =
          post(
              base,
              "/admin/devices",
              "{\"license\":\"" + license + "\",\"number\":\"" + number + "\"}");
      ids.add(device.get("id").asLong());
      trickle.keys.add(device.get("key").asText());
    }
    for (Node node : nodes.values()) {
      pairAll(node, ids);
    }
    return ids;
  }

  /** Each node's view of the sandbox network knows every device's phone (a restart keeps it). */
  private void pairAll(Node node, List<Long> devices) throws Exception {
    for (long id : devices) {
      post(node.url, "/sandbox/devices/" + id + "/pair", "{}");
    }
  }

  private JsonNode post(String base, String path, String json) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + ADMIN_TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() / 100 != 2) {
      throw new IllegalStateException(path + " answered " + r.statusCode() + ": " + r.body());
    }
    return JSON.readTree(r.body().isEmpty() ? "{}" : r.body());
  }

  // --- what the database says

  private static int holders(Connection sql) {
    return (int)
        query(sql, "SELECT count(DISTINCT owner) FROM device_lease WHERE expires_at > ?", now());
  }

  /** The node id holding the most unexpired leases. */
  private static int busiestNode(Connection sql) throws SQLException {
    try (PreparedStatement q =
        sql.prepareStatement(
            "SELECT owner FROM device_lease WHERE expires_at > ? GROUP BY owner"
                + " ORDER BY count(*) DESC, owner LIMIT 1")) {
      q.setLong(1, now());
      try (ResultSet rs = q.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("no node holds a device");
        }
        return Integer.parseInt(rs.getString(1).substring("node-".length()));
      }
    }
  }

  /** How many of {@code devices} each node holds now, for the log. */
  private static Map<String, Integer> ownersOf(Connection sql, List<Long> devices)
      throws SQLException {
    Map<String, Integer> owners = new TreeMap<>();
    try (PreparedStatement q =
        sql.prepareStatement(
            "SELECT owner, count(*) FROM device_lease WHERE device_id = ANY (?) GROUP BY owner")) {
      q.setArray(1, sql.createArrayOf("bigint", devices.toArray()));
      try (ResultSet rs = q.executeQuery()) {
        while (rs.next()) {
          owners.put(rs.getString(1), rs.getInt(2));
        }
      }
    }
    return owners;
  }

  private static long now() {
    return System.currentTimeMillis();
  }

  private static List<Long> devicesOf(Connection sql, String owner) throws SQLException {
    List<Long> devices = new ArrayList<>();
    try (PreparedStatement q =
        sql.prepareStatement("SELECT device_id FROM device_lease WHERE owner = ?")) {
      q.setString(1, owner);
      try (ResultSet rs = q.executeQuery()) {
        while (rs.next()) {
          devices.add(rs.getLong(1));
        }
      }
    }
    return devices;
  }

  /** When a message of {@code devices} was first recorded sent after {@code after}; 0: none yet. */
  private static long firstSentAfter(Connection sql, List<Long> devices, long after) {
    try (PreparedStatement q =
        sql.prepareStatement(
            "SELECT coalesce(min(e.at), 0) FROM message_event e JOIN message m ON m.id ="
                + " e.message_id WHERE e.state = 'sent' AND e.at > ? AND m.device_id = ANY (?)")) {
      q.setLong(1, after);
      q.setArray(2, sql.createArrayOf("bigint", devices.toArray()));
      try (ResultSet rs = q.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long query(Connection sql, String select, long parameter) {
    try (PreparedStatement q = sql.prepareStatement(select)) {
      q.setLong(1, parameter);
      try (ResultSet rs = q.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void until(String what, Duration limit, BooleanSupplier done)
      throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "failover row: no " + what + " within " + limit.toSeconds() + " s");
      }
      Thread.sleep(20);
    }
  }

  /** One gateway process, started as {@code ./kurir serve} runs it, its output in a log file. */
  private record Node(int id, Process process, String url) {
    static Node start(Path jar, Path work, String database, NodesBench postgres, int id) {
      Path log = work.resolve("failover-node-" + id + ".log");
      List<String> command =
          List.of(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              // As the launcher, without its class-data archive: three processes would write it.
              "--enable-native-access=ALL-UNNAMED",
              "-jar",
              jar.toString(),
              "serve",
              "--server.host=127.0.0.1",
              "--server.port=0",
              "--node.id=" + id,
              "--data.dir=" + work.resolve("failover-node-" + id),
              "--database.url=" + database,
              "--database.user=" + postgres.user(),
              "--database.password=" + postgres.password(),
              // One key for every node of the database (each has its own data folder).
              "--secrets.key=" + Bench.SECRETS_KEY,
              "--admin.token=" + ADMIN_TOKEN,
              "--drivers.sandbox.api=true",
              "--drivers.sandbox.delivery-after=1s",
              "--drivers.sandbox.read-after=2s",
              "--drivers.sandbox.pacing.min-gap=0ms",
              "--drivers.sandbox.pacing.jitter=0ms");
      try {
        ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true);
        b.environment().keySet().removeIf(k -> k.startsWith("KURIR_")); // only the flags count
        Process p = b.start();
        CompletableFuture<String> url = new CompletableFuture<>();
        Thread.ofPlatform()
            .daemon()
            .name("failover-node-" + id + "-output")
            .start(() -> copyOutput(p, log, url));
        try {
          return new Node(id, p, url.get(90, TimeUnit.SECONDS));
        } catch (Exception e) {
          p.destroyForcibly();
          throw new IllegalStateException(
              "node " + id + " did not start: " + e + "\n" + Files.readString(log), e);
        }
      } catch (IOException e) {
        throw new IllegalStateException("node " + id + " could not be started", e);
      }
    }

    private static void copyOutput(Process p, Path log, CompletableFuture<String> url) {
      String listening = "Kurir is listening on ";
      try (BufferedReader in =
              new BufferedReader(
                  new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
          PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8))) {
        for (String line; (line = in.readLine()) != null; ) {
          out.println(line);
          out.flush();
          if (line.startsWith(listening)) {
            url.complete(line.substring(listening.length()).strip());
          }
        }
      } catch (IOException e) {
        // the process is gone
      } finally {
        url.completeExceptionally(new IllegalStateException("the gateway ended"));
      }
    }

    /** {@code kill -9} (SIGKILL on Linux); returns when the process is gone, in epoch millis. */
    long kill() throws InterruptedException {
      process.destroyForcibly();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        throw new IllegalStateException("node " + id + " still runs 20 s after SIGKILL");
      }
      return System.currentTimeMillis();
    }

    /** A clean stop (SIGTERM), forced after 30 s. */
    void stop() throws InterruptedException {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  /** One client posting async sends round-robin over the devices to the nodes up now. */
  private final class Trickle {
    final List<String> keys = new CopyOnWriteArrayList<>();
    final List<String> targets = new CopyOnWriteArrayList<>();
    private volatile boolean running = true;
    private volatile int accepted;
    private Thread thread;

    void start() {
      thread = Thread.ofPlatform().name("failover-trickle").start(this::run);
    }

    int accepted() {
      return accepted;
    }

    void stop() throws InterruptedException {
      running = false;
      if (thread != null) {
        thread.join(Duration.ofSeconds(10));
      }
    }

    private void run() {
      for (int n = 0; running; n++) {
        List<String> up = List.copyOf(targets);
        if (!up.isEmpty()) {
          String body =
              "{\"key\":\""
                  + keys.get(n % keys.size())
                  + "\",\"phone_no\":\"+6281234567890\",\"message\":\"Halo "
                  + n
                  + "\"}";
          try {
            HttpResponse<String> r =
                http.send(
                    HttpRequest.newBuilder(
                            URI.create(up.get(n % up.size()) + "/api/async_send_message"))
                        .timeout(Duration.ofSeconds(5))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200 && r.body().matches("\\d+")) {
              accepted++;
            }
          } catch (IOException e) {
            // a node gone between the copy of the targets and the request: the next one goes on
          } catch (InterruptedException e) {
            return;
          }
        }
        try {
          Thread.sleep(TRICKLE_GAP);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }
}
