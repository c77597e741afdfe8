package io.kurir.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sending side of a {@link FakeWaha}: how each engine flavour answers a send, lists groups and
 * checks a number, and WhatsApp's limits on new contacts as WAHA reports them. Kept beside the fake
 * so that its session and incoming side changes apart from this.
 *
 * <p>Written from (WAHA docs repository {@code devlikeapro/waha-docs} at {@code 1a6f1c4}, OpenAPI
 * {@code info.version} 2026.7.1, {@code static/swagger/openapi.json}; WAHA release notes 2026.8.1;
 * the public core {@code devlikeapro/waha} at {@code 55fc6a4}):
 *
 * <ul>
 *   <li><b>Send replies</b> ({@code POST /api/sendText|sendImage|sendFile} → 201): each engine
 *       sends its own format (maintainer, waha issue #760). WEBJS: whatsapp-web.js' {@code
 *       Message}, whose {@code id} is an object {@code {fromMe, remote, id, _serialized}}
 *       (core/engines/webjs/session.webjs.core.ts {@code sendText}); NOWEB: Baileys' {@code
 *       WAMessage} with no top-level id, {@code key: {remoteJid: …@s.whatsapp.net, fromMe, id}},
 *       {@code messageTimestamp}, {@code status: PENDING} (core/engines/noweb/session.noweb.core.ts
 *       {@code sendText}; issue #760); GOWS: the OpenAPI {@code WAMessage}, {@code id} a string
 *       {@code true_<chatId>_<id>}.
 *   <li><b>Ack ids</b>: every engine names a message in {@code message.ack} as {@code
 *       true_<chatId>_<id>} with the chat in {@code @c.us} (or {@code @lid}) form, and in {@code
 *       message.ack.group} with {@code _<participant>} appended (docs how-to/events, "message.ack",
 *       "message.ack.group").
 *   <li><b>Pre-generated ids</b>: {@code GET /api/{session}/new-message-id} → {@code {id}} (OpenAPI
 *       {@code NewMessageIDResponse}; changelog 2026.4.3: "NOWEB, GOWS - Provide message ID in send
 *       request"); the send takes it as {@code id}, in {@code MessageTextRequest} only (not in
 *       {@code MessageImageRequest}/{@code MessageFileRequest}). WEBJS answers 501.
 *   <li><b>Groups</b> ({@code GET /api/{session}/groups}, "depends on the engine", docs
 *       how-to/groups): WEBJS the group chats ({@code getChats().filter(isGroup)}: {@code id}
 *       object, {@code name}); NOWEB Baileys' {@code groupFetchAllParticipating()}, an object keyed
 *       by group id of {@code {id, subject, …}}; GOWS whatsmeow's {@code GroupInfo}: {@code JID},
 *       {@code Name}, {@code OwnerJID}, … (waha issues #1471, #2027, #2099).
 *   <li><b>Number check</b> ({@code GET /api/contacts/check-exists?phone=&session=} → {@code
 *       WANumberExistResult {numberExists, chatId?}}); the chat id is WhatsApp's canonical one,
 *       which for an old Brazilian mobile account is the number without the ninth digit; since
 *       2026.8.1 (GOWS) {@code chatId} may be a {@code @lid} and the phone is then in {@code pn}.
 *   <li>A send to a number not on WhatsApp (or to a chat id that is not the account's canonical
 *       one) answers 201 like any send; the message never arrives: no ack beyond SERVER.
 *   <li><b>Reach-out time lock</b>: while WhatsApp locks the account, a send to a contact the
 *       account never talked with fails with server error 463, which WAHA answers 500 {@code
 *       {"statusCode":500,"exception":{"message":"2 UNKNOWN: server returned error 463","code":2}}}
 *       (waha issues #1992, #2050); the lock is in the session's {@code me.reachoutTimelock},
 *       refreshed on a 463 (release 2026.8.1, issue #2219), shaped as the engines' source gives it
 *       ({@code isActive}, {@code timeEnforcementEnds}, {@code enforcementType}; Baileys'
 *       ReachoutTimelockState).
 *   <li><b>A group the session is not in</b> (GOWS): whatsmeow's group send first fetches the
 *       group's members ({@code send.go}: {@code "failed to get group members: %w"}), which
 *       WhatsApp refuses with 403, {@code ErrNotInGroup} "you're not participating in that group"
 *       (404, {@code ErrGroupNotFound} "that group does not exist", for no group at all; whatsmeow
 *       {@code errors.go}); WAHA passes a GOWS error on as 500 with the gRPC error in {@code
 *       exception} (issue #1904's shape). NOWEB and WEBJS: neither WAHA's documents nor its issues
 *       say; the fake keeps taking the send (201) for them.
 *   <li><b>Message capping</b>: {@code me.messageCapping {cappingStatus: NONE | FIRST_WARNING |
 *       SECOND_WARNING | CAPPED, totalQuota (-1: none), usedQuota, cycleStart, cycleEnd, mvStatus,
 *       oteStatus}}, and a change re-issues {@code WORKING} in {@code session.status} (waha pull
 *       #2186, release 2026.8.1).
 * </ul>
 *
 * <p>Strict: a pre-generated id on an engine or a request that does not take it, an id not
 * generated by the engine or used twice, or a chat id WAHA does not accept ({@code
 * …@s.whatsapp.net}) is refused and recorded as a violation.
 */
public final class FakeWahaSending {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The engine a WAHA runs (its {@code WHATSAPP_DEFAULT_ENGINE}). */
  public enum Engine {
    WEBJS,
    NOWEB,
    GOWS
  }

  /** What the engine answers a send: the HTTP status and body, and the ack id when 201. */
  record Outcome(int status, Object body, String ackId, boolean arrives) {}

  private final Clock clock;
  private final List<String> violations;
  private volatile Engine engine = Engine.GOWS;
  private final Set<String> notOnWhatsApp = ConcurrentHashMap.newKeySet();
  private final Map<String, String> canonical = new ConcurrentHashMap<>();
  private final Map<String, String> lidOf = new ConcurrentHashMap<>();
  private final Set<String> talkedWith = ConcurrentHashMap.newKeySet();
  private final Set<String> pregenerated = ConcurrentHashMap.newKeySet();
  private final Set<String> used = ConcurrentHashMap.newKeySet();
  private final Set<String> undelivered = ConcurrentHashMap.newKeySet();
  private final List<String> checks = new CopyOnWriteArrayList<>();
  private final AtomicLong ids = new AtomicLong(0xB000);
  private final AtomicLong refused463 = new AtomicLong();
  private volatile Instant lockedUntil = Instant.EPOCH;
  private volatile boolean lockReported = true;
  private volatile ObjectNode capping;

  FakeWahaSending(Clock clock, List<String> violations) {
    this.clock = clock;
    this.violations = violations;
  }

  // --- set up by a test

  /** The engine flavour whose shapes the fake answers in (GOWS unless set). */
  public FakeWahaSending engine(Engine flavour) {
    this.engine = flavour;
    return this;
  }

  public Engine engine() {
    return engine;
  }

  void notOnWhatsApp(String digits) {
    notOnWhatsApp.add(digits);
  }

  /**
   * An old Brazilian mobile account: asked as {@code 55 + area + 9 + 8 digits}, its canonical chat
   * id is the number without that 9; a send to the 13-digit id never arrives.
   */
  public String oldBrazilianAccount(String thirteenDigits) {
    if (!thirteenDigits.matches("55\\d{2}9\\d{8}")) {
      throw new IllegalArgumentException("not a Brazilian 9-digit mobile: " + thirteenDigits);
    }
    String canon = thirteenDigits.substring(0, 4) + thirteenDigits.substring(5);
    canonical.put(thirteenDigits, canon);
    return canon;
  }

  /** A number whose account the engine knows by a LID: check-exists answers it, with {@code pn}. */
  public void knownByLid(String digits, String lidDigits) {
    lidOf.put(digits, lidDigits);
  }

  /** The account has talked with {@code digits} before (sent or received): no reach-out lock. */
  public void talkedWith(String digits) {
    talkedWith.add(digits);
  }

  /**
   * WhatsApp locks the account's reach-out until {@code until}: sends to contacts it never talked
   * with fail with 463 meanwhile. With {@code reported} false the engine's {@code
   * me.reachoutTimelock} stays null (waha issue #2219) until a 463 refreshes it.
   */
  public void reachOutLock(Instant until, boolean reported) {
    this.lockedUntil = until;
    this.lockReported = reported;
  }

  /** How many sends the engine refused with 463. */
  public long refused463() {
    return refused463.get();
  }

  /** The phones asked with check-exists, in order. */
  public List<String> checks() {
    return checks;
  }

  /** The account's new-chat capping, as {@code me.messageCapping} shows it. */
  void capping(String status, int used, int total, Instant cycleEnd) {
    ObjectNode c = JSON.createObjectNode();
    c.put("cappingStatus", status);
    c.put("totalQuota", total);
    c.put("usedQuota", used);
    c.put("cycleStart", cycleEnd.minus(java.time.Duration.ofDays(7)).toString());
    c.put("cycleEnd", cycleEnd.toString());
    c.put("mvStatus", "");
    c.put("oteStatus", "");
    this.capping = c;
  }

  // --- the engine

  /** The limits in the session's {@code me} (2026.8.1), beside {@code id} and {@code pushName}. */
  void me(ObjectNode me) {
    ObjectNode c = capping;
    if (c != null) {
      me.set("messageCapping", c);
    }
    if (lockReported && clock.instant().isBefore(lockedUntil)) {
      ObjectNode l = me.putObject("reachoutTimelock");
      l.put("isActive", true);
      l.put("timeEnforcementEnds", lockedUntil.toString());
      l.put("enforcementType", "RESTRICT_ALL_COMPANIONS");
    } else {
      me.putNull("reachoutTimelock");
    }
  }

  /**
   * A send to a group the session is not in, when the engine says so (GOWS): its 500; empty where
   * the engine's answer is not documented (NOWEB, WEBJS: the send is taken).
   */
  Optional<Outcome> notInGroup() {
    if (engine != Engine.GOWS) {
      return Optional.empty();
    }
    String details = "failed to get group members: you're not participating in that group";
    Map<String, Object> exception = new LinkedHashMap<>();
    exception.put("message", "2 UNKNOWN: " + details);
    exception.put("code", 2);
    exception.put("details", details);
    exception.put("metadata", Map.of());
    exception.put("name", "Error");
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("statusCode", 500);
    body.put("timestamp", clock.instant().toString());
    body.put("exception", exception);
    return Optional.of(new Outcome(500, body, null, false));
  }

  /**
   * What is wrong with a send's body by its request schema's {@code required} (OpenAPI 2026.7.1):
   * {@code MessageTextRequest} {@code text}; {@code MessageImageRequest}/{@code MessageFileRequest}
   * {@code file} ({@code RemoteFile}: {@code mimetype}, {@code url}; {@code BinaryFile}: {@code
   * mimetype}, {@code data}); {@code MessageVideoRequest}/{@code MessageVoiceRequest} {@code file}
   * and {@code convert} (boolean); {@code MessageLocationRequest} {@code latitude}, {@code
   * longitude} (numbers), {@code title}; {@code MessageContactVcardRequest} {@code contacts}, each
   * a {@code VCardContact {vcard}} or a {@code Contact {fullName, phoneNumber, vcard}}. Empty when
   * it is right. Every engine takes every one of them (docs how-to/send-messages/features.md).
   */
  static Optional<String> kindViolation(String kind, JsonNode body) {
    return switch (kind) {
      case "sendText" ->
          body.path("text").isTextual() ? Optional.empty() : Optional.of("text is required");
      case "sendImage", "sendFile" -> fileViolation(body.path("file"));
      case "sendVideo", "sendVoice" ->
          fileViolation(body.path("file"))
              .or(
                  () ->
                      body.path("convert").isBoolean()
                          ? Optional.empty()
                          : Optional.of("convert (boolean) is required"));
      case "sendLocation" ->
          body.path("latitude").isNumber()
                  && body.path("longitude").isNumber()
                  && body.path("title").isTextual()
              ? Optional.empty()
              : Optional.of("latitude, longitude (numbers) and title are required");
      case "sendContactVcard" -> contactsViolation(body.path("contacts"));
      default -> Optional.of("no such send");
    };
  }

  private static Optional<String> fileViolation(JsonNode file) {
    return file.path("mimetype").isTextual()
            && (file.path("data").isTextual() || file.path("url").isTextual())
        ? Optional.empty()
        : Optional.of("file.mimetype and file.data or file.url are required");
  }

  private static Optional<String> contactsViolation(JsonNode contacts) {
    if (!contacts.isArray() || contacts.isEmpty()) {
      return Optional.of("contacts (a non-empty array) is required");
    }
    for (JsonNode c : contacts) {
      boolean vcardOnly = c.size() == 1 && c.path("vcard").isTextual();
      boolean contact =
          c.path("fullName").isTextual()
              && c.path("phoneNumber").isTextual()
              && c.path("vcard").isTextual();
      if (!vcardOnly && !contact) {
        return Optional.of("each contact is {vcard} or {fullName, phoneNumber, vcard}");
      }
      if (!c.path("vcard").asText().startsWith("BEGIN:VCARD")) {
        return Optional.of("vcard is not a vCard");
      }
    }
    return Optional.empty();
  }

  /** {@code GET /api/{session}/new-message-id}. */
  Outcome newMessageId() {
    if (engine == Engine.WEBJS) {
      return new Outcome(
          501,
          Map.of("statusCode", 501, "message", "The method is not implemented by the engine"),
          null,
          false);
    }
    String id = nextId();
    pregenerated.add(id);
    return new Outcome(200, Map.of("id", id), null, false);
  }

  /** {@code GET /api/contacts/check-exists}, for a session that is WORKING. */
  Map<String, Object> checkExists(String phone) {
    checks.add(phone);
    Map<String, Object> r = new LinkedHashMap<>();
    if (notOnWhatsApp.contains(phone)) {
      r.put("numberExists", false);
      return r;
    }
    r.put("numberExists", true);
    String lid = lidOf.get(phone);
    if (lid != null) {
      r.put("chatId", lid + "@lid");
      r.put("pn", phone + "@c.us");
    } else {
      r.put("chatId", canonical.getOrDefault(phone, phone) + "@c.us");
    }
    return r;
  }

  /** A send, validated as the engine validates it, for a WORKING session linked to {@code me}. */
  Outcome send(String me, String path, String kind, String chatId, JsonNode body) {
    JsonNode given = body.path("id");
    String waId;
    if (!given.isMissingNode() && !given.isNull()) {
      String id = given.asText("");
      if (engine == Engine.WEBJS || !kind.equals("sendText")) {
        violations.add(path + " with a pre-generated id on " + engine + " (not taken there)");
        return badRequest("id");
      }
      if (!pregenerated.contains(id) || !used.add(id)) {
        violations.add(path + " with id " + id + " not generated by the engine, or used twice");
        return badRequest("id");
      }
      waId = id;
    } else {
      waId = nextId();
    }
    String user = chatId.substring(0, chatId.indexOf('@'));
    boolean direct = !chatId.endsWith("@g.us");
    if (direct && clock.instant().isBefore(lockedUntil) && !talkedWith.contains(user)) {
      refused463.incrementAndGet();
      lockReported = true; // GOWS refreshes me.reachoutTimelock on a 463 (2026.8.1)
      return new Outcome(
          500,
          Map.of(
              "statusCode",
              500,
              "exception",
              Map.of("message", "2 UNKNOWN: server returned error 463", "code", 2)),
          null,
          false);
    }
    boolean arrives =
        !direct
            || chatId.endsWith("@lid")
            || (!notOnWhatsApp.contains(user)
                && !canonical.containsKey(user)); // the 13-digit id of an old account: nobody
    if (direct && arrives) {
      talkedWith.add(user);
    }
    String ackId = "true_" + chatId + "_" + waId;
    String text = body.path("text").asText(body.path("caption").asText(""));
    long now = clock.instant().getEpochSecond();
    ObjectNode m = JSON.createObjectNode();
    switch (engine) {
      case WEBJS -> {
        ObjectNode id = m.putObject("id");
        id.put("fromMe", true);
        id.put("remote", chatId);
        id.put("id", waId);
        id.put("_serialized", ackId);
        m.put("ack", 0);
        m.put("hasMedia", !kind.equals("sendText"));
        m.put("body", text);
        m.put(
            "type",
            kind.equals("sendText") ? "chat" : kind.equals("sendImage") ? "image" : "document");
        m.put("timestamp", now);
        m.put("from", me + "@c.us");
        m.put("to", chatId);
      }
      case NOWEB -> {
        ObjectNode key = m.putObject("key");
        key.put("remoteJid", chatId.replace("@c.us", "@s.whatsapp.net"));
        key.put("fromMe", true);
        key.put("id", waId);
        ObjectNode message = m.putObject("message");
        if (kind.equals("sendText")) {
          message.putObject("extendedTextMessage").put("text", text);
        } else {
          message
              .putObject(kind.equals("sendImage") ? "imageMessage" : "documentMessage")
              .put("caption", text);
        }
        m.put("messageTimestamp", Long.toString(now));
        m.put("status", "PENDING");
      }
      case GOWS -> {
        m.put("id", ackId);
        m.put("timestamp", now);
        m.put("from", me + "@c.us");
        m.put("fromMe", true);
        m.put("source", "api");
        m.put("to", chatId);
        m.put("body", text);
        m.put("hasMedia", !kind.equals("sendText"));
        m.put("ack", 1);
        m.put("ackName", "SERVER");
        ObjectNode info = m.putObject("_data").putObject("Info");
        info.put("ID", waId);
        info.put("Chat", chatId.replace("@c.us", "@s.whatsapp.net"));
        info.put("IsFromMe", true);
      }
    }
    if (!arrives) {
      undelivered.add(ackId);
    }
    return new Outcome(201, m, ackId, arrives);
  }

  /** Whether the message of {@code ackId} reached a phone (so it may be acked beyond SERVER). */
  boolean arrives(String ackId) {
    return !undelivered.contains(ackId);
  }

  /** {@code GET /api/{session}/groups}, in the engine's shape: {@code groups} id → subject. */
  JsonNode groups(Map<String, String> subjectById) {
    switch (engine) {
      case NOWEB -> {
        ObjectNode all = JSON.createObjectNode();
        subjectById.forEach(
            (id, subject) -> {
              ObjectNode g = all.putObject(id);
              g.put("id", id);
              g.put("subject", subject);
              g.put("owner", "");
              g.put("creation", 1_700_000_000);
            });
        return all;
      }
      case WEBJS -> {
        ArrayNode all = JSON.createArrayNode();
        subjectById.forEach(
            (id, subject) -> {
              ObjectNode g = all.addObject();
              ObjectNode gid = g.putObject("id");
              gid.put("server", "g.us");
              gid.put("user", id.substring(0, id.indexOf('@')));
              gid.put("_serialized", id);
              g.put("name", subject);
              g.put("isGroup", true);
              g.putObject("groupMetadata").put("subject", subject).set("id", gid.deepCopy());
            });
        return all;
      }
      default -> {
        ArrayNode all = JSON.createArrayNode();
        subjectById.forEach(
            (id, subject) -> {
              ObjectNode g = all.addObject();
              g.put("JID", id);
              g.put("OwnerJID", "");
              g.put("Name", subject);
              g.put("NameSetAt", "0001-01-01T00:00:00Z");
              g.put("Topic", "");
              g.put("IsAnnounce", false);
              g.put("AddressingMode", "lid");
              g.putNull("Participants");
              g.put("ParticipantCount", 0);
            });
        return all;
      }
    }
  }

  private String nextId() {
    return "3EB0" + Long.toHexString(ids.incrementAndGet()).toUpperCase(java.util.Locale.ROOT);
  }

  private static Outcome badRequest(String field) {
    return new Outcome(400, Map.of("statusCode", 400, "message", List.of(field)), null, false);
  }
}
