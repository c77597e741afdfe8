package io.kurir.driver.waha;

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
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The engine's webhook of one device, {@code /drivers/waha/events/<device id>}: taken only with a
 * valid {@code X-Webhook-Hmac}, the hex HMAC-SHA512 of the raw body with the device's key (WAHA's
 * scheme, {@code X-Webhook-Hmac-Algorithm: sha512}); otherwise nothing of it is recorded. Events:
 * {@code session.status} (the device's state), {@code message.ack} (receipts by the engine's
 * message id), {@code message} (incoming, through the common pipeline; a redelivery is dropped by
 * its message id). Answered 200 once an incoming message is stored, so that the engine delivers
 * again what could not be.
 */
final class WahaWebhookRoutes {
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(WahaWebhookRoutes.class);
  static final String PATH = WahaDriver.EVENTS_PATH + "{device}";

  private final WahaDriver driver;
  private final DeviceLookup devices;

  WahaWebhookRoutes(WahaDriver driver, DeviceLookup devices) {
    this.driver = driver;
    this.devices = devices;
  }

  /** Served as the {@code wahawebhook} family (its name in the request metrics). */
  DriverRoutes routes() {
    return new DriverRoutes(
        "wahawebhook", "/drivers/waha/", List.of(DriverRoute.post(PATH, this::event)));
  }

  DriverReply event(DriverRequest ctx) {
    DeviceRef device = device(ctx.pathParam("device"));
    String key =
        driver
            .sessions()
            .existingHmacKey(device.id())
            .orElseThrow(() -> notFound("device " + device.id() + " has no session on the engine"));
    byte[] raw = ctx.bodyAsBytes();
    String signature = Optional.ofNullable(ctx.header("X-Webhook-Hmac")).orElse("").strip();
    if (signature.isEmpty()) {
      throw new RouteException(401, "signature_missing", "X-Webhook-Hmac is missing");
    }
    if (!Signatures.same(signature.toLowerCase(Locale.ROOT), hmac(key, raw))) {
      throw new RouteException(
          401, "signature_not_valid", "X-Webhook-Hmac does not match the body");
    }
    JsonNode root;
    try {
      root = WahaApi.JSON.readTree(raw);
    } catch (IOException e) {
      throw RouteException.badRequest("body_not_valid", "the body is not JSON");
    }
    if (root == null || !root.isObject() || !root.path("event").isTextual()) {
      throw RouteException.badRequest("body_not_valid", "the body has no event");
    }
    JsonNode payload = root.path("payload");
    switch (root.path("event").asText()) {
      case "session.status" -> {
        String status = payload.path("status").asText("");
        if (!status.isEmpty()) {
          driver.statusReported(device, status);
        }
      }
      case "message.ack" -> ack(device, payload);
      case "message.ack.group" -> ackInGroup(device, payload);
      case "message" -> incoming(device, payload, false);
      case "message.reaction" -> incoming(device, payload, true);
      default -> {} // subscribed to no other event; a newer engine may send more
    }
    return DriverReply.json(Map.of("status", "ok"));
  }

  private DeviceRef device(String raw) {
    long id;
    try {
      id = Long.parseLong(raw);
    } catch (NumberFormatException e) {
      throw notFound("no device " + raw);
    }
    DeviceRef d;
    try {
      d = devices.byId(id).orElse(null);
    } catch (RuntimeException e) {
      throw notFound("no device " + raw);
    }
    if (d == null || !d.driver().equals(WahaDriverFactory.NAME)) {
      throw notFound("no waha device " + raw);
    }
    return d;
  }

  private static RouteException notFound(String detail) {
    return new RouteException(404, "device_not_found", detail);
  }

  /** {@code ack}: -1 ERROR, 0 PENDING, 1 SERVER, 2 DEVICE, 3 READ, 4 PLAYED. */
  private void ack(DeviceRef device, JsonNode payload) {
    String id = payload.path("id").asText("");
    if (id.isEmpty() || !payload.path("ack").isNumber()) {
      throw RouteException.badRequest("body_not_valid", "message.ack needs payload.id and ack");
    }
    Receipt.Status status =
        switch (payload.path("ack").asInt()) {
          case -1 -> Receipt.Status.FAILED;
          case 2 -> Receipt.Status.DELIVERED;
          case 3, 4 -> Receipt.Status.READ;
          default -> null; // pending, or on the server: "sent" came with the send's reply
        };
    if (status == null) {
      return;
    }
    Optional<String> reason =
        status == Receipt.Status.FAILED
            ? Optional.of(WahaDriver.NETWORK_REFUSED)
            : Optional.empty();
    driver.listener().receipt(Receipt.ofNetworkId(device.id(), id, status, reason, at(payload)));
  }

