package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.store.Database;
import io.kurir.store.InstanceLock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./kurir serve} as it really starts, in a process of its own: each way it cannot start
 * fails within seconds with one line that names what is wrong, not a stack trace, and leaves the
 * data folder as it was.
 */
class StartupFailuresTest {
  @TempDir Path dir;

  @Test
  void aPortInUseIsNamedAndNothingIsWrittenToTheDataFolder() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      Path data = dir.resolve("data");

      Run run = serve("--server.port=" + port, "--data.dir=" + data);

      assertThat(run.exitCode).isEqualTo(1);
      assertThat(run.stderr)
          .contains(
              "kurir: could not start: port "
                  + port
                  + " is taken: another program listens on 127.0.0.1:"
                  + port)
          .contains("choose another port with --port=<n> (server.port)")
          .doesNotContain("Exception")
          .doesNotContain("\tat ");
      assertThat(data).as("nothing written to the data folder").doesNotExist();
    }
  }

  @Test
  void aZeroLengthDatabaseIsRefusedNotStartedAsANewInstall() throws Exception {
    Path data = Files.createDirectories(dir.resolve("data"));
    Path db = Files.createFile(data.resolve("kurir.db"));

    Run run = serve("--server.port=0", "--data.dir=" + data);

    assertThat(run.exitCode).isEqualTo(1);
    assertThat(run.stderr)
        .contains("the database file " + db + " is empty (0 bytes)")
        .doesNotContain("Exception");
    assertThat(Files.size(db)).as("left as it was").isZero();
    assertThat(run.stdout).doesNotContain("listening");
  }

  @Test
  void aDatabaseLockedByAnotherProcessFailsWithinSecondsAndNamesTheLock() throws Exception {
    Path data = dir.resolve("data");
    Path db = data.resolve("kurir.db");
    Database.open("jdbc:sqlite:" + db).close(); // an existing install
    // This test's process holds SQLite's write lock, as an open sqlite3 shell in a transaction
    // would; the gateway is another process.
    try (Connection holder = DriverManager.getConnection("jdbc:sqlite:" + db);
        Statement s = holder.createStatement()) {
      s.execute("BEGIN IMMEDIATE");
      s.execute("CREATE TABLE held (x INTEGER)");

      long started = System.nanoTime();
      Run run = serve("--server.port=0", "--data.dir=" + data);
      Duration took = Duration.ofNanos(System.nanoTime() - started);

      assertThat(run.exitCode).isEqualTo(1);
      assertThat(run.stderr)
          .contains("the database " + db + " is locked by another process")
          .contains("write lock")
          .doesNotContain("Exception");
      assertThat(run.stdout).doesNotContain("listening");
      // A 3 s lock wait; the rest is a JVM start on a busy machine. Waiting on would never end.
      assertThat(took).as("fails within seconds, JVM start included").isLessThan(seconds(45));
      s.execute("ROLLBACK");
    }
  }

  @Test
  void aDataFolderItMayNotMakeSaysPermissionDeniedAndWhere() throws Exception {
    // A folder no user may make, root included, so that the test does not depend on who runs it:
    // sysfs refuses new entries (root gets EPERM, another user EACCES, a container EROFS), all
    // of them a permission denied to the operator.
    Path parent = Path.of("/sys/kurir-test-" + ProcessHandle.current().pid());
    Path data = parent.resolve("data");

    Run run = serve("--server.port=0", "--data.dir=" + data);

    assertThat(run.exitCode).isEqualTo(1);
    assertThat(run.stderr.strip())
        .startsWith("kurir: could not start: permission denied: " + parent + " (")
        .contains("making " + data)
        .endsWith("choose another data folder with --data=<folder> (data.dir)")
        .doesNotContain("cannot lock")
        .doesNotContain("\n")
        .doesNotContain("Exception");
    assertThat(run.stdout).doesNotContain("listening");
  }

  @Test
  void aDataFolderUnderAFileNamesTheFile() throws Exception {
    Path file = Files.writeString(dir.resolve("not-a-folder"), "");
    Path data = file.resolve("data");

    Run run = serve("--server.port=0", "--data.dir=" + data);

    assertThat(run.exitCode).isEqualTo(1);
    assertThat(run.stderr.strip())
        .isEqualTo(
            "kurir: could not start: cannot make "
                + data
                + ": "
                + file
                + " is a file, not a folder; choose another data folder with --data=<folder>"
                + " (data.dir)");
  }

  @Test
  void aTlsKeyFileItCannotReadIsNamedInOneLineAndNothingIsWritten() throws Exception {
    Path data = dir.resolve("data");
    Path cert = Files.writeString(dir.resolve("cert.pem"), "");
    Path key = dir.resolve("missing-key.pem");

    Run run =
        serve(
            "--server.port=0",
            "--data.dir=" + data,
            "--server.tls.cert=" + cert,
            "--server.tls.key=" + key);

    assertThat(run.exitCode).isEqualTo(1);
    assertThat(run.stderr.strip())
        .startsWith("kurir: could not start: server.tls.cert: " + cert)
        .doesNotContain("\n")
        .doesNotContain("Exception");
    assertThat(data).as("nothing written to the data folder").doesNotExist();
  }

  @Test
  void serveSaysTheAddressItReallyListensOn() throws Exception {
    Process p = serveOnAFreePort();
    try {
      var out = p.inputReader(StandardCharsets.UTF_8);
      String line = out.readLine();
      assertThat(line).matches("Kurir is listening on http://127\\.0\\.0\\.1:\\d+");
      int port = Integer.parseInt(line.substring(line.lastIndexOf(':') + 1));
      assertThat(port).as("the port it chose, not 0").isPositive();
      try (var socket = new java.net.Socket(InetAddress.getLoopbackAddress(), port)) {
        assertThat(socket.isConnected()).isTrue();
      }
    } finally {
      p.destroy();
      p.waitFor(30, TimeUnit.SECONDS);
    }
    // On every interface it says so (checked without binding one: tests stay on loopback).
    assertThat(Gateway.listeningOn("0.0.0.0", 8080))
        .isEqualTo(
            "http://0.0.0.0:8080 (every interface; from this machine http://127.0.0.1:8080)");
    assertThat(Gateway.listeningOn("127.0.0.1", 8080)).isEqualTo("http://127.0.0.1:8080");
    assertThat(Gateway.listeningOn("https", "0.0.0.0", 8443))
        .isEqualTo(
            "https://0.0.0.0:8443 (every interface; from this machine https://127.0.0.1:8443)");
  }

  @Test
  void aSecondGatewayOnTheSameDataFolderSaysSoAndHowToChooseAnother() throws Exception {
    Path data = dir.resolve("data");
    Path db = data.resolve("kurir.db");
    Database.open("jdbc:sqlite:" + db).close();
    // This test's process holds the instance lock, as a first gateway (a first demo) does.
    try (InstanceLock first = InstanceLock.acquire("jdbc:sqlite:" + db)) {
      Run run = serve("--server.port=0", "--data.dir=" + data);

      assertThat(run.exitCode).isEqualTo(1);
      assertThat(run.stderr)
          .contains("kurir: could not start: another Kurir gateway is running on the database")
          .contains("give this one a data folder of its own with --data=<folder> (data.dir)")
          .doesNotContain("Exception")
          .doesNotContain("\tat ");
      assertThat(run.stdout).doesNotContain("listening");
    }
  }

  @Test
  void aCleanStopIsLoggedWhenItBeginsAndWhenItHasEnded() throws Exception {
    Process p = serveOnAFreePort();
    var out = p.inputReader(StandardCharsets.UTF_8);
    assertThat(out.readLine()).startsWith("Kurir is listening on");
    // SIGTERM, as Ctrl+C or systemctl stop; through its handle, which (unlike Process.destroy)
    // leaves the pipe open to read the last lines.
    p.toHandle().destroy();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("stops").isTrue();
    String log = out.lines().collect(java.util.stream.Collectors.joining("\n"));
    assertThat(log)
        .containsPattern("INFO  Gateway: stopping \\(Ctrl\\+C or SIGTERM\\)")
        .containsPattern("INFO  Gateway: stopped in \\d+ ms");
    assertThat(log.indexOf("stopping")).isLessThan(log.indexOf("stopped in"));
  }

  private static Duration seconds(int n) {
    return Duration.ofSeconds(n);
  }

  private record Run(int exitCode, String stdout, String stderr) {}

  private Run serve(String... flags) throws Exception {
    Process p = process(flags).start();
    // Read both streams before waiting, so that a full pipe cannot stall the gateway.
    var stderr = p.getErrorStream();
    var stdout = p.getInputStream();
    byte[] err;
    byte[] out;
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("the gateway did not stop: it started instead of failing");
    }
    err = stderr.readAllBytes();
    out = stdout.readAllBytes();
    return new Run(
        p.exitValue(),
        new String(out, StandardCharsets.UTF_8),
        new String(err, StandardCharsets.UTF_8));
  }

  /** A gateway started on a free port, its log and its output in one stream. */
  private Process serveOnAFreePort() throws IOException {
    // A secrets key given, as in production: no key file is made (its making is logged first).
    return process(
            "--server.port=0",
            "--data.dir=" + dir.resolve("data"),
            "--secrets.key=" + io.kurir.testing.TestDatabases.TEST_SECRETS_KEY)
        .redirectErrorStream(true)
        .start();
  }

  private ProcessBuilder process(String... flags) throws IOException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command =
        new ArrayList<>(
            List.of(
                java.toString(),
                "-Xmx128m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                Kurir.class.getName(),
                "serve",
                "--server.host=127.0.0.1"));
    command.addAll(List.of(flags));
    ProcessBuilder b = new ProcessBuilder(command).directory(dir.toFile());
    b.environment().keySet().removeIf(k -> k.startsWith("KURIR_"));
    return b;
  }
}
