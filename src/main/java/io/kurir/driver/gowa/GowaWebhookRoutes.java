package io.kurir.driver.gowa;

import com.fasterxml.jackson.databind.JsonNode;
import io.kurir.content.Content;
import io.kurir.content.MessageContent;
import io.kurir.driver.ContactId;
import io.kurir.driver.DeviceLookup;
import io.kurir.driver.DeviceRef;
import io.kurir.driver.DriverReply;
import io.kurir.driver.DriverRequest;
import io.kurir.driver.DriverRoute;
import io.kurir.driver.DriverRoutes;
import io.kurir.driver.IncomingMessage;
import io.kurir.driver.Receipt;
import io.kurir.driver.RouteException;
import io.kurir.driver.Signatures;
import io.kurir.logging.LogIds;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GOWA's webhook, {@code /drivers/gowa/webhook}: one address for every device (GOWA's {@code
 * --webhook}), taken only with a valid {@code X-Hub-Signature-256: sha256=<hex>}, the HMAC-SHA256
 * of the raw body with {@code drivers.gowa.webhook-secret} (GOWA's {@code --webhook-secret});
 * otherwise nothing of it is read further, nor recorded. The envelope {@code {event, device_id:
 * <JID>, session_id: <slot>, payload}} names the device by its slot (else its JID). Events: {@code
 * message} (incoming, through the common pipeline; a redelivery is dropped by its message id),
 * {@code message.ack} (receipts, by WhatsApp's message ids); the others are answered and ignored.
 * Answered 200 once an incoming message is stored, 503 when it could not be, so that GOWA delivers
 * it again (five tries, in its memory).
 */
final class GowaWebhookRoutes {
  private static final Logger log = LoggerFactory.getLogger(GowaWebhookRoutes.class);
  static final String PATH = "/drivers/gowa/webhook";
  static final String SIGNATURE = "X-Hub-Signature-256";

  private final GowaDriver driver;
  private final DeviceLookup devices;
  private final String secret;

  GowaWebhookRoutes(GowaDriver driver, DeviceLookup devices, String secret) {
    this.driver = driver;
    this.devices = devices;
    this.secret = secret;
  }

  /** Served as the {@code gowawebhook} family (its name in the request metrics). */
  DriverRoutes routes() {
    return new DriverRoutes(
        "gowawebhook", "/drivers/gowa/", List.of(DriverRoute.post(PATH, this::event)));
  }

  DriverReply event(DriverRequest ctx) {
    if (secret.isEmpty()) {
      throw new RouteException(
          401,
          "signature_not_valid",
          "drivers.gowa.webhook-secret is not set: Kurir takes no unsigned GOWA webhook");
    }
    byte[] raw = ctx.bodyAsBytes();
    String signature = Optional.ofNullable(ctx.header(SIGNATURE)).orElse("").strip();
    if (signature.isEmpty()) {
      throw new RouteException(401, "signature_missing", SIGNATURE + " is missing");
    }
    String hex = signature.toLowerCase(Locale.ROOT);
    hex = hex.startsWith("sha256=") ? hex.substring("sha256=".length()) : hex;
    if (!Signatures.same(hex, Signatures.hmacHex("HmacSHA256", secret, raw))) {
      throw new RouteException(401, "signature_not_valid", SIGNATURE + " does not match the body");
    }
    JsonNode root;
    try {
      root = GowaApi.JSON.readTree(raw);
    } catch (IOException e) {
      throw RouteException.badRequest("body_not_valid", "the body is not JSON");
    }
    if (root == null || !root.isObject() || !root.path("event").isTextual()) {
      throw RouteException.badRequest("body_not_valid", "the body has no event");
    }
    String event = root.path("event").asText();
    if (!event.equals("message")
        && !event.equals("message.ack")
        && !event.equals("message.reaction")) {
      // Typing, labels, calls, group changes: taken (GOWA would retry a refusal) and let be.
      return DriverReply.json(Map.of("status", "ok"));
    }
    Optional<DeviceRef> found = device(root);
    if (found.isEmpty()) {
      return dropped();
    }
    DeviceRef device = found.get();
    JsonNode payload = root.path("payload");
    if (event.equals("message.ack")) {
      ack(device, root, payload);
    } else {
      incoming(device, payload, event.equals("message.reaction"));
    }
    return DriverReply.json(Map.of("status", "ok"));
  }

  /**
   * The answer to a signed event Kurir will not take however often it comes (a device deleted,
   * another account's, a malformed id): 200, for GOWA retries any other answer five times; the
   * reason is in the WARN line written before.
   */
  private static DriverReply dropped() {
    return DriverReply.json(Map.of("status", "dropped"));
  }

  /** The longest message id taken: WhatsApp's are some 20 to 40 characters. */
  static final int MAX_MESSAGE_ID = 128;

  // A group's JID: <digits>@g.us, or the older <creator>-<seconds>@g.us.
  private static final java.util.regex.Pattern GROUP_JID =
      java.util.regex.Pattern.compile("\\d{5,25}(-\\d{5,15})?@g\\.us");

  /**
   * The Kurir device the event is for: by {@code session_id} (the slot, GOWA v9), else by {@code
   * device_id} (the account's JID) against the devices' numbers. Empty (after a WARN line) when no
   * device has the slot, when two do (a configuration made before they were refused), or when
   * {@code device_id} names another account than the one last seen paired on the slot: an event is
   * never put on a device that may not be its own.
   */
  private Optional<DeviceRef> device(JsonNode root) {
    String slot = root.path("session_id").asText("");
    String jid = root.path("device_id").asText("");
    Optional<DeviceRef> bySlot = Optional.empty();
    if (!slot.isEmpty()) {
      bySlot =
          driver.deviceOfSlot(slot).flatMap(this::byId).filter(d -> driver.slotId(d).equals(slot));
      if (bySlot.isEmpty()) {
        List<DeviceRef> having =
            devices.ofDriver(GowaDriverFactory.NAME).stream()
                .filter(d -> driver.slotId(d).equals(slot))
                .toList();
        if (having.size() > 1) {
          log.warn(
              "GOWA event for device {} dropped: Kurir devices {} all name it",
              slot,
              having.stream().map(DeviceRef::id).toList());
          return Optional.empty();
        }
        if (having.size() == 1) {
          driver.knowSlot(slot, having.getFirst().id());
          bySlot = Optional.of(having.getFirst());
        }
      }
    }
    if (bySlot.isPresent()) {
      DeviceRef d = bySlot.get();
      Optional<String> named = GowaDriver.accountDigits(jid);
      Optional<String> known = driver.slots().account(d.id());
      if (named.isPresent() && known.isPresent() && !named.equals(known)) {
        try (var ids = LogIds.device(d.id())) {
          log.warn(
              "device {}: GOWA event dropped: its device_id {} is not the account +{} paired on"
                  + " GOWA device {}",
              d.id(),
              jid,
              known.get(),
              slot);
        }
        return Optional.empty();
      }
      return bySlot;
    }
    Optional<String> digits = GowaDriver.accountDigits(jid).or(() -> GowaDriver.phoneDigits(jid));
    if (digits.isPresent()) {
      Optional<DeviceRef> byNumber =
          devices
              .byNumber("+" + digits.get())
              .filter(d -> d.driver().equals(GowaDriverFactory.NAME))
              // a slot named but not this device's: it is another's, whatever the number says
              .filter(d -> slot.isEmpty() || driver.slotId(d).equals(slot));
      if (byNumber.isPresent()) {
        return byNumber;
      }
    }
    // A device deleted in Kurir, or one this gateway never had: GOWA would retry a refusal.
    log.warn("GOWA event dropped: no gowa device for session_id '{}' or device_id '{}'", slot, jid);
    return Optional.empty();
  }

  private Optional<DeviceRef> byId(long id) {
    try {
      return devices.byId(id).filter(d -> d.driver().equals(GowaDriverFactory.NAME));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * {@code message.ack}: {@code receipt_type} {@code delivered} or {@code read} of every id in
   * {@code ids} (GOWA forwards only these and {@code read-self}, the account's own other device).
   */
  private void ack(DeviceRef device, JsonNode root, JsonNode payload) {
    JsonNode ids = payload.path("ids");
    if (!ids.isArray() || ids.isEmpty()) {
      throw RouteException.badRequest("body_not_valid", "message.ack needs payload.ids");
    }
    Receipt.Status status =
        switch (payload.path("receipt_type").asText("")) {
          case "delivered" -> Receipt.Status.DELIVERED;
          case "read" -> Receipt.Status.READ;
          default -> null; // read-self: read on the account's own phone, not by the recipient
        };
    if (status == null) {
      return;
    }
    Instant at = at(root.path("timestamp").asText(payload.path("timestamp").asText("")));
    for (JsonNode id : ids) {
      if (id.isTextual() && !id.asText().isBlank()) {
        driver
            .listener()
            .receipt(Receipt.ofNetworkId(device.id(), id.asText(), status, Optional.empty(), at));
      }
    }
  }

  private void incoming(DeviceRef device, JsonNode payload, boolean reaction) {
    if (payload.path("is_from_me").asBoolean(false)) {
      return; // written on the phone itself, or by another linked device
    }
    String id = payload.path("id").asText("");
    String chat = payload.path("chat_id").asText("");
    String from = payload.path("from").asText("");
    if (id.isEmpty() || from.isEmpty()) {
      throw RouteException.badRequest("body_not_valid", "message needs payload.id and from");
    }
    if (chat.endsWith("@broadcast") || chat.endsWith("@newsletter")) {
      return; // a status update, a channel: no person wrote to the device
    }
    if (id.length() > MAX_MESSAGE_ID || id.chars().anyMatch(Character::isISOControl)) {
      dropMalformed(device, "its id is not WhatsApp's (" + id.length() + " characters)");
      return;
    }
    if (chat.endsWith("@g.us") && !GROUP_JID.matcher(chat).matches()) {
      dropMalformed(device, "its chat_id is not a group's JID");
      return;
    }
    Optional<String> group = chat.endsWith("@g.us") ? Optional.of(chat) : Optional.empty();
    // GOWA puts the phone in from when it knows it, the LID (of an LID-migrated sender) in
    // from_lid; from is the LID itself when it knows no phone.
    Optional<ContactId> lid = GowaDriver.lid(payload.path("from_lid").asText(""));
    if (lid.isEmpty()) {
      lid = GowaDriver.lid(from);
    }
    Optional<String> e164 = GowaDriver.phoneDigits(from).map(d -> "+" + d);
    if (e164.isPresent() && lid.isPresent()) {
      driver.context().contacts().learn(device.id(), e164.get(), lid.get());
    } else if (e164.isEmpty() && lid.isPresent()) {
      e164 = driver.phoneOfLid(device.id(), lid.get());
    }
    if (e164.isEmpty() && lid.isEmpty()) {
      return; // not a person's address
    }
    Optional<Content.Reaction> reacted = Optional.empty();
    if (reaction) {
      reacted = GowaContent.incomingReaction(payload);
      if (reacted.isEmpty()) {
        dropMalformed(device, "its reaction names no reacted_message_id");
        return;
      }
    }
    String text = reacted.map(Content.Reaction::emoji).orElse(payload.path("body").asText(""));
    Optional<IncomingMessage.Media> media = Optional.empty();
    try {
      switch (driver.incomingMedia(device.id(), id, payload)) {
        case GowaDriver.IncomingFile.Kept kept -> media = Optional.of(kept.media());
        case GowaDriver.IncomingFile.Lost lost -> {
          text = (text.isEmpty() ? "" : text + "\n") + "[" + lost.what() + " not kept by GOWA]";
          try (var ids = LogIds.device(device.id())) {
            log.warn(
                "device {}: incoming {}: its {} could not be fetched from GOWA ({}); kept without"
                    + " it",
                device.id(),
                id,
                lost.what(),
                lost.why());
          }
        }
        case GowaDriver.IncomingFile.None none -> {}
      }
    } catch (IOException e) {
      throw new RouteException(
          503, "not_stored", "the incoming message's file could not be fetched: " + e.getMessage());
    }
    IncomingMessage in =
        new IncomingMessage(
            device.id(),
            Optional.of(id),
            e164.orElse(""),
            group,
            text,
            media,
            at(payload.path("timestamp").asText("")),
            Optional.empty(), // contact_name stays the number, as for the other drivers
            lid);
    in = withContent(in, payload, reacted);
    try {
      driver.listener().incoming(in);
    } catch (RuntimeException e) {
      throw new RouteException(
          503, "not_stored", "the incoming message could not be stored: " + e.getMessage());
    }
  }

  /**
   * {@code in} saying what GOWA's payload says beyond a text, an image or a file: a reaction, a
   * location, contact cards, a video, an audio, a sticker, and the message it replies to ({@code
   * replied_to_id}), in the Cloud API message object's terms. Unchanged for a plain text, image or
   * document, which its columns say.
   */
  private static IncomingMessage withContent(
      IncomingMessage in, JsonNode payload, Optional<Content.Reaction> reacted) {
    Optional<String> replyTo = GowaContent.repliedTo(payload);
    Optional<Content> kind =
        reacted.<Content>map(r -> r).or(() -> GowaContent.incomingKind(payload));
    boolean ownKind =
        in.media().isPresent()
            && List.of("video", "audio", "sticker").contains(in.media().get().kind());
    if (kind.isEmpty() && replyTo.isEmpty() && !ownKind) {
      return in;
    }
    Content content = kind.orElseGet(() -> in.asContent().content());
    return in.withContent(new MessageContent(content, replyTo, List.of()));
  }

  /** A signed message Kurir does not store: answered 200 (a retry would not mend it), logged. */
  private static void dropMalformed(DeviceRef device, String why) {
    try (var ids = LogIds.device(device.id())) {
      log.warn("device {}: incoming message from GOWA dropped: {}", device.id(), why);
    }
  }

  /** GOWA's RFC 3339 timestamp, else now. */
  private Instant at(String rfc3339) {
    if (!rfc3339.isBlank()) {
      try {
        return OffsetDateTime.parse(rfc3339).toInstant();
      } catch (DateTimeParseException e) {
        // a GOWA that writes another form: the time it arrived
      }
    }
    return driver.context().clock().instant();
  }
}
