package io.kurir.driver.waha;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

/**
 * Calls to a WAHA engine's HTTP API, {@code <drivers.waha.url>/api/…}, with its {@code X-Api-Key}.
 * The operator configures the address (the engine runs next to Kurir), so it is not behind the
 * guard that keeps callers' URLs off internal addresses.
 *
 * <p>Thread-safe.
 */
final class WahaApi implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http;
  private final String base;
  private final String apiKey;
  private final Duration timeout;

  WahaApi(String url, String apiKey, Duration timeout) {
    this.base = url.replaceAll("/+$", "");
    this.apiKey = apiKey;
    this.timeout = timeout;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  /** What the engine answered: its status and its JSON (missing when not JSON). */
  record Reply(int status, JsonNode body) {
    boolean ok() {
      return status / 100 == 2;
    }

    /** The engine's words for a refusal, for logs and operators. */
    String describe() {
      String text =
          body.path("error").isTextual()
              ? body.path("error").asText()
              : body.path("message").isTextual() ? body.path("message").asText() : body.toString();
      return "HTTP " + status + ": " + (text.length() > 300 ? text.substring(0, 300) : text);
    }
  }

  Reply get(String path) throws IOException, InterruptedException {
    return send(request(path).GET().build());
  }

  /** A GET that may take at most {@code within} (the health probe's cheap call). */
  Reply get(String path, Duration within) throws IOException, InterruptedException {
    return send(request(path).timeout(within).GET().build());
  }

  Reply post(String path, Object body) throws IOException, InterruptedException {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
            .build());
  }

  Reply put(String path, Object body) throws IOException, InterruptedException {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
            .build());
  }

  Reply delete(String path) throws IOException, InterruptedException {
    return send(request(path).DELETE().build());
  }

  /**
   * Downloads a file the engine serves (an incoming message's media) into {@code target}, refusing
   * more than {@code maxBytes}. Only the path and query of {@code url} are used: the engine writes
   * its own idea of its address (its {@code WAHA_BASE_URL}) into it, which need not be the one
   * Kurir reaches it at, and a file is never fetched from anywhere but the engine.
   */
  void download(String url, Path target, long maxBytes) throws IOException, InterruptedException {
    URI given = URI.create(url);
    String path = given.getRawPath() == null ? "" : given.getRawPath();
    if (!path.startsWith("/")) {
      throw new IOException("media url without a path: " + url);
    }
    String query = given.getRawQuery() == null ? "" : "?" + given.getRawQuery();
    HttpResponse<InputStream> r =
        http.send(request(path + query).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream in = r.body()) {
      if (r.statusCode() == 404 || r.statusCode() == 410) {
        throw new FileGone("media download answered HTTP " + r.statusCode());
      }
      if (r.statusCode() != 200) {
        throw new IOException("media download answered HTTP " + r.statusCode());
      }
      Files.createDirectories(target.getParent());
      Path part = target.resolveSibling(target.getFileName() + ".part");
      try (OutputStream out = Files.newOutputStream(part)) {
        byte[] buf = new byte[64 * 1024];
        long total = 0;
        for (int n; (n = in.read(buf)) > 0; ) {
          total += n;
          if (total > maxBytes) {
            throw new IOException("media larger than " + maxBytes + " bytes");
          }
          out.write(buf, 0, n);
        }
      } catch (IOException e) {
        Files.deleteIfExists(part);
        throw e;
      }
      Files.move(part, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
  }

  /**
   * The engine no longer has a file it named: it deletes received files {@code
   * WHATSAPP_FILES_LIFETIME} after they came (180 s by default), so asking again cannot help.
   */
  static final class FileGone extends IOException {
    FileGone(String message) {
      super(message);
    }
  }

  /** A path segment or query value, encoded. */
  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(timeout)
            .header("Accept", "application/json");
    if (!apiKey.isEmpty()) {
      b.header("X-Api-Key", apiKey);
    }
    return b;
  }

  private Reply send(HttpRequest request) throws IOException, InterruptedException {
    HttpResponse<byte[]> r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    JsonNode body;
    try {
      body = r.body().length == 0 ? MissingNode.getInstance() : JSON.readTree(r.body());
    } catch (IOException e) {
      body = MissingNode.getInstance(); // an HTML page of a proxy, say
    }
    return new Reply(r.statusCode(), body == null ? MissingNode.getInstance() : body);
  }

  @Override
  public void close() {
    http.close();
  }
}
