package io.kurir.logging;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.Kurir;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@code kurir demo} in a process of its own, as an operator runs it: its standard output and its
 * standard error (the log) captured apart, line by line.
 */
final class GatewayProcess implements AutoCloseable {
  private static final String BANNER = "Kurir demo is running at ";

  private final Process process;
  private final List<String> stdout = Collections.synchronizedList(new ArrayList<>());
  private final List<String> stderr = Collections.synchronizedList(new ArrayList<>());
  private final CompletableFuture<String> url = new CompletableFuture<>();
  private final HttpClient http = HttpClient.newHttpClient();
  private final List<Thread> readers = new ArrayList<>();

  private GatewayProcess(Process process) {
    this.process = process;
    read(process.getInputStream(), stdout, this::lookForBanner);
    read(process.getErrorStream(), stderr, line -> {});
  }

  /** Starts the demo on a free port with its data in {@code dir}, and {@code flags}. */
  static GatewayProcess demo(Path dir, String... flags) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                Kurir.class.getName(),
                "demo",
                "--server.port=0",
                "--data.dir=" + dir.resolve("data")));
    command.addAll(List.of(flags));
    ProcessBuilder b = new ProcessBuilder(command).directory(dir.toFile());
    b.environment().keySet().removeIf(k -> k.startsWith("KURIR_")); // only the flags count
    GatewayProcess gateway = new GatewayProcess(b.start());
    try {
      gateway.url.get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      gateway.close();
      throw new AssertionError(
          "the demo did not start: " + e + "\n" + gateway.stdout() + "\n" + gateway.stderr(), e);
    }
    return gateway;
  }

  private void lookForBanner(String line) {
    if (line.startsWith(BANNER)) {
      url.complete(line.substring(BANNER.length()).strip());
    }
  }

  private void read(InputStream in, List<String> lines, Consumer<String> each) {
    Thread reader =
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  try (BufferedReader r =
                      new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) {
                      lines.add(line);
                      each.accept(line);
                    }
                  } catch (IOException e) {
                    // the process is gone
                  } finally {
                    url.completeExceptionally(new IllegalStateException("the gateway ended"));
                  }
                });
    synchronized (readers) {
      readers.add(reader);
    }
  }

  /** A request to the gateway, with {@code headers} as name, value pairs. */
  HttpResponse<String> call(String method, String path, String body, String... headers)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url.get() + path))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    HttpResponse<String> reply = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(reply.statusCode()).as(method + " " + path + ": " + reply.body()).isLessThan(300);
    return reply;
  }

  List<String> stdout() {
    synchronized (stdout) {
      return List.copyOf(stdout);
    }
  }

  List<String> stderr() {
    synchronized (stderr) {
      return List.copyOf(stderr);
    }
  }

  /** Stops it as an operator does (SIGTERM), and waits until its streams are read to the end. */
  @Override
  public void close() throws Exception {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
    process.waitFor(10, TimeUnit.SECONDS);
    // The readers take the last lines: each ends at its stream's end (the bound is a hang guard).
    synchronized (readers) {
      for (Thread reader : readers) {
        reader.join(java.time.Duration.ofSeconds(30));
      }
    }
  }
}
