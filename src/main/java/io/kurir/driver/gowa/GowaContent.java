package io.kurir.driver.gowa;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.content.Content;
import io.kurir.content.MessageContent;
import io.kurir.content.MessageKind;
import io.kurir.content.VCards;
import io.kurir.driver.Capabilities;
import io.kurir.driver.OutgoingMessage;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A message of Kurir's own API as GOWA's send routes take it, and what its webhook says of one
 * received ({@code aldinokemal/go-whatsapp-web-multidevice} at {@code 51f7b19}: docs/openapi.yaml,
 * {@code src/domains/send}, {@code src/domains/message}, {@code src/validations}): a text to {@code
 * /send/message} ({@code phone}, {@code message}, {@code reply_message_id}, {@code mentions}), a
 * location to {@code /send/location} ({@code latitude}, {@code longitude}: strings, checked as
 * coordinates), one contact to {@code /send/contact} ({@code contact_name}, {@code contact_phone},
 * both required), a reaction to {@code /message/{message_id}/reaction} ({@code phone}, {@code
 * emoji}); the media kinds uploaded as multipart to {@code /send/image} ({@code image}, {@code
 * caption}), {@code /send/video} ({@code video}, {@code caption}), {@code /send/audio} ({@code
 * audio}, {@code ptt}), {@code /send/file} ({@code file}, {@code caption}) and {@code
 * /send/sticker} ({@code sticker}), with {@code reply_message_id} on all but stickers ({@code
 * src/domains/send/{image,video,audio,file,sticker}.go}, {@code src/ui/rest/send.go}).
 */
final class GowaContent {
  private GowaContent() {}

  /**
   * What the GOWA driver carries of Kurir's API: text, location, one contact, reactions, and the
   * media kinds, whose files Kurir fetches itself ({@link GowaDriver#takesMediaLinks}) and uploads:
   * GOWA would otherwise fetch a caller's {@code *_url} from inside the operator's network. Not
   * interactive messages or templates (no such route, or the Cloud API's alone). Replies: on texts
   * and media but stickers (their requests have {@code reply_message_id}); mentions on texts
   * ({@code /send/message} alone has the field). Edits, revoke, read marks and typing: {@link
   * GowaActions}.
   */
  static final Capabilities CAPABILITIES =
      new Capabilities(
          EnumSet.of(
              MessageKind.TEXT,
              MessageKind.IMAGE,
              MessageKind.VIDEO,
              MessageKind.AUDIO,
              MessageKind.DOCUMENT,
              MessageKind.STICKER,
              MessageKind.LOCATION,
              MessageKind.CONTACTS,
              MessageKind.REACTION),
          true,
          true,
          true,
          true,
          true,
          true,
          true);

  /**
   * The part types GOWA takes for each media kind, as its validations check the part's {@code
   * Content-Type} ({@code src/validations/send_validation.go}: {@code ValidateSendVideo}, {@code
   * ValidateSendAudio}, {@code ValidateSendSticker}), in the names Kurir reads from a file's bytes:
   * an {@code audio/mp4} recording goes as GOWA's {@code audio/m4a}. An image of Kurir's API must
   * be JPEG or PNG ({@code ValidateSendImage}); that is checked when it is sent, for the seed
   * families' images of other types go, as before, as files.
   */
  static final Map<String, Set<String>> PART_TYPES =
      Map.of(
          "video",
          Set.of("video/mp4", "video/x-matroska", "video/avi", "video/x-msvideo"),
          "audio",
          Set.of(
              "audio/aac",
              "audio/amr",
              "audio/flac",
              "audio/mp4",
              "audio/mpeg",
              "audio/ogg",
              "audio/wav"),
          "sticker",
          Set.of("image/jpeg", "image/png", "image/webp", "image/gif"));

  /** A file uploaded with a request: its part's field, file name, type and where its bytes are. */
  record Upload(String field, String fileName, String type, Path path) {}

  /**
   * A request to GOWA: its path and body, JSON; or, with {@code upload}, multipart, the body's
   * fields as text parts beside the file.
   */
  record Request(String path, ObjectNode body, Optional<Upload> upload) {
    Request(String path, ObjectNode body) {
      this(path, body, Optional.empty());
    }

    /** The body's fields as multipart text fields, in order. */
    Map<String, String> fields() {
      Map<String, String> fields = new LinkedHashMap<>();
      body.fields().forEachRemaining(f -> fields.put(f.getKey(), f.getValue().asText()));
      return fields;
    }
  }

