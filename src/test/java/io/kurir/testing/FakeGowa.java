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
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A GOWA server (go-whatsapp-web-multidevice, MIT) on loopback, written from its own published
 * description, not its code: {@code docs/openapi.yaml} (info.version 9.0.0) and {@code
 * docs/webhook-payload.md} of {@code aldinokemal/go-whatsapp-web-multidevice} at commit {@code
 * 51f7b199e6fd} (2026-08-22, {@code AppVersion v9.2.0}), with the route, header and error shapes
 * checked against {@code src/ui/rest/device.go}, {@code src/ui/rest/middleware/device.go}, {@code
 * src/pkg/utils/response.go}, {@code src/infrastructure/whatsapp/event_message.go}, {@code
 * event_receipt.go} and {@code jid_utils.go} of that commit (notes in ../shared/research/drivers.md
 * §1).
 *
 * <p>What it holds to, and records in {@link #violations} when Kurir does not:
 *
 * <ul>
 *   <li>HTTP Basic on every route but {@code /health} and {@code /statics/*} (a wrong login: 401
 *       plain {@code Unauthorized}, {@code WWW-Authenticate: Basic realm="Restricted"});
 *   <li>devices ("slots", v8): {@code GET|POST /devices}, {@code GET|DELETE /devices/{id}} (an
 *       unknown id: 500 {@code INTERNAL_SERVER_ERROR} "device … not found", as its reconnect and
 *       status), {@code /devices/{id}/login} (a PNG QR code at {@code qr_link} under {@code
 *       /statics/qrcode/}, deleted after {@code qr_duration} s on the clock), {@code
 *       login/code?phone=}, {@code logout}, {@code reconnect}, {@code status}; states {@code
 *       disconnected | connecting | connected | logged_in}, {@code jid} only while paired;
 *   <li>device scoping of {@code /send}, {@code /user}, {@code /group}: {@code X-Device-Id}, else
 *       {@code device_id}; unknown: 404 {@code DEVICE_NOT_FOUND}; none named: 400 {@code
 *       DEVICE_ID_REQUIRED} (the one-device default is refused here: Kurir must name its slot);
 *   <li>sends: {@code /send/message} (JSON {@code phone}, {@code message}, optional {@code
 *       reply_message_id} string and {@code mentions} strings), {@code /send/location} ({@code
 *       latitude}, {@code longitude}: strings, Required, is.Latitude/is.Longitude; {@code
 *       src/domains/send/location.go}, {@code src/validations/send_validation.go}), {@code
 *       /send/contact} ({@code contact_name}, {@code contact_phone} Required, the phone not
 *       starting with 0), {@code POST /message/{message_id}/reaction} ({@code phone}, {@code
 *       emoji}; {@code src/domains/message}, {@code ValidateReactMessage}), each recorded with its
 *       JSON body in {@link Sent#body}; {@code /send/image} (multipart {@code image}, JPEG or PNG
 *       by the part's type), {@code /send/file} ({@code file}), {@code /send/video} ({@code video}:
 *       mp4, mkv, avi), {@code /send/audio} ({@code audio}, {@code ptt}) and {@code /send/sticker}
 *       ({@code sticker}: jpeg, png, webp, gif), each part's type and size checked as {@code
 *       ValidateSend*} do, the text fields in {@link Sent#body} (see {@code sendMedia}); a {@code
 *       *_url} field is a violation (Kurir uploads); {@code phone} without {@code @} and longer
 *       than 15 characters is a group; a leading 0 is 400 {@code VALIDATION_ERROR}; a number not on
 *       WhatsApp is 400 {@code INVALID_JID} (account validation, GOWA's default); not logged in is
 *       401 {@code AUTHENTICATION_ERROR}; replies {@code {code, message, results: {message_id,
 *       status}}} with no {@code status} number;
 *   <li>actions ({@link #actions}): {@code POST /message/{message_id}/revoke}, {@code update}
 *       ({@code message} Required), {@code read}, and {@code /send/chat-presence} ({@code action}
 *       {@code start|stop}), each with {@code phone} (the chat's JID); {@code docs/openapi.yaml}
 *       and {@code src/usecase/message.go}, {@code send.go}, {@code src/validations/};
 *   <li>{@code GET /user/check?phone=}, {@code GET /user/my/groups} (whatsmeow's PascalCase {@code
 *       GroupInfo}), {@code GET /group/participants?group_id=};
 *   <li>webhooks to the operator's {@code --webhook}, signed {@code X-Hub-Signature-256:
 *       sha256=<hex HMAC-SHA256 of the body>} with {@code --webhook-secret}; envelope {@code
 *       {event, device_id: <JID>, session_id: <slot>, payload}}; {@code message} payloads with
 *       {@code from}/{@code from_lid} as GOWA builds them (a LID sender it knows no phone of has
 *       its LID in both) and {@code chat_id} the chat normalised the same way ({@code chat_lid} the
 *       LID of a LID-addressed chat); media as {@code statics/media/…} paths (an audio or a sticker
 *       always a plain path), replies by {@code replied_to_id}, {@code location}, {@code contact} /
 *       {@code contacts_array}, and {@code message.reaction} events ({@code reaction}, {@code
 *       reacted_message_id}), from docs/webhook-payload.md and event_message.go; {@code
 *       message.ack} with {@code ids}, {@code receipt_type}, a top-level {@code timestamp}, {@code
 *       chat_id} the chat and {@code from} who received the message (in a group, the member). No
 *       login, logout or connection event reaches a webhook (GOWA puts them on its websocket only).
 *       A delivery Kurir does not answer 2xx is tried again four times, after 1, 2, 4 and 8 s of
 *       real time, as GOWA's webhook.go does.
 * </ul>
 *
 * <p>What the phone and WhatsApp do is played by the test: {@link #scan}, {@link
 * #loggedOutFromPhone} (GOWA keeps the slot, clears its JID), {@link #connectionLost} (mended by
 * {@code reconnect}), {@link #cutOff} and {@link #connectionBack} (not mended until WhatsApp can be
 * reached), {@link #down} and {@link #up} (GOWA's process exits and starts again with its store),
 * {@link #removeSlot} (a GOWA started on an empty volume), {@link #refuseNextSend}.
 */
public final class FakeGowa implements AutoCloseable {
  public static final String USER = "kurir";
  public static final String PASSWORD = "gowa-pass-0123456789";
  public static final String WEBHOOK_SECRET = "gowa-webhook-secret-0123456789";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern DIGITS = Pattern.compile("\\d{6,15}");

  /** One GOWA device: a WhatsApp account slot. */
  public static final class Slot {
    final String id;
    volatile String state = "disconnected";
    volatile String jid = ""; // <digits>@s.whatsapp.net once paired
    volatile String qr;
    volatile boolean cutOff;
    final Instant createdAt;

    Slot(String id, Instant createdAt) {
      this.id = id;
      this.createdAt = createdAt;
    }

    public String state() {
      return state;
    }

    public String jid() {
      return jid;
    }

    public String qr() {
      return qr;
    }

    String digits() {
      return jid.isEmpty() ? "" : jid.substring(0, jid.indexOf('@'));
    }
  }

  /** A message GOWA sent, as Kurir asked for it. */
  public record Sent(
      String id,
      String slot,
      String path,
      String phone,
      String text,
      String fileName,
      String fileType,
      byte[] file,
      JsonNode body) {}

  /** A group the accounts are in: its JID, name, and members (phone digits, LID or both). */
  public record Member(String phoneDigits, String lid) {}

  private record Group(String jid, String name, List<Member> members) {}

  private record StaticFile(byte[] bytes, String type, Instant until) {}

  /** A refusal the next send of a slot meets. */
  private record Refusal(int status, String code, String message) {}

  private final Clock clock;
  private final int port;
  private final HttpClient http = HttpClient.newHttpClient();
  private final Map<String, Slot> slots = new ConcurrentHashMap<>();
  private final List<Sent> sent = new CopyOnWriteArrayList<>();
  private final List<String> violations = new CopyOnWriteArrayList<>();
  private final List<String> calls = new CopyOnWriteArrayList<>();
  private final Set<String> notOnWhatsApp = ConcurrentHashMap.newKeySet();
  private final Map<String, Group> groups = new ConcurrentHashMap<>();
  private final Map<String, StaticFile> statics = new ConcurrentHashMap<>();
  private final Map<String, Refusal> refusals = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong(0xB000);
  private volatile HttpServer server;
  private volatile String webhook = "";
  private volatile String codeRequestedFor;
  private volatile boolean closed;

  public FakeGowa(Clock clock) {
    this.clock = clock;
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

  private volatile String basePath = "";

  /**
   * GOWA run with {@code APP_BASE_PATH=<base>} (such as {@code /wa}): every route, {@code /statics}
   * too, is under it, and {@code qr_link} names it.
   */
  public void basePath(String base) {
    basePath = base;
  }

  /** The setting {@code drivers.gowa.url}. */
  public String url() {
    return "http://127.0.0.1:" + port + basePath;
  }

  /** The setting {@code drivers.gowa.basic-auth}. */
  public static String basicAuth() {
    return USER + ":" + PASSWORD;
  }

  /** GOWA's {@code --webhook}: where it posts every slot's events. */
  public void webhook(String url) {
    this.webhook = url;
  }

  /** GOWA stops (a crash, {@code os.Exit} on a replaced stream): connections are refused. */
  public synchronized void down() {
    server.stop(0);
  }

  /**
   * GOWA starts again on the same port with its store: paired slots connect and log in again, the
   * pairings in progress are lost (their QR codes with them).
   */
  public synchronized void up() {
    for (Slot s : slots.values()) {
      s.qr = null;
      s.state = s.jid.isEmpty() ? "disconnected" : "logged_in";
    }
    statics.keySet().removeIf(p -> p.startsWith("/statics/qrcode/"));
    server = listen(port);
  }

  public List<String> violations() {
    return violations;
  }

  /** Every call, as {@code METHOD path}. */
  public List<String> calls() {
    return calls;
  }

  public List<Sent> sent() {
    return sent;
  }

  public Slot slot(String id) {
    return slots.get(id);
  }

  /** A slot made outside Kurir (GOWA's dashboard, say), paired with {@code digits} or not. */
  public Slot existingSlot(String id, String digits) {
    Slot s = new Slot(id, clock.instant());
    if (digits != null) {
      s.jid = digits + "@s.whatsapp.net";
      s.state = "logged_in";
    }
    slots.put(id, s);
    return s;
  }

  /** The slot is gone from GOWA (a GOWA started on an empty volume, or removed by hand). */
  public void removeSlot(String id) {
    slots.remove(id);
  }

  /** The number the last pairing code was asked for. */
  public String codeRequestedFor() {
    return codeRequestedFor;
  }

  public void notOnWhatsApp(String digits) {
    notOnWhatsApp.add(digits);
  }

  /**
   * {@code digits} is found again: GOWA answers {@code is_on_whatsapp: false} too when its own
   * look-up fails (pkg/utils/whatsapp.go IsOnWhatsapp), so a "no" may pass.
   */
  public void onWhatsApp(String digits) {
    notOnWhatsApp.remove(digits);
  }

  /** A group every account is in. */
  public void group(String jid, String name, Member... members) {
    groups.put(jid, new Group(jid, name, List.of(members)));
  }

  /** The next send of {@code slot} is answered {@code status} with GOWA's {@code code}. */
  public void refuseNextSend(String slot, int status, String code, String message) {
    refusals.put(slot, new Refusal(status, code, message));
  }

  private final Set<String> hangUps = ConcurrentHashMap.newKeySet();

  /**
   * The slot's next send reaches WhatsApp, and GOWA goes before it answers (a restart mid-request):
   * the connection is closed with no reply.
   */
  public void hangUpAfterNextSend(String slot) {
    hangUps.add(slot);
  }

  /**
   * Posts {@code envelope} (GOWA's {@code {event, device_id, session_id, payload}}, written by the
   * test) to the webhook, signed with the secret unless {@code signature} is given ("" for none);
   * the HTTP status Kurir answered.
   */
  public int deliver(String envelope, String signature) {
    return postSigned(envelope.getBytes(StandardCharsets.UTF_8), signature);
  }

  /**
   * GOWA's waits before each retry of a webhook not answered 2xx: five tries in all, in memory
   * (research/drivers.md §1.5, from {@code src/infrastructure/whatsapp/webhook.go}).
   */
  static final List<java.time.Duration> RETRIES =
      List.of(1, 2, 4, 8).stream().map(java.time.Duration::ofSeconds).toList();

  /**
   * Posts {@code bytes} to the webhook, signed unless {@code signature} says otherwise; tried again
   * as GOWA does when Kurir does not answer 2xx.
   */
  private int postSigned(byte[] bytes, String signature) {
    String sig =
        signature != null
            ? signature
            : "sha256=" + FakeWebhooks.hmac("HmacSHA256", WEBHOOK_SECRET, bytes);
    return FakeWebhooks.postRetrying(
        http,
        webhook,
        bytes,
        sig.isEmpty() ? Map.of() : Map.of("X-Hub-Signature-256", sig),
        RETRIES,
        () -> closed);
  }

  /** Places a file GOWA serves at {@code path} (such as {@code /statics/media/x.jpg}). */
  public void staticFile(String path, byte[] bytes) {
    statics.put(path, new StaticFile(bytes, "application/octet-stream", Instant.MAX));
  }

  // --- the phone

  /** The phone scans the slot's QR code: paired with {@code digits} and logged in. */
  public void scan(String slot, String digits) {
    Slot s = slots.get(slot);
    if (s == null || s.qr == null) {
      throw new IllegalStateException("slot " + slot + " shows no QR code");
    }
    s.qr = null;
    s.jid = digits + "@s.whatsapp.net";
    s.state = "logged_in";
  }

  /** The phone removes the linked device: GOWA keeps the slot, clears its JID. No webhook. */
  public void loggedOutFromPhone(String slot) {
    Slot s = slots.get(slot);
    s.jid = "";
    s.qr = null;
    s.state = "disconnected";
  }

  /** The slot's connection to WhatsApp drops; it stays paired ({@code reconnect} mends it). */
  public void connectionLost(String slot) {
    slots.get(slot).state = "disconnected";
  }

  /**
   * The slot cannot reach WhatsApp (its network, WhatsApp's servers): disconnected, and {@code
   * reconnect} does not mend it until {@link #connectionBack}.
   */
  public void cutOff(String slot) {
    Slot s = slots.get(slot);
    s.cutOff = true;
    s.state = "disconnected";
  }

  /** WhatsApp can be reached again: a paired slot logs in again (GOWA's auto-reconnect). */
  public void connectionBack(String slot) {
    Slot s = slots.get(slot);
    s.cutOff = false;
    if (!s.jid.isEmpty()) {
      s.state = "logged_in";
    }
  }

  /** Every message WhatsApp took from any slot, in order. */
  public List<String> textsSent() {
    return sent.stream().map(Sent::text).toList();
  }

  // --- events GOWA posts

  /** A text from {@code fromDigits} to the slot's account; the HTTP status Kurir answered. */
  public int incoming(String slot, String messageId, String fromDigits, String text) {
    ObjectNode p = message(messageId, fromDigits + "@s.whatsapp.net", null);
    p.put("body", text);
    return post(slots.get(slot), "message", p, null);
  }

  /** As {@link #incoming}, signed with {@code signature} instead ("" for none). */
  public int incoming(
      String slot, String messageId, String fromDigits, String text, String signature) {
    ObjectNode p = message(messageId, fromDigits + "@s.whatsapp.net", null);
    p.put("body", text);
    return post(slots.get(slot), "message", p, signature);
  }

  /**
   * A text from a LID-migrated sender: with {@code knownDigits} GOWA resolved the phone ({@code
   * from} is it, {@code from_lid} the LID); without, {@code from} is the LID itself. The chat is
   * the LID's (whatsmeow names a LID-addressed chat by the LID): {@code chat_lid} is it and {@code
   * chat_id} the same chat normalised, the phone's when known, else the LID (event_message.go
   * buildFromFields, jid_utils.go NormalizeJIDFromLID).
   */
  public int incomingFromLid(
      String slot, String messageId, String lid, String knownDigits, String text) {
    String from = knownDigits == null ? lid + "@lid" : knownDigits + "@s.whatsapp.net";
    ObjectNode p = message(messageId, from, from);
    p.put("chat_lid", lid + "@lid");
    p.put("from_lid", lid + "@lid");
    p.put("body", text);
    return post(slots.get(slot), "message", p, null);
  }

  /**
   * A text written in group {@code groupJid} by a LID-migrated member: {@code chat_id} the group,
   * {@code from_lid} the LID, {@code from} the phone when GOWA resolved it, else the LID.
   */
  public int incomingInGroupFromLid(
      String slot, String messageId, String groupJid, String lid, String knownDigits, String text) {
    String from = knownDigits == null ? lid + "@lid" : knownDigits + "@s.whatsapp.net";
    ObjectNode p = message(messageId, from, groupJid);
    p.put("from_lid", lid + "@lid");
    p.put("body", text);
    return post(slots.get(slot), "message", p, null);
  }

  /** A text written in group {@code groupJid} by {@code fromDigits}. */
  public int incomingInGroup(
      String slot, String messageId, String groupJid, String fromDigits, String text) {
    ObjectNode p = message(messageId, fromDigits + "@s.whatsapp.net", groupJid);
    p.put("body", text);
    return post(slots.get(slot), "message", p, null);
  }

  /**
   * An image ({@code field} {@code image}) or a document ({@code document}) GOWA downloaded (its
   * default): the payload names the file by its path under GOWA's folder, {@code statics/media/…},
   * as a plain string without a caption and as {@code {path, caption}} with one.
   */
  public int incomingMedia(
      String slot,
      String messageId,
      String fromDigits,
      String field,
      String caption,
      String extension,
      byte[] bytes) {
    String path = mediaFile(extension, bytes);
    ObjectNode p = message(messageId, fromDigits + "@s.whatsapp.net", null);
    if (caption.isEmpty() || field.equals("audio") || field.equals("sticker")) {
      // buildMediaFields: an audio or a sticker is its path alone (they carry no caption).
      p.put(field, path);
    } else {
      p.put("body", caption);
      p.putObject(field).put("path", path).put("caption", caption);
    }
    return post(slots.get(slot), "message", p, null);
  }

  /**
   * A file GOWA downloaded for an incoming message, served under its folder: its path as the
   * payload names it, {@code statics/media/<seconds>-<uuid>.<extension>}.
   */
  private String mediaFile(String extension, byte[] bytes) {
    String path =
        "statics/media/"
            + clock.instant().getEpochSecond()
            + "-"
            + UUID.randomUUID()
            + "."
            + extension;
    statics.put("/" + path, new StaticFile(bytes, "application/octet-stream", Instant.MAX));
    return path;
  }

  /**
   * A media message ({@code field}: {@code image}, {@code video}, {@code video_note}, {@code
   * audio}, {@code document}, {@code sticker}) replying to {@code repliedToId}: as {@link
   * #incomingMedia}, with GOWA's {@code replied_to_id} and {@code quoted_body} (event_message.go
   * buildMessageBody).
   */
  public int incomingMediaReply(
      String slot,
      String messageId,
      String fromDigits,
      String field,
      String extension,
      byte[] bytes,
      String repliedToId) {
    String path = mediaFile(extension, bytes);
    ObjectNode p = message(messageId, fromDigits + "@s.whatsapp.net", null);
    p.put(field, path);
    p.put("replied_to_id", repliedToId);
    p.put("quoted_body", "");
    return post(slots.get(slot), "message", p, null);
  }

  /** A text replying to {@code repliedToId} ({@code replied_to_id}, {@code quoted_body}). */
  public int incomingReply(
      String slot, String messageId, String fromDigits, String text, String repliedToId) {
    ObjectNode p = message(messageId, fromDigits + "@s.whatsapp.net", null);
    p.put("body", text);
    p.put("replied_to_id", repliedToId);
    p.put("quoted_body", "the quoted text");
    return post(slots.get(slot), "message", p, null);
  }

  /**
   * A shared location: whatsmeow's {@code LocationMessage} as protojson writes it ({@code
   * degreesLatitude}, {@code degreesLongitude}, {@code name}, {@code address}),
   * docs/webhook-payload.md "Location Message".
   */
  public int incomingLocation(
      String slot,
      String messageId,
      String fromDigits,
      double latitude,
      double longitude,
      String name,
      String address) {
    ObjectNode p = message(messageId, fromDigits + "@s.whatsapp.net", null);
    ObjectNode l = p.putObject("location");
    l.put("degreesLatitude", latitude);
    l.put("degreesLongitude", longitude);
    l.put("name", name);
    l.put("address", address);
    return post(slots.get(slot), "message", p, null);
  }

  /**
   * Shared contacts, each {@code {displayName, vcard, phone_number}}: one as {@code contact},
   * several as {@code contacts_array} (docs/webhook-payload.md "Contact Message", "Contacts Array
   * Message"). {@code cards} are name, vCard, phone triples.
   */
  public int incomingContacts(String slot, String messageId, String fromDigits, String... cards) {
    ObjectNode p = message(messageId, fromDigits + "@s.whatsapp.net", null);
    ArrayNode all = JSON.createArrayNode();
    for (int i = 0; i + 2 < cards.length; i += 3) {
      ObjectNode c = all.addObject();
      c.put("displayName", cards[i]);
      c.put("vcard", cards[i + 1]);
      c.put("phone_number", cards[i + 2]);
    }
    if (all.size() == 1) {
      p.set("contact", all.get(0));
    } else {
      p.set("contacts_array", all);
    }
    return post(slots.get(slot), "message", p, null);
  }

  /**
   * A reaction: event {@code message.reaction}, payload {@code reaction} (the emoji) and {@code
   * reacted_message_id} beside the message fields (docs/webhook-payload.md "Reaction Message").
   */
  public int incomingReaction(
      String slot, String messageId, String fromDigits, String emoji, String reactedId) {
    ObjectNode p = message(messageId, fromDigits + "@s.whatsapp.net", null);
    p.put("reaction", emoji);
    p.put("reacted_message_id", reactedId);
    return post(slots.get(slot), "message.reaction", p, null);
  }

  /**
   * A receipt of messages {@code messageIds} that GOWA sent for {@code slot} to one number: {@code
   * delivered}, {@code read} or {@code read-self}; the HTTP status Kurir answered. The receipt's
   * {@code from} is the number (the one who received them). For a message to a group, see {@link
   * #groupAck}.
   */
  public int ack(String slot, String receiptType, String... messageIds) {
    String chat = chatOf(messageIds[0]);
    if (chat.endsWith("@g.us")) {
      throw new IllegalArgumentException(
          "a receipt in a group comes from one of its members: use groupAck");
    }
    return ack(slot, receiptType, chat, chat, null, messageIds);
  }

  /**
   * A receipt of messages {@code messageIds} that GOWA sent for {@code slot} to a group, from the
   * member {@code by}: WhatsApp sends one per member (GOWA forwards each member's primary device
   * only), with {@code chat_id} the group, {@code from} the member (its phone's JID when GOWA knows
   * it, else its LID) and {@code from_lid} its LID (event_receipt.go createReceiptPayload).
   */
  public int groupAck(String slot, String receiptType, Member by, String... messageIds) {
    String chat = chatOf(messageIds[0]);
    if (!chat.endsWith("@g.us")) {
      throw new IllegalArgumentException(messageIds[0] + " was not sent to a group");
    }
    String from =
        by.phoneDigits() != null ? by.phoneDigits() + "@s.whatsapp.net" : by.lid() + "@lid";
    return ack(
        slot, receiptType, chat, from, by.lid() == null ? null : by.lid() + "@lid", messageIds);
  }

  private String chatOf(String messageId) {
    Sent first = sent.stream().filter(x -> x.id().equals(messageId)).findFirst().orElseThrow();
    return first.phone().contains("@") ? first.phone() : first.phone() + "@s.whatsapp.net";
  }

  private int ack(
      String slot,
      String receiptType,
      String chat,
      String from,
      String fromLid,
      String... messageIds) {
    ObjectNode p = JSON.createObjectNode();
    ArrayNode all = p.putArray("ids");
    for (String id : messageIds) {
      all.add(id);
    }
    p.put("chat_id", chat);
    if (fromLid != null) {
      p.put("from_lid", fromLid);
    }
    p.put("from", from);
    p.put("receipt_type", receiptType);
    p.put(
        "receipt_type_description",
        receiptType.equals("read")
            ? "the user opened the chat and saw the message."
            : "means the message was delivered to the device (but the user might not have"
                + " noticed).");
    return post(slots.get(slot), "message.ack", p, null);
  }

  /**
   * The fields every {@code message} payload has; {@code chat} is {@code chat_id}: the group, or
   * for a chat of two the sender's normalised JID (null: {@code from}, a phone's JID).
   */
  private ObjectNode message(String messageId, String from, String chat) {
    ObjectNode p = JSON.createObjectNode();
    p.put("id", messageId);
    p.put("chat_id", chat != null ? chat : from);
    p.put("from", from);
    p.put("from_name", "Phone " + from.substring(0, from.indexOf('@')));
    p.put("sender_display_name", "Phone " + from.substring(0, from.indexOf('@')));
    p.put("timestamp", DateTimeFormatter.ISO_INSTANT.format(clock.instant()));
    p.put("is_from_me", false);
    return p;
  }

  private int post(Slot s, String event, ObjectNode payload, String signature) {
    if (webhook.isEmpty()) {
      throw new IllegalStateException("GOWA was started without --webhook");
    }
    ObjectNode envelope = JSON.createObjectNode();
    envelope.put("event", event);
    envelope.put("device_id", s.jid);
    envelope.put("session_id", s.id);
    if (event.equals("message.ack")) {
      envelope.put("timestamp", DateTimeFormatter.ISO_INSTANT.format(clock.instant()));
    }
    envelope.set("payload", payload);
    try {
      return postSigned(JSON.writeValueAsBytes(envelope), signature);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // --- the HTTP API

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String method = ex.getRequestMethod();
      String path = ex.getRequestURI().getRawPath();
      // cmd/rest.go: /health is mounted at the root, before Basic auth, whatever APP_BASE_PATH.
      if (!basePath.isEmpty() && !path.equals("/health")) {
        if (!path.startsWith(basePath + "/")) {
          violations.add(method + " " + path + " outside APP_BASE_PATH " + basePath);
          error(ex, 404, "NOT_FOUND", "Cannot " + method + " " + path);
          return;
        }
        path = path.substring(basePath.length());
      }
      calls.add(method + " " + path);
      if (path.startsWith("/statics/")) {
        servStatic(ex, path); // mounted before the Basic-auth middleware
        return;
      }
      if (!authorized(ex.getRequestHeaders().getFirst("Authorization"))) {
        violations.add(method + " " + path + " without GOWA's Basic credentials");
        ex.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"Restricted\"");
        byte[] text = "Unauthorized".getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        ex.sendResponseHeaders(401, text.length);
        ex.getResponseBody().write(text);
        return;
      }
      Map<String, String> query = query(ex.getRequestURI().getRawQuery());
      byte[] raw = ex.getRequestBody().readAllBytes();
      route(ex, method, path, query, raw);
    }
  }

  private static boolean authorized(String header) {
    String expected =
        "Basic " + Base64.getEncoder().encodeToString(basicAuth().getBytes(StandardCharsets.UTF_8));
    return expected.equals(header);
  }

  private void servStatic(HttpExchange ex, String path) throws IOException {
    StaticFile f = statics.get(path);
    if (f == null || !clock.instant().isBefore(f.until())) {
      statics.remove(path);
      byte[] text = "Cannot GET ".concat(path).getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(404, text.length);
      ex.getResponseBody().write(text);
      return;
    }
    ex.getResponseHeaders().set("Content-Type", f.type());
    ex.sendResponseHeaders(200, f.bytes().length);
    ex.getResponseBody().write(f.bytes());
  }

  private void route(
      HttpExchange ex, String method, String path, Map<String, String> query, byte[] raw)
      throws IOException {
    Matcher m;
    if (method.equals("GET") && path.equals("/devices")) {
      ArrayNode all = JSON.createArrayNode();
      slots.values().forEach(s -> all.add(JSON.valueToTree(dto(s))));
      ok(ex, "List devices", all);
    } else if (method.equals("POST") && path.equals("/devices")) {
      JsonNode body = json(ex, path, raw);
      if (body == null) {
        return;
      }
      String id = body.path("device_id").asText("");
      if (id.isEmpty()) {
        id = UUID.randomUUID().toString();
      }
      if (slots.containsKey(id)) {
        violations.add("device " + id + " created twice");
        error(ex, 500, "INTERNAL_SERVER_ERROR", "device " + id + " already exists");
        return;
      }
      if (body.has("webhook_url") || body.has("webhook_secret")) {
        violations.add("device " + id + " created with its own webhook: the operator's --webhook");
      }
      Slot s = new Slot(id, clock.instant());
      slots.put(id, s);
      ok(ex, "Device added", dto(s));
    } else if ((m = match("/devices/([^/]+)", path)) != null) {
      Slot s = slots.get(decode(m.group(1)));
      if (s == null) {
        // usecase/device.go GetDevice: a plain error, through the recovery middleware (a 500);
        // DEVICE_NOT_FOUND is only the scoping middleware's, on the send and user routes.
        error(ex, 500, "INTERNAL_SERVER_ERROR", "device " + decode(m.group(1)) + " not found");
      } else if (method.equals("GET")) {
        ok(ex, "Device info", dto(s));
      } else if (method.equals("DELETE")) {
        slots.remove(s.id);
        ok(ex, "Device removed", null);
      } else {
        methodNotAllowed(ex, method, path);
      }
    } else if ((m = match("/devices/([^/]+)/(login|login/code|logout|reconnect|status)", path))
        != null) {
      Slot s = slots.get(decode(m.group(1)));
      String what = m.group(2);
      if (s == null && (what.equals("reconnect") || what.equals("status"))) {
        // usecase/device.go ReconnectDevice, GetStatus: a plain error, so a 500.
        error(ex, 500, "INTERNAL_SERVER_ERROR", "device " + decode(m.group(1)) + " not found");
        return;
      }
      if (s == null) {
        deviceNotFound(ex, decode(m.group(1)));
        return;
      }
      boolean get = what.equals("login") || what.equals("status");
      if (!method.equals(get ? "GET" : "POST")) {
        methodNotAllowed(ex, method, path);
        return;
      }
      switch (what) {
        case "login" -> login(ex, s);
        case "login/code" -> {
          String phone = query.getOrDefault("phone", "");
          if (!DIGITS.matcher(phone).matches() || phone.startsWith("0")) {
            violations.add("login/code with phone " + phone);
            error(ex, 400, "VALIDATION_ERROR", "phone: must be international, 62xxx");
          } else if (s.state.equals("logged_in")) {
            error(ex, 400, "ALREADY_LOGGED_IN", "you are already logged in.");
          } else {
            codeRequestedFor = phone;
            s.state = "connected";
            ok(ex, "Login with code started", Map.of("device_id", s.id, "pair_code", "ABCD-1234"));
          }
        }
        case "logout" -> {
          s.jid = "";
          s.qr = null;
          s.state = "disconnected";
          ok(ex, "Logout requested", null);
        }
        case "reconnect" -> {
          if (s.jid.isEmpty()) {
            // ReconnectDevice: a slot never paired (or logged out) has no session to connect.
            error(
                ex,
                500,
                "INTERNAL_SERVER_ERROR",
                "device " + s.id + " is not logged in (session deleted)");
            return;
          }
          if (!s.cutOff) {
            s.state = "logged_in";
          }
          ok(ex, "Reconnect requested", null);
        }
        default ->
            ok(
                ex,
                "Device status",
                Map.of(
                    "device_id",
                    s.id,
                    "is_connected",
                    !s.state.equals("disconnected"),
                    "is_logged_in",
                    s.state.equals("logged_in")));
      }
    } else if (path.startsWith("/send/")
        || path.startsWith("/message/")
        || path.startsWith("/user/")
        || path.startsWith("/group/")) {
      Slot s = scoped(ex, path, query);
      if (s == null) {
        return;
      }
      scopedRoute(ex, method, path, query, raw, s);
    } else if (path.equals("/health")) {
      ok(ex, "OK", null);
    } else {
      violations.add("unknown route " + method + " " + path);
      error(ex, 404, "NOT_FOUND", "Cannot " + method + " " + path);
    }
  }

  /** The device a scoped route is for: {@code X-Device-Id}, else {@code device_id}. */
  private Slot scoped(HttpExchange ex, String path, Map<String, String> query) throws IOException {
    String id = ex.getRequestHeaders().getFirst("X-Device-Id");
    id = id == null ? "" : URLDecoder.decode(id.strip(), StandardCharsets.UTF_8);
    if (id.isEmpty()) {
      id = query.getOrDefault("device_id", "").strip();
    }
    if (id.isEmpty()) {
      violations.add(path + " without X-Device-Id");
      error(
          ex,
          400,
          "DEVICE_ID_REQUIRED",
          "device_id is required via X-Device-Id header or device_id query");
      return null;
    }
    for (Slot s : slots.values()) {
      if (s.id.equals(id) || (!s.jid.isEmpty() && s.jid.equals(id))) {
        return s;
      }
    }
    deviceNotFound(ex, id);
    return null;
  }

  private void scopedRoute(
      HttpExchange ex, String method, String path, Map<String, String> query, byte[] raw, Slot s)
      throws IOException {
    switch (method + " " + path) {
      case "POST /send/message" -> {
        JsonNode body = json(ex, path, raw);
        if (body == null) {
          return;
        }
        // validations/send_validation.go: message is Required, so an empty one is refused too.
        if (!body.path("message").isTextual() || body.path("message").asText().isEmpty()) {
          violations.add(path + " without message");
          error(ex, 400, "VALIDATION_ERROR", "message: cannot be blank.");
          return;
        }
        JsonNode reply = body.path("reply_message_id");
        JsonNode mentions = body.path("mentions");
        if ((!reply.isMissingNode() && !reply.isTextual())
            || (!mentions.isMissingNode() && !allText(mentions))) {
          violations.add(path + " with reply_message_id " + reply + ", mentions " + mentions);
          error(ex, 400, "VALIDATION_ERROR", "reply_message_id, mentions");
          return;
        }
        send(ex, s, path, body.path("phone").asText(""), body.path("message").asText(), null, body);
      }
      case "POST /send/location" -> {
        JsonNode body = json(ex, path, raw);
        if (body == null) {
          return;
        }
        // LocationRequest: latitude and longitude are strings, Required and is.Latitude/Longitude.
        if (!coordinate(body.path("latitude"), 90) || !coordinate(body.path("longitude"), 180)) {
          violations.add(
              path
                  + " with latitude "
                  + body.path("latitude")
                  + ", longitude "
                  + body.path("longitude"));
          error(ex, 400, "VALIDATION_ERROR", "latitude: must be a valid latitude.");
          return;
        }
        send(ex, s, path, body.path("phone").asText(""), "", null, body);
      }
      case "POST /send/contact" -> {
        JsonNode body = json(ex, path, raw);
        if (body == null) {
          return;
        }
        // ContactRequest: contact_name and contact_phone Required; the phone international.
        String name = body.path("contact_name").asText("");
        String phone = body.path("contact_phone").asText("").strip();
        if (name.isBlank()
            || phone.replaceFirst("^\\+", "").isEmpty()
            || phone.replaceFirst("^\\+", "").startsWith("0")) {
          violations.add(path + " with contact_name " + name + ", contact_phone " + phone);
          error(ex, 400, "VALIDATION_ERROR", "contact_name, contact_phone: cannot be blank.");
          return;
        }
        send(ex, s, path, body.path("phone").asText(""), name, null, body);
      }
      case "POST /send/image",
          "POST /send/file",
          "POST /send/video",
          "POST /send/audio",
          "POST /send/sticker" ->
          sendMedia(ex, s, path, raw);
      case "GET /user/check" -> {
        String phone = query.getOrDefault("phone", "");
        if (!DIGITS.matcher(phone).matches()) {
          violations.add("user/check with phone " + phone);
          error(ex, 400, "VALIDATION_ERROR", "phone: must be a valid phone number.");
        } else if (!s.state.equals("logged_in")) {
          error(ex, 401, "AUTHENTICATION_ERROR", "you are not logged in");
        } else {
          ok(ex, "Success check user", Map.of("is_on_whatsapp", !notOnWhatsApp.contains(phone)));
        }
      }
      case "GET /user/my/groups" -> {
        if (!s.state.equals("logged_in")) {
          error(ex, 401, "AUTHENTICATION_ERROR", "you are not logged in");
          return;
        }
        ArrayNode data = JSON.createArrayNode();
        for (Group g : groups.values()) {
          ObjectNode o = data.addObject();
          o.put("JID", g.jid());
          o.put("OwnerJID", "");
          o.put("Name", g.name());
          o.put("Topic", "");
          ArrayNode ps = o.putArray("Participants");
          for (Member mem : g.members()) {
            ObjectNode p = ps.addObject();
            p.put(
                "JID",
                mem.phoneDigits() != null
                    ? mem.phoneDigits() + "@s.whatsapp.net"
                    : mem.lid() + "@lid");
            p.put(
                "PhoneNumber",
                mem.phoneDigits() != null ? mem.phoneDigits() + "@s.whatsapp.net" : "");
            p.put("LID", mem.lid() != null ? mem.lid() + "@lid" : "");
            p.put("IsAdmin", false);
            p.put("IsSuperAdmin", false);
            p.put("DisplayName", "");
          }
        }
        ok(ex, "Success get list groups", Map.of("data", data));
      }
      case "GET /group/participants" -> {
        String id = query.getOrDefault("group_id", "");
        String jid = id.contains("@") ? id : id + "@g.us";
        Group g = groups.get(jid);
        if (!s.state.equals("logged_in")) {
          error(ex, 401, "AUTHENTICATION_ERROR", "you are not logged in");
        } else if (g == null) {
          // whatsmeow's error for a group the account is not in, through the recovery middleware
          error(ex, 500, "INTERNAL_SERVER_ERROR", "the group does not exist");
        } else {
          ArrayNode ps = JSON.createArrayNode();
          for (Member mem : g.members()) {
            ObjectNode p = ps.addObject();
            p.put(
                "jid",
                mem.lid() != null ? mem.lid() + "@lid" : mem.phoneDigits() + "@s.whatsapp.net");
            p.put("phone_number", mem.phoneDigits() != null ? mem.phoneDigits() : "");
            if (mem.lid() != null) {
              p.put("lid", mem.lid() + "@lid");
            }
            p.put("is_admin", false);
            p.put("is_super_admin", false);
          }
          Map<String, Object> r = new LinkedHashMap<>();
          r.put("group_id", jid);
          r.put("name", g.name());
          r.put("participants", ps);
          ok(ex, "Success getting group participants", r);
        }
      }
      case "POST /send/chat-presence" -> {
        JsonNode body = json(ex, path, raw);
        if (body != null) {
          String action = body.path("action").asText("");
          // ValidateSendChatPresence: phone Required, action Required and In("start", "stop").
          if (!action.equals("start") && !action.equals("stop")) {
            violations.add(path + " with action " + body.path("action"));
            error(ex, 400, "VALIDATION_ERROR", "action: must be a valid value.");
          } else {
            act(ex, s, path, body, "chat-presence-" + action, "Send chat presence " + action);
          }
        }
      }
      default -> {
        java.util.regex.Matcher changed =
            Pattern.compile("/message/([^/]+)/(revoke|update|read)").matcher(path);
        if (method.equals("POST") && changed.matches()) {
          JsonNode body = json(ex, path, raw);
          if (body == null) {
            return;
          }
          String messageId = URLDecoder.decode(changed.group(1), StandardCharsets.UTF_8);
          if (changed.group(2).equals("update") && body.path("message").asText("").isBlank()) {
            violations.add(path + " without message");
            error(ex, 400, "VALIDATION_ERROR", "message: cannot be blank.");
            return;
          }
          ObjectNode recorded = ((ObjectNode) body).deepCopy();
          recorded.put("message_id", messageId);
          act(
              ex,
              s,
              path,
              recorded,
              changed.group(2).equals("read")
                  ? messageId
                  : "3EB0" + Long.toHexString(ids.incrementAndGet()).toUpperCase() + "C0FFEE",
              switch (changed.group(2)) {
                case "revoke" -> "Revoke success";
                case "update" -> "Update message success";
                default -> "Mark as read success " + messageId;
              });
          return;
        }
        java.util.regex.Matcher react = Pattern.compile("/message/([^/]+)/reaction").matcher(path);
        if (method.equals("POST") && react.matches()) {
          JsonNode body = json(ex, path, raw);
          if (body == null) {
            return;
          }
          // ReactionRequest: message_id (the path's) and phone Required; emoji "" takes it away.
          if (!body.path("emoji").isMissingNode() && !body.path("emoji").isTextual()) {
            violations.add(path + " with emoji " + body.path("emoji"));
            error(ex, 400, "VALIDATION_ERROR", "emoji");
            return;
          }
          ObjectNode recorded = ((ObjectNode) body).deepCopy();
          recorded.put("message_id", URLDecoder.decode(react.group(1), StandardCharsets.UTF_8));
          send(
              ex,
              s,
              path,
              body.path("phone").asText(""),
              body.path("emoji").asText(""),
              null,
              recorded);
          return;
        }
        violations.add("unknown route " + method + " " + path);
        error(ex, 404, "NOT_FOUND", "Cannot " + method + " " + path);
      }
    }
  }

  /** One action Kurir asked of GOWA on a message or a chat: its route and its body. */
  public record Action(String slot, String path, JsonNode body) {}

  private final List<Action> actions = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** The actions (revoke, update, read, chat presence) GOWA did, oldest first. */
  public List<Action> actions() {
    return List.copyOf(actions);
  }

  /**
   * {@code /message/{id}/revoke|update|read} and {@code /send/chat-presence} (src/usecase/
   * message.go, send.go): {@code phone} Required and a valid JID ({@code ValidateJidWithLogin}),
   * the account logged in (401 {@code AUTHENTICATION_ERROR}); then whatsmeow sends the protocol
   * message (a revoke or an edit of an id WhatsApp does not know is sent all the same: GOWA does
   * not look the message up), and GOWA answers {@code results: {message_id, status}}: the revoke's
   * and the edit's own new id, the read message's id, {@code chat-presence-start|stop}.
   */
  private void act(
      HttpExchange ex, Slot s, String path, JsonNode body, String resultId, String status)
      throws IOException {
    String phone = body.path("phone").asText("");
    if (phone.isEmpty()) {
      violations.add(path + " without phone");
      error(ex, 400, "VALIDATION_ERROR", "phone: cannot be blank.");
      return;
    }
    if (!phone.matches("\\d{6,15}@s\\.whatsapp\\.net|[\\d-]{6,40}@g\\.us|\\d{5,30}@lid")) {
      violations.add(path + " to " + phone);
      error(ex, 400, "VALIDATION_ERROR", "phone: not a valid JID");
      return;
    }
    if (!s.state.equals("logged_in")) {
      error(ex, 401, "AUTHENTICATION_ERROR", "you are not logged in");
      return;
    }
    actions.add(new Action(s.id, path, body));
    ok(ex, status, Map.of("message_id", resultId, "status", status + " " + phone));
  }

  private void login(HttpExchange ex, Slot s) throws IOException {
    if (s.state.equals("logged_in")) {
      error(ex, 400, "ALREADY_LOGGED_IN", "you are already logged in.");
      return;
    }
    // Asking again restarts the pairing: a new code, the old picture gone.
    s.qr = "2@" + UUID.randomUUID() + "," + UUID.randomUUID() + "," + s.id;
    s.state = "connected";
    statics.keySet().removeIf(p -> p.contains("-" + s.id + "-"));
    String file = "/statics/qrcode/scan-qr-" + s.id + "-" + UUID.randomUUID() + ".png";
    String dataUrl = io.kurir.device.QrCodes.pngDataUrl(s.qr);
    byte[] png = Base64.getDecoder().decode(dataUrl.substring(dataUrl.indexOf(',') + 1));
    int duration = 30;
    statics.put(file, new StaticFile(png, "image/png", clock.instant().plusSeconds(duration)));
    String host = ex.getRequestHeaders().getFirst("Host");
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("device_id", s.id);
    r.put("qr_link", "http://" + host + basePath + file);
    r.put("qr_duration", duration);
    ok(ex, "Login success", r);
  }

  private static boolean allText(JsonNode array) {
    if (!array.isArray()) {
      return false;
    }
    for (JsonNode n : array) {
      if (!n.isTextual()) {
        return false;
      }
    }
    return true;
  }

  /** A coordinate as GOWA binds it: a string holding a number within {@code -limit..limit}. */
  private static boolean coordinate(JsonNode n, double limit) {
    if (!n.isTextual()) {
      return false;
    }
    try {
      double v = Double.parseDouble(n.asText());
      return v >= -limit && v <= limit;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private void send(
      HttpExchange ex, Slot s, String path, String phone, String text, Part file, JsonNode json)
      throws IOException {
    if (phone.isEmpty()) {
      violations.add(path + " without phone");
      error(ex, 400, "VALIDATION_ERROR", "phone: cannot be blank.");
      return;
    }
    if (phone.startsWith("0")) {
      violations.add(path + " to " + phone);
      error(ex, 400, "VALIDATION_ERROR", "phone: use 62xxx format instead of 08xxx");
      return;
    }
    String jid = phone.startsWith("+") ? phone.substring(1) : phone;
    if (!jid.contains("@")) {
      jid = jid + (jid.length() > 15 ? "@g.us" : "@s.whatsapp.net");
    }
    if (!jid.matches("\\d{6,15}@s\\.whatsapp\\.net|[\\d-]{6,40}@g\\.us|\\d{5,30}@lid")) {
      violations.add(path + " to " + phone);
      error(ex, 400, "VALIDATION_ERROR", "phone: not a valid JID");
      return;
    }
    if (!s.state.equals("logged_in")) {
      error(
          ex,
          401,
          "AUTHENTICATION_ERROR",
          s.jid.isEmpty()
              ? "you are not logged in"
              : "you are not connect to services server, please reconnect");
      return;
    }
    Refusal refusal = refusals.remove(s.id);
    if (refusal != null) {
      error(ex, refusal.status(), refusal.code(), refusal.message());
      return;
    }
    if (jid.endsWith("@s.whatsapp.net")
        && notOnWhatsApp.contains(jid.substring(0, jid.indexOf('@')))) {
      error(ex, 400, "INVALID_JID", "Phone " + jid + " is not on whatsapp");
      return;
    }
    if (jid.endsWith("@g.us") && !groups.containsKey(jid)) {
      error(
          ex,
          500,
          "INTERNAL_SERVER_ERROR",
          "failed to get group members: the group does not exist");
      return;
    }
    String id = "3EB0" + Long.toHexString(ids.incrementAndGet()).toUpperCase() + "C0FFEE";
    sent.add(
        new Sent(
            id,
            s.id,
            path,
            jid,
            text,
            file == null ? null : file.fileName(),
            file == null ? null : file.type(),
            file == null ? null : file.bytes(),
            json));
    if (hangUps.remove(s.id)) {
      ex.close(); // before any status line: the connection is closed, the client sees no reply
      return;
    }
    // GOWA's words per route (src/usecase/send.go, response.Status).
    String stamp = " (server timestamp: " + clock.instant() + ")";
    String status =
        switch (path) {
          case "/send/file" -> "Document sent to " + jid + stamp;
          case "/send/video" -> "Video sent to " + jid + stamp;
          case "/send/audio" -> "Send audio success " + jid + stamp;
          case "/send/sticker" -> "Sticker sent to " + jid + stamp;
          default -> "Message sent to " + jid + stamp;
        };
    ok(ex, status, Map.of("message_id", id, "status", status));
  }

  /**
   * GOWA's multipart media sends, each checked as its validation does ({@code
   * src/validations/send_validation.go} at the commit above: {@code ValidateSendImage}, {@code
   * ValidateSendFile}, {@code ValidateSendVideo}, {@code ValidateSendAudio}, {@code
   * ValidateSendSticker}; fields from {@code src/domains/send/{image,file,video,audio,sticker}.go},
   * parts read by {@code src/ui/rest/send.go} with {@code c.FormFile}): the file part named as the
   * route ({@code image}, {@code file}, {@code video}, {@code audio}, {@code sticker}), its type
   * taken from the part's {@code Content-Type} and matched exactly against GOWA's list, the
   * upload's size against {@code WhatsappSettingMaxFileSize} (50 MB) and {@code
   * WhatsappSettingMaxVideoSize} (100 MB) of {@code src/config/settings.go} ({@link #mediaLimits});
   * a missing file is GOWA's "either … or …URL must be provided". Text fields ({@code caption},
   * {@code reply_message_id}, {@code ptt}, {@code view_once}…) are kept in {@link Sent#body}. A
   * {@code *_url} field is a violation: Kurir never hands GOWA a caller's URL.
   */
  private void sendMedia(HttpExchange ex, Slot s, String path, byte[] raw) throws IOException {
    String type = ex.getRequestHeaders().getFirst("Content-Type");
    if (type == null || !type.startsWith("multipart/form-data")) {
      violations.add(path + " not as multipart (Kurir uploads the file)");
      error(ex, 400, "VALIDATION_ERROR", "multipart body expected");
      return;
    }
    Map<String, Part> parts = Part.parse(raw, type);
    String field = path.substring("/send/".length());
    String named = Character.toUpperCase(field.charAt(0)) + field.substring(1);
    if (parts.containsKey(field + "_url")) {
      violations.add(path + " with " + field + "_url: Kurir never hands GOWA a caller's URL");
    }
    Part phone = parts.get("phone");
    if (phone == null || phone.text().isBlank()) {
      violations.add(path + " without phone");
      error(ex, 400, "VALIDATION_ERROR", "phone: cannot be blank.");
      return;
    }
    Part file = parts.get(field);
    if (file == null || file.fileName() == null) {
      violations.add(path + " without the " + field + " part");
      error(
          ex, 400, "VALIDATION_ERROR", "either " + named + " or " + named + "URL must be provided");
      return;
    }
    Set<String> types = MEDIA_TYPES.get(field);
    if (types != null && !types.contains(file.type())) {
      violations.add(path + " with a " + field + " of type " + file.type());
      error(ex, 400, "VALIDATION_ERROR", MEDIA_TYPE_REFUSALS.get(field));
      return;
    }
    long max =
        field.equals("video")
            ? maxVideoBytes
            : field.equals("file") ? maxFileBytes : Long.MAX_VALUE;
    if (file.bytes().length > max) {
      String kind = field.equals("video") ? "video" : "file";
      String size = humanBytes(max);
      error(
          ex,
          400,
          "VALIDATION_ERROR",
          "max "
              + kind
              + " upload is "
              + size
              + ", please upload in cloud and send via text if your file is higher than "
              + size);
      return;
    }
    ObjectNode fields = JSON.createObjectNode();
    for (Part p : parts.values()) {
      if (p.fileName() == null) {
        fields.put(p.name(), p.text());
      }
    }
    if (field.equals("sticker") && fields.has("reply_message_id")) {
      // StickerRequest has no reply_message_id: GOWA would drop it, and the reply be lost.
      violations.add(path + " with reply_message_id (StickerRequest has none)");
    }
    if (field.equals("audio")
        && fields.has("ptt")
        && !fields.path("ptt").asText().matches("true|false|1|0")) {
      violations.add(path + " with ptt " + fields.path("ptt").asText());
      error(ex, 400, "VALIDATION_ERROR", "ptt: must be a boolean");
      return;
    }
    String caption = fields.path("caption").asText("");
    send(ex, s, path, phone.text(), caption, file, fields);
  }

  /**
   * A size as GOWA writes it in its refusal: go-humanize's {@code Bytes} (SI units: {@code 8 B},
   * {@code 50 MB}, {@code 1.5 kB}).
   */
  static String humanBytes(long n) {
    if (n < 10) {
      return n + " B";
    }
    String[] sizes = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    int e = (int) Math.floor(Math.log(n) / Math.log(1000));
    double val = Math.floor(n / Math.pow(1000, e) * 10 + 0.5) / 10;
    return String.format(java.util.Locale.ROOT, val < 10 ? "%.1f %s" : "%.0f %s", val, sizes[e]);
  }

  /** The part types GOWA's validations take, by file field (an image: jpg/jpeg/png). */
  private static final Map<String, Set<String>> MEDIA_TYPES =
      Map.of(
          "image",
          Set.of("image/jpeg", "image/jpg", "image/png"),
          "video",
          Set.of("video/mp4", "video/x-matroska", "video/avi", "video/x-msvideo"),
          "audio",
          Set.of(
              "audio/aac",
              "audio/amr",
              "audio/flac",
              "audio/m4a",
              "audio/m4r",
              "audio/mp3",
              "audio/mpeg",
              "audio/ogg",
              "audio/wma",
              "audio/x-ms-wma",
              "audio/wav",
              "audio/vnd.wav",
              "audio/vnd.wave",
              "audio/wave",
              "audio/x-pn-wav",
              "audio/x-wav"),
          "sticker",
          Set.of("image/jpeg", "image/jpg", "image/png", "image/webp", "image/gif"));

  /** GOWA's words for a part of a type it does not take, by file field. */
  private static final Map<String, String> MEDIA_TYPE_REFUSALS =
      Map.of(
          "image",
          "your image is not allowed. please use jpg/jpeg/png",
          "video",
          "your video type is not allowed. please use mp4/mkv/avi/x-msvideo",
          "audio",
          "your audio type is not allowed. please use ("
              + String.join(",", new java.util.TreeSet<>(MEDIA_TYPES.get("audio")))
              + ",)",
          "sticker",
          "your sticker is not allowed. please use jpg/jpeg/png/webp/gif");

  private volatile long maxFileBytes = 50_000_000L;
  private volatile long maxVideoBytes = 100_000_000L;

  /** GOWA run with other upload limits ({@code --max-file-size}, {@code --max-video-size}). */
  public void mediaLimits(long maxFile, long maxVideo) {
    this.maxFileBytes = maxFile;
    this.maxVideoBytes = maxVideo;
  }

  private static Map<String, Object> dto(Slot s) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("id", s.id);
    d.put("phone_number", s.digits());
    d.put("display_name", s.jid.isEmpty() ? "" : "Phone " + s.digits());
    d.put("state", s.state);
    d.put("jid", s.jid);
    d.put("created_at", s.createdAt.toString());
    return d;
  }

  private JsonNode json(HttpExchange ex, String path, byte[] raw) throws IOException {
    try {
      JsonNode body = raw.length == 0 ? JSON.createObjectNode() : JSON.readTree(raw);
      if (body != null && body.isObject()) {
        return body;
      }
    } catch (IOException e) {
      // below
    }
    violations.add(path + ": body is not a JSON object");
    error(ex, 400, "BAD_REQUEST", "body is not JSON");
    return null;
  }

  private void deviceNotFound(HttpExchange ex, String id) throws IOException {
    reply(
        ex,
        404,
        envelope(
            "DEVICE_NOT_FOUND",
            "device not found; create a device first from /api/devices or provide a valid"
                + " X-Device-Id",
            Map.of("device_id", id)));
  }

  private void methodNotAllowed(HttpExchange ex, String method, String path) throws IOException {
    violations.add("method " + method + " " + path);
    error(ex, 405, "METHOD_NOT_ALLOWED", "Method Not Allowed");
  }

  private void ok(HttpExchange ex, String message, Object results) throws IOException {
    reply(ex, 200, envelope("SUCCESS", message, results));
  }

  private void error(HttpExchange ex, int status, String code, String message) throws IOException {
    reply(ex, status, envelope(code, message, null));
  }

  /**
   * GOWA's {@code ResponseData}: {@code status} is not on the wire, {@code results} omitted when
   * null.
   */
  private static Map<String, Object> envelope(String code, String message, Object results) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("code", code);
    m.put("message", message);
    if (results != null) {
      m.put("results", results);
    }
    return m;
  }

  private static void reply(HttpExchange ex, int status, Object body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, bytes.length);
    ex.getResponseBody().write(bytes);
  }

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

  /** One part of a multipart body. */
  record Part(String name, String fileName, String type, byte[] bytes) {
    String text() {
      return new String(bytes, StandardCharsets.UTF_8);
    }

    static Map<String, Part> parse(byte[] raw, String contentType) {
      Matcher b = Pattern.compile("boundary=\"?([^\";]+)\"?").matcher(contentType);
      if (!b.find()) {
        return Map.of();
      }
      byte[] delimiter = ("--" + b.group(1)).getBytes(StandardCharsets.ISO_8859_1);
      Map<String, Part> parts = new LinkedHashMap<>();
      List<Integer> starts = new ArrayList<>();
      for (int i = 0; i + delimiter.length <= raw.length; i++) {
        if (java.util.Arrays.equals(raw, i, i + delimiter.length, delimiter, 0, delimiter.length)) {
          starts.add(i);
        }
      }
      for (int k = 0; k + 1 < starts.size(); k++) {
        int from = starts.get(k) + delimiter.length + 2; // CRLF after the delimiter
        int to = starts.get(k + 1) - 2; // CRLF before the next one
        String block = new String(raw, from, to - from, StandardCharsets.ISO_8859_1);
        int headersEnd = block.indexOf("\r\n\r\n");
        if (headersEnd < 0) {
          continue;
        }
        String headers = block.substring(0, headersEnd);
        Matcher name = Pattern.compile("name=\"([^\"]*)\"").matcher(headers);
        Matcher file = Pattern.compile("filename=\"([^\"]*)\"").matcher(headers);
        Matcher type = Pattern.compile("(?i)Content-Type:\\s*([^\\r\\n]+)").matcher(headers);
        if (!name.find()) {
          continue;
        }
        byte[] bytes = java.util.Arrays.copyOfRange(raw, from + headersEnd + 4, to);
        parts.put(
            name.group(1),
            new Part(
                name.group(1),
                file.find() ? file.group(1) : null,
                type.find() ? type.group(1).strip() : "text/plain",
                bytes));
      }
      return parts;
    }
  }

  @Override
  public void close() {
    closed = true;
    server.stop(0);
    http.shutdownNow(); // not close(): it would wait for a webhook post still being tried
  }
}
