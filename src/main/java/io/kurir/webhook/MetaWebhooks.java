package io.kurir.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The deliveries of a {@code meta} subscription: the Cloud API's webhook payloads, written from the
 * event log's events, and their signature. Follows Meta's webhook reference field by field
 * (research/cloud-api.md §1.7; developers.facebook.com "Webhooks reference: messages", "status",
 * "errors"), so that code written for Meta's webhooks (its SDKs, Kurir's own Cloud API driver)
 * reads them unchanged:
 *
 * <pre>{"object": "whatsapp_business_account", "entry": [{"id": "&lt;license id&gt;",
 *   "changes": [{"field": "messages", "value": {"messaging_product": "whatsapp",
 *     "metadata": {"display_phone_number": "&lt;device number, digits&gt;",
 *                  "phone_number_id": "&lt;device id&gt;"},
 *     "contacts": [...], "messages": [...]  or  "statuses": [...]}}]}]}</pre>
 *
 * <p>The WhatsApp Business Account id is the license's id (a license holds the numbers as a WABA
 * holds its phone numbers); the phone-number id is the device's, as the door ({@code /graph}) takes
 * it. A message's {@code id} is Kurir's (the id the door answered at the send, or the incoming
 * message's id), and a media object's {@code id} is the incoming message's id, which the door's
 * {@code GET /{media-id}} resolves to the kept file.
 *
 * <p>Signed as Meta signs: {@code X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>},
 * keyed with the subscription's secret as Meta keys it with the app secret (its UTF-8 bytes). The
 * secret looks like an app secret (32 hex characters), so that it drops into code written for one.
 *
 * <p>Thread-safe (stateless).
 */
final class MetaWebhooks {
  /** The event types Meta's webhooks have: incoming messages and statuses, not device states. */
  static final Set<String> EVENTS = Set.of(Events.MESSAGE_RECEIVED, Events.MESSAGE_STATUS);

  static final String SIGNATURE_HEADER = "X-Hub-Signature-256";

  /** 16 bytes, 32 hex characters: the length of a Meta app secret. */
  private static final int SECRET_BYTES = 16;

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Kurir's states as Meta's statuses name them; the others ({@code pending}…) have none. */
  private static final Map<String, String> STATUSES =
      Map.of("sent", "sent", "delivery", "delivered", "read", "read", "failed", "failed");

  /** Meta's code for a message that cannot reach its recipient (not on WhatsApp, blocked…). */
  private static final int UNDELIVERABLE = 131026;

  /** Meta's code for any other failure. */
  private static final int SOMETHING_WENT_WRONG = 131000;

  private MetaWebhooks() {}

  /** A new secret: 32 lower-case hex characters, as a Meta app secret. */
  static String newSecret() {
    byte[] key = new byte[SECRET_BYTES];
    RANDOM.nextBytes(key);
    return HexFormat.of().formatHex(key);
  }

  /** The {@code X-Hub-Signature-256} value: {@code sha256=} and the hex HMAC of the body. */
  static String signature(String secret, String body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return "sha256="
          + HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  /**
   * {@code event} as Meta's webhook, from device {@code deviceNumber} (E.164); empty for an event
   * Meta's webhooks have no form of (a device state, a message that is only {@code pending} or
   * {@code sending}).
   */
  static Optional<String> payload(Events.Event event, String deviceNumber) {
    JsonNode data;
    try {
      data = JSON.readTree(event.data());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String timestamp = Long.toString(event.at().getEpochSecond());
    ObjectNode root = JSON.createObjectNode();
    root.put("object", "whatsapp_business_account");
    ObjectNode entry = root.putArray("entry").addObject();
    entry.put("id", Long.toString(event.licenseId()));
    ObjectNode change = entry.putArray("changes").addObject();
    change.put("field", "messages");
    ObjectNode value = change.putObject("value");
    value.put("messaging_product", "whatsapp");
    value
        .putObject("metadata")
        .put("display_phone_number", digits(deviceNumber))
        .put("phone_number_id", Long.toString(event.deviceId()));
    switch (event.type()) {
      case Events.MESSAGE_RECEIVED -> received(value, data, timestamp);
      case Events.MESSAGE_STATUS -> {
        if (!status(value, data, timestamp)) {
          return Optional.empty();
        }
      }
      default -> {
        return Optional.empty();
      }
    }
    return Optional.of(root.toString());
  }

  /**
   * {@code contacts} (the sender, with their profile name when the network gave one) and {@code
   * messages} (Meta's incoming message object) of a {@code message.received} event.
   */
  private static void received(ObjectNode value, JsonNode data, String timestamp) {
    String from = data.path("from").asText();
    boolean bsuid = data.path("from_type").asText().equals("bsuid");
    ObjectNode contact = value.putArray("contacts").addObject();
    String name = data.path("contact_name").asText("");
    if (!name.isEmpty()) {
      contact.putObject("profile").put("name", name);
    }
    // A username user whose number Meta may not share is named by their BSUID alone (user_id,
    // from_user_id); a WhatsApp LID (WAHA, GOWA) has no field of Meta's and goes as the sender.
    contact.put(bsuid ? "user_id" : "wa_id", from);
    ObjectNode message = value.putArray("messages").addObject();
    message.put(bsuid ? "from_user_id" : "from", from);
    message.put("id", data.path("message_id").asText());
    message.put("timestamp", timestamp);
    if (data.hasNonNull("group_id")) {
      message.put("group_id", data.path("group_id").asText());
    }
    String type = data.path("type").asText("text");
    String replyTo = data.path("context").path("message_id").asText("");
    if (!replyTo.isEmpty()) {
      message.putObject("context").put("id", replyTo);
    }
    message.put("type", type);
    JsonNode object = data.path(type).deepCopy();
    if (object.isObject()) {
      // Meta's incoming media are named by id (fetched with GET /{media-id}), never by link.
      ((ObjectNode) object).remove("link");
    }
    message.set(type, object.isMissingNode() ? JSON.createObjectNode() : object);
  }

  /**
   * {@code statuses} of a {@code message.status} event: Meta's status object, with {@code errors}
   * for a failure; false for a state Meta has no status for.
   */
  private static boolean status(ObjectNode value, JsonNode data, String timestamp) {
    String status = STATUSES.get(data.path("status").asText());
    if (status == null) {
      return false;
    }
    ObjectNode s = value.putArray("statuses").addObject();
    s.put("id", data.path("message_id").asText());
    s.put("status", status);
    s.put("timestamp", timestamp);
    s.put("recipient_id", data.path("to").asText());
    if (data.path("to_group").asBoolean(false)) {
      s.put("recipient_type", "group");
    }
    if (status.equals("failed")) {
      String reason = data.path("reason").asText("");
      int code = reason.equals("number_not_found") ? UNDELIVERABLE : SOMETHING_WENT_WRONG;
      String title = code == UNDELIVERABLE ? "Message undeliverable" : "Something went wrong";
      ArrayNode errors = s.putArray("errors");
      ObjectNode error = errors.addObject();
      error.put("code", code);
      error.put("title", title);
      error.put("message", title);
      error.putObject("error_data").put("details", reason.isEmpty() ? title : reason);
    }
    return true;
  }

  private static String digits(String e164) {
    return e164.startsWith("+") ? e164.substring(1) : e164;
  }
}
