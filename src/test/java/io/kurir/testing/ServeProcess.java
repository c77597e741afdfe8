package io.kurir.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.Kurir;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code java … io.kurir.Kurir serve} on the test's class path, in a process of its own, its output
 * kept in {@code <dir>/<name>.log}: for tests that kill a gateway with {@code kill -9} or run
 * several. Started once it says where it listens.
 */
public final class ServeProcess {
  /** How much of the log's end {@link #diagnosis} gives. */
  private static final int LOG_TAIL = 200;

  private final Process process;
  private final String url;
  private final Path log;

  private ServeProcess(Process process, String url, Path log) {
    this.process = process;
    this.url = url;
    this.log = log;
  }

  /**
   * Starts {@code serve} with {@code flags} (after {@code --server.host=127.0.0.1}) in {@code dir}.
   */
  public static ServeProcess start(Path dir, String name, List<String> flags) throws IOException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command =
        new ArrayList<>(
            List.of(
                java.toString(),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", // starts sooner; the machine has two cores for all of us
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                Kurir.class.getName(),
                "serve",
                "--server.host=127.0.0.1"));
    command.addAll(flags);
    ProcessBuilder b = new ProcessBuilder(command).directory(dir.toFile());
    b.environment().keySet().removeIf(k -> k.startsWith("KURIR_")); // only the flags count
    b.redirectErrorStream(true);
    Process p = b.start();
    CompletableFuture<String> url = new CompletableFuture<>();
    Path log = dir.resolve(name + ".log");
    Thread.ofPlatform()
        .daemon()
        .name(name + "-output")
        .start(
            () -> {
              try (BufferedReader in =
                      new BufferedReader(
                          new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                  PrintWriter out = new PrintWriter(Files.newBufferedWriter(log))) {
                for (String line; (line = in.readLine()) != null; ) {
                  out.println(line);
                  out.flush();
                  if (line.startsWith("Kurir is listening on ")) {
                    url.complete(line.substring("Kurir is listening on ".length()).strip());
                  }
                }
              } catch (IOException e) {
                // the process is gone
              } finally {
                url.completeExceptionally(new IllegalStateException("the gateway ended"));
              }
            });
    try {
      return new ServeProcess(p, url.get(60, TimeUnit.SECONDS), log);
    } catch (Exception e) {
      p.destroyForcibly();
      throw new AssertionError(name + " did not start: " + e + "\n" + Files.readString(log), e);
    }
  }

  /**
   * The sandbox as the tests under load run it ({@code CrashTest}, {@code FailoverPostgresTest}):
   * its API on, no pacing, receipts soon after each send; {@code deduplicate} as the test says.
   */
  public static List<String> sandboxUnderLoad(boolean deduplicate) {
    return List.of(
        "--drivers.sandbox.api=true",
        "--drivers.sandbox.deduplicate=" + deduplicate,
        "--drivers.sandbox.delivery-after=300ms",
        "--drivers.sandbox.read-after=600ms",
        "--drivers.sandbox.pacing.min-gap=0ms",
        "--drivers.sandbox.pacing.jitter=0ms");
  }

  public Process process() {
    return process;
  }

  /** Where it listens, {@code http://127.0.0.1:<port>}. */
  public String url() {
    return url;
  }

  /**
   * What a failed wait on this gateway needs to be understood after the test's folder is gone: all
   * its threads, virtual ones too, as {@code jcmd Thread.dump_to_file} writes them, and the end of
   * its log.
   */
  public String diagnosis() {
    StringBuilder out = new StringBuilder();
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Path threads = log.resolveSibling(log.getFileName() + ".threads.txt");
    try {
      Process dump =
          new ProcessBuilder(
                  jcmd.toString(),
                  Long.toString(process.pid()),
                  "Thread.dump_to_file",
                  "-overwrite",
                  "-format=text",
                  threads.toString())
              .redirectErrorStream(true)
              .start();
      String said = new String(dump.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      dump.waitFor(30, TimeUnit.SECONDS);
      out.append("gateway threads:\n")
          .append(Files.exists(threads) ? Files.readString(threads) : "none written: " + said)
          .append('\n');
    } catch (IOException e) {
      out.append("no thread dump: ").append(e).append('\n');
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      List<String> lines = Files.readAllLines(log);
      int from = Math.max(0, lines.size() - LOG_TAIL);
      out.append("gateway log from line ")
          .append(from + 1)
          .append(":\n")
          .append(String.join("\n", lines.subList(from, lines.size())));
    } catch (IOException e) {
      out.append("no log: ").append(e);
    }
    return out.toString();
  }

  /** {@code kill -9}: {@link Process#destroyForcibly} sends SIGKILL on Linux. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("killed by SIGKILL (128 + 9)").isEqualTo(137);
  }

  /** A clean stop: SIGTERM, and the gateway's shutdown hook closes it in order. */
  public void stop() throws InterruptedException {
    process.destroy();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("stopped within 30 s").isTrue();
    assertThat(process.exitValue()).as("ended by SIGTERM (128 + 15)").isEqualTo(143);
  }
}
