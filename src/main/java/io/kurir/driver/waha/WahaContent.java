package io.kurir.driver.waha;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.content.Content;
import io.kurir.content.MediaSource;
import io.kurir.content.MessageContent;
import io.kurir.content.MessageKind;
import io.kurir.driver.Capabilities;
import java.net.URI;
import java.net.URLConnection;
import java.util.EnumSet;
import java.util.Optional;

/**
 * A message of Kurir's own API as WAHA's send requests take it (WAHA OpenAPI 2026.7.1, {@code
 * devlikeapro/waha-docs} {@code static/swagger/openapi.json} at {@code 1a6f1c4}): each kind to its
 * endpoint with the body its schema names, a reply by {@code reply_to}. Which kinds every engine
 * sends is docs how-to/send-messages/features.md: text, image, file, voice, video, location,
 * reaction and contact vCard on WEBJS, NOWEB and GOWS alike.
 */
final class WahaContent {
  private WahaContent() {}

  /**
   * What the WAHA driver carries, the same on every engine flavour: the endpoints above are marked
   * on WEBJS, NOWEB and GOWS in WAHA's table. Not carried: stickers (no send endpoint), templates
   * (the Cloud API's alone), interactive messages (WAHA's {@code sendList} is NOWEB and GOWS only
   * and {@code send/buttons/reply} WEBJS only; neither is mapped yet), mentions ({@code
   * MessageTextRequest} has no field for them in this OpenAPI). Edits, revoke, read marks and
   * typing: {@link WahaActions}.
   */
  static final Capabilities CAPABILITIES =
      new Capabilities(
          EnumSet.of(
              MessageKind.TEXT,
              MessageKind.IMAGE,
              MessageKind.VIDEO,
              MessageKind.AUDIO,
              MessageKind.DOCUMENT,
              MessageKind.LOCATION,
              MessageKind.CONTACTS,
              MessageKind.REACTION),
          true,
          true,
          false,
          true,
          true,
          true,
          true);

  /** A request to the engine: its method, path and JSON body. */
  record Request(String method, String path, ObjectNode body) {}

  /**
   * The request that sends {@code content} to {@code chatId} from {@code session}, or why it cannot
   * go (a file named by an id WAHA does not hold).
   */
  static Request request(String session, String chatId, MessageContent content, boolean preview)
      throws Unsendable {
    ObjectNode body = WahaApi.JSON.createObjectNode();
    body.put("session", session);
    if (!(content.content() instanceof Content.Reaction)) {
      body.put("chatId", chatId);
      content.replyTo().ifPresent(id -> body.put("reply_to", id));
    }
    String path =
        switch (content.content()) {
          case Content.Text t -> {
            body.put("text", t.body());
            body.put("linkPreview", preview && t.previewUrl() && t.body().contains("://"));
            yield "/api/sendText";
          }
          case Content.Image i -> {
            file(body, i.source(), "image/jpeg");
            caption(body, i.caption());
            yield "/api/sendImage";
          }
          case Content.Document d -> {
            ObjectNode file = file(body, d.source(), "application/octet-stream");
            if (!d.filename().isEmpty()) {
              file.put("filename", d.filename());
            }
            caption(body, d.caption());
            yield "/api/sendFile";
          }
          case Content.Video v -> {
            ObjectNode file = file(body, v.source(), "video/mp4");
            // MessageVideoRequest requires convert: asked only when the file is not already mp4.
            body.put("convert", !file.path("mimetype").asText().equals("video/mp4"));
            caption(body, v.caption());
            yield "/api/sendVideo";
          }
          case Content.Audio a -> {
            ObjectNode file = file(body, a.source(), "audio/ogg; codecs=opus");
            // WhatsApp plays a voice note only as OGG/Opus; anything else WAHA converts.
            body.put("convert", !file.path("mimetype").asText().startsWith("audio/ogg"));
            yield "/api/sendVoice";
          }
          case Content.Location l -> {
            body.put("latitude", l.latitude());
            body.put("longitude", l.longitude());
            body.put("title", l.name().isEmpty() ? l.address() : l.name());
            yield "/api/sendLocation";
          }
          case Content.Contacts c -> {
            ArrayNode contacts = body.putArray("contacts");
            for (JsonNode card : c.cards()) {
              contacts.add(contact(card));
            }
            yield "/api/sendContactVcard";
          }
          case Content.Reaction r -> {
            body.put("messageId", r.messageId());
            body.put("reaction", r.emoji());
            yield "/api/reaction";
          }
          default -> throw new Unsendable("the waha driver cannot carry " + content.kind());
        };
    return new Request(path.equals("/api/reaction") ? "PUT" : "POST", path, body);
  }

