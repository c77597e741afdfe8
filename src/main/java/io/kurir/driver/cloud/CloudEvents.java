package io.kurir.driver.cloud;

import com.fasterxml.jackson.databind.JsonNode;
import io.kurir.content.CloudMessageJson;
import io.kurir.content.MessageContent;
import io.kurir.driver.DeviceConfig;
import io.kurir.driver.DeviceRef;
import io.kurir.driver.IncomingMessage;
import io.kurir.driver.Receipt;
import io.kurir.driver.ReceivedFiles;
import io.kurir.driver.SendOutcome;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one {@code messages} change of the webhook says, told to the core: statuses move Kurir's
 * messages, incoming messages (with their media fetched) go through the incoming pipeline and open
 * the customer's 24-hour window.
 *
 * <p>Statuses are matched by the message's Kurir id, which each send puts in {@code
 * biz_opaque_callback_data}, and by the network id: a duplicate, or a status older than one already
 * applied, changes nothing, as the core moves messages forward only.
 */
final class CloudEvents {
  private static final Logger log = LoggerFactory.getLogger(CloudEvents.class);

  /** The largest incoming media file kept: Meta's limit for documents. */
  static final long MAX_MEDIA_BYTES = 100L * 1024 * 1024;

  /** An incoming message that could not be stored: the webhook is not acknowledged. */
  static final class NotStored extends RuntimeException {
    NotStored(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private final CloudDriver driver;

  CloudEvents(CloudDriver driver) {
    this.driver = driver;
  }

  void handle(DeviceRef device, DeviceConfig config, JsonNode value) {
    for (JsonNode status : value.path("statuses")) {
      status(device, config, status);
    }
    for (JsonNode error : value.path("errors")) {
      try (var ids = io.kurir.logging.LogIds.device(device.id())) {
        log.warn(
            "device {}: the Cloud API reports {}",
            device.id(),
            GraphError.ofWebhook(error).describe());
      }
    }
    for (JsonNode message : value.path("messages")) {
      incoming(device, config, message, contact(value, message));
    }
  }

  // --- statuses

  private void status(DeviceRef device, DeviceConfig config, JsonNode status) {
    String networkId = status.path("id").asText("");
    if (networkId.isBlank()) {
      return;
    }
    Instant at = time(status.path("timestamp"));
    String opaque = status.path("biz_opaque_callback_data").asText("");
    boolean template = opaque.endsWith(CloudDriver.TEMPLATE_MARK);
    Optional<Long> kurirId =
        Optional.of(template ? opaque.substring(0, opaque.length() - 2) : opaque)
            .filter(v -> v.matches("\\d{1,19}"))
            .map(Long::parseLong);
    long deviceId = device.id();
    String name = status.path("status").asText("").toLowerCase(Locale.ROOT);
    switch (name) {
      case "sent" -> kurirId.ifPresent(id -> sent(deviceId, id, networkId, at));
      case "delivered" -> {
        kurirId.ifPresent(id -> sent(deviceId, id, networkId, at)); // "sent" may come later
        receipt(deviceId, networkId, Receipt.Status.DELIVERED, Optional.empty(), at);
      }
      case "read", "played" -> {
        kurirId.ifPresent(id -> sent(deviceId, id, networkId, at));
        receipt(deviceId, networkId, Receipt.Status.READ, Optional.empty(), at);
      }
      case "failed" -> failed(device, config, status, networkId, kurirId, template, at);
      // Not failures: Meta holds a marketing message for a quality check, or paused the template.
      // The message's history says so; a later status moves it on.
      case "paused", "held_for_quality_assessment" ->
          kurirId.ifPresent(id -> driver.tell(l -> l.note(deviceId, id, name)));
      default -> {
        try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
          log.info("device {}: status '{}' ignored", deviceId, status.path("status"));
        }
      }
    }
  }

  private void sent(long deviceId, long kurirId, String networkId, Instant at) {
    // Ignored by the core when the message is no longer "sending".
    driver.tell(l -> l.outcome(deviceId, kurirId, SendOutcome.Sent.of(networkId, at)));
  }

  private void receipt(
      long deviceId, String networkId, Receipt.Status status, Optional<String> reason, Instant at) {
    driver.tell(l -> l.receipt(Receipt.ofNetworkId(deviceId, networkId, status, reason, at)));
  }

