package io.kurir.api.graph;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.content.CloudMessageJson;
import io.kurir.content.Content;
import io.kurir.content.MediaSource;
import io.kurir.content.MessageContent;
import io.kurir.media.UploadedMedia;
import io.kurir.message.IdempotencyKeys;
import io.kurir.message.MediaRef;
import io.kurir.message.MessageActions;
import io.kurir.message.Recipient;
import io.kurir.message.SendCommand;
import io.kurir.message.Sends;
import io.kurir.phone.PhoneNumbers;
import io.kurir.tenant.Device;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code POST /graph/{version}/{phone-number-id}/messages}: Meta's message object sent through the
 * core's one send ({@link Sends}, a {@link SendCommand} with its content), answered with Meta's
 * reply at once (the outcome comes later, as on Meta's network); and the read mark ({@code status:
 * "read"}) on the same path, as Meta has it.
 */
final class GraphMessageHandlers {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Sends sends;
  private final PhoneNumbers phones;
  private final UploadedMedia uploads;
  private final MessageActions actions;

  GraphMessageHandlers(
      Sends sends, PhoneNumbers phones, UploadedMedia uploads, MessageActions actions) {
    this.sends = sends;
    this.phones = phones;
    this.uploads = uploads;
    this.actions = actions;
  }

  void post(Context ctx, Device device) {
    JsonNode body = body(ctx);
    String product = body.path("messaging_product").asText("");
    if (!product.equals("whatsapp")) {
      throw invalid(
          product.isEmpty()
              ? "The parameter messaging_product is required."
              : "Param messaging_product must be whatsapp");
    }
    if (body.has("status")) {
      markRead(ctx, body, device);
      return;
    }
    String recipientType = body.path("recipient_type").asText("individual");
    if (!recipientType.equals("individual") && !recipientType.equals("group")) {
      throw invalid("Param recipient_type must be one of {individual, group}");
    }
    JsonNode toNode = body.get("to");
    if (toNode == null || !toNode.isTextual() || toNode.asText().isBlank()) {
      throw invalid("The parameter to is required.");
    }
    String to = toNode.asText().strip();
    Recipient recipient =
        recipientType.equals("group") ? new Recipient(to, true) : Recipient.number(number(to));
    MessageContent content = CloudMessageJson.parse(body);
    Optional<MediaRef> file = uploadedFile(content, device);
    SendCommand.Builder command =
        SendCommand.builder("graph").to(recipient).content(content).idempotencyKey(key(ctx));
    file.ifPresent(f -> command.media(Optional.of(f)));
    Sends.Sent sent = sends.send(device, command.build());
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("messaging_product", "whatsapp");
    if (!recipient.group()) {
      reply.put(
          "contacts", List.of(Map.of("input", to, "wa_id", recipient.address().substring(1))));
    }
    reply.put("messages", List.of(Map.of("id", Long.toString(sent.first().id()))));
    ctx.json(reply);
  }

  /**
   * A read mark, {@code {status: "read", message_id, typing_indicator?: {type: "text"}}}: the chat
   * of the message the number received, marked read up to it through the number's driver (and the
   * number shown typing with the indicator), answered {@code {"success": true}} as Meta does. The
   * message is named by Kurir's id or by its network's; a driver without read marks (or typing) is
   * Meta's 131051 naming it.
   */
  private void markRead(Context ctx, JsonNode body, Device device) {
    if (!body.path("status").asText("").equals("read")) {
      throw invalid("Param status must be read");
    }
    JsonNode id = body.get("message_id");
    if (id == null || !id.isTextual() || id.asText().isBlank()) {
      throw GraphErrors.error(
          400, GraphErrors.PARAMETER_MISSING, "The parameter message_id is required.");
    }
    JsonNode indicator = body.get("typing_indicator");
    if (indicator != null && !indicator.path("type").asText("").equals("text")) {
      throw invalid("Param typing_indicator[type] must be text");
    }
    actions.markReadByMessage(device, id.asText().strip(), indicator != null);
    ctx.json(Map.of("success", true));
  }

  /**
   * The file a media object names by {@code id}: one uploaded to this device through {@code /media}
   * and still kept. Meta's ids of its own network are not Kurir's: an id that is no upload of this
   * device is Meta's 131009.
   */
  private Optional<MediaRef> uploadedFile(MessageContent content, Device device) {
    Optional<MediaSource> source =
        switch (content.content()) {
          case Content.Image i -> Optional.of(i.source());
          case Content.Video v -> Optional.of(v.source());
          case Content.Audio a -> Optional.of(a.source());
          case Content.Document d -> Optional.of(d.source());
          case Content.Sticker s -> Optional.of(s.source());
          default -> Optional.empty();
        };
    Optional<String> id = source.flatMap(MediaSource::id);
    if (id.isEmpty()) {
      return Optional.empty();
    }
    String kind = content.kind().wireName();
    ApiException unknown =
        GraphErrors.error(
            400,
            GraphErrors.PARAMETER_NOT_VALID,
            kind
                + ".id "
                + id.get()
                + " is no media uploaded to this phone number (or it expired)");
    long mediaId;
    try {
      mediaId = Long.parseLong(id.get().strip());
    } catch (NumberFormatException e) {
      throw unknown;
    }
    return Optional.of(uploads.find(device, mediaId).orElseThrow(() -> unknown).ref());
  }

  /**
   * The recipient's number: Meta's {@code to} is international without its {@code +}; a number the
   * Eco API would read (a national {@code 0812…}) is read as it would, too.
   */
  private String number(String to) {
    String digits = to.startsWith("+") ? to : "+" + to;
    return phones
        .normalize(digits)
        .or(() -> phones.normalize(to))
        .orElseThrow(
            () ->
                GraphErrors.error(
                    400,
                    GraphErrors.PARAMETER_NOT_VALID,
                    "to " + to + " is not a phone number in international format"));
  }

  private static Optional<String> key(Context ctx) {
    String raw = ctx.header("Idempotency-Key");
    if (raw == null || raw.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(
        IdempotencyKeys.wellFormed(raw)
            .orElseThrow(
                () ->
                    invalid(
                        "Idempotency-Key is 1 to "
                            + IdempotencyKeys.MAX_LENGTH
                            + " printable ASCII characters")));
  }

  private static JsonNode body(Context ctx) {
    JsonNode body;
    try {
      body = JSON.readTree(io.kurir.api.RequestBody.bytes(ctx));
    } catch (IOException e) {
      throw invalid("The request body is not JSON: send Meta's message object");
    }
    if (body == null || !body.isObject()) {
      throw invalid("The request body is Meta's message object, a JSON object");
    }
    return body;
  }

  private static ApiException invalid(String message) {
    return GraphErrors.error(400, GraphErrors.INVALID_PARAMETER, message);
  }
}
