package io.kurir.driver.gowa;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;

/**
 * Calls to a GOWA server's REST API ({@code go-whatsapp-web-multidevice}, v8 and later), {@code
 * <drivers.gowa.url>/…}, with its HTTP Basic credentials ({@code --basic-auth}) and, on a
 * device-scoped route, the device's slot in {@code X-Device-Id}. The operator configures the
 * address (GOWA runs next to Kurir), so it is not behind the guard that keeps callers' URLs off
 * internal addresses.
 *
 * <p>Thread-safe.
 */
final class GowaApi implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The header GOWA picks a device by on every device-scoped route ({@code /send}, {@code /user}).
   */
  static final String DEVICE_HEADER = "X-Device-Id";

  private final HttpClient http;
  private final String base;
  private final String authorization;
  private final Duration timeout;

  GowaApi(String url, String basicAuth, Duration timeout) {
    this.base = url.replaceAll("/+$", "");
    this.authorization =
        basicAuth.isEmpty()
            ? ""
            : "Basic "
                + Base64.getEncoder().encodeToString(basicAuth.getBytes(StandardCharsets.UTF_8));
    this.timeout = timeout;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  /**
   * What GOWA answered: its status and its JSON, {@code {code, message, results}} (missing when not
   * JSON, as its Basic-auth refusal, a plain {@code Unauthorized}).
   */
  record Reply(int status, JsonNode body) {
    boolean ok() {
      return status / 100 == 2 && code().equals("SUCCESS");
    }

    /** GOWA's error code, such as {@code INVALID_JID}; "" when the body has none. */
    String code() {
      return body.path("code").asText("");
    }

    JsonNode results() {
      return body.path("results");
    }

    /** GOWA's words for a refusal, for logs and operators. */
    String describe() {
      String text =
          body.path("message").isTextual()
              ? code() + " " + body.path("message").asText()
              : body.isMissingNode() ? "(no JSON)" : body.toString();
      return "HTTP " + status + ": " + (text.length() > 300 ? text.substring(0, 300) : text);
    }
  }

  /** A GET of an unscoped route ({@code /devices…}). */
  Reply get(String path) throws IOException, InterruptedException {
    return send(request(path, null).GET().build());
  }

  /** A GET that may take at most {@code within} (the engine watch's cheap call). */
  Reply get(String path, Duration within) throws IOException, InterruptedException {
    return send(request(path, null).timeout(within).GET().build());
  }

  /** A GET of a route scoped to {@code slot}. */
  Reply get(String slot, String path) throws IOException, InterruptedException {
    return send(request(path, slot).GET().build());
  }

  /** A POST of {@code body} as JSON, scoped to {@code slot} when it is not null. */
  Reply post(String slot, String path, Object body) throws IOException, InterruptedException {
    return send(
        request(path, slot)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
            .build());
  }

  /**
   * A multipart POST scoped to {@code slot}: the text {@code fields}, and one file part {@code
   * fileField} with the bytes of {@code file}, named {@code fileName}, of type {@code mime} (GOWA
   * takes an image's type from its part's Content-Type).
   */
  Reply postMultipart(
      String slot,
      String path,
      Map<String, String> fields,
      String fileField,
      String fileName,
      String mime,
      Path file)
      throws IOException, InterruptedException {
    String boundary = "kurir-" + UUID.randomUUID();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Map.Entry<String, String> f : fields.entrySet()) {
      write(out, "--" + boundary + "\r\n");
      write(out, "Content-Disposition: form-data; name=\"" + f.getKey() + "\"\r\n\r\n");
      write(out, f.getValue() + "\r\n");
    }
    write(out, "--" + boundary + "\r\n");
    write(
        out,
        "Content-Disposition: form-data; name=\""
            + fileField
            + "\"; filename=\""
            + fileName.replaceAll("[\"\\\\\r\n]", "_")
            + "\"\r\n");
    write(out, "Content-Type: " + mime + "\r\n\r\n");
    out.write(Files.readAllBytes(file));
    write(out, "\r\n--" + boundary + "--\r\n");
    return send(
        request(path, slot)
            .header("Content-Type", "multipart/form-data; boundary=" + boundary)
            .POST(HttpRequest.BodyPublishers.ofByteArray(out.toByteArray()))
            .build());
  }

  private static void write(ByteArrayOutputStream out, String s) {
    out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The bytes of a file GOWA serves under {@code /statics/} (a login QR code, an incoming message's
   * media), at most {@code maxBytes}. Only the path of {@code link} is used: GOWA writes its own
   * idea of its address into links (the request's Host), and a file is never fetched from anywhere
   * but GOWA.
   */
  byte[] download(String link, long maxBytes) throws IOException, InterruptedException {
    String path;
    try {
      URI given = URI.create(link.strip());
      path = given.getRawPath() == null ? "" : given.getRawPath();
    } catch (IllegalArgumentException e) {
      throw new IOException("not a link: " + link, e);
    }
    if (!path.startsWith("/")) {
      path = "/" + path; // incoming media is named relative to GOWA's folder: statics/media/…
    }
    if (!path.startsWith("/statics/") || path.contains("/../")) {
      throw new IOException("not a file GOWA serves: " + link);
    }
    HttpResponse<InputStream> r =
        http.send(request(path, null).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream in = r.body()) {
      if (r.statusCode() != 200) {
        throw new FileGone("GOWA answered HTTP " + r.statusCode() + " for " + path);
      }
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      byte[] buf = new byte[64 * 1024];
      for (int n; (n = in.read(buf)) > 0; ) {
        if (bytes.size() + n > maxBytes) {
          throw new IOException("file larger than " + maxBytes + " bytes: " + path);
        }
        bytes.write(buf, 0, n);
      }
      return bytes.toByteArray();
    }
  }

  /** A file GOWA no longer has (a QR code past its time, media it deleted). */
  static final class FileGone extends IOException {
    FileGone(String message) {
      super(message);
    }
  }

  /** A query value, encoded. */
  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private HttpRequest.Builder request(String path, String slot) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(timeout)
            .header("Accept", "application/json");
    if (!authorization.isEmpty()) {
      b.header("Authorization", authorization);
    }
    if (slot != null) {
      b.header(DEVICE_HEADER, enc(slot));
    }
    return b;
  }

  private Reply send(HttpRequest request) throws IOException, InterruptedException {
    HttpResponse<byte[]> r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    JsonNode body;
    try {
      body = r.body().length == 0 ? MissingNode.getInstance() : JSON.readTree(r.body());
    } catch (IOException e) {
      body = MissingNode.getInstance(); // "Unauthorized" as text, a proxy's HTML page
    }
    return new Reply(r.statusCode(), body == null ? MissingNode.getInstance() : body);
  }

  @Override
  public void close() {
    http.close();
  }
}
