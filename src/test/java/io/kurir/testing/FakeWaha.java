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
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A WAHA engine (WhatsApp HTTP API) as its OpenAPI document and docs describe it, on loopback only:
 * sessions ({@code /api/sessions…}: create, get, update, start, logout), the QR code ({@code
 * /api/{session}/auth/qr?format=raw}), {@code /api/sendText|sendImage|sendFile|sendVideo|sendVoice|
 * sendLocation|sendContactVcard} (201 with the message, 422 when the session is not WORKING; each
 * body checked against its OpenAPI schema's required fields, {@link
 * FakeWahaSending#kindViolation}), {@code PUT /api/reaction} (200, {@code MessageReactionRequest}),
 * the actions on sent messages and chats ({@code DELETE} and {@code PUT
 * /api/{session}/chats/{chatId}/messages/{messageId}}, {@code /api/sendSeen}, {@code
 * /api/startTyping} and {@code /api/stopTyping}: {@link #actions}; WAHA's chats.controller.ts and
 * chatting.controller.ts, devlikeapro/waha), {@code /api/contacts/check-exists}, groups and {@code
 * participants/v2}, {@code GET /api/sessions/{name}/me} and {@code restart}, with sessions that
 * {@link #stall} (WORKING, but calls to them hang or fail until restarted), and sends that answer
 * an error instead ({@link #refuseNextSends}: 500, 400, 429). Every call must carry {@code
 * X-Api-Key}; what Kurir sends wrong is recorded in {@link #violations}. It posts each session's
 * webhooks back as the engine does: {@code X-Webhook-Hmac} = hex HMAC-SHA512 of the body with the
 * session's key, {@code X-Webhook-Hmac-Algorithm: sha512}, {@code X-Webhook-Request-Id}, {@code
 * X-Webhook-Timestamp}; a delivery Kurir does not answer 2xx is tried again as the webhook's {@code
 * retries} asks ({@link #retryDelays}), in the background and in real time, as the engine does.
 *
 * <p>The sending side (engine flavours WEBJS, NOWEB, GOWS and their reply, ack-id and group-list
 * shapes, {@code new-message-id}, check-exists with canonical and LID chat ids, numbers not on
 * WhatsApp, {@code message.ack.group}, the reach-out time lock's 463 and message capping of WAHA
 * 2026.8.1) is in {@link FakeWahaSending}, whose header cites the WAHA documents it follows.
 *
 * <p>The incoming side follows WAHA 2026.7 (OpenAPI 2026.7.1) and its docs (waha.devlike.pro):
 *
 * <ul>
 *   <li>senders and group participants named by LID ({@code <digits>@lid} in {@code from} and
 *       {@code participant}, on every engine; devlikeapro/waha#1073, #1703) and the lids routes,
 *       {@code GET /api/{session}/lids/{lid}} → {@code {lid, pn}} with {@code pn: null} for a LID
 *       the engine cannot map, and {@code GET /api/{session}/lids/pn/{phone}} → {@code {lid, pn}}
 *       (docs/how-to/contacts, "API - Lids", since 2025.5.4; #1712, #1830; a 500 on WEBJS: #1986);
 *   <li>{@code participants/v2} in the stable {@code GroupParticipant} schema: {@code id} may be a
 *       LID with no {@code pn} (docs/how-to/groups);
 *   <li>received files deleted {@code WHATSAPP_FILES_LIFETIME} (default 180 s) after they came, on
 *       the fake's clock, their URL then answering {@code 404 {"message":"File not found:
 *       <name>","error":"Not Found","statusCode":404}} (docs/how-to/storages; #1007, #1884);
 *   <li>the mandatory API key (WAHA 2025 and later generate one when none is set;
 *       docs/how-to/security): every route without it answers {@code 401
 *       {"message":"Unauthorized","statusCode":401}};
 *   <li>{@code message.reaction} events ({@code reaction.text}, {@code reaction.messageId}) and
 *       stickers, voice notes, audio and video named by the engine's own message in {@code _data}
 *       per flavour ({@link #incomingMediaOfKind}; docs how-to/events, devlikeapro/waha core
 *       engines at 55fc6a4);
 *   <li>session statuses {@code FAILED}, {@code PASSKEY_REQUIRED} and {@code
 *       PASSKEY_CONFIRMATION_REQUIRED} posted as {@code session.status}; {@code restart} is stop
 *       then start (a broken session comes back FAILED), {@code logout} deletes the authentication
 *       and starts the session again, showing a QR code (docs/how-to/sessions).
 * </ul>
 *
 * Nothing here was checked against a running engine.
 */
public final class FakeWaha implements AutoCloseable {
  public static final String API_KEY = "fake-waha-key-0123456789";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern CHAT =
      Pattern.compile("\\d{6,15}@c\\.us|[\\d-]{6,40}@g\\.us|\\d{5,30}@lid");

  /** One session on the engine. */
  public static final class Session {
    final String name;
    volatile String status = "STOPPED";
    volatile ObjectNode config;
    volatile String me; // the linked number's digits, once scanned
    volatile String qr;
    volatile Stall stall;
    final AtomicLong restarts = new AtomicLong();
    // How many more restarts come back FAILED (a broken session); -1: every one, until a logout.
    volatile int failingRestarts;
    final AtomicLong logouts = new AtomicLong();

    Session(String name, ObjectNode config) {
      this.name = name;
      this.config = config;
    }

    public String status() {
      return status;
    }

    public String qr() {
      return qr;
    }

    public ObjectNode config() {
      return config;
    }
  }

  /** How a stalled session answers a call to itself while the engine still says WORKING. */
  public enum Stall {
    /** The call never answers (until the session is restarted or the stall ends). */
    HANG,
    /** The call answers 500. */
    ERROR
  }

  /** A message the engine sent, as Kurir asked for it. */
  public record Sent(String id, String path, JsonNode body) {}

  private final Clock clock;
  private final int port;
  private final HttpClient http = HttpClient.newHttpClient();
  private final Map<String, Session> sessions = new ConcurrentHashMap<>();
  private final List<Sent> sent = new CopyOnWriteArrayList<>();
  private final List<String> violations = new CopyOnWriteArrayList<>();
  private final List<String> calls = new CopyOnWriteArrayList<>();
  private final FakeWahaSending sending;
  private final Map<String, Map<String, List<String>>> groups = new ConcurrentHashMap<>();
  private final Map<String, StoredFile> files = new ConcurrentHashMap<>();
  private volatile HttpServer server;
  private volatile String codeRequestedFor;
  private volatile java.util.concurrent.CountDownLatch sendsHeld;
  private volatile java.util.concurrent.CountDownLatch creationsHeld;

  public FakeWaha(Clock clock) {
    this.clock = clock;
    this.sending = new FakeWahaSending(clock, violations);
    this.server = listen(0);
    this.port = server.getAddress().getPort();
  }

  private HttpServer listen(int onPort) {
    try {
      HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", onPort), 0);
      s.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
      s.createContext("/", this::handle);
      s.start();
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The setting {@code drivers.waha.url}. */
  public String url() {
    return "http://127.0.0.1:" + port;
  }

  /** The engine goes down: connections are refused until {@link #up}. */
  public synchronized void down() {
    server.stop(0);
  }

  /** The engine is back on the same port, with its sessions. */
  public synchronized void up() {
    server = listen(port);
  }

  /**
   * Sends (sendText, sendImage, sendFile) are answered only after {@link #releaseSends}: a slow
   * engine (a large file, a busy phone) for a caller's timeout. Test-only: the answers, when they
   * come, are as before; other calls are not held.
   */
  public void holdSends() {
    sendsHeld = new java.util.concurrent.CountDownLatch(1);
  }

  /**
   * Session creations ({@code POST /api/sessions}) are answered only after {@link
   * #releaseSessionCreations}: the session is created and started, and its {@code session.status}
   * webhooks posted, as before, but the answer comes late (a busy engine). Kurir then hears of the
   * session before the call that made it returns. Test-only; other calls are not held.
   */
  public void holdSessionCreations() {
    creationsHeld = new java.util.concurrent.CountDownLatch(1);
  }

  /** Held session creations are answered now, and later ones at once. */
  public void releaseSessionCreations() {
    java.util.concurrent.CountDownLatch held = creationsHeld;
    creationsHeld = null;
    if (held != null) {
      held.countDown();
    }
  }

  /** Held sends are answered now, and later ones at once. */
  public void releaseSends() {
    java.util.concurrent.CountDownLatch held = sendsHeld;
    sendsHeld = null;
    if (held != null) {
      held.countDown();
    }
  }

  public List<String> violations() {
    return violations;
  }

  /** An error a send answers instead of sending. */
  private record Refusal(int status, String message) {}

  private final java.util.Deque<Refusal> refusals =
      new java.util.concurrent.ConcurrentLinkedDeque<>();

  /**
   * The next {@code n} sends of a WORKING session answer {@code status} with the engine's error
   * shape ({@code {"statusCode", "message"}}) and send nothing: 500 as the engine answers when the
   * WhatsApp connection fails under it, 400 for a message it refuses, 429 for a limit.
   */
  public void refuseNextSends(int n, int status, String message) {
    for (int i = 0; i < n; i++) {
      refusals.add(new Refusal(status, message));
    }
  }

  /** Every call, as {@code METHOD path}. */
  public List<String> calls() {
    return calls;
  }

  public List<Sent> sent() {
    return sent;
  }

  public Session session(String name) {
    return sessions.get(name);
  }

  /** A session made outside Kurir (by the engine's dashboard, say), already linked or not. */
  public Session existingSession(String name, String linkedNumberDigits) {
    Session s = new Session(name, JSON.createObjectNode());
    s.me = linkedNumberDigits;
    s.status = linkedNumberDigits == null ? "STOPPED" : "WORKING";
    sessions.put(name, s);
    return s;
  }

  /** The number the last pairing code was asked for. */
  public String codeRequestedFor() {
    return codeRequestedFor;
  }

  public void notOnWhatsApp(String digits) {
    sending.notOnWhatsApp(digits);
  }

  /** The sending side: engine flavour, numbers, WhatsApp's limits ({@link FakeWahaSending}). */
  public FakeWahaSending sending() {
    return sending;
  }

  /**
   * The account's new-chat message capping changes: shown in the session's {@code
   * me.messageCapping}, and the engine re-issues {@code WORKING} in {@code session.status}.
   */
  public void capping(String session, String status, int used, int total, java.time.Instant end) {
    sending.capping(status, used, total, end);
    status(sessions.get(session), sessions.get(session).status);
  }

  /** A group the linked numbers are in, with its members' digits. */
  public void group(String id, String subject, String... memberDigits) {
    groups.put(id, Map.of(subject, List.of(memberDigits)));
  }

  // --- the phone

  /** The phone scans the current QR code: the session is linked and WORKING. */
  public void scan(String session, String digits) {
    Session s = sessions.get(session);
    if (s == null || !s.status.equals("SCAN_QR_CODE")) {
      throw new IllegalStateException("session " + session + " shows no QR code");
    }
    s.me = digits;
    s.qr = null;
    status(s, "WORKING");
  }

  /** The QR code rotates (about every 20 seconds on the real engine). */
  public String rotateQr(String session) {
    Session s = sessions.get(session);
    s.qr = newQr();
    status(s, "SCAN_QR_CODE");
    return s.qr;
  }

  /** The session's status changes and the engine posts no webhook (a silent stall). */
  public void silently(String session, String status) {
    sessions.get(session).status = status;
  }

  /**
   * The session stalls: the engine still reports it WORKING (no webhook, nothing changes in the
   * session list) but calls to the session itself ({@code GET /api/sessions/{name}/me}) hang or
   * fail, until it is restarted ({@code POST /api/sessions/{name}/restart}) or stopped, or {@link
   * #unstall}.
   */
  public void stall(String session, Stall how) {
    sessions.get(session).stall = how;
  }

  public void unstall(String session) {
    sessions.get(session).stall = null;
  }

  /** How many times Kurir restarted the session ({@code POST /api/sessions/{name}/restart}). */
  public long restarts(String session) {
    return sessions.get(session).restarts.get();
  }

  /** The session fails (the phone removed the link, say). */
  public void fail(String session) {
    status(sessions.get(session), "FAILED");
  }

  /** An ack of a sent message; the HTTP status Kurir answered. */
  public int ack(String messageId, int ack, String ackName) {
    Sent m = sent.stream().filter(x -> x.id().equals(messageId)).findFirst().orElseThrow();
    if (ack >= 2 && !sending.arrives(messageId)) {
      throw new IllegalStateException("message " + messageId + " never reached a phone");
    }
    Session s = sessions.get(m.body().path("session").asText());
    ObjectNode payload = JSON.createObjectNode();
    payload.put("id", messageId);
    payload.put("from", s.me + "@c.us");
    payload.put("to", m.body().path("chatId").asText());
    payload.put("fromMe", true);
    payload.put("ack", ack);
    payload.put("ackName", ackName);
    return post(s, "message.ack", payload, null);
  }

  /**
   * A member's ack of a message sent to a group: {@code message.ack.group}, id {@code
   * true_<group>_<id>_<participant>}, posted only to webhooks that subscribe to it. The HTTP status
   * Kurir answered, 0 when no webhook takes the event.
   */
  public int ackGroup(String messageId, String participant, int ack, String ackName) {
    Sent m = sent.stream().filter(x -> x.id().equals(messageId)).findFirst().orElseThrow();
    Session s = sessions.get(m.body().path("session").asText());
    String group = m.body().path("chatId").asText();
    if (!group.endsWith("@g.us")) {
      throw new IllegalStateException("message " + messageId + " was not sent to a group");
    }
    ObjectNode payload = JSON.createObjectNode();
    payload.put("id", messageId + "_" + participant);
    payload.put("from", group);
    payload.put("participant", participant);
    payload.put("fromMe", true);
    payload.put("ack", ack);
    payload.put("ackName", ackName);
    return post(s, "message.ack.group", payload, null);
  }

  /** A message to the session's number from {@code fromDigits}; the HTTP status Kurir answered. */
  public int incoming(String session, String messageId, String fromDigits, String text) {
    return incoming(session, messageId, fromDigits, text, null);
  }

  /** As {@link #incoming}, signed with {@code signature} instead ("" for none). */
  public int incoming(
      String session, String messageId, String fromDigits, String text, String signature) {
    Session s = sessions.get(session);
    ObjectNode payload = textMessage(s, messageId, fromDigits + "@c.us", text);
    return post(s, "message", payload, signature);
  }

  /**
   * A message written in group {@code groupId} ({@code …@g.us}) by the member {@code
   * participantDigits}: {@code from} is the group, {@code participant} the member, as the engine
   * posts it. The HTTP status Kurir answered.
   */
  public int incomingInGroup(
      String session, String messageId, String groupId, String participantDigits, String text) {
    Session s = sessions.get(session);
    ObjectNode payload = textMessage(s, messageId, groupId, text);
    payload.put("participant", participantDigits + "@c.us");
    return post(s, "message", payload, null);
  }

  /**
   * A location shared with the session's number: {@code WAMessage.location} as OpenAPI's {@code
   * WALocation} ({@code latitude}, {@code longitude} as strings, {@code live}, {@code name}, {@code
   * address}), replying to {@code replyTo} ({@code replyTo.id}) when not null. The HTTP status
   * Kurir answered.
   */
  public int incomingLocation(
      String session,
      String messageId,
      String fromDigits,
      String latitude,
      String longitude,
      String name,
      String address,
      String replyTo) {
    Session s = sessions.get(session);
    ObjectNode payload = textMessage(s, messageId, fromDigits + "@c.us", "");
    ObjectNode l = payload.putObject("location");
    l.put("latitude", latitude);
    l.put("longitude", longitude);
    l.put("live", false);
    l.put("name", name);
    l.put("address", address);
    if (replyTo != null) {
      payload.putObject("replyTo").put("id", replyTo).put("hasMedia", false);
    }
    return post(s, "message", payload, null);
  }

  /** Contact cards shared with the session's number: {@code WAMessage.vCards}, vCard texts. */
  public int incomingContacts(
      String session, String messageId, String fromDigits, String... vcards) {
    Session s = sessions.get(session);
    ObjectNode payload = textMessage(s, messageId, fromDigits + "@c.us", "");
    ArrayNode cards = payload.putArray("vCards");
    for (String v : vcards) {
      cards.add(v);
    }
    return post(s, "message", payload, null);
  }

  private ObjectNode textMessage(Session s, String messageId, String from, String text) {
    ObjectNode payload = JSON.createObjectNode();
    payload.put("id", "false_" + from + "_" + messageId);
    payload.put("timestamp", clock.instant().getEpochSecond());
    payload.put("from", from);
    payload.put("fromMe", false);
    payload.put("to", s.me + "@c.us");
    payload.put("body", text);
    payload.put("hasMedia", false);
    return payload;
  }

  /**
   * An image (or file) with a caption to the session's number; the engine keeps the file and names
   * it by a URL on its own idea of its address ({@code WAHA_BASE_URL}), here one Kurir cannot
   * reach, so only its path may be used. The HTTP status Kurir answered.
   */
  public int incomingMedia(
      String session,
      String messageId,
      String fromDigits,
      String caption,
      String mimetype,
      String filename,
      byte[] bytes) {
    Session s = sessions.get(session);
    ObjectNode payload =
        mediaPayload(session, messageId, fromDigits, caption, mimetype, filename, bytes);
    ((ObjectNode) payload.path("media")).put("filename", filename);
    return post(s, "message", payload, null);
  }

  /**
   * A {@code WAMessage} with a file the engine keeps ({@code media.url} on the engine's own idea of
   * its address, {@code media.filename} null, as for all but documents).
   */
  private ObjectNode mediaPayload(
      String session,
      String messageId,
      String fromDigits,
      String caption,
      String mimetype,
      String filename,
      byte[] bytes) {
    String file = messageId + "-" + filename;
    files.put("/api/files/" + session + "/" + file, new StoredFile(bytes, clock.instant()));
    ObjectNode payload = JSON.createObjectNode();
    payload.put("id", "false_" + fromDigits + "@c.us_" + messageId);
    payload.put("timestamp", clock.instant().getEpochSecond());
    payload.put("from", fromDigits + "@c.us");
    payload.put("fromMe", false);
    payload.put("body", caption);
    payload.put("hasMedia", true);
    ObjectNode media = payload.putObject("media");
    media.put("url", "http://waha.internal:3000/api/files/" + session + "/" + file);
    media.put("mimetype", mimetype);
    media.putNull("filename");
    return payload;
  }

  /**
   * A sticker ({@code kind} {@code sticker}), a voice note ({@code voice}), an audio file ({@code
   * audio}) or a video ({@code video}) to the session's number, as {@link #incomingMedia}, with the
   * engine's own message in {@code _data} in the current flavour's shape ({@link #sending}): WEBJS
   * whatsapp-web.js' {@code rawData} ({@code type}: {@code sticker}, {@code ptt}, {@code audio},
   * {@code video}; core/engines/webjs/session.webjs.core.ts {@code toWAMessage}), NOWEB Baileys'
   * {@code WAMessage} ({@code message.stickerMessage}, {@code message.audioMessage.ptt}, {@code
   * message.videoMessage}; session.noweb.core.ts {@code toWAMessage}), GOWS whatsmeow's {@code
   * events.Message} ({@code Info.MediaType}, {@code Message.stickerMessage}, {@code
   * Message.audioMessage.PTT}). {@code WAMessage} itself names no kind.
   */
  public int incomingMediaOfKind(
      String session,
      String messageId,
      String fromDigits,
      String kind,
      String mimetype,
      String filename,
      byte[] bytes) {
    return incomingMediaOfKind(session, messageId, fromDigits, kind, mimetype, filename, bytes, "");
  }

  /** As the other {@code incomingMediaOfKind}, with {@code caption} as its {@code body}. */
  public int incomingMediaOfKind(
      String session,
      String messageId,
      String fromDigits,
      String kind,
      String mimetype,
      String filename,
      byte[] bytes,
      String caption) {
    Session s = sessions.get(session);
    ObjectNode payload =
        mediaPayload(session, messageId, fromDigits, caption, mimetype, filename, bytes);
    ObjectNode data = payload.putObject("_data");
    String proto =
        switch (kind) {
          case "sticker" -> "stickerMessage";
          case "video" -> "videoMessage";
          default -> "audioMessage";
        };
    switch (sending.engine()) {
      case WEBJS -> data.put("type", kind.equals("voice") ? "ptt" : kind);
      case NOWEB -> {
        data.putObject("key").put("id", messageId).put("fromMe", false);
        ObjectNode m = data.putObject("message").putObject(proto);
        m.put("mimetype", mimetype);
        if (proto.equals("audioMessage")) {
          m.put("ptt", kind.equals("voice"));
        }
      }
      case GOWS -> {
        data.putObject("Info")
            .put("ID", messageId)
            .put("Type", "media")
            .put("MediaType", kind.equals("voice") ? "ptt" : kind);
        ObjectNode m = data.putObject("Message").putObject(proto);
        m.put("mimetype", mimetype);
        if (proto.equals("audioMessage")) {
          m.put("PTT", kind.equals("voice"));
        }
      }
    }
    return post(s, "message", payload, null);
  }

  /**
   * A text replying to {@code replyToId}: {@code replyTo} with the quoted message's {@code id},
   * {@code participant} and {@code body} (docs how-to/receive-messages, "replyTo").
   */
  public int incomingReply(
      String session, String messageId, String fromDigits, String text, String replyToId) {
    Session s = sessions.get(session);
    ObjectNode payload = textMessage(s, messageId, fromDigits + "@c.us", text);
    payload
        .putObject("replyTo")
        .put("id", replyToId)
        .put("participant", s.me + "@c.us")
        .put("body", "the quoted text")
        .put("hasMedia", false);
    return post(s, "message", payload, null);
  }

  /**
   * A reaction to message {@code reactedId}: event {@code message.reaction}, payload {@code
   * WAMessageReaction} ({@code id}, {@code from}, {@code fromMe}, {@code participant}, {@code to},
   * {@code timestamp}, {@code reaction: {text, messageId}}), the same on every engine (docs
   * how-to/events "message.reaction"; session.noweb.core.ts and session.webjs.core.ts {@code
   * processMessageReaction}). Only a webhook subscribed to {@code message.reaction} gets it.
   */
  public int incomingReaction(
      String session, String messageId, String fromDigits, String emoji, String reactedId) {
    Session s = sessions.get(session);
    ObjectNode payload = JSON.createObjectNode();
    payload.put("id", "false_" + fromDigits + "@c.us_" + messageId);
    payload.put("from", fromDigits + "@c.us");
    payload.put("fromMe", false);
    payload.put("participant", fromDigits + "@c.us");
    payload.put("to", s.me + "@c.us");
    payload.put("timestamp", clock.instant().getEpochSecond() + 0.853);
    payload.putObject("reaction").put("text", emoji).put("messageId", reactedId);
    return post(s, "message.reaction", payload, null);
  }

  // --- The incoming side: senders and members known by LID, files that expire, broken sessions.
  // Kept apart from the sending side (send replies, acks, groups by name, checks) on purpose.

  /** A file the engine keeps for an incoming message, and since when. */
  private record StoredFile(byte[] bytes, java.time.Instant at) {}

  /** LID digits → the phone's digits, "" when the engine knows no phone for it. */
  private final Map<String, String> lids = new ConcurrentHashMap<>();

  /** By group id, its members known only by a LID (digits). */
  private final Map<String, List<String>> lidMembers = new ConcurrentHashMap<>();

  private volatile java.time.Duration filesLifetime = java.time.Duration.ofSeconds(180);
  private volatile boolean lidsBroken;
  private volatile boolean webhooksHeld;
  private final List<Runnable> heldWebhooks = new CopyOnWriteArrayList<>();

  /**
   * The engine's {@code WHATSAPP_FILES_LIFETIME} (default 180 s): a received file is deleted that
   * long after it came (on the fake's clock); its URL then answers 404 {@code File not found}.
   */
  public void filesLifetime(java.time.Duration lifetime) {
    filesLifetime = lifetime;
  }

  /**
   * The engine knows the contact behind LID {@code lidDigits}: its phone {@code phoneDigits}, or
   * none ({@code null}: the lids route answers {@code pn: null}, as WAHA does for a LID it cannot
   * map, devlikeapro/waha#1712, #1097).
   */
  public void lid(String lidDigits, String phoneDigits) {
    lids.put(lidDigits, phoneDigits == null ? "" : phoneDigits);
  }

  /** The lids route answers 500, as WEBJS sometimes does (devlikeapro/waha#1986). */
  public void breakLids(boolean broken) {
    lidsBroken = broken;
  }

  /** How many times the lids routes were asked. */
  public long lidLookups() {
    return calls.stream().filter(c -> c.matches("GET /api/[^/]+/lids/.*")).count();
  }

  /** A message from a contact the engine names only by LID: {@code from} is {@code <lid>@lid}. */
  public int incomingFromLid(String session, String messageId, String lidDigits, String text) {
    Session s = sessions.get(session);
    return post(s, "message", textMessage(s, messageId, lidDigits + "@lid", text), null);
  }

  /** A message in a group by a member the engine names only by LID ({@code participant}). */
  public int incomingInGroupFromLid(
      String session, String messageId, String groupId, String lidDigits, String text) {
    Session s = sessions.get(session);
    ObjectNode payload = textMessage(s, messageId, groupId, text);
    payload.put("participant", lidDigits + "@lid");
    return post(s, "message", payload, null);
  }

  /**
   * A member of {@code groupId} known only by a LID: {@code participants/v2} lists it with {@code
   * id} the LID and no {@code pn} (the stable {@code GroupParticipant} schema; {@code pn} is
   * optional).
   */
  public void lidMember(String groupId, String lidDigits) {
    lidMembers.computeIfAbsent(groupId, k -> new CopyOnWriteArrayList<>()).add(lidDigits);
  }

  /**
   * The session goes FAILED and stays broken for the next {@code restartsThatFail} restarts (each
   * comes back STOPPED → STARTING → FAILED); {@code -1}: every restart fails until a logout, which
   * deletes its authentication (the session then shows a QR code).
   */
  public void breakSession(String session, int restartsThatFail) {
    Session s = sessions.get(session);
    s.failingRestarts = restartsThatFail;
    status(s, "FAILED");
  }

  /** How many times Kurir logged the session out. */
  public long logouts(String session) {
    return sessions.get(session).logouts.get();
  }

  /**
   * The session asks for a passkey: {@code PASSKEY_REQUIRED} or {@code
   * PASSKEY_CONFIRMATION_REQUIRED}.
   */
  public void passkey(String session, String status) {
    if (!status.startsWith("PASSKEY_")) {
      throw new IllegalArgumentException(status);
    }
    status(sessions.get(session), status);
  }

  /**
   * Webhooks are not delivered until {@link #releaseWebhooks}: Kurir is down, the engine keeps
   * retrying. Posting methods answer 0 meanwhile.
   */
  public void holdWebhooks() {
    webhooksHeld = true;
  }

  /** The held webhooks are delivered now, in order (the engine's retry after Kurir came back). */
  public void releaseWebhooks() {
    webhooksHeld = false;
    List<Runnable> due = List.copyOf(heldWebhooks);
    heldWebhooks.clear();
    due.forEach(Runnable::run);
  }

  /** A broken session's restart: STARTING, then FAILED again; false when it is not broken. */
  private boolean failAgainIfBroken(Session s) {
    int left = s.failingRestarts;
    if (left == 0) {
      return false;
    }
    if (left > 0) {
      s.failingRestarts = left - 1;
    }
    status(s, "STARTING");
    status(s, "FAILED");
    return true;
  }

  /** The incoming side's routes; false when {@code path} is not one of them. */
  private boolean incomingSide(HttpExchange ex, String method, String path) throws IOException {
    if (!method.equals("GET")) {
      return false;
    }
    Matcher m;
    if (files.containsKey(path)) {
      StoredFile f = files.get(path);
      if (clock.instant().isAfter(f.at().plus(filesLifetime))) {
        // WAHA's answer for a file it removed (devlikeapro/waha#1007, #1884).
        String name = path.substring(path.lastIndexOf('/') + 1);
        reply(
            ex,
            404,
            Map.of("message", "File not found: " + name, "error", "Not Found", "statusCode", 404));
        return true;
      }
      ex.getResponseHeaders().set("Content-Type", "application/octet-stream");
      ex.sendResponseHeaders(200, f.bytes().length);
      ex.getResponseBody().write(f.bytes());
      return true;
    }
    if ((m = match("/api/([^/]+)/lids/pn/([^/]+)", path)) != null) {
      Session s = workingOrAnswered(ex, decode(m.group(1)));
      if (s != null) {
        String phone = decode(m.group(2)).replace("@c.us", "");
        String lid =
            lids.entrySet().stream()
                .filter(e -> e.getValue().equals(phone))
                .map(e -> e.getKey() + "@lid")
                .findFirst()
                .orElse(null);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("lid", lid);
        r.put("pn", phone + "@c.us");
        reply(ex, 200, r);
      }
      return true;
    }
    if ((m = match("/api/([^/]+)/lids/([^/]+)", path)) != null) {
      Session s = workingOrAnswered(ex, decode(m.group(1)));
      if (s == null) {
        return true;
      }
      String lid = decode(m.group(2));
      if (!lid.matches("\\d{5,30}(@lid)?")) {
        violations.add("lids lookup of " + lid);
        reply(ex, 400, Map.of("statusCode", 400, "message", "lid"));
        return true;
      }
      if (lidsBroken) {
        reply(ex, 500, Map.of("statusCode", 500, "message", "findPNByLid failed"));
        return true;
      }
      String digits = lid.replace("@lid", "");
      String phone = lids.getOrDefault(digits, "");
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("lid", digits + "@lid");
      r.put("pn", phone.isEmpty() ? null : phone + "@c.us");
      reply(ex, 200, r);
      return true;
    }
    if ((m = match("/api/([^/]+)/groups/([^/]+)/participants/v2", path)) != null
        && lidMembers.containsKey(decode(m.group(2)))
        && groups.containsKey(decode(m.group(2)))) {
      String id = decode(m.group(2));
      ArrayNode members = JSON.createArrayNode();
      for (String digits : groups.get(id).values().iterator().next()) {
        members
            .addObject()
            .put("id", digits + "@c.us")
            .put("pn", digits + "@c.us")
            .put("role", "participant");
      }
      for (String lid : lidMembers.get(id)) {
        members.addObject().put("id", lid + "@lid").put("role", "participant");
      }
      reply(ex, 200, members);
      return true;
    }
    return false;
  }

  /**
   * The session if it is WORKING; else the engine's answer (404, 422) is given and null returned.
   */
  private Session workingOrAnswered(HttpExchange ex, String name) throws IOException {
    Session s = sessions.get(name);
    if (s == null) {
      reply(ex, 404, notFound());
      return null;
    }
    if (!s.status.equals("WORKING")) {
      reply(ex, 422, notExpected(s, "WORKING"));
      return null;
    }
    return s;
  }

  // --- the HTTP API

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String method = ex.getRequestMethod();
      String path = ex.getRequestURI().getRawPath();
      Map<String, String> query = query(ex.getRequestURI().getRawQuery());
      calls.add(method + " " + path);
      if (!API_KEY.equals(ex.getRequestHeaders().getFirst("X-Api-Key"))) {
        violations.add(method + " " + path + " without the API key");
        reply(ex, 401, Map.of("message", "Unauthorized", "statusCode", 401));
        return;
      }
      JsonNode body = JSON.createObjectNode();
      byte[] raw = ex.getRequestBody().readAllBytes();
      if (raw.length > 0) {
        try {
          body = JSON.readTree(raw);
        } catch (IOException e) {
          violations.add(method + " " + path + ": body is not JSON");
          reply(ex, 400, Map.of("message", "Bad JSON", "statusCode", 400));
          return;
        }
      }
      route(ex, method, path, query, body);
    }
  }

  private void route(
      HttpExchange ex, String method, String path, Map<String, String> query, JsonNode body)
      throws IOException {
    Matcher m;
    if (incomingSide(ex, method, path)) {
      return; // files, lids, LID members (below, "The incoming side")
    } else if (method.equals("GET") && path.equals("/api/sessions")) {
      ArrayNode all = JSON.createArrayNode();
      sessions.values().forEach(s -> all.add(dto(s)));
      reply(ex, 200, all);
    } else if (method.equals("POST") && path.equals("/api/sessions")) {
      createSession(ex, body);
    } else if ((m = match("/api/sessions/([^/]+)", path)) != null) {
      Session s = sessions.get(decode(m.group(1)));
      if (s == null) {
        reply(ex, 404, notFound());
      } else if (method.equals("GET")) {
        reply(ex, 200, dto(s));
      } else if (method.equals("PUT")) {
        if (!body.path("config").isObject()) {
          violations.add("PUT " + path + " without config");
        } else {
          checkWebhooks(body.path("config"));
          s.config = (ObjectNode) body.path("config");
        }
        reply(ex, 200, dto(s));
      } else {
        reply(ex, 405, Map.of("statusCode", 405));
      }
    } else if (method.equals("GET") && (m = match("/api/sessions/([^/]+)/me", path)) != null) {
      Session s = sessions.get(decode(m.group(1)));
      if (s == null) {
        reply(ex, 404, notFound());
        return;
      }
      Stall stall = s.stall;
      if (stall == Stall.ERROR) {
        reply(ex, 500, Map.of("statusCode", 500, "message", "context deadline exceeded"));
        return;
      }
      long until = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
      while (s.stall == Stall.HANG && System.nanoTime() < until && !closed) {
        sleep(20);
      }
      if (s.me != null && s.status.equals("WORKING")) {
        reply(ex, 200, Map.of("id", s.me + "@c.us", "pushName", "Phone " + s.me));
      } else {
        // The engine answers no account for a session that is not linked.
        ex.sendResponseHeaders(200, -1);
      }
    } else if (method.equals("POST")
        && (m = match("/api/sessions/([^/]+)/(start|stop|restart|logout)", path)) != null) {
      Session s = sessions.get(decode(m.group(1)));
      if (s == null) {
        reply(ex, 404, notFound());
        return;
      }
      switch (m.group(2)) {
        case "start" -> start(s);
        case "stop" -> {
          s.stall = null; // a stopped session's stall ends with it
          status(s, "STOPPED");
        }
        case "restart" -> {
          s.restarts.incrementAndGet();
          s.stall = null;
          status(s, "STOPPED");
          if (!failAgainIfBroken(s)) {
            start(s);
          }
        }
        default -> {
          s.logouts.incrementAndGet();
          s.me = null;
          s.failingRestarts = 0; // its broken authentication is deleted with the link
          start(s);
        }
      }
      reply(ex, 201, dto(s));
    } else if (method.equals("GET") && (m = match("/api/([^/]+)/auth/qr", path)) != null) {
      Session s = sessions.get(decode(m.group(1)));
      if (s == null) {
        reply(ex, 404, notFound());
      } else if (!s.status.equals("SCAN_QR_CODE")) {
        reply(ex, 422, notExpected(s, "SCAN_QR_CODE"));
      } else if ("raw".equals(query.get("format"))) {
        reply(ex, 200, Map.of("value", s.qr));
      } else {
        // format=image (the default): the PNG, or as JSON {mimetype, data} when asked for JSON.
        String dataUrl = io.kurir.device.QrCodes.pngDataUrl(s.qr);
        String base64 = dataUrl.substring(dataUrl.indexOf(',') + 1);
        String accept = ex.getRequestHeaders().getFirst("Accept");
        if (accept != null && accept.contains("application/json")) {
          reply(ex, 200, Map.of("mimetype", "image/png", "data", base64));
        } else {
          byte[] png = java.util.Base64.getDecoder().decode(base64);
          ex.getResponseHeaders().set("Content-Type", "image/png");
          ex.sendResponseHeaders(200, png.length);
          ex.getResponseBody().write(png);
        }
      }
    } else if (method.equals("POST")
        && (m = match("/api/([^/]+)/auth/request-code", path)) != null) {
      Session s = sessions.get(decode(m.group(1)));
      String phone = body.path("phoneNumber").asText("");
      if (s == null) {
        reply(ex, 404, notFound());
      } else if (!phone.matches("\\d{6,15}")) {
        violations.add("request-code with phoneNumber " + phone);
        reply(ex, 400, Map.of("statusCode", 400, "message", "phoneNumber"));
      } else if (!s.status.equals("SCAN_QR_CODE")) {
        reply(ex, 422, notExpected(s, "SCAN_QR_CODE"));
      } else {
        codeRequestedFor = phone;
        reply(ex, 201, Map.of("code", "ABCD-EFGH"));
      }
    } else if (method.equals("POST")
        && (m =
                match(
                    "/api/(sendText|sendImage|sendFile|sendVideo|sendVoice|sendLocation"
                        + "|sendContactVcard)",
                    path))
            != null) {
      send(ex, path, m.group(1), body);
    } else if (method.equals("PUT") && path.equals("/api/reaction")) {
      react(ex, body);
    } else if ((method.equals("DELETE") || method.equals("PUT"))
        && (m = match("/api/([^/]+)/chats/([^/]+)/messages/([^/]+)", path)) != null) {
      changeSent(ex, method, decode(m.group(1)), decode(m.group(2)), decode(m.group(3)), body);
    } else if (method.equals("POST")
        && (path.equals("/api/sendSeen")
            || path.equals("/api/startTyping")
            || path.equals("/api/stopTyping"))) {
      chatAction(ex, path, body);
    } else if (method.equals("GET") && path.equals("/api/contacts/check-exists")) {
      Session s = sessions.get(query.getOrDefault("session", ""));
      String phone = query.getOrDefault("phone", "");
      if (s == null) {
        reply(ex, 404, notFound());
      } else if (!phone.matches("\\d{6,15}")) {
        violations.add("check-exists with phone " + phone);
        reply(ex, 400, Map.of("statusCode", 400, "message", "phone"));
      } else if (!s.status.equals("WORKING")) {
        reply(ex, 422, notExpected(s, "WORKING"));
      } else {
        reply(ex, 200, sending.checkExists(phone));
      }
    } else if (method.equals("GET")
        && (m = match("/api/([^/]+)/groups/([^/]+)/participants/v2", path)) != null) {
      var g = groups.get(decode(m.group(2)));
      if (g == null) {
        reply(ex, 404, Map.of("statusCode", 404, "message", "Group not found"));
        return;
      }
      ArrayNode members = JSON.createArrayNode();
      for (String digits : g.values().iterator().next()) {
        ObjectNode p = members.addObject();
        p.put("id", digits + "@c.us");
        p.put("pn", digits + "@c.us");
        p.put("role", "participant");
      }
      reply(ex, 200, members);
    } else if (method.equals("GET") && (m = match("/api/([^/]+)/groups", path)) != null) {
      Map<String, String> subjects = new LinkedHashMap<>();
      groups.forEach((id, g) -> subjects.put(id, g.keySet().iterator().next()));
      reply(ex, 200, sending.groups(subjects));
    } else if (method.equals("GET") && (m = match("/api/([^/]+)/new-message-id", path)) != null) {
      Session s = sessions.get(decode(m.group(1)));
      if (s == null) {
        reply(ex, 404, notFound());
        return;
      }
      var generated = sending.newMessageId();
      reply(ex, generated.status(), generated.body());
    } else {
      violations.add("unknown route " + method + " " + path);
      reply(ex, 404, Map.of("statusCode", 404, "message", "Cannot " + method + " " + path));
    }
  }

  private void createSession(HttpExchange ex, JsonNode body) throws IOException {
    String name = body.path("name").asText("");
    if (!name.matches("[A-Za-z0-9_-]{1,64}")) {
      violations.add("session name " + name);
      reply(ex, 400, Map.of("statusCode", 400, "message", "name"));
      return;
    }
    if (sessions.containsKey(name)) {
      violations.add("session " + name + " created twice");
      reply(ex, 422, Map.of("statusCode", 422, "message", "Session already exists"));
      return;
    }
    JsonNode config = body.path("config");
    checkWebhooks(config);
    Session s =
        new Session(name, config.isObject() ? (ObjectNode) config : JSON.createObjectNode());
    sessions.put(name, s);
    if (body.path("start").asBoolean(true)) {
      start(s);
    }
    java.util.concurrent.CountDownLatch held = creationsHeld;
    if (held != null) {
      try {
        held.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    reply(ex, 201, dto(s));
  }

  private void checkWebhooks(JsonNode config) {
    for (JsonNode h : config.path("webhooks")) {
      if (!h.path("url").asText("").contains("/drivers/waha/")) {
        continue; // another receiver's, set up by the engine's operator
      }
      if (!h.path("url").asText("").startsWith("http://127.0.0.1:")) {
        violations.add("webhook url " + h.path("url") + " is not Kurir on loopback");
      }
      if (h.path("hmac").path("key").asText("").length() < 16) {
        violations.add("webhook without an hmac key of 16 characters or more");
      }
      if (!h.path("events").isArray()) {
        violations.add("webhook without events");
      }
    }
  }

  private void start(Session s) {
    status(s, "STARTING");
    if (s.me != null) {
      status(s, "WORKING");
    } else {
      s.qr = newQr();
      status(s, "SCAN_QR_CODE");
    }
  }

  private void send(HttpExchange ex, String path, String kind, JsonNode body) throws IOException {
    java.util.concurrent.CountDownLatch held = sendsHeld;
    if (held != null) {
      try {
        held.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    Session s = sessions.get(body.path("session").asText(""));
    if (s == null) {
      reply(ex, 404, notFound());
      return;
    }
    String chatId = body.path("chatId").asText("");
    if (!CHAT.matcher(chatId).matches()) {
      violations.add(path + " to chatId " + chatId);
      reply(ex, 400, Map.of("statusCode", 400, "message", "chatId"));
      return;
    }
    Optional<String> wrong = FakeWahaSending.kindViolation(kind, body);
    if (wrong.isPresent()) {
      violations.add(path + ": " + wrong.get());
      reply(ex, 400, Map.of("statusCode", 400, "message", wrong.get()));
      return;
    }
    if (!s.status.equals("WORKING")) {
      reply(ex, 422, notExpected(s, "WORKING"));
      return;
    }
    Refusal refusal = refusals.poll();
    if (refusal != null) {
      reply(
          ex,
          refusal.status(),
          Map.of("statusCode", refusal.status(), "message", refusal.message()));
      return;
    }
    if (chatId.endsWith("@g.us") && !groups.containsKey(chatId)) {
      Optional<FakeWahaSending.Outcome> notIn = sending.notInGroup();
      if (notIn.isPresent()) {
        reply(ex, notIn.get().status(), notIn.get().body());
        return;
      }
    }
    FakeWahaSending.Outcome outcome = sending.send(s.me, path, kind, chatId, body);
    if (outcome.status() == 201) {
      sent.add(new Sent(outcome.ackId(), path, body));
    }
    reply(ex, outcome.status(), outcome.body());
  }

  /**
   * {@code PUT /api/reaction}: {@code MessageReactionRequest} {@code {session, messageId,
   * reaction}}, all required; {@code messageId} as the engine names a message ({@code
   * <fromMe>_<chatId>_<id>}); an empty reaction takes it away. Answers 200 with an empty object.
   */
  private void react(HttpExchange ex, JsonNode body) throws IOException {
    Session s = sessions.get(body.path("session").asText(""));
    if (s == null) {
      reply(ex, 404, notFound());
      return;
    }
    String messageId = body.path("messageId").asText("");
    if (!messageId.matches("(true|false)_[^_]+@(c\\.us|g\\.us|lid)_\\w+(_.+)?")
        || !body.path("reaction").isTextual()) {
      violations.add("reaction with messageId " + messageId + " and " + body.path("reaction"));
      reply(ex, 400, Map.of("statusCode", 400, "message", "messageId, reaction"));
      return;
    }
    if (!s.status.equals("WORKING")) {
      reply(ex, 422, notExpected(s, "WORKING"));
      return;
    }
    sent.add(new Sent("", "/api/reaction", body));
    reply(ex, 200, JSON.createObjectNode());
  }

  /** One action Kurir asked of the engine on a message or a chat: its route and its body. */
  public record Action(String method, String path, JsonNode body) {}

  private final List<Action> actions = new CopyOnWriteArrayList<>();
  private final java.util.Set<String> revoked = ConcurrentHashMap.newKeySet();

  /**
   * The engine no longer knows the messages it sent (WEBJS keeps them in its browser's store, which
   * a restart of the session's browser loses): revoking or editing them fails from now on.
   */
  public void forgetSentMessages() {
    forgotten.addAll(sent.stream().map(Sent::id).toList());
  }

  private final java.util.Set<String> forgotten = ConcurrentHashMap.newKeySet();

  /** The actions (revoke, edit, seen, typing) the engine did, oldest first. */
  public List<Action> actions() {
    return List.copyOf(actions);
  }

  /**
   * {@code DELETE} (revoke) or {@code PUT} (edit, {@code EditMessageRequest} {@code {text}}) of
   * {@code /api/{session}/chats/{chatId}/messages/{messageId}} (chats.controller.ts; WEBJS
   * recreates the message from its serialised id, NOWEB parses it as a key). A message the session
   * did not send, or one deleted already, fails in the engine, and WAHA's exception filter answers
   * a non-HTTP error as 500 with the error serialised ({@code AllExceptionsFilter}). Answers 200 (a
   * NestJS DELETE or PUT) with an empty object.
   */
  private void changeSent(
      HttpExchange ex,
      String method,
      String session,
      String chatId,
      String messageId,
      JsonNode body)
      throws IOException {
    Session s = sessions.get(session);
    if (s == null) {
      reply(ex, 404, notFound());
      return;
    }
    if (!s.status.equals("WORKING")) {
      reply(ex, 422, notExpected(s, "WORKING"));
      return;
    }
    if (!CHAT.matcher(chatId).matches()) {
      violations.add(method + " of a message in chat " + chatId);
    }
    boolean edit = method.equals("PUT");
    if (edit && !body.path("text").isTextual()) {
      violations.add("edit without text: " + body);
      reply(ex, 400, Map.of("statusCode", 400, "message", List.of("text must be a string")));
      return;
    }
    Optional<Sent> sentOne =
        sent.stream()
            .filter(x -> x.id().equals(messageId))
            .filter(x -> session.equals(x.body().path("session").asText()))
            .findFirst();
    if (sentOne.isEmpty() || revoked.contains(messageId) || forgotten.contains(messageId)) {
      reply(
          ex,
          500,
          Map.of(
              "statusCode",
              500,
              "exception",
              Map.of("message", "Message not found: " + messageId, "name", "Error")));
      return;
    }
    if (!messageId.startsWith("true_" + chatId + "_")) {
      violations.add(method + " of message " + messageId + " in chat " + chatId);
    }
    if (!edit) {
      revoked.add(messageId);
    }
    actions.add(
        new Action(
            method, "/api/" + session + "/chats/" + chatId + "/messages/" + messageId, body));
    reply(ex, 200, JSON.createObjectNode());
  }

  /**
   * {@code POST /api/sendSeen} ({@code SendSeenRequest}: {@code chatId} required, {@code
   * messageIds} optional) and {@code /api/startTyping}, {@code /api/stopTyping} ({@code
   * ChatRequest}), chatting.controller.ts: 201, with {@code {"result": true}} for typing and
   * nothing for seen (the engine's sendSeen returns nothing).
   */
  private void chatAction(HttpExchange ex, String path, JsonNode body) throws IOException {
    Session s = sessions.get(body.path("session").asText(""));
    if (s == null) {
      reply(ex, 404, notFound());
      return;
    }
    String chatId = body.path("chatId").asText("");
    if (!CHAT.matcher(chatId).matches()) {
      violations.add(path + " with chatId " + chatId);
      reply(ex, 400, Map.of("statusCode", 400, "message", List.of("chatId must be a string")));
      return;
    }
    if (body.has("messageIds") && !body.get("messageIds").isArray()) {
      violations.add(path + " with messageIds " + body.get("messageIds"));
    }
    if (!s.status.equals("WORKING")) {
      reply(ex, 422, notExpected(s, "WORKING"));
      return;
    }
    actions.add(new Action("POST", path, body));
    if (path.equals("/api/sendSeen")) {
      ex.sendResponseHeaders(201, -1);
    } else {
      reply(ex, 201, Map.of("result", true));
    }
  }

  private ObjectNode dto(Session s) {
    ObjectNode o = JSON.createObjectNode();
    o.put("name", s.name);
    o.put("status", s.status);
    if (s.me != null && s.status.equals("WORKING")) {
      sending.me(o.putObject("me").put("id", s.me + "@c.us").put("pushName", "Phone " + s.me));
    } else {
      o.putNull("me");
    }
    o.set("config", s.config);
    return o;
  }

  private static Map<String, Object> notFound() {
    return Map.of("statusCode", 404, "message", "Session not found");
  }

  private static Map<String, Object> notExpected(Session s, String expected) {
    return Map.of(
        "error",
        "Session status is not as expected. Try again later or restart the session",
        "session",
        s.name,
        "status",
        s.status,
        "expected",
        List.of(expected));
  }

  private String newQr() {
    return "2@" + UUID.randomUUID() + "," + UUID.randomUUID() + ",fake==";
  }

  // --- webhooks

  private void status(Session s, String status) {
    s.status = status;
    ObjectNode payload = JSON.createObjectNode();
    payload.put("name", s.name);
    payload.put("status", status);
    post(s, "session.status", payload, null);
  }

  /** Posts an event to every webhook of the session that takes it; the last HTTP status. */
  private int post(Session s, String event, ObjectNode payload, String signature) {
    if (webhooksHeld) {
      heldWebhooks.add(() -> post(s, event, payload, signature));
      return 0;
    }
    int last = 0;
    for (JsonNode h : s.config.path("webhooks")) {
      boolean wanted = false;
      for (JsonNode e : h.path("events")) {
        wanted |= e.asText().equals(event) || e.asText().equals("*");
      }
      if (!wanted) {
        continue;
      }
      ObjectNode envelope = JSON.createObjectNode();
      envelope.put("id", "evt_" + UUID.randomUUID().toString().replace("-", ""));
      envelope.put("timestamp", clock.millis());
      envelope.put("event", event);
      envelope.put("session", s.name);
      if (s.me != null) {
        sending.me(envelope.putObject("me").put("id", s.me + "@c.us"));
      }
      envelope.put("engine", sending.engine().name());
      envelope.set("payload", payload);
      byte[] bytes;
      try {
        bytes = JSON.writeValueAsBytes(envelope);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      String key = h.path("hmac").path("key").asText("");
      Map<String, String> headers = new LinkedHashMap<>();
      headers.put("X-Webhook-Request-Id", UUID.randomUUID().toString());
      headers.put("X-Webhook-Timestamp", Long.toString(clock.millis()));
      String sig = signature != null ? signature : key.isEmpty() ? "" : hmac(key, bytes);
      if (!sig.isEmpty()) {
        headers.put("X-Webhook-Hmac", sig);
        headers.put("X-Webhook-Hmac-Algorithm", "sha512");
      }
      last =
          FakeWebhooks.postRetrying(
              http, h.path("url").asText(), bytes, headers, retryDelays(h), () -> closed);
    }
    return last;
  }

  /**
   * The waits before each retry of a delivery Kurir did not answer 2xx, from the webhook's {@code
   * retries} ({@code policy} constant, linear or exponential; {@code delaySeconds}; {@code
   * attempts}, the first try included), the fields WAHA's webhook config takes (research/drivers.md
   * §5, from WAHA's docs). The docs name the policies but not their formula: here the wait grows by
   * {@code delaySeconds} (linear) or doubles from it (exponential). Without {@code retries}, one
   * try: WAHA's default is not documented (research/drivers.md §7), and the driver always sets it.
   */
  static List<Duration> retryDelays(JsonNode webhook) {
    JsonNode r = webhook.path("retries");
    int attempts = r.path("attempts").asInt(1);
    long delay = r.path("delaySeconds").asLong(2);
    String policy = r.path("policy").asText("constant");
    List<Duration> waits = new ArrayList<>();
    for (int retry = 1; retry < attempts; retry++) {
      long seconds =
          switch (policy) {
            case "linear" -> delay * retry;
            case "exponential" -> delay * (1L << Math.min(retry - 1, 20));
            default -> delay;
          };
      waits.add(Duration.ofSeconds(seconds));
    }
    return waits;
  }

  static String hmac(String key, byte[] body) {
    return FakeWebhooks.hmac("HmacSHA512", key, body);
  }

  // --- plumbing

  private static Matcher match(String regex, String path) {
    Matcher m = Pattern.compile(regex).matcher(path);
    return m.matches() ? m : null;
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> q = new LinkedHashMap<>();
    if (raw == null) {
      return q;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        q.put(decode(pair.substring(0, eq)), decode(pair.substring(eq + 1)));
      }
    }
    return q;
  }

  private static void reply(HttpExchange ex, int status, Object body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    ex.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    ex.sendResponseHeaders(status, bytes.length);
    ex.getResponseBody().write(bytes);
  }

  private volatile boolean closed;

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    closed = true;
    releaseSends();
    server.stop(0);
    http.shutdownNow(); // not close(): it would wait for a webhook post that never ends
  }

  /** Unused ids of the fake's own, for tests that need a fresh one. */
  public List<String> sessionNames() {
    return new ArrayList<>(sessions.keySet());
  }
}