  /**
   * A send failed after the network took it: the same outcome as the error in a reply (a message
   * still {@code sending} is retried, waits, or fails by code), and a failed receipt for a message
   * that had gone out already (its {@code sent} status came first).
   */
  private void failed(
      DeviceRef device,
      DeviceConfig config,
      JsonNode status,
      String networkId,
      Optional<Long> kurirId,
      boolean template,
      Instant at) {
    JsonNode first = status.path("errors").path(0);
    GraphError error =
        first.isMissingNode()
            ? new GraphError(0, 131000, "failed with no error", "")
            : GraphError.ofWebhook(first);
    String recipient = status.path("recipient_id").asText("");
    String e164 =
        recipient.matches("\\d{5,20}")
            ? "+" + recipient
            : status.path("recipient_user_id").asText(recipient);
    if (error.kind() == GraphError.Kind.WINDOW_CLOSED
        && !template
        && kurirId.isPresent()
        && driver.template(config).isPresent()) {
      // 131047 for a free-form send: it was not delivered, so the message goes again, once, and
      // as the template, since the window is now known to be closed (a text; other kinds fail
      // then with window_closed).
      driver.sessions().windowClosed(device.id(), e164, driver.context().clock().instant());
      long id = kurirId.get();
      driver.tell(
          l ->
              l.note(
                  device.id(),
                  id,
                  "refused outside the 24-hour window ("
                      + error.describe()
                      + "): sent again as template "
                      + driver.template(config).get().name()));
      driver.tell(
          l -> l.outcome(device.id(), id, new SendOutcome.RetryAfter(java.time.Duration.ZERO, "")));
      return;
    }
    SendOutcome outcome = driver.outcomeOf(error, Optional.empty(), device.id(), e164, config);
    // The outcome's write is submitted first and ahead of receipts: a message it put back in the
    // queue is no longer "sending" nor "sent" when the receipt below is applied.
    kurirId.ifPresent(id -> driver.tell(l -> l.outcome(device.id(), id, outcome)));
    String reason =
        switch (outcome) {
          case SendOutcome.NotFound nf -> Receipt.NUMBER_NOT_FOUND;
          case SendOutcome.Permanent p -> p.reason();
          default -> Receipt.DRIVER_ERROR;
        };
    receipt(device.id(), networkId, Receipt.Status.FAILED, Optional.of(reason), at);
  }

  // --- incoming messages

  /**
   * The change's {@code contacts} entry of a message's sender: by its BSUID ({@code user_id}, which
   * Meta gives in every messages webhook since 2026) or by its phone ({@code wa_id}); missing if
   * none.
   */
  private static JsonNode contact(JsonNode value, JsonNode message) {
    String from = message.path("from").asText("");
    String userId = message.path("from_user_id").asText("");
    for (JsonNode contact : value.path("contacts")) {
      if (!userId.isEmpty() && contact.path("user_id").asText("").equals(userId)) {
        return contact;
      }
      if (!from.isEmpty() && contact.path("wa_id").asText("").equals(from)) {
        return contact;
      }
    }
    return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
  }

  /**
   * Who wrote: the phone ({@code from}, which Meta leaves out for a user with a username whose
   * number it may not share) and the business-scoped user id ({@code from_user_id}, or the
   * contact's {@code user_id}).
   */
  private static Optional<io.kurir.driver.ContactId> bsuidOf(JsonNode message, JsonNode contact) {
    String userId = message.path("from_user_id").asText(contact.path("user_id").asText(""));
    return Optional.of(userId)
        .filter(v -> io.kurir.driver.ContactId.parse(v).filter(id -> !id.isPhone()).isPresent())
        .map(io.kurir.driver.ContactId::bsuid);
  }

