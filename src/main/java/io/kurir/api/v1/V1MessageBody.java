package io.kurir.api.v1;

import io.kurir.api.ApiException;
import io.kurir.api.RequestFields;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The body of {@code POST /v1/messages}, read in one place: the Cloud API's message object ({@code
 * to}, {@code type} and an object of that type; {@code recipient_type} {@code group} for a group)
 * with Kurir's {@code device}. The kinds the core carries today are read here ({@link #CARRIED});
 * every other kind of the Cloud API is refused with 422 {@code kind_not_supported} naming it, and a
 * name that is no kind with 400 {@code type_not_valid}. A new kind is one more case in {@link
 * #parse}.
 *
 * @param device the device named by its id or number, if the caller named one
 * @param to the recipient as the caller wrote it (read by the handler: a number or a group id)
 * @param group whether {@code to} is a group ({@code recipient_type: group}, or an id ending in
 *     {@code @g.us})
 * @param type the Cloud API's type: {@code text}, {@code image} or {@code document}
 * @param text the text, or the media's caption
 * @param link where to fetch the image or document from
 * @param filename the document's file name shown to the recipient, if given
 */
record V1MessageBody(
    Optional<String> device,
    String to,
    boolean group,
    String type,
    String text,
    Optional<String> link,
    Optional<String> filename) {

  /** The Cloud API's kinds the core carries today. */
  static final List<String> CARRIED = List.of("text", "image", "document");

  /** The Cloud API's other kinds: known, refused with 422 until the core carries them. */
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

  /** The request's message object, or a 400/422 saying what is wrong with it. */
  static V1MessageBody parse(RequestFields f) {
    String to = f.text("to").map(String::strip).orElseThrow(() -> ApiException.fieldEmpty("to"));
    String type =
        f.text("type")
            .map(t -> t.strip().toLowerCase(Locale.ROOT))
            .orElseThrow(() -> ApiException.fieldEmpty("type"));
    boolean group =
        f.text("recipient_type").map(r -> r.strip().equalsIgnoreCase("group")).orElse(false)
            || to.endsWith("@g.us");
    if (f.text("context.message_id").isPresent()) {
      throw new ApiException(
          422,
          "context_not_supported",
          "replies (context.message_id) are not carried yet; send without context");
    }
    Optional<String> device = f.text("device").map(String::strip);
    return switch (type) {
      case "text" -> {
        String body = f.text("text.body").orElseThrow(() -> ApiException.fieldEmpty("text.body"));
        yield new V1MessageBody(device, to, group, type, body, Optional.empty(), Optional.empty());
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
            filename);
      }
      default -> {
        if (NOT_CARRIED.contains(type)) {
          throw new ApiException(
              422,
              "kind_not_supported",
              "messages of type '"
                  + type
                  + "' are not carried yet; this gateway carries "
                  + CARRIED);
        }
        throw ApiException.fieldNotValid(
            "type", "type is one of " + CARRIED + " (the Cloud API's message types)");
      }
    };
  }

  /** The core's kind: a document is a {@code file}. */
  String kind() {
    return type.equals("document") ? "file" : type;
  }
}