  /**
   * Why GOWA's requests cannot hold {@code content} although GOWA carries its kind: a reply on a
   * kind whose request has no {@code reply_message_id}, mentions on anything but a text, a contact
   * message of more than one card or a card of more than one phone. Asked at accept ({@link
   * GowaDriver#refusalOf}) and again when sent.
   */
  static Optional<String> refusalOf(MessageContent content) {
    boolean replies =
        switch (content.content()) {
          case Content.Text t -> true;
          case Content.Image i -> true;
          case Content.Video v -> true;
          case Content.Audio a -> true;
          case Content.Document d -> true;
          default -> false;
        };
    if (content.replyTo().isPresent() && !replies) {
      return Optional.of(
          "GOWA takes a reply only with a text or a media message but a sticker, not a "
              + content.kind());
    }
    if (!(content.content() instanceof Content.Text) && !content.mentions().isEmpty()) {
      return Optional.of(
          "GOWA takes mentions only with a text (/send/message), not a " + content.kind());
    }
    if (content.content() instanceof Content.Contacts c
        && (c.cards().size() != 1 || Content.Contacts.phones(c.cards().get(0)).size() != 1)) {
      return Optional.of("GOWA sends one contact with one phone (/send/contact)");
    }
    return Optional.empty();
  }

  /** The request that sends {@code content} to {@code phone} (a JID), or why it cannot go. */
  static Request request(String phone, MessageContent content) throws Unsendable {
    return request(phone, content, Optional.empty());
  }

  /**
   * The request that sends {@code content} to {@code phone} (a JID), with {@code file} the media
   * kind's file Kurir fetched or kept, or why it cannot go.
   */
  static Request request(
      String phone, MessageContent content, Optional<OutgoingMessage.Attachment> file)
      throws Unsendable {
    ObjectNode body = GowaApi.JSON.createObjectNode();
    body.put("phone", phone);
    Optional<String> refusal = refusalOf(content);
    if (refusal.isPresent()) {
      throw new Unsendable(refusal.get());
    }
    return switch (content.content()) {
      case Content.Text t -> {
        body.put("message", t.body());
        content.replyTo().ifPresent(id -> body.put("reply_message_id", id));
        if (!content.mentions().isEmpty()) {
          var mentions = body.putArray("mentions");
          content.mentions().forEach(m -> mentions.add(m.replaceAll("\\D", "")));
        }
        yield new Request("/send/message", body);
      }
      case Content.Location l -> {
        body.put("latitude", Double.toString(l.latitude()));
        body.put("longitude", Double.toString(l.longitude()));
        yield new Request("/send/location", body);
      }
      case Content.Contacts c -> {
        JsonNode cards = c.cards();
        if (cards.size() != 1 || Content.Contacts.phones(cards.get(0)).size() != 1) {
          throw new Unsendable("GOWA sends one contact with one phone (/send/contact)");
        }
        body.put("contact_name", c.names().getFirst());
        // International digits: GOWA refuses a local 0… number and builds the vCard's waid itself.
        body.put(
            "contact_phone",
            Content.Contacts.phones(cards.get(0)).getFirst().replaceAll("\\D", ""));
        yield new Request("/send/contact", body);
      }
      case Content.Reaction r -> {
        body.put("emoji", r.emoji());
        yield new Request("/message/" + GowaApi.enc(r.messageId()) + "/reaction", body);
      }
      case Content.Image i -> {
        Upload upload = upload("image", content, file, "");
        caption(body, i.caption());
        content.replyTo().ifPresent(id -> body.put("reply_message_id", id));
        if (!upload.type().equals("image/jpeg") && !upload.type().equals("image/png")) {
          // GOWA shows only JPEG and PNG as pictures (ValidateSendImage); others go as files, as
          // the seed families' images always have, and as /v1 sends an image without a reply.
          yield new Request(
              "/send/file",
              body,
              Optional.of(new Upload("file", upload.fileName(), upload.type(), upload.path())));
        }
        yield new Request("/send/image", body, Optional.of(upload));
      }
      case Content.Video v -> {
        caption(body, v.caption());
        content.replyTo().ifPresent(id -> body.put("reply_message_id", id));
        yield new Request("/send/video", body, Optional.of(upload("video", content, file, "")));
      }
      case Content.Audio a -> {
        // A voice note (WhatsApp's PTT): GOWA converts it to OGG/Opus when it is not already.
        body.put("ptt", Boolean.toString(a.voice()));
        content.replyTo().ifPresent(id -> body.put("reply_message_id", id));
        yield new Request("/send/audio", body, Optional.of(upload("audio", content, file, "")));
      }
      case Content.Document d -> {
        caption(body, d.caption());
        content.replyTo().ifPresent(id -> body.put("reply_message_id", id));
        // GOWA shows the part's file name: the caller's filename, else the file's own.
        yield new Request(
            "/send/file", body, Optional.of(upload("file", content, file, d.filename())));
      }
      case Content.Sticker st ->
          new Request("/send/sticker", body, Optional.of(upload("sticker", content, file, "")));
      default -> throw new Unsendable("the gowa driver cannot carry " + content.kind());
    };
  }

