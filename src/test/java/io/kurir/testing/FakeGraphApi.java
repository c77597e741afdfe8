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
 * {@code POST /<version>/<phone-number-id>/messages} (messages, and read marks with the typing
 * indicator: {@link #readMarks}), {@code POST …/media} (multipart), {@code GET
 * /<version>/<phone-number-id>} (the number's details), {@code GET /<version>/<media-id>} and the
 * media download it points at. It checks what Kurir sends (path, version, bearer token, body) and
 * records every breach in {@link #violations}; it answers as the real one does, errors included
 * ({@link #failNext}, {@link #accountError}), and posts signed webhooks back to Kurir: by default
 * {@code sent} then {@code delivered} after each accepted message.
 *
 * <p>Written from, for Graph API {@value #VERSION}:
 *
 * <ul>
 *   <li>Meta's Business Messaging OpenAPI ({@code facebook/openapi},
 *       business-messaging-api_v23.0.yaml): the paths, {@code MessageResponse} with {@code
 *       messages[].message_status} ({@code accepted}, {@code held_for_quality_assessment}, {@code
 *       paused}), {@code ErrorObject}, the webhook examples;
 *   <li>developers.facebook.com/documentation/business-messaging/whatsapp/support/error-codes: the
 *       codes and titles of {@link #accountError} and of the 24-hour window's 131047;
 *   <li>developers.facebook.com/docs/graph-api/guides/error-handling: the error body ({@code
 *       message}, {@code type}, {@code code}, {@code error_subcode}, {@code error_data}, {@code
 *       fbtrace_id}); a wrong object id answers code 100 with subcode 33;
 *   <li>…/whatsapp/webhooks/reference/messages/status/: statuses, which may come out of order and
 *       more than once ({@link #scrambleStatuses});
 *   <li>…/whatsapp/business-scoped-user-ids/: {@code user_id}, {@code from_user_id}, {@code
 *       profile.username}, {@code from} left out for a user whose phone Meta does not share, and
 *       {@code recipient} in place of {@code to} for a send to a BSUID;
 *   <li>…/whatsapp/cloud-api/reference/media/ (supported media types): images are JPEG and PNG;
 *       WebP is a sticker type; GIF is not taken at all;
 *   <li>…/whatsapp/support/error-codes and …/whatsapp/templates/: a template goes only when it is
 *       approved on the account in the language asked (132001, "Template name does not exist in the
 *       translation"), with as many body parameters as it has (132000), none holding a new line, a
 *       tab or more than four spaces in a row (132018): {@link #approveTemplate}.
 *   <li>business-messaging-api_v23.0.yaml's {@code Message} kinds and
 *       …/cloud-api/reference/messages: every kind's object checked as {@link #kindProblem} says,
 *       refused with 131008 (required parameter is missing) or 131009 (parameter value is not
 *       valid) from the error-code reference; media by {@code link} are taken without an upload;
 *       the webhook's {@code IncomingMessage} kinds posted by {@link #kindMessage}.
 * </ul>
 *
 * <p>The 24-hour customer service window is enforced: a free-form (non-template) message to a user
 * who has not written in the last 24 hours of the fake's clock, one never contacted included,
 * answers 131047; a template always goes. A user's window opens when the fake posts a message of
 * theirs to Kurir's webhook. Nothing here was checked against Meta's live service.
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

    /** Who it went to: the phone's digits ({@code to}) or a BSUID ({@code recipient}). */
    public String to() {
      return body.has("recipient") ? body.path("recipient").asText() : body.path("to").asText();
    }
  }

  /** An error to answer instead of accepting. */
  private record Scripted(int httpStatus, int code, String message, boolean byWebhook) {}

  /** An account-level error as Meta answers it: status, code, title, details. */
  public record AccountError(int httpStatus, int code, String type, String title, String details) {}

  /**
   * Meta's account-level errors, with their status, type, title ({@code message} is {@code (#code)
   * title}) and {@code error_data.details}, from the error-code reference.
   */
  public static final Map<Integer, AccountError> ACCOUNT_ERRORS =
      Map.of(
          10,
          new AccountError(
              403,
              10,
              "OAuthException",
              "Application does not have permission for this action",
              "Permission is either not granted or has been removed."),
          200,
          new AccountError(
              403,
              200,
              "OAuthException",
              "Permissions error",
              "The app does not have the permission whatsapp_business_messaging."),
          131005,
          new AccountError(
              403,
              131005,
              "OAuthException",
              "Access denied",
              "Permission is either not granted or has been removed."),
          131031,
          new AccountError(
              400,
              131031,
              "OAuthException",
              "Account has been locked",
              "The WhatsApp Business Account is restricted or disabled for violating a platform"
                  + " policy."),
          131042,
          new AccountError(
              400,
              131042,
              "OAuthException",
              "Business eligibility payment issue",
              "Message failed to send because there were one or more errors related to your"
                  + " payment method."),
          133010,
          new AccountError(
              400,
              133010,
              "OAuthException",
              "Phone number not registered",
              "The phone number is not registered on the WhatsApp Business Platform."),
          368,
          new AccountError(
              403,
              368,
              "OAuthException",
              "Temporarily blocked for policies violations",
              "The WhatsApp Business Account is temporarily blocked for violating a platform"
                  + " policy."));

  /**
   * Account-level errors that stop sends but not reads: a payment issue (131042) or a temporary
   * policy block (368) refuses messages, while the number's details still answer (its look-up is no
   * send). The others (a permission, a locked account, a number not registered) refuse every call.
   */
  public static final Set<Integer> SENDS_ONLY = Set.of(131042, 368);

  /** The window Meta keeps open after a user writes: free-form messages only within it. */
  public static final java.time.Duration WINDOW = java.time.Duration.ofHours(24);

  private final HttpServer server;
  private final HttpClient http = HttpClient.newHttpClient();
  private final Clock clock;
  private final Set<String> tokens = ConcurrentHashMap.newKeySet();
  private final Map<String, Integer> templates = new ConcurrentHashMap<>();
  private final List<Sent> sent = new CopyOnWriteArrayList<>();
  private final List<String> violations = new CopyOnWriteArrayList<>();
  private final Map<String, byte[]> media = new ConcurrentHashMap<>();
  private final Map<String, String> mediaTypes = new ConcurrentHashMap<>();
  private final Deque<Scripted> scripted = new ArrayDeque<>();
  private final AtomicLong ids = new AtomicLong(1000);
  private volatile String webhookUrl;
  private volatile boolean autoStatuses = true;
  private volatile boolean scrambled;
  private volatile boolean windowErrorsByWebhook;
  private volatile AccountError accountError;
  private final Deque<String> messageStatuses = new java.util.concurrent.ConcurrentLinkedDeque<>();
  private final Map<String, java.time.Instant> lastWrote = new ConcurrentHashMap<>();
  private final List<String> windowRefusals = new CopyOnWriteArrayList<>();
  private final java.util.concurrent.atomic.AtomicInteger statusesDelivered =
      new java.util.concurrent.atomic.AtomicInteger();
  private final java.util.concurrent.atomic.AtomicInteger numberLookUps =
      new java.util.concurrent.atomic.AtomicInteger();
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

  /**
   * Approves a template on the account: {@code name} in {@code language} (such as {@code id} or
   * {@code en_US}) whose body takes {@code bodyParameters} parameters. Only approved templates go;
   * a fixture declares the account's.
   */
  public void approveTemplate(String name, String language, int bodyParameters) {
    templates.put(name + " " + language, bodyParameters);
  }

  /** Revokes every token (the next call answers 190) and, with a new one, accepts that one. */
  public void revokeTokens() {
    tokens.clear();
  }

  public void acceptToken(String token) {
    tokens.add(token);
  }

  /**
   * Every call from now on (messages, media, the number's look-up; not the look-up for {@link
   * #SENDS_ONLY}) answers Meta's account-level error {@code code}, one of {@link #ACCOUNT_ERRORS},
   * until {@link #accountFixed}: such errors last until the business fixes its account.
   */
  public void accountError(int code) {
    AccountError e = ACCOUNT_ERRORS.get(code);
    if (e == null) {
      throw new IllegalArgumentException("not an account-level error: " + code);
    }
    this.accountError = e;
  }

  public void accountFixed() {
    this.accountError = null;
  }

  /**
   * Statuses of each accepted message come out of order and twice, as Meta may send them: {@code
   * read}, {@code delivered}, {@code sent}, {@code delivered}, {@code read}.
   */
  public void scrambleStatuses(boolean on) {
    this.scrambled = on;
  }

  /**
   * The window's 131047 comes as a {@code failed} status after a 200 (as Meta reports most send
   * errors), not in the reply.
   */
  public void windowErrorsByWebhook(boolean on) {
    this.windowErrorsByWebhook = on;
  }

  /**
   * The next accepted message is {@code status} ({@code paused}, {@code
   * held_for_quality_assessment}) in the reply's {@code message_status} and in a status webhook of
   * that name before its {@code sent}.
   */
  public void nextMessageStatus(String status) {
    messageStatuses.add(status);
  }

  /** The users (digits or BSUIDs) whose free-form messages were refused with 131047. */
  public List<String> windowRefusals() {
    return windowRefusals;
  }

  /** How many automatic statuses Kurir has taken. */
  public int statusesDelivered() {
    return statusesDelivered.get();
  }

  /** How often the phone number's details were asked for (the check at attach). */
  public int numberLookUps() {
    return numberLookUps.get();
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
            463,
            "OAuthException",
            "Error validating access token: Session has expired on Tuesday, 10-Mar-26 04:00:00 PST.",
            null);
        return;
      }
      AccountError account = accountError;
      boolean numberLookUp =
          ex.getRequestMethod().equals("GET")
              && parts.length == 3
              && parts[2].equals(PHONE_NUMBER_ID);
      if (account != null && !(numberLookUp && SENDS_ONLY.contains(account.code()))) {
        if (parts.length == 4 && parts[3].equals("messages")) {
          posts.incrementAndGet();
        }
        error(
            ex,
            account.httpStatus(),
            account.code(),
            0,
            account.type(),
            account.title(),
            account.details());
        return;
      }
      boolean onNumber = parts.length == 4 || parts[2].matches("\\d{15}");
      if (onNumber && !parts[2].equals(PHONE_NUMBER_ID) && !media.containsKey(parts[2])) {
        // A wrong phone number id: Graph's "no such object" (code 100, subcode 33).
        if (parts.length == 4 && parts[3].equals("messages")) {
          posts.incrementAndGet();
        }
        error(
            ex,
            400,
            100,
            33,
            "GraphMethodException",
            "Unsupported "
                + ex.getRequestMethod().toLowerCase(java.util.Locale.ROOT)
                + " request. Object with ID '"
                + parts[2]
                + "' does not exist, cannot be loaded due to missing permissions, or does not"
                + " support this operation. Please read the Graph API documentation at"
                + " https://developers.facebook.com/docs/graph-api",
            null);
        return;
      }
      if (ex.getRequestMethod().equals("POST")
          && parts.length == 4
          && parts[3].equals("messages")) {
        messages(ex, body);
      } else if (ex.getRequestMethod().equals("POST")
          && parts.length == 4
          && parts[3].equals("media")) {
        upload(ex, body);
      } else if (ex.getRequestMethod().equals("GET")
          && parts.length == 3
          && parts[2].equals(PHONE_NUMBER_ID)) {
        numberLookUps.incrementAndGet();
        ObjectNode number = JSON.createObjectNode();
        number.put("verified_name", "Kurir Test");
        number.put("code_verification_status", "VERIFIED");
        number.put("display_phone_number", "+62 811-0000-7401");
        number.put("quality_rating", "GREEN");
        number.put("platform_type", "CLOUD_API");
        number.putObject("throughput").put("level", "STANDARD");
        number.put("id", PHONE_NUMBER_ID);
        json(ex, 200, number);
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

  /** The ids of the messages posted to Kurir as users' messages: what a read mark may name. */
  private final java.util.Set<String> received = ConcurrentHashMap.newKeySet();

  private final List<JsonNode> readMarks = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** The read marks (with their typing indicators) Meta took, oldest first. */
  public List<JsonNode> readMarks() {
    return List.copyOf(readMarks);
  }

  /**
   * {@code POST …/messages} {@code {messaging_product, status: "read", message_id,
   * typing_indicator?: {type: "text"}}} (…/whatsapp/cloud-api/guides/mark-message-as-read and
   * …/whatsapp/typing-indicators): a received message marked read, and with the indicator the user
   * sees the business typing (for up to 25 s, or until its reply); {@code {"success": true}}. A
   * status other than {@code read}, an indicator of another type or a missing id: 100, Invalid
   * parameter; an id Meta did not deliver to this number: 100 as well (graph-api error handling).
   */
  private void markRead(HttpExchange ex, JsonNode body) throws IOException {
    if (!body.path("messaging_product").asText().equals("whatsapp")) {
      violations.add("messaging_product is not whatsapp");
    }
    String id = body.path("message_id").asText("");
    boolean indicatorOk =
        !body.has("typing_indicator")
            || body.path("typing_indicator").path("type").asText().equals("text");
    if (!body.path("status").asText().equals("read") || id.isEmpty() || !indicatorOk) {
      violations.add("a status update that is not a read mark: " + body);
      error(ex, 400, 100, 0, "OAuthException", "Invalid parameter", "status, message_id");
      return;
    }
    if (!received.contains(id)) {
      error(
          ex,
          400,
          100,
          0,
          "OAuthException",
          "Invalid parameter",
          "Invalid message_id: " + id + " was not delivered to this phone number");
      return;
    }
    readMarks.add(body);
    ObjectNode ok = JSON.createObjectNode();
    ok.put("success", true);
    json(ex, 200, ok);
  }

  private static final java.util.regex.Pattern BSUID =
      java.util.regex.Pattern.compile("[A-Z]{2}\\.(ENT\\.)?[A-Za-z0-9]{1,128}");

  private void messages(HttpExchange ex, byte[] raw) throws IOException {
    if (!String.valueOf(ex.getRequestHeaders().getFirst("Content-Type"))
        .startsWith("application/json")) {
      violations.add("messages without a JSON content type");
    }
    JsonNode body = JSON.readTree(raw);
    posts.incrementAndGet();
    if (body.has("status")) {
      markRead(ex, body);
      return;
    }
    String type = body.path("type").asText();
    if (!body.path("messaging_product").asText().equals("whatsapp")) {
      violations.add("messaging_product is not whatsapp");
    }
    // A user is addressed by phone (to) or, known only by a BSUID, by recipient: one of the two.
    boolean byBsuid = body.has("recipient");
    if (byBsuid && body.has("to")) {
      violations.add("both to and recipient: " + body);
    } else if (byBsuid && !BSUID.matcher(body.path("recipient").asText()).matches()) {
      violations.add("recipient is not a BSUID: " + body.path("recipient"));
    } else if (!byBsuid && !body.path("to").asText().matches("\\d{8,15}")) {
      violations.add("to is not international digits: " + body.path("to"));
    }
    String to = byBsuid ? body.path("recipient").asText() : body.path("to").asText();
    if (KINDS.contains(type)) {
      // The kinds Kurir's own API sends whole: checked as Meta's reference documents them, and
      // refused as Meta refuses (131008 missing, 131009 not valid), never bent to fit the driver.
      String[] problem = kindProblem(type, body);
      if (problem != null) {
        violations.add(type + ": " + problem[1]);
        error(
            ex,
            400,
            Integer.parseInt(problem[0]),
            0,
            "OAuthException",
            problem[0].equals("131008")
                ? "Required parameter is missing"
                : "Parameter value is not valid",
            problem[1]);
        return;
      }
    }
    if (body.has("context")
        && !body.path("context").path("message_id").asText().startsWith("wamid.")) {
      violations.add("context.message_id is not a wamid: " + body.path("context"));
    }
    switch (type) {
      case "text" -> require(body.path("text").path("body").isTextual(), "text.body");
      case "video", "audio", "sticker", "location", "contacts", "interactive", "reaction" -> {}
      case "image" -> {
        if (body.path("image").has("link")) {
          break; // by link: Meta fetches it (checked above)
        }
        String id = body.path("image").path("id").asText();
        require(media.containsKey(id), "an uploaded image id");
        String mime = mediaTypes.getOrDefault(id, "");
        if (media.containsKey(id) && !IMAGE_TYPES.contains(mime)) {
          error(
              ex,
              400,
              131053,
              0,
              "OAuthException",
              "Media upload error",
              "Unsupported image type " + mime + ": images are image/jpeg or image/png");
          return;
        }
      }
      case "document" -> {
        if (!body.path("document").has("link")) {
          require(
              media.containsKey(body.path("document").path("id").asText()),
              "an uploaded document id");
          require(body.path("document").path("filename").isTextual(), "document.filename");
        }
      }
      case "template" -> {
        require(body.path("template").path("name").isTextual(), "template.name");
        require(
            body.path("template").path("language").path("code").isTextual(),
            "template.language.code");
        if (!templateTaken(ex, body.path("template"))) {
          return;
        }
      }
      default -> violations.add("unknown type " + type);
    }
    Scripted failure;
    synchronized (this) {
      failure = scripted.poll();
    }
    if (failure == null && !type.equals("template") && !windowOpen(to)) {
      windowRefusals.add(to);
      failure =
          new Scripted(
              400,
              131047,
              "Re-engagement message: more than 24 hours have passed since the recipient last"
                  + " replied to the sender number",
              windowErrorsByWebhook);
    }
    if (failure != null && !failure.byWebhook()) {
      error(ex, failure.httpStatus(), failure.code(), failure.message());
      return;
    }
    String wamid = "wamid.HBgN" + ids.incrementAndGet();
    sent.add(new Sent(wamid, body));
    String messageStatus = failure == null ? messageStatuses.poll() : null;
    ObjectNode reply = JSON.createObjectNode();
    reply.put("messaging_product", "whatsapp");
    ObjectNode contact = reply.putArray("contacts").addObject();
    contact.put("input", to);
    if (byBsuid) {
      contact.put("user_id", to);
    } else {
      contact.put("wa_id", to);
    }
    ObjectNode m = reply.putArray("messages").addObject().put("id", wamid);
    if (messageStatus != null) {
      m.put("message_status", messageStatus);
    }
    json(ex, 200, reply);
    String opaque = body.path("biz_opaque_callback_data").asText(null);
    Scripted failed = failure;
    if (failed != null) {
      Thread.startVirtualThread(
          () ->
              deliver(statusPayload(wamid, "failed", opaque, to, failed.code(), failed.message())));
    } else if (autoStatuses) {
      List<String> order =
          scrambled
              ? List.of("read", "delivered", "sent", "delivered", "read")
              : List.of("sent", "delivered");
      Thread.startVirtualThread(
          () -> {
            if (messageStatus != null) {
              deliver(statusPayload(wamid, messageStatus, opaque, to, 0, null));
            }
            for (String status : order) {
              deliver(statusPayload(wamid, status, opaque, to, 0, null));
              statusesDelivered.incrementAndGet();
            }
          });
    }
  }

  /**
   * Whether a template send is one Meta takes; if not, the error is answered. As Meta checks it:
   * the template must be approved on the account in that language (132001), its body must get as
   * many parameters as the template has (132000), and no parameter may hold a new line, a tab or
   * more than four spaces in a row (132018).
   */
  private boolean templateTaken(HttpExchange ex, JsonNode template) throws IOException {
    String name = template.path("name").asText();
    String language = template.path("language").path("code").asText();
    Integer expected = templates.get(name + " " + language);
    if (expected == null) {
      error(
          ex,
          400,
          132001,
          0,
          "OAuthException",
          "Template name does not exist in the translation",
          "template name (" + name + ") does not exist in " + language);
      return false;
    }
    int given = 0;
    for (JsonNode component : template.path("components")) {
      for (JsonNode parameter : component.path("parameters")) {
        String text = parameter.path("text").asText("");
        if (text.matches("(?s).*([\\n\\t]| {5,}).*")) {
          error(
              ex,
              400,
              132018,
              0,
              "OAuthException",
              "There was an issue with the parameters in your template.",
              "Param text cannot have new-line/tab characters or more than 4 consecutive spaces");
          return false;
        }
        if (component.path("type").asText().equals("body")) {
          given++;
        }
      }
    }
    if (given != expected) {
      error(
          ex,
          400,
          132000,
          0,
          "OAuthException",
          "Number of parameters does not match the expected number of params",
          "body: number of localizable_params ("
              + given
              + ") does not match the expected number of params ("
              + expected
              + ")");
      return false;
    }
    return true;
  }

  /** Images Meta takes: JPEG and PNG. */
  static final Set<String> IMAGE_TYPES = Set.of("image/jpeg", "image/png");

  /** What Meta takes in an upload (its supported media types); GIF is not among them. */
  static final Set<String> UPLOAD_TYPES =
      Set.of(
          "audio/aac",
          "audio/amr",
          "audio/mpeg",
          "audio/mp4",
          "audio/ogg",
          "text/plain",
          "application/pdf",
          "application/vnd.ms-powerpoint",
          "application/msword",
          "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
          "application/vnd.openxmlformats-officedocument.presentationml.presentation",
          "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
          "application/vnd.ms-excel",
          "image/jpeg",
          "image/png",
          "image/webp",
          "video/3gpp",
          "video/mp4");

  /** Whether {@code user} wrote within the last 24 hours of the fake's clock. */
  /** The kinds of message object the fake checks field by field ({@link #kindProblem}). */
  static final Set<String> KINDS =
      Set.of(
          "text",
          "image",
          "video",
          "audio",
          "document",
          "sticker",
          "location",
          "contacts",
          "interactive",
          "reaction");

  /**
   * What Meta would refuse in a message of kind {@code type}, as {code, details}; null when
   * nothing. From business-messaging-api_v23.0.yaml: {@code MediaObject} (exactly one of {@code id}
   * and {@code link}, an http(s) URL; {@code caption} up to 1024, only on image, video and
   * document; {@code additionalProperties: false}), {@code LocationMessage}, {@code
   * ContactsMessage} (1 to 5 {@code ContactObject}s), {@code InteractiveObject} with {@code
   * ActionObject} (1 to 3 reply buttons, titles up to 20; a list's {@code button} up to 20 and 1 to
   * 10 sections of rows, titles up to 24), {@code ReactionMessage}; text bodies up to 4096
   * (…/cloud-api/reference/messages).
   */
  private String[] kindProblem(String type, JsonNode body) {
    JsonNode o = body.path(type);
    if (!(type.equals("contacts") ? o.isArray() : o.isObject())) {
      return new String[] {"131008", type + " is required"};
    }
    switch (type) {
      case "text" -> {
        if (o.path("body").asText("").isBlank()) {
          return new String[] {"131008", "text.body is required"};
        }
        if (o.path("body").asText().length() > 4096) {
          return new String[] {"131009", "text.body is longer than 4096"};
        }
        return onlyFields(o, type, "body", "preview_url");
      }
      case "image", "video", "document", "audio", "sticker" -> {
        if (o.has("id") == o.has("link")) {
          return new String[] {"131008", type + " needs one of id and link"};
        }
        if (o.has("link") && !o.path("link").asText().matches("https?://[^/\\s]+/.*")) {
          return new String[] {"131009", type + ".link is not an http(s) URL"};
        }
        if (o.path("caption").asText("").length() > 1024) {
          return new String[] {"131009", type + ".caption is longer than 1024"};
        }
        return switch (type) {
          case "document" -> onlyFields(o, type, "id", "link", "caption", "filename");
          case "image", "video" -> onlyFields(o, type, "id", "link", "caption");
          default -> onlyFields(o, type, "id", "link");
        };
      }
      case "location" -> {
        for (String f : List.of("latitude", "longitude")) {
          JsonNode n = o.path(f);
          boolean number =
              n.isNumber() || (n.isTextual() && n.asText().matches("-?\\d+(\\.\\d+)?"));
          if (!number) {
            return new String[] {"131008", "location." + f + " is required"};
          }
        }
        return onlyFields(o, type, "latitude", "longitude", "name", "address");
      }
      case "contacts" -> {
        if (o.isEmpty() || o.size() > 5) {
          return new String[] {"131009", "contacts holds 1 to 5 contacts"};
        }
        for (JsonNode c : o) {
          if (c.path("name").path("formatted_name").asText("").isBlank()) {
            return new String[] {"131008", "contacts.name.formatted_name is required"};
          }
        }
        return null;
      }
      case "interactive" -> {
        String kind = o.path("type").asText();
        if (o.path("body").path("text").asText("").isBlank()) {
          return new String[] {"131008", "interactive.body.text is required"};
        }
        JsonNode action = o.path("action");
        if (kind.equals("button")) {
          JsonNode buttons = action.path("buttons");
          if (!buttons.isArray() || buttons.isEmpty() || buttons.size() > 3) {
            return new String[] {"131009", "interactive.action.buttons holds 1 to 3 buttons"};
          }
          for (JsonNode b : buttons) {
            String title = b.path("reply").path("title").asText("");
            if (!b.path("type").asText().equals("reply")
                || b.path("reply").path("id").asText("").isBlank()
                || title.isBlank()
                || title.length() > 20) {
              return new String[] {"131009", "interactive.action.buttons: a reply button"};
            }
          }
          return null;
        }
        if (kind.equals("list")) {
          String button = action.path("button").asText("");
          JsonNode sections = action.path("sections");
          if (button.isBlank() || button.length() > 20) {
            return new String[] {"131009", "interactive.action.button is 1 to 20 characters"};
          }
          if (!sections.isArray() || sections.isEmpty() || sections.size() > 10) {
            return new String[] {"131009", "interactive.action.sections holds 1 to 10 sections"};
          }
          for (JsonNode section : sections) {
            for (JsonNode row : section.path("rows")) {
              String title = row.path("title").asText("");
              if (row.path("id").asText("").isBlank() || title.isBlank() || title.length() > 24) {
                return new String[] {"131009", "interactive.action.sections.rows: a row"};
              }
            }
          }
          return null;
        }
        return new String[] {"131009", "interactive.type " + kind + " is not sent by this fake"};
      }
      case "reaction" -> {
        if (o.path("message_id").asText("").isBlank()) {
          return new String[] {"131008", "reaction.message_id is required"};
        }
        if (!o.path("emoji").isTextual()) {
          return new String[] {"131008", "reaction.emoji is required (empty removes)"};
        }
        return onlyFields(o, type, "message_id", "emoji");
      }
      default -> {
        return null;
      }
    }
  }

  /** Meta's schemas for these objects say {@code additionalProperties: false}. */
  private static String[] onlyFields(JsonNode o, String type, String... allowed) {
    Set<String> ok = Set.of(allowed);
    for (var names = o.fieldNames(); names.hasNext(); ) {
      String f = names.next();
      if (!ok.contains(f)) {
        return new String[] {"131009", type + "." + f + " is not a parameter of " + type};
      }
    }
    return null;
  }

  /**
   * A message of kind {@code type} a customer sent, with {@code object} as its kind's object (for
   * {@code contacts}, the array), as Meta's webhook {@code IncomingMessage} writes it; {@code
   * replyTo}, when not null, is its {@code context.id}.
   */
  public ObjectNode kindMessage(
      String from, String wamid, String type, JsonNode object, String replyTo) {
    ObjectNode value = JSON.createObjectNode();
    value.putArray("contacts").addObject().put("wa_id", from).putObject("profile").put("name", "C");
    ObjectNode m = value.putArray("messages").addObject();
    m.put("from", from);
    m.put("id", wamid);
    m.put("timestamp", Long.toString(clock.instant().getEpochSecond()));
    m.put("type", type);
    m.set(type, object);
    if (replyTo != null) {
      m.putObject("context").put("from", "15550783881").put("id", replyTo);
    }
    return envelope(value);
  }

  private boolean windowOpen(String user) {
    java.time.Instant wrote = lastWrote.get(user);
    return wrote != null && wrote.plus(WINDOW).isAfter(clock.instant());
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
    if (!UPLOAD_TYPES.contains(mime)) {
      error(
          ex,
          400,
          131053,
          0,
          "OAuthException",
          "Media upload error",
          "Param file must be a file with one of the following types: "
              + String.join(", ", new java.util.TreeSet<>(UPLOAD_TYPES))
              + ". Received file of type '"
              + mime
              + "'.");
      return;
    }
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
    error(ex, status, code, 0, "OAuthException", message, message);
  }

  /**
   * Graph's error body: {@code message} is {@code (#code) title} for WhatsApp's codes (the token's
   * and the object's errors carry the text alone), {@code error_subcode} when there is one, {@code
   * error_data.details} for WhatsApp's codes.
   */
  private static void error(
      HttpExchange ex, int status, int code, int subcode, String type, String title, String details)
      throws IOException {
    ObjectNode body = JSON.createObjectNode();
    ObjectNode e = body.putObject("error");
    e.put(
        "message", code == 190 || code == 100 && subcode != 0 ? title : "(#" + code + ") " + title);
    e.put("type", type);
    e.put("code", code);
    if (subcode != 0) {
      e.put("error_subcode", subcode);
    }
    if (details != null) {
      e.putObject("error_data").put("messaging_product", "whatsapp").put("details", details);
    }
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
    if (BSUID.matcher(recipient).matches()) {
      s.put("recipient_user_id", recipient); // sent to a BSUID: no phone unless Meta may share it
    } else {
      s.put("recipient_id", recipient);
    }
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
   * acknowledged (here every 200 ms for up to a minute: a stopped gateway comes back within a test,
   * also on a busy machine); fails the test when Kurir never acknowledges it.
   */
  public void deliver(JsonNode payload) {
    Eventually.until(
        "Kurir acknowledges the webhook delivery",
        Eventually.GUARD,
        java.time.Duration.ofMillis(200),
        () -> postWebhook(payload) == 200);
  }

  /** Posts {@code payload} to Kurir's webhook, signed with the app secret; Kurir's status. */
  public int postWebhook(JsonNode payload) {
    // The user wrote: their 24-hour window is open at Meta from now, whenever Kurir takes it.
    for (JsonNode entry : payload.path("entry")) {
      for (JsonNode change : entry.path("changes")) {
        for (JsonNode m : change.path("value").path("messages")) {
          if (m.path("id").isTextual()) {
            received.add(m.path("id").asText());
          }
          for (String who : List.of(m.path("from").asText(""), m.path("from_user_id").asText(""))) {
            if (!who.isEmpty()) {
              lastWrote.merge(who, clock.instant(), (a, b) -> a.isAfter(b) ? a : b);
            }
          }
        }
      }
    }
    try {
      return postWebhook(
          JSON.writeValueAsBytes(payload),
          "sha256=" + sign(APP_SECRET, JSON.writeValueAsBytes(payload)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The user {@code e164} writes to the business number (a text, delivered to Kurir's webhook until
   * taken), which opens their 24-hour window at Meta and at Kurir; {@code e164} back.
   */
  public String customerWrites(String e164) {
    String digits = e164.startsWith("+") ? e164.substring(1) : e164;
    int status =
        postWebhook(textMessage(digits, "wamid.IN" + ids.incrementAndGet(), "Customer", "halo"));
    if (status != 200) {
      throw new IllegalStateException("Kurir did not take the customer's message: " + status);
    }
    return e164;
  }

  /**
   * A text from a user who has a username: known by their BSUID ({@code from_user_id}, {@code
   * contacts[].user_id}), with their phone ({@code from}, {@code wa_id}) only when {@code phone} is
   * not null (Meta shares it while the user is in the business's contact book).
   */
  public ObjectNode bsuidTextMessage(
      String bsuid, String phone, String wamid, String name, String username, String text) {
    ObjectNode value = JSON.createObjectNode();
    ObjectNode contact = value.putArray("contacts").addObject();
    contact.putObject("profile").put("name", name).put("username", username);
    if (phone != null) {
      contact.put("wa_id", phone);
    }
    contact.put("user_id", bsuid);
    ObjectNode m = value.putArray("messages").addObject();
    if (phone != null) {
      m.put("from", phone);
    }
    m.put("from_user_id", bsuid);
    m.put("id", wamid);
    m.put("timestamp", Long.toString(clock.instant().getEpochSecond()));
    m.put("type", "text");
    m.putObject("text").put("body", text);
    return envelope(value);
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