  /**
   * {@code message.ack.group}: one member's ack of a message sent to a group, its id the message's
   * ({@code true_<group>@g.us_<id>}) with {@code _<participant>} appended. The message counts as
   * delivered (read) once the first member's phone has it (has read it); a receipt only moves it
   * forward, so the other members' acks change nothing.
   */
  private void ackInGroup(DeviceRef device, JsonNode payload) {
    String id = payload.path("id").asText("");
    String participant = payload.path("participant").asText("");
    if (!participant.isEmpty() && id.endsWith("_" + participant)) {
      id = id.substring(0, id.length() - participant.length() - 1);
    }
    if (id.isEmpty() || !payload.path("ack").isNumber()) {
      throw RouteException.badRequest(
          "body_not_valid", "message.ack.group needs payload.id and ack");
    }
    Receipt.Status status =
        switch (payload.path("ack").asInt()) {
          case 2 -> Receipt.Status.DELIVERED;
          case 3, 4 -> Receipt.Status.READ;
          default -> null; // one member's error or pending says nothing of the message
        };
    if (status != null) {
      driver
          .listener()
          .receipt(Receipt.ofNetworkId(device.id(), id, status, Optional.empty(), at(payload)));
    }
  }

  /**
   * An incoming message; with {@code reaction}, a {@code message.reaction} event's {@code
   * WAMessageReaction} ({@code reaction.text}, "" when taken away, on {@code reaction.messageId}),
   * stored as a reaction from the same sender fields.
   */
  private void incoming(DeviceRef device, JsonNode payload, boolean reaction) {
    if (payload.path("fromMe").asBoolean(false)) {
      return;
    }
    String id = payload.path("id").asText("");
    String from = payload.path("from").asText("");
    if (id.isEmpty() || from.isEmpty()) {
      throw RouteException.badRequest("body_not_valid", "message needs payload.id and from");
    }
    Optional<String> group = Optional.empty();
    String sender = from;
    if (from.endsWith("@g.us")) {
      group = Optional.of(from);
      sender = payload.path("participant").asText("");
    }
    Optional<String> e164 = e164(sender);
    Optional<ContactId> lid = lid(sender);
    if (e164.isEmpty() && lid.isEmpty()) {
      return; // a status broadcast, a channel: no person wrote it
    }
    if (lid.isPresent()) {
      // WhatsApp hides many senders' numbers behind a LID on every engine: the message is kept,
      // with the phone when the engine (or an earlier lookup) knows it, else by its LID alone.
      e164 = driver.phoneOfLid(device, lid.get());
    }
    Optional<MessageContent> content = Optional.empty();
    if (reaction) {
      Optional<Content.Reaction> r = WahaContent.incomingReaction(payload);
      if (r.isEmpty()) {
        throw RouteException.badRequest(
            "body_not_valid", "message.reaction needs payload.reaction.messageId");
      }
      content = Optional.of(MessageContent.of(r.get()));
    }
    Optional<IncomingMessage.Media> media;
    String text = content.map(c -> c.content().summary()).orElse(payload.path("body").asText(""));
    try {
      media = driver.incomingMedia(device.id(), id, payload);
    } catch (WahaApi.FileGone e) {
      // The engine deleted the file (WHATSAPP_FILES_LIFETIME) before Kurir could fetch it: the
      // message is kept, and says so; a redelivery cannot bring the file back.
      media = Optional.empty();
      text = WahaDriver.mediaLost(text, payload);
      try (var ids = io.kurir.logging.LogIds.device(device.id())) {
        log.warn(
            "device {}: incoming {}: its file was gone from the engine ({}); kept without it",
            device.id(),
            id,
            e.getMessage());
      }
    } catch (IOException e) {
      throw new RouteException(
          503, "not_stored", "the incoming message's file could not be fetched: " + e.getMessage());
    }
    try {
      driver
          .listener()
          .incoming(
              new IncomingMessage(
                  device.id(),
                  Optional.of(id),
                  e164.orElse(""),
                  group,
                  text,
                  media,
                  at(payload),
                  Optional.empty(),
                  lid,
                  content.isPresent() ? content : WahaContent.incoming(payload, text, media)));
    } catch (RuntimeException e) {
      throw new RouteException(
          503, "not_stored", "the incoming message could not be stored: " + e.getMessage());
    }
  }

  /** {@code 1234567890@lid} as a LID. */
  static Optional<ContactId> lid(String jid) {
    return ContactId.parse(jid).filter(id -> id.kind() == ContactId.Kind.LID);
  }

  /** {@code 628123@c.us} (or {@code @s.whatsapp.net}) as {@code +628123}. */
  static Optional<String> e164(String jid) {
    int at = jid.indexOf('@');
    if (at <= 0) {
      return Optional.empty();
    }
    String user = jid.substring(0, at);
    String server = jid.substring(at + 1);
    if (!(server.equals("c.us") || server.equals("s.whatsapp.net")) || !user.matches("\\d{6,15}")) {
      return Optional.empty();
    }
    return Optional.of("+" + user);
  }

  /** The payload's {@code timestamp} (seconds), else now. */
  private Instant at(JsonNode payload) {
    long seconds = payload.path("timestamp").asLong(0);
    return seconds > 0 ? Instant.ofEpochSecond(seconds) : driver.context().clock().instant();
  }

  static String hmac(String key, byte[] body) {
    return Signatures.hmacHex("HmacSHA512", key, body);
  }
}
