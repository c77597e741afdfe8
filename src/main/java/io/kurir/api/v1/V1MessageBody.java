package io.kurir.api.v1;

import com.fasterxml.jackson.databind.JsonNode;
import io.kurir.api.ApiException;
import io.kurir.api.RequestFields;
import io.kurir.content.CloudMessageJson;
import io.kurir.content.MessageContent;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The body of {@code POST /v1/messages}, read in one place: the Cloud API's message object ({@code
 * to}, {@code type} and an object of that type; {@code recipient_type} {@code group} for a group)
 * with Kurir's {@code device}. A text, an image or a document by link without a reply is read as
 * the seed families' send ({@link #CARRIED}: the file fetched as theirs are); every other kind of
 * the Cloud API, and any message with {@code context}, is read whole by {@link CloudMessageJson}
 * into {@link #content}, and the core refuses at accept what the device's driver cannot carry (422
 * {@code kind_not_supported} naming the driver and the kind). A name that is no kind is 400.
 *
 * @param device the device named by its id or number, if the caller named one
 * @param to the recipient as the caller wrote it (read by the handler: a number or a group id)
 * @param group whether {@code to} is a group ({@code recipient_type: group}, or an id ending in
 *     {@code @g.us})
 * @param type the Cloud API's type: {@code text}, {@code image} or {@code document}
 * @param text the text, or the media's caption
 * @param link where to fetch the image or document from
 * @param filename the document's file name shown to the recipient, if given
 * @param content the whole message object, for a kind or a reply the seed's send does not carry
 */
record V1MessageBody(
    Optional<String> device,
    String to,
    boolean group,
    String type,
    String text,
    Optional<String> link,
    Optional<String> filename,
    Optional<MessageContent> content) {

  /** The Cloud API's kinds the core carries today. */
  static final List<String> CARRIED = List.of("text", "image", "document");

  /** The Cloud API's other kinds: read whole into {@link #content}. */
  static final List<String> NOT_CARRIED =
      List.of(
          "video",
          "audio",
          "sticker",
          "location",
          "contacts",
          "interactive",
          "template",
          "reaction");

  private static final int MAX_FILENAME = 240;

  /**
   * The request's message object, or a 400/422 saying what is wrong with it; {@code json} is the
   * request's JSON body (empty for a form body, which carries only what {@link #CARRIED} names).
   */
  static V1MessageBody parse(RequestFields f, Optional<JsonNode> json) {
    String to = f.text("to").map(String::strip).orElseThrow(() -> ApiException.fieldEmpty("to"));
    String type =
        f.text("type")
            .map(t -> t.strip().toLowerCase(Locale.ROOT))
            .orElseThrow(() -> ApiException.fieldEmpty("type"));
    boolean group =
        f.text("recipient_type").map(r -> r.strip().equalsIgnoreCase("group")).orElse(false)
            || to.endsWith("@g.us");
    Optional<String> device = f.text("device").map(String::strip);
    if (NOT_CARRIED.contains(type) || f.text("context.message_id").isPresent()) {
      JsonNode object =
          json.orElseThrow(
              () ->
                  ApiException.fieldNotValid(
                      "type", "a message of type " + type + " or with context is sent as JSON"));
      MessageContent content = CloudMessageJson.parse(object);
      return new V1MessageBody(
          device,
          to,
          group,
          type,
          content.content().summary(),
          Optional.empty(),
          Optional.empty(),
          Optional.of(content));
    }
    return switch (type) {
      case "text" -> {
        String body = f.text("text.body").orElseThrow(() -> ApiException.fieldEmpty("text.body"));
        yield new V1MessageBody(
            device, to, group, type, body, Optional.empty(), Optional.empty(), Optional.empty());
      }
      case "image", "document" -> {
        if (f.text(type + ".id").isPresent() && f.text(type + ".link").isEmpty()) {
          throw new ApiException(
              422,
              "media_id_not_supported",
              "send the " + type + " by its link; uploaded media ids are not carried yet");
        }
        String link =
            f.text(type + ".link")
                .map(String::strip)
                .orElseThrow(() -> ApiException.fieldEmpty(type + ".link"));
        Optional<String> filename =
            type.equals("document")
                ? f.text("document.filename").map(String::strip)
                : Optional.empty();
        if (filename.isPresent()
            && (filename.get().length() > MAX_FILENAME || filename.get().matches(".*[/\\\\].*"))) {
          throw ApiException.fieldNotValid(
              "document.filename", "a file name of up to 240 characters, without / or \\");
        }
        yield new V1MessageBody(
            device,
            to,
            group,
            type,
            f.text(type + ".caption").orElse(""),
            Optional.of(link),
            filename,
            Optional.empty());
      }
      default ->
          throw ApiException.fieldNotValid(
              "type",
              "type is one of "
                  + CARRIED
                  + " or "
                  + NOT_CARRIED
                  + " (the Cloud API's message types)");
    };
  }

  /** The core's kind: a document is a {@code file}. */
  String kind() {
    return type.equals("document") ? "file" : type;
  }
}
