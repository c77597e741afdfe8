package io.kurir.testing;

import io.kurir.store.Database;
import io.kurir.store.DatabaseLocation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The PostgreSQL server of this test JVM, and fresh databases on it.
 *
 * <p>A server given by {@code KURIR_TEST_POSTGRES_URL} (with {@code KURIR_TEST_POSTGRES_USER} and
 * {@code KURIR_TEST_POSTGRES_PASSWORD}; or the system properties {@code kurir.test.postgres.url},
 * {@code .user}, {@code .password}) wins: its user needs CREATEDB. Otherwise a throwaway cluster is
 * started once per JVM on loopback, in a temporary folder, from the machine's PostgreSQL server
 * binaries ({@code /usr/lib/postgresql/<version>/bin}, or {@code KURIR_TEST_POSTGRES_BIN}):
 * PostgreSQL refuses to run as root, so as root it runs as the {@code postgres} user ({@code
 * runuser}) in a folder that user owns. A shutdown hook stops it. Missing binaries fail the tests
 * with what to install ({@code ./kurir test} installs Debian's {@code postgresql} package as root);
 * no test is skipped for want of PostgreSQL.
 *
 * <p>Each {@link #freshDatabase} is created from a template that was migrated once, so a test
 * starts on the current schema in milliseconds. Thread-safe.
 */
public final class TestPostgres {
  private static final String TEMPLATE = "kurir_template_" + shortId();
  private static final AtomicInteger COUNT = new AtomicInteger();
  private static Server server;

  private TestPostgres() {}

  /** Where the server is: the URL of its maintenance database, a user and a password. */
  private record Server(String host, int port, String user, String password, String adminDb) {
    String url(String database) {
      return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    DatabaseLocation location(String database) {
      return new DatabaseLocation(url(database), user, password);
    }
  }

  /** A new, empty database with Kurir's schema, on this JVM's server. */
  public static synchronized DatabaseLocation freshDatabase() {
    Server s = server();
    String name = "kurir_" + shortId() + "_" + COUNT.incrementAndGet();
    admin(s, "CREATE DATABASE " + name + " TEMPLATE " + TEMPLATE);
    return s.location(name);
  }

  /**
   * Ends the sessions on {@code database} other than the one this opens, as a server restart or a
   * failover of a managed database does; with {@code onlyQueryLike}, those whose last query is
   * {@code LIKE} it.
   */
  public static void hangUp(DatabaseLocation database, java.util.Optional<String> onlyQueryLike) {
    try (java.sql.Connection admin =
            java.sql.DriverManager.getConnection(
                database.url(), database.user(), database.password());
        java.sql.PreparedStatement s =
            admin.prepareStatement(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    + " AND query LIKE ?")) {
      s.setString(1, onlyQueryLike.orElse("%"));
      s.executeQuery().close();
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException("cannot end the sessions on " + database.url(), e);
    }
  }

  /** Drops a database {@link #freshDatabase} made, closing what is still connected to it. */
  public static synchronized void drop(DatabaseLocation database) {
    String url = database.url();
    String name = url.substring(url.lastIndexOf('/') + 1);
    admin(server(), "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
  }

  private static synchronized Server server() {
    if (server == null) {
      Server s = given().orElseGet(TestPostgres::startCluster);
      admin(s, "CREATE DATABASE " + TEMPLATE + " ENCODING 'UTF8' TEMPLATE template0");
      Database.open(s.location(TEMPLATE)).close(); // migrated once; copied for every test
      if (given().isPresent()) {
        Runtime.getRuntime()
            .addShutdownHook(
                Thread.ofPlatform()
                    .unstarted(() -> admin(s, "DROP DATABASE IF EXISTS " + TEMPLATE)));
      }
      server = s;
    }
    return server;
  }

  private static Optional<Server> given() {
    String url = setting("url");
    if (url.isEmpty()) {
      return Optional.empty();
    }
    // jdbc:postgresql://host[:port]/database[?…]
    String rest = url.substring(url.indexOf("//") + 2);
    int slash = rest.indexOf('/');
    String hostPort = slash >= 0 ? rest.substring(0, slash) : rest;
    String db = slash >= 0 ? rest.substring(slash + 1).replaceAll("\\?.*", "") : "postgres";
    int colon = hostPort.lastIndexOf(':');
    String host = colon >= 0 ? hostPort.substring(0, colon) : hostPort;
    int port = colon >= 0 ? Integer.parseInt(hostPort.substring(colon + 1)) : 5432;
    return Optional.of(
        new Server(
            host, port, setting("user"), setting("password"), db.isEmpty() ? "postgres" : db));
  }

  private static String setting(String name) {
    String property = System.getProperty("kurir.test.postgres." + name);
    if (property != null && !property.isBlank()) {
      return property.strip();
    }
    String env = System.getenv("KURIR_TEST_POSTGRES_" + name.toUpperCase(java.util.Locale.ROOT));
    return env == null ? "" : env.strip();
  }

  private static void admin(Server s, String sql) {
    try (Connection c = DriverManager.getConnection(s.url(s.adminDb()), s.user(), s.password());
        Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "PostgreSQL for the tests: " + sql + ": " + e.getMessage(), e);
    }
  }

  private static Server startCluster() {
    Path bin = binaries();
    boolean root = "root".equals(System.getProperty("user.name"));
    try {
      Path dir = Files.createTempDirectory("kurir-pg-");
      Path data = dir.resolve("data");
      if (root) {
        // PostgreSQL refuses root; its own user must own the folder.
        UserPrincipalLookupService users = dir.getFileSystem().getUserPrincipalLookupService();
        Files.setOwner(dir, users.lookupPrincipalByName("postgres"));
      }
      int port = freePort();
      run(
          root,
          dir,
          bin.resolve("initdb").toString(),
          "-D",
          data.toString(),
          "-U",
          "kurir",
          "--auth=trust",
          "--encoding=UTF8",
          "--locale=C.UTF-8",
          "--no-sync");
      // Durability is not what the tests measure: no fsync makes CREATE DATABASE and commits fast.
      String options =
          "-p "
              + port
              + " -k "
              + dir
              + " -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off"
              + " -c full_page_writes=off -c max_connections=400 -c shared_buffers=64MB";
      run(
          root,
          dir,
          bin.resolve("pg_ctl").toString(),
          "-D",
          data.toString(),
          "-o",
          options,
          "-l",
          dir.resolve("server.log").toString(),
          "-w",
          "-t",
          "60",
          "start");
      Runtime.getRuntime()
          .addShutdownHook(
              Thread.ofPlatform()
                  .unstarted(
                      () -> {
                        try {
                          run(
                              root,
                              dir,
                              bin.resolve("pg_ctl").toString(),
                              "-D",
                              data.toString(),
                              "-m",
                              "immediate",
                              "-w",
                              "stop");
                        } catch (RuntimeException e) {
                          // the JVM is leaving; a cluster left over dies with the temp folder
                        }
                        deleteQuietly(dir);
                      }));
      return new Server("127.0.0.1", port, "kurir", "", "postgres");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start PostgreSQL for the tests", e);
    }
  }

  /** The newest server binaries of the machine. */
  private static Path binaries() {
    String given = System.getenv("KURIR_TEST_POSTGRES_BIN");
    if (given != null && !given.isBlank()) {
      return Path.of(given.strip());
    }
    Path versions = Path.of("/usr/lib/postgresql");
    try (Stream<Path> all = Files.isDirectory(versions) ? Files.list(versions) : Stream.empty()) {
      return all.map(v -> v.resolve("bin"))
          .filter(b -> Files.isExecutable(b.resolve("initdb")))
          .max(Comparator.comparing(b -> versionOf(b.getParent())))
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "the tests run on PostgreSQL too, and no PostgreSQL server was found: run"
                          + " ./kurir test (as root it installs Debian's postgresql package), or"
                          + " install the server (Debian/Ubuntu: sudo apt-get install postgresql),"
                          + " or give one with KURIR_TEST_POSTGRES_URL (and _USER, _PASSWORD)"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int versionOf(Path folder) {
    try {
      return Integer.parseInt(folder.getFileName().toString().replaceAll("\\..*", ""));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static void run(boolean root, Path dir, String... command) {
    List<String> full = new ArrayList<>();
    if (root) {
      full.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    full.addAll(List.of(command));
    try {
      Path log = Files.createTempFile("kurir-pg-cmd", ".log");
      Process p =
          new ProcessBuilder(full)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      if (!p.waitFor(90, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", full) + " did not finish in 90 s");
      }
      String output = Files.readString(log, StandardCharsets.UTF_8);
      Files.deleteIfExists(log);
      if (p.exitValue() != 0) {
        throw new IllegalStateException(
            String.join(" ", full) + " failed (exit " + p.exitValue() + "):\n" + output);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> all = Files.walk(dir)) {
      all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // best effort: a temp folder
    }
  }

  private static String shortId() {
    return UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  }
}
