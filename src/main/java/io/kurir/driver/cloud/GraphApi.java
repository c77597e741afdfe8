package io.kurir.driver.cloud;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * Calls to Meta's Graph API: {@code <graph-url>/<graph-version>/…} with the device's bearer token.
 * The operator configures the address (a trusted network of the driver's own), so it is not behind
 * the guard that keeps callers' URLs off internal addresses.
 *
 * <p>Thread-safe.
 */
final class GraphApi implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http;
  private final String base;
  private final Duration timeout;

  /**
   * @param graphUrl such as {@code https://graph.facebook.com}
   * @param version such as {@code v23.0}
   */
  GraphApi(String graphUrl, String version, Duration timeout) {
    String url = graphUrl.endsWith("/") ? graphUrl.substring(0, graphUrl.length() - 1) : graphUrl;
    this.base = url + "/" + version;
    this.timeout = timeout;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  /** What the Graph API answered: its status, its JSON (missing when not JSON), Retry-After. */
  record Reply(int status, JsonNode body, Optional<Duration> retryAfter) {
    boolean ok() {
      return status / 100 == 2 && !body.has("error");
    }

    /** The Graph error of a reply that is not {@link #ok}. */
    GraphError error() {
      return GraphError.of(status, body);
    }
  }

  /** POST {@code /<version>/<path>} with a JSON body. */
  Reply postJson(String path, String token, Object body) throws IOException, InterruptedException {
    HttpRequest request =
        request(path, token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
            .build();
    return send(request);
  }

  /**
   * Uploads a file as media of the phone number: {@code POST /<version>/<id>/media}, multipart with
   * {@code messaging_product}, {@code type} and {@code file}. The file is streamed, not read whole.
   */
  Reply uploadMedia(String phoneNumberId, String token, Path file, String mimeType, String name)
      throws IOException, InterruptedException {
    String boundary = "kurir-" + UUID.randomUUID();
    String head =
        part(boundary, "messaging_product", "whatsapp")
            + part(boundary, "type", mimeType)
            + "--"
            + boundary
            + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\""
            + name.replace("\"", "").replace("\r", "").replace("\n", "")
            + "\"\r\nContent-Type: "
            + mimeType
            + "\r\n\r\n";
    String tail = "\r\n--" + boundary + "--\r\n";
    HttpRequest request =
        request(phoneNumberId + "/media", token)
            .header("Content-Type", "multipart/form-data; boundary=" + boundary)
            .POST(
                HttpRequest.BodyPublishers.concat(
                    HttpRequest.BodyPublishers.ofString(head, StandardCharsets.UTF_8),
                    HttpRequest.BodyPublishers.ofFile(file),
                    HttpRequest.BodyPublishers.ofString(tail, StandardCharsets.UTF_8)))
            .build();
    return send(request);
  }

  private static String part(String boundary, String name, String value) {
    return "--"
        + boundary
        + "\r\nContent-Disposition: form-data; name=\""
        + name
        + "\"\r\n\r\n"
        + value
        + "\r\n";
  }

  /** GET {@code /<version>/<path>}. */
  Reply get(String path, String token) throws IOException, InterruptedException {
    return send(request(path, token).GET().build());
  }

  /**
   * Downloads a media file from the short-lived URL a media look-up gave, with the same bearer
   * token, into {@code target}, refusing more than {@code maxBytes}.
   */
  void download(String url, String token, Path target, long maxBytes)
      throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(timeout)
            .header("Authorization", "Bearer " + token)
            .GET()
            .build();
    HttpResponse<InputStream> r = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream in = r.body()) {
      if (r.statusCode() != 200) {
        throw new IOException("media download answered HTTP " + r.statusCode());
      }
      Files.createDirectories(target.getParent());
      Path part = target.resolveSibling(target.getFileName() + ".part");
      Files.copy(new Limited(in, maxBytes), part, StandardCopyOption.REPLACE_EXISTING);
      Files.move(part, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
  }

  private HttpRequest.Builder request(String path, String token) {
    return HttpRequest.newBuilder(URI.create(base + "/" + path))
        .timeout(timeout)
        .header("Authorization", "Bearer " + token);
  }

  private Reply send(HttpRequest request) throws IOException, InterruptedException {
    HttpResponse<byte[]> r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    JsonNode body;
    try {
      body = r.body().length == 0 ? MissingNode.getInstance() : JSON.readTree(r.body());
    } catch (IOException e) {
      body = MissingNode.getInstance(); // an HTML error page of a proxy, say
    }
    Optional<Duration> retryAfter =
        r.headers()
            .firstValue("Retry-After")
            .filter(v -> v.strip().matches("\\d{1,6}"))
            .map(v -> Duration.ofSeconds(Long.parseLong(v.strip())));
    return new Reply(r.statusCode(), body == null ? MissingNode.getInstance() : body, retryAfter);
  }

  @Override
  public void close() {
    http.close();
  }

  /** An input stream that fails once more than {@code max} bytes were read. */
  private static final class Limited extends java.io.FilterInputStream {
    private long left;

    Limited(InputStream in, long max) {
      super(in);
      this.left = max;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0 && --left < 0) {
        throw new IOException("media larger than allowed");
      }
      return b;
    }

    @Override
    public int read(byte[] buf, int off, int len) throws IOException {
      int n = super.read(buf, off, len);
      if (n > 0 && (left -= n) < 0) {
        throw new IOException("media larger than allowed");
      }
      return n;
    }
  }
}