  /**
   * Why WAHA cannot be sent {@code content} although it carries its kind: a file named by a media
   * id (an upload to the Cloud API's door) rather than a link, since WAHA fetches files by link and
   * holds no such media. Asked at accept ({@link WahaDriver#refusalOf}) and again when sent.
   */
  static java.util.Optional<String> refusalOf(MessageContent content) {
    MediaSource source =
        switch (content.content()) {
          case Content.Image i -> i.source();
          case Content.Video v -> v.source();
          case Content.Audio a -> a.source();
          case Content.Document d -> d.source();
          default -> null;
        };
    return source != null && source.link().isEmpty()
        ? java.util.Optional.of("WAHA fetches a file by its link; a media id names none it holds")
        : java.util.Optional.empty();
  }

  /** A file named by {@code link} (WAHA's {@code RemoteFile}: {@code mimetype} and {@code url}). */
  private static ObjectNode file(ObjectNode body, MediaSource source, String fallbackType)
      throws Unsendable {
    if (source.link().isEmpty()) {
      throw new Unsendable("WAHA fetches a file by its link; a media id names none it holds");
    }
    String url = source.link().get();
    ObjectNode file = body.putObject("file");
    file.put("mimetype", mimeType(url).orElse(fallbackType));
    file.put("url", url);
    return file;
  }