  private static void caption(ObjectNode body, String caption) {
    if (!caption.isEmpty()) {
      body.put("caption", caption);
    }
  }

  /**
   * The upload of a media kind's file in part {@code field}: the file Kurir fetched (or kept, for
   * an uploaded media id), named {@code fileName} when given, of the type GOWA's validation takes.
   */
  private static Upload upload(
      String field,
      MessageContent content,
      Optional<OutgoingMessage.Attachment> file,
      String fileName)
      throws Unsendable {
    if (file.isEmpty()) {
      // Not expected: the core fetches a link for this driver before it sends.
      throw new Unsendable(
          "GOWA is sent the " + content.kind() + "'s file, and Kurir had none to upload");
    }
    OutgoingMessage.Attachment a = file.get();
    String type = a.mimeType().split(";")[0].strip().toLowerCase(Locale.ROOT);
    if (type.equals("audio/mp4")) {
      type = "audio/m4a"; // GOWA's name for an MPEG-4 audio part
    }
    return new Upload(field, fileName.isEmpty() ? a.name() : fileName, type, a.path());
  }

  /**
   * What an incoming {@code message} payload says beyond its text and file, as GOWA writes it
   * ({@code docs/webhook-payload.md}, "Special Message Types"; {@code
   * src/infrastructure/whatsapp/event_message.go} {@code buildOtherMessageTypes}): a {@code
   * location} or {@code live_location} (whatsmeow's {@code LocationMessage}: {@code
   * degreesLatitude}, {@code degreesLongitude}, {@code name}, {@code address}), one {@code contact}
   * or a {@code contacts_array} ({@code {displayName, vcard, phone_number}} each). Empty for
   * anything else.
   */
  static Optional<Content> incomingKind(JsonNode payload) {
    JsonNode location =
        payload.path("location").isObject()
            ? payload.path("location")
            : payload.path("live_location");
    if (location.isObject()
        && location.path("degreesLatitude").isNumber()
        && location.path("degreesLongitude").isNumber()) {
      return Optional.of(
          new Content.Location(
              location.path("degreesLatitude").asDouble(),
              location.path("degreesLongitude").asDouble(),
              location.path("name").asText(""),
              location.path("address").asText("")));
    }
    ArrayNode cards = GowaApi.JSON.createArrayNode();
    if (payload.path("contact").isObject()) {
      cards.add(card(payload.path("contact")));
    }
    for (JsonNode c : payload.path("contacts_array")) {
      cards.add(card(c));
    }
    return cards.isEmpty() ? Optional.empty() : Optional.of(new Content.Contacts(cards));
  }

  /** A shared contact as a Cloud API card: its vCard, else its display name and phone. */
  private static ObjectNode card(JsonNode contact) {
    ObjectNode card = VCards.card(contact.path("vcard").asText(""));
    if (card.path("name").path("formatted_name").asText("").isEmpty()) {
      card.putObject("name").put("formatted_name", contact.path("displayName").asText(""));
    }
    String phone = contact.path("phone_number").asText("");
    if (card.path("phones").isEmpty() && !phone.isEmpty()) {
      ((ArrayNode) card.path("phones")).addObject().put("phone", phone);
    }
    return card;
  }

  /**
   * The message an incoming one replies to: GOWA's {@code replied_to_id} (WhatsApp's id of the
   * quoted message), if any.
   */
  static Optional<String> repliedTo(JsonNode payload) {
    return Optional.of(payload.path("replied_to_id").asText("")).filter(id -> !id.isBlank());
  }

  /**
   * A {@code message.reaction} payload as a reaction: {@code reaction} the emoji ("" takes it
   * away), {@code reacted_message_id} the message it is on ({@code event_message.go}).
   */
  static Optional<Content.Reaction> incomingReaction(JsonNode payload) {
    String on = payload.path("reacted_message_id").asText("");
    return on.isBlank()
        ? Optional.empty()
        : Optional.of(new Content.Reaction(on, payload.path("reaction").asText("")));
  }

  /** A message GOWA cannot be asked to send, and why. */
  static final class Unsendable extends Exception {
    Unsendable(String why) {
      super(why);
    }
  }
}