  private void incoming(DeviceRef device, DeviceConfig config, JsonNode message, JsonNode contact) {
    String networkId = message.path("id").asText("");
    String from = message.path("from").asText(contact.path("wa_id").asText(""));
    Optional<io.kurir.driver.ContactId> bsuid = bsuidOf(message, contact);
    boolean phone = from.matches("\\d{5,20}");
    if (networkId.isBlank() || (!phone && bsuid.isEmpty())) {
      try (var ids = io.kurir.logging.LogIds.device(device.id())) {
        log.info("device {}: incoming message without id or sender ignored", device.id());
      }
      return;
    }
    String name = contact.path("profile").path("name").asText("");
    String e164 =
        phone
            ? "+" + from
            : bsuid.flatMap(id -> driver.context().contacts().phoneOf(device.id(), id)).orElse("");
    if (!e164.isEmpty() && bsuid.isPresent()) {
      driver.context().contacts().learn(device.id(), e164, bsuid.get());
    }
    Instant at = time(message.path("timestamp"));
    String type = message.path("type").asText("");
    JsonNode content = message.path(type);
    // Every kind Kurir has, read by the one reader of Meta's message object; a tapped template
    // button reads as an interactive button reply. Unsupported, order and system messages have no
    // kind of Kurir's: not messages Kurir can store or answer.
    Optional<MessageContent> said = CloudMessageJson.readIncoming(message);
    if (said.isEmpty()) {
      try (var ids = io.kurir.logging.LogIds.device(device.id())) {
        log.info("device {}: incoming {} message ignored", device.id(), type);
      }
      return;
    }
    Optional<IncomingMessage.Media> media = Optional.empty();
    if (said.get().kind().isMedia()) {
      media = Optional.of(fetchMedia(device, config, networkId, type, content));
    }
    String text = said.get().incomingText();
    IncomingMessage in =
        new IncomingMessage(
            device.id(),
            Optional.of(networkId),
            e164,
            Optional.empty(),
            text,
            media,
            at,
            Optional.of(name),
            bsuid,
            // A plain text is its text; a reply keeps what it quotes (context.id).
            type.equals("text") && said.get().replyTo().isEmpty() ? Optional.empty() : said);
    // Before it is handed on: its auto-reply may go out at once and must find the window open.
    // (The customer wrote, so Meta opened it, whether or not Kurir stores the message now.) A
    // reply may go to the phone or to the BSUID: both windows open.
    if (!e164.isEmpty()) {
      driver.sessions().inbound(device.id(), e164, at);
    }
    bsuid.ifPresent(id -> driver.sessions().inbound(device.id(), id.address(), at));
    try {
      driver.listener().incoming(in);
    } catch (RuntimeException e) {
      throw new NotStored(e.toString(), e);
    }
  }

  /**
   * The media of an incoming message: its URL from {@code GET /<version>/<media-id>}, then the file
   * from that URL with the same token, kept under the driver's folder by the message's id.
   */
  private IncomingMessage.Media fetchMedia(
      DeviceRef device, DeviceConfig config, String networkId, String type, JsonNode content) {
    String mediaId = content.path("id").asText("");
    String mime = content.path("mime_type").asText("application/octet-stream");
    if (!mediaId.matches("[A-Za-z0-9_.-]{1,128}")) {
      throw new NotStored("incoming " + type + " without a media id", null);
    }
    String token = config.get(CloudDriverFactory.ACCESS_TOKEN).orElse("");
    try {
      GraphApi.Reply meta = driver.graph().get(mediaId, token);
      if (!meta.ok()) {
        throw new NotStored("media look-up: " + meta.error().describe(), null);
      }
      String url = meta.body().path("url").asText("");
      if (url.isBlank()) {
        throw new NotStored("media look-up answered no url", null);
      }
      mime = meta.body().path("mime_type").asText(mime);
      Path file =
          driver
              .context()
              .dataDir()
              .resolve("media")
              .resolve(Long.toString(device.id()))
              .resolve(
                  ReceivedFiles.safeName(networkId)
                      + ReceivedFiles.extension(mime, content.path("filename").asText("")));
      driver.graph().download(url, token, file, MAX_MEDIA_BYTES);
      return new IncomingMessage.Media(type.equals("image") ? "image" : "file", mime, file);
    } catch (IOException e) {
      throw new NotStored("media download: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NotStored("interrupted", e);
    }
  }

  private Instant time(JsonNode seconds) {
    String v = seconds.asText("");
    return v.matches("\\d{1,12}")
        ? Instant.ofEpochSecond(Long.parseLong(v))
        : driver.context().clock().instant();
  }
}