  /** The type the link's file name says, if any (WAHA requires one with the link). */
  private static Optional<String> mimeType(String url) {
    String path;
    try {
      path = URI.create(url).getPath();
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    if (path == null) {
      return Optional.empty();
    }
    if (path.endsWith(".ogg") || path.endsWith(".opus")) {
      return Optional.of("audio/ogg; codecs=opus"); // not in the JDK's table
    }
    return Optional.ofNullable(URLConnection.guessContentTypeFromName(path));
  }

  private static void caption(ObjectNode body, String caption) {
    if (!caption.isEmpty()) {
      body.put("caption", caption);
    }
  }

  /**
   * A Cloud API contact card as WAHA's {@code Contact}: {@code fullName}, {@code phoneNumber} (the
   * first phone), {@code whatsappId}, {@code organization}, and {@code vcard}, which the schema
   * requires, written by Kurir from the card.
   */
  private static ObjectNode contact(JsonNode card) {
    ObjectNode c = WahaApi.JSON.createObjectNode();
    String name = card.path("name").path("formatted_name").asText("");
    JsonNode phone = card.path("phones").path(0);
    String number = phone.path("phone").asText("");
    String waId = phone.path("wa_id").asText(number.replaceAll("\\D", ""));
    String org = card.path("org").path("company").asText("");
    c.put("fullName", name);
    c.put("phoneNumber", number);
    c.put("whatsappId", waId);
    if (!org.isEmpty()) {
      c.put("organization", org);
    }
    c.put("vcard", vcard(name, org, card));
    return c;
  }

  /** A vCard 3.0 of the card: its name, organisation and every phone (with WhatsApp's waid). */
  static String vcard(String name, String org, JsonNode card) {
    StringBuilder v = new StringBuilder("BEGIN:VCARD\nVERSION:3.0\n");
    v.append("FN:").append(escape(name)).append('\n');
    if (!org.isEmpty()) {
      v.append("ORG:").append(escape(org)).append(";\n");
    }
    for (JsonNode p : card.path("phones")) {
      String number = p.path("phone").asText("");
      String waId = p.path("wa_id").asText(number.replaceAll("\\D", ""));
      v.append("TEL;type=")
          .append(p.path("type").asText("CELL"))
          .append(";waid=")
          .append(waId)
          .append(':')
          .append(number)
          .append('\n');
    }
    return v.append("END:VCARD").toString();
  }

  private static String escape(String s) {
    return s.replace("\\", "\\\\").replace(",", "\\,").replace(";", "\\;").replace("\n", "\\n");
  }

  /**
   * What an incoming {@code message} webhook's {@code WAMessage} says beyond its text and file, in
   * the content model: a {@code location} ({@code WALocation}: {@code latitude}, {@code longitude}
   * as strings, {@code name}, {@code address}), contact cards ({@code vCards}: vCard texts), a
   * sticker ({@link #sticker}), a video or an audio (a voice note: {@link #voice}) by its file's
   * type, and the message it replies to ({@code replyTo.id}). Empty for a text, an image or a file,
   * which {@code IncomingMessage.asContent} reads.
   */
  static Optional<MessageContent> incoming(
      JsonNode payload, String text, Optional<io.kurir.driver.IncomingMessage.Media> media) {
    Optional<String> replyTo =
        Optional.of(payload.path("replyTo").path("id").asText("")).filter(id -> !id.isBlank());
    Content content = null;
    JsonNode location = payload.path("location");
    JsonNode vcards = payload.path("vCards");
    if (location.isObject()) {
      try {
        content =
            new Content.Location(
                Double.parseDouble(location.path("latitude").asText()),
                Double.parseDouble(location.path("longitude").asText()),
                location.path("name").asText(""),
                location.path("address").asText(""));
      } catch (NumberFormatException e) {
        content = null; // no coordinates: kept as its text
      }
    } else if (vcards.isArray() && !vcards.isEmpty()) {
      ArrayNode cards = WahaApi.JSON.createArrayNode();
      vcards.forEach(v -> cards.add(io.kurir.content.VCards.card(v.asText(""))));
      content = new Content.Contacts(cards);
    } else if (media.isPresent() && sticker(payload, media.get())) {
      content = new Content.Sticker(MediaSource.NONE, animated(payload));
    } else if (media.isPresent() && media.get().mimeType().startsWith("video/")) {
      content = new Content.Video(MediaSource.NONE, text);
    } else if (media.isPresent() && media.get().mimeType().startsWith("audio/")) {
      content = new Content.Audio(MediaSource.NONE, voice(payload));
    }
    if (content == null && replyTo.isEmpty()) {
      return Optional.empty();
    }
    if (content == null) { // a reply: a text, an image or a file
      content =
          media.isEmpty()
              ? new Content.Text(text, false)
              : media.get().kind().equals("image")
                  ? new Content.Image(MediaSource.NONE, text)
                  : new Content.Document(
                      MediaSource.NONE, text, media.get().path().getFileName().toString());
    }
    return Optional.of(new MessageContent(content, replyTo, java.util.List.of()));
  }

  /**
   * Whether an incoming file is a sticker. {@code WAMessage} has no type of its own: the engine's
   * message in {@code _data} says it, in each engine's shape: WEBJS whatsapp-web.js' {@code
   * rawData.type} {@code sticker} ({@code core/engines/webjs/session.webjs.core.ts}: {@code _data:
   * message.rawData}), NOWEB Baileys' {@code message.stickerMessage} ({@code
   * core/engines/noweb/session.noweb.core.ts} {@code toWAMessage}: {@code _data: message}), GOWS
   * whatsmeow's {@code Message.stickerMessage} or {@code Info.MediaType} {@code sticker}; else a
   * WebP file, which WhatsApp sends only as a sticker.
   */
  static boolean sticker(JsonNode payload, io.kurir.driver.IncomingMessage.Media media) {
    JsonNode data = payload.path("_data");
    return data.path("type").asText("").equals("sticker")
        || data.path("message").has("stickerMessage")
        || data.path("Message").has("stickerMessage")
        || data.path("Info").path("MediaType").asText("").equals("sticker")
        || media.mimeType().startsWith("image/webp");
  }

  /** Whether a sticker is animated, where the engine's message says it. */
  private static boolean animated(JsonNode payload) {
    JsonNode data = payload.path("_data");
    return data.path("message").path("stickerMessage").path("isAnimated").asBoolean(false)
        || data.path("Message").path("stickerMessage").path("isAnimated").asBoolean(false)
        || data.path("isAnimated").asBoolean(false);
  }

  /**
   * Whether an incoming audio is a voice note (WhatsApp's push-to-talk), by the engine's message in
   * {@code _data}: WEBJS {@code type} {@code ptt}, NOWEB {@code message.audioMessage.ptt}, GOWS
   * {@code Message.audioMessage.PTT} or {@code Info.MediaType} {@code ptt}. Without it, an audio
   * file.
   */
  static boolean voice(JsonNode payload) {
    JsonNode data = payload.path("_data");
    return data.path("type").asText("").equals("ptt")
        || data.path("message").path("audioMessage").path("ptt").asBoolean(false)
        || data.path("Message").path("audioMessage").path("PTT").asBoolean(false)
        || data.path("Info").path("MediaType").asText("").equals("ptt");
  }

  /**
   * A {@code message.reaction} event's {@code WAMessageReaction}: {@code reaction.text} the emoji
   * ("" when taken away), {@code reaction.messageId} the message it is on (docs how-to/events,
   * "message.reaction"; the same on WEBJS, NOWEB and GOWS).
   */
  static Optional<Content.Reaction> incomingReaction(JsonNode payload) {
    JsonNode r = payload.path("reaction");
    String on = r.path("messageId").asText("");
    return on.isBlank()
        ? Optional.empty()
        : Optional.of(new Content.Reaction(on, r.path("text").asText("")));
  }

  /** A message WAHA cannot be asked to send, and why. */
  static final class Unsendable extends Exception {
    Unsendable(String why) {
      super(why);
    }
  }
}
