package io.kurir.driver.gowa;

import com.fasterxml.jackson.databind.JsonNode;
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
    if (!event.equals("message") && !event.equals("message.ack")) {
      // Typing, labels, calls, group changes: taken (GOWA would retry a refusal) and let be.
      return DriverReply.json(Map.of("status", "ok"));
    }
    DeviceRef device = device(root);
    JsonNode payload = root.path("payload");
    if (event.equals("message.ack")) {
      ack(device, root, payload);
    } else {
      incoming(device, payload);
    }
    return DriverReply.json(Map.of("status", "ok"));
  }

  /**
   * The Kurir device the event is for: by {@code session_id} (the slot, GOWA v9), else by {@code
   * device_id} (the account's JID) against the devices' numbers.
   */
  private DeviceRef device(JsonNode root) {
    String slot = root.path("session_id").asText("");
    if (!slot.isEmpty()) {
      Optional<DeviceRef> known =
          driver.deviceOfSlot(slot).flatMap(this::byId).filter(d -> driver.slotId(d).equals(slot));
      if (known.isPresent()) {
        return known.get();
      }
      for (DeviceRef d : devices.ofDriver(GowaDriverFactory.NAME)) {
        if (driver.slotId(d).equals(slot)) {
          driver.knowSlot(slot, d.id());
          return d;
        }
      }
    }
    Optional<String> digits = GowaDriver.phoneDigits(root.path("device_id").asText(""));
    if (digits.isPresent()) {
      Optional<DeviceRef> byNumber =
          devices
              .byNumber("+" + digits.get())
              .filter(d -> d.driver().equals(GowaDriverFactory.NAME));
      if (byNumber.isPresent()) {
        return byNumber.get();
      }
    }
    throw new RouteException(
        404,
        "device_not_found",
        "no gowa device for session_id '"
            + slot
            + "' or device_id '"
            + root.path("device_id").asText("")
            + "'");
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

  private void incoming(DeviceRef device, JsonNode payload) {
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
    String text = payload.path("body").asText("");
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
                  at(payload.path("timestamp").asText("")),
                  Optional.empty(), // contact_name stays the number, as for the other drivers
                  lid));
    } catch (RuntimeException e) {
      throw new RouteException(
          503, "not_stored", "the incoming message could not be stored: " + e.getMessage());
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
