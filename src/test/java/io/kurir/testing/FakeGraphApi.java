package io.kurir.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Meta's Graph API for one WhatsApp business number, as its reference documents it, on loopback:
 * {@code POST /<version>/<phone-number-id>/messages}, {@code POST …/media} (multipart), {@code GET
 * /<version>/<media-id>} and the media download it points at. It checks what Kurir sends (path,
 * version, bearer token, body) and records every breach in {@link #violations}; it answers as the
 * real one does, errors included ({@link #failNext}), and posts signed webhooks back to Kurir: by
 * default {@code sent} then {@code delivered} after each accepted message.
 */
public final class FakeGraphApi implements AutoCloseable {
  public static final String VERSION = "v23.0";
  public static final String PHONE_NUMBER_ID = "106540352242922";
  public static final String APP_SECRET = "fake-app-secret-0123456789";
  public static final String VERIFY_TOKEN = "fake-verify-token";
  public static final String TOKEN = "EAAG-fake-token-1";

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A message the fake accepted. */
  public record Sent(String wamid, JsonNode body) {
    public String type() {
      return body.path("type").asText();
    }

    public String to() {
      return body.path("to").asText();
    }
  }

  /** An error to answer instead of accepting. */
  private record Scripted(int httpStatus, int code, String message, boolean byWebhook) {}

  private final HttpServer server;
  private final HttpClient http = HttpClient.newHttpClient();
  private final Clock clock;
  private final Set<String> tokens = ConcurrentHashMap.newKeySet();
  private final List<Sent> sent = new CopyOnWriteArrayList<>();
  private final List<String> violations = new CopyOnWriteArrayList<>();
  private final Map<String, byte[]> media = new ConcurrentHashMap<>();
  private final Map<String, String> mediaTypes = new ConcurrentHashMap<>();
  private final Deque<Scripted> scripted = new ArrayDeque<>();
  private final AtomicLong ids = new AtomicLong(1000);
  private volatile String webhookUrl;
  private volatile boolean autoStatuses = true;
  private volatile int uploads;
  private final java.util.concurrent.atomic.AtomicInteger posts =
      new java.util.concurrent.atomic.AtomicInteger();

  public FakeGraphApi(Clock clock) {
    this.clock = clock;
    tokens.add(TOKEN);
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.createContext("/", this::handle);
    server.start();
  }

  /** The setting {@code drivers.cloud.graph-url} that points Kurir here. */
  public String graphUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Kurir's webhook, {@code <base>/drivers/cloud/webhook}, where statuses are posted. */
  public void webhookTo(String url) {
    this.webhookUrl = url;
  }

  /** Whether each accepted message gets its {@code sent} and {@code delivered} statuses. */
  public void autoStatuses(boolean on) {
    this.autoStatuses = on;
  }

  /** Revokes every token (the next call answers 190) and, with a new one, accepts that one. */
  public void revokeTokens() {
    tokens.clear();
  }

  public void acceptToken(String token) {
    tokens.add(token);
  }

  /**
   * The next {@code n} message posts answer Graph error {@code code} with {@code httpStatus}; or,
   * {@code byWebhook}, are accepted and then reported {@code failed} with that code.
   */
  public synchronized void failNext(
      int n, int httpStatus, int code, String message, boolean byWebhook) {
    for (int i = 0; i < n; i++) {
      scripted.add(new Scripted(httpStatus, code, message, byWebhook));
    }
  }

  public List<Sent> sent() {
    return sent;
  }

  public List<Sent> sentTo(String digits) {
    return sent.stream().filter(s -> s.to().equals(digits)).toList();
  }

  public List<String> violations() {
    return violations;
  }

  /** Every message post so far, answered with an error or not. */
  public int posts() {
    return posts.get();
  }

  public int uploads() {
    return uploads;
  }

  /** A media file a customer sends, as Meta would hold it for download. */
  public String addMedia(byte[] bytes, String mimeType) {
    String id = Long.toString(ids.incrementAndGet());
    media.put(id, bytes);
    mediaTypes.put(id, mimeType);
    return id;
  }

  // --- the API

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String path = ex.getRequestURI().getPath();
      byte[] body = ex.getRequestBody().readAllBytes();
      if (path.startsWith("/download/")) {
        download(ex, path.substring("/download/".length()));
        return;
      }
      String[] parts = path.split("/");
      if (parts.length < 3 || !parts[1].equals(VERSION)) {
        violations.add("path without version " + VERSION + ": " + path);
        error(ex, 400, 100, "Unknown path components: " + path);
        return;
      }
      String auth = ex.getRequestHeaders().getFirst("Authorization");
      if (auth == null || !auth.startsWith("Bearer ")) {
        violations.add("no bearer token: " + path);
        error(ex, 400, 2500, "An active access token must be used to query information.");
        return;
      }
      if (!tokens.contains(auth.substring(7))) {
        error(
            ex,
            401,
            190,
            "Error validating access token: Session has expired on Tuesday, 10-Mar-26 04:00:00 PST.");
        return;
      }
      if (ex.getRequestMethod().equals("POST")
          && parts.length == 4
          && parts[3].equals("messages")) {
        checkNumberId(parts[2]);
        messages(ex, body);
      } else if (ex.getRequestMethod().equals("POST")
          && parts.length == 4
          && parts[3].equals("media")) {
        checkNumberId(parts[2]);
        upload(ex, body);
      } else if (ex.getRequestMethod().equals("GET") && parts.length == 3) {
        mediaUrl(ex, parts[2]);
      } else {
        violations.add("unknown call " + ex.getRequestMethod() + " " + path);
        error(ex, 400, 100, "Unsupported request");
      }
    } catch (RuntimeException e) {
      violations.add("fake failed: " + e);
      throw e;
    }
  }

  private void checkNumberId(String id) {
    if (!id.equals(PHONE_NUMBER_ID)) {
      violations.add("unknown phone number id " + id);
    }
  }

  private void messages(HttpExchange ex, byte[] raw) throws IOException {
    if (!String.valueOf(ex.getRequestHeaders().getFirst("Content-Type"))
        .startsWith("application/json")) {
      violations.add("messages without a JSON content type");
    }
    JsonNode body = JSON.readTree(raw);
    posts.incrementAndGet();
    String type = body.path("type").asText();
    if (!body.path("messaging_product").asText().equals("whatsapp")) {
      violations.add("messaging_product is not whatsapp");
    }
    if (!body.path("to").asText().matches("\\d{8,15}")) {
      violations.add("to is not international digits: " + body.path("to"));
    }
    switch (type) {
      case "text" -> require(body.path("text").path("body").isTextual(), "text.body");
      case "image" ->
          require(
              media.containsKey(body.path("image").path("id").asText()), "an uploaded image id");
      case "document" -> {
        require(
            media.containsKey(body.path("document").path("id").asText()),
            "an uploaded document id");
        require(body.path("document").path("filename").isTextual(), "document.filename");
      }
      case "template" -> {
        require(body.path("template").path("name").isTextual(), "template.name");
        require(
            body.path("template").path("language").path("code").isTextual(),
            "template.language.code");
      }
      default -> violations.add("unknown type " + type);
    }
    Scripted failure;
    synchronized (this) {
      failure = scripted.poll();
    }
    if (failure != null && !failure.byWebhook()) {
      error(ex, failure.httpStatus(), failure.code(), failure.message());
      return;
    }
    String wamid = "wamid.HBgN" + ids.incrementAndGet();
    sent.add(new Sent(wamid, body));
    ObjectNode reply = JSON.createObjectNode();
    reply.put("messaging_product", "whatsapp");
    ObjectNode contact = reply.putArray("contacts").addObject();
    contact.put("input", body.path("to").asText());
    contact.put("wa_id", body.path("to").asText());
    reply.putArray("messages").addObject().put("id", wamid);
    json(ex, 200, reply);
    String opaque = body.path("biz_opaque_callback_data").asText(null);
    String to = body.path("to").asText();
    if (failure != null) {
      Thread.startVirtualThread(
          () ->
              deliver(
                  statusPayload(wamid, "failed", opaque, to, failure.code(), failure.message())));
    } else if (autoStatuses) {
      Thread.startVirtualThread(
          () -> {
            deliver(statusPayload(wamid, "sent", opaque, to, 0, null));
            deliver(statusPayload(wamid, "delivered", opaque, to, 0, null));
          });
    }
  }

  private void require(boolean ok, String what) {
    if (!ok) {
      violations.add("missing " + what);
    }
  }

  private void upload(HttpExchange ex, byte[] raw) throws IOException {
    String type = String.valueOf(ex.getRequestHeaders().getFirst("Content-Type"));
    if (!type.startsWith("multipart/form-data; boundary=")) {
      violations.add("upload is not multipart: " + type);
    }
    String text = new String(raw, StandardCharsets.ISO_8859_1);
    require(text.contains("name=\"messaging_product\"\r\n\r\nwhatsapp"), "messaging_product part");
    int file = text.indexOf("name=\"file\"");
    require(file > 0, "file part");
    Scripted failure;
    synchronized (this) {
      failure =
          scripted.peek() != null && scripted.peek().code() == 131053 ? scripted.poll() : null;
    }
    if (failure != null) {
      error(ex, failure.httpStatus(), failure.code(), failure.message());
      return;
    }
    String boundary = type.substring(type.indexOf("boundary=") + 9);
    int start = text.indexOf("\r\n\r\n", file) + 4;
    int end = text.indexOf("\r\n--" + boundary, start);
    String partHead = text.substring(file, start);
    String mime = partHead.replaceAll("(?s).*Content-Type: ([^\r\n]+).*", "$1");
    String id = addMedia(java.util.Arrays.copyOfRange(raw, start, end), mime);
    uploads++;
    json(ex, 200, JSON.createObjectNode().put("id", id));
  }

  private void mediaUrl(HttpExchange ex, String id) throws IOException {
    if (!media.containsKey(id)) {
      error(ex, 400, 100, "Unsupported get request. Object with ID '" + id + "' does not exist");
      return;
    }
    ObjectNode reply = JSON.createObjectNode();
    reply.put("messaging_product", "whatsapp");
    reply.put("url", graphUrl() + "/download/" + id);
    reply.put("mime_type", mediaTypes.get(id));
    reply.put("file_size", media.get(id).length);
    reply.put("id", id);
    json(ex, 200, reply);
  }

  private void download(HttpExchange ex, String id) throws IOException {
    String auth = ex.getRequestHeaders().getFirst("Authorization");
    if (auth == null || !tokens.contains(auth.replaceFirst("^Bearer ", ""))) {
      ex.sendResponseHeaders(401, -1);
      return;
    }
    byte[] bytes = media.get(id);
    if (bytes == null) {
      ex.sendResponseHeaders(404, -1);
      return;
    }
    ex.getResponseHeaders().add("Content-Type", mediaTypes.get(id));
    ex.sendResponseHeaders(200, bytes.length);
    ex.getResponseBody().write(bytes);
  }

  private static void error(HttpExchange ex, int status, int code, String message)
      throws IOException {
    ObjectNode body = JSON.createObjectNode();
    ObjectNode e = body.putObject("error");
    e.put("message", "(#" + code + ") " + message);
    e.put("type", code == 190 ? "OAuthException" : "OAuthException");
    e.put("code", code);
    e.putObject("error_data").put("messaging_product", "whatsapp").put("details", message);
    e.put("fbtrace_id", "AbCdEfGh");
    json(ex, status, body);
  }

  private static void json(HttpExchange ex, int status, JsonNode body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    ex.getResponseHeaders().add("Content-Type", "application/json; charset=UTF-8");
    ex.sendResponseHeaders(status, bytes.length);
    ex.getResponseBody().write(bytes);
  }

  // --- webhooks

  /** The envelope of every WhatsApp webhook around one change's {@code value}. */
  public static ObjectNode envelope(ObjectNode value) {
    ObjectNode root = JSON.createObjectNode();
    root.put("object", "whatsapp_business_account");
    ObjectNode change =
        root.putArray("entry")
            .addObject()
            .put("id", "102290129340398")
            .putArray("changes")
            .addObject();
    change.put("field", "messages");
    value.put("messaging_product", "whatsapp");
    value
        .putObject("metadata")
        .put("display_phone_number", "15550783881")
        .put("phone_number_id", PHONE_NUMBER_ID);
    change.set("value", value);
    return root;
  }

  /** A status of one message; {@code errorCode} 0 for none. */
  public ObjectNode statusPayload(
      String wamid, String status, String opaque, String recipient, int errorCode, String message) {
    ObjectNode value = JSON.createObjectNode();
    ArrayNode statuses = value.putArray("statuses");
    ObjectNode s = statuses.addObject();
    s.put("id", wamid);
    s.put("status", status);
    s.put("timestamp", Long.toString(clock.instant().getEpochSecond()));
    s.put("recipient_id", recipient);
    if (opaque != null) {
      s.put("biz_opaque_callback_data", opaque);
    }
    if (errorCode != 0) {
      ObjectNode e = s.putArray("errors").addObject();
      e.put("code", errorCode);
      e.put("title", message);
      e.put("message", message);
      e.putObject("error_data").put("details", message);
    } else {
      s.putObject("pricing")
          .put("billable", true)
          .put("pricing_model", "PMP")
          .put("category", "service");
    }
    return envelope(value);
  }

  /** A text a customer sent to the business number. */
  public ObjectNode textMessage(String from, String wamid, String name, String text) {
    ObjectNode value = JSON.createObjectNode();
    ObjectNode contact = value.putArray("contacts").addObject();
    contact.putObject("profile").put("name", name);
    contact.put("wa_id", from);
    ObjectNode m = value.putArray("messages").addObject();
    m.put("from", from);
    m.put("id", wamid);
    m.put("timestamp", Long.toString(clock.instant().getEpochSecond()));
    m.put("type", "text");
    m.putObject("text").put("body", text);
    return envelope(value);
  }

  /** An image or document a customer sent, its bytes held for download. */
  public ObjectNode mediaMessage(
      String from, String wamid, String type, byte[] bytes, String mimeType, String caption) {
    String id = addMedia(bytes, mimeType);
    ObjectNode value = JSON.createObjectNode();
    value.putArray("contacts").addObject().put("wa_id", from).putObject("profile").put("name", "C");
    ObjectNode m = value.putArray("messages").addObject();
    m.put("from", from);
    m.put("id", wamid);
    m.put("timestamp", Long.toString(clock.instant().getEpochSecond()));
    m.put("type", type);
    ObjectNode o = m.putObject(type);
    o.put("mime_type", mimeType);
    o.put("sha256", "x");
    o.put("id", id);
    if (caption != null) {
      o.put("caption", caption);
    }
    if (type.equals("document")) {
      o.put("filename", "invoice.pdf");
    }
    return envelope(value);
  }

  /**
   * Posts {@code payload} until Kurir answers 200, as Meta retries a delivery that was not
   * acknowledged (here for about 60 seconds: a stopped gateway comes back within a test, also on a
   * busy machine).
   */
  public void deliver(JsonNode payload) {
    for (int i = 0; i < 300 && postWebhook(payload) != 200; i++) {
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Posts {@code payload} to Kurir's webhook, signed with the app secret; Kurir's status. */
  public int postWebhook(JsonNode payload) {
    try {
      return postWebhook(
          JSON.writeValueAsBytes(payload),
          "sha256=" + sign(APP_SECRET, JSON.writeValueAsBytes(payload)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Posts raw bytes with the given signature header (null: none). */
  public int postWebhook(byte[] body, String signature) {
    if (webhookUrl == null) {
      return 0;
    }
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(webhookUrl))
            .timeout(java.time.Duration.ofSeconds(10)) // as Meta gives up on a slow receiver
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (signature != null) {
      b.header("X-Hub-Signature-256", signature);
    }
    try {
      return http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return 0; // Kurir is stopped: Meta would try again later
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    }
  }

  public static String sign(String secret, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal(body));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static boolean same(String a, String b) {
    return MessageDigest.isEqual(
        a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public void close() {
    server.stop(0);
    http.shutdownNow(); // not close(): it would wait for a webhook post that never ends
  }
}
