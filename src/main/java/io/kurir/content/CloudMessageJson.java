package io.kurir.content;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The Cloud API's message object, read and written: the one place that knows its JSON shape, shared
 * by Kurir's own API ({@code POST /v1/messages}), the Cloud API driver and the stores. Field names
 * and limits are Meta's: business-messaging-api_v23.0.yaml ({@code Message} and its kinds, {@code
 * MediaObject}, {@code InteractiveObject}, {@code ActionObject}, {@code SectionObject}, {@code
 * ContactObject}, {@code TemplateObject}, {@code MessageContext}; the webhook's {@code
 * IncomingMessage}) and developers.facebook.com/docs/whatsapp/cloud-api/reference/messages (text up
 * to 4096 characters).
 *
 * <ul>
 *   <li>{@link #parse} reads a message object a caller wrote ({@code type}, the kind's object,
 *       {@code context}, Kurir's {@code mentions}) and refuses what Meta would refuse ({@link
 *       ContentRefused});
 *   <li>{@link #write} writes it back in the same shape (what Kurir's API and its stores show);
 *   <li>{@link #graphRequest} writes the fields of Meta's send request for it, without Kurir's
 *       additions ({@code mentions}, {@code voice}): the Cloud API driver adds {@code
 *       messaging_product}, {@code recipient_type} and {@code to};
 *   <li>{@link #readIncoming} reads a message of Meta's webhook ({@code value.messages[]});
 *   <li>{@link #fromStored} / {@link #toStored} keep content in a text column.
 * </ul>
 *
 * Stateless and thread-safe.
 */
public final class CloudMessageJson {
  private CloudMessageJson() {}

  /** Meta's longest text body. */
  public static final int TEXT_MAX = 4096;

  private static final int CAPTION_MAX = 1024;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  // ---- reading what a caller wrote ----

  /**
   * The content of the message object {@code message}: its {@code type}, the kind's object named
   * after it, {@code context.message_id} and {@code mentions}. Other top-level fields ({@code to},
   * {@code device}, {@code messaging_product}, {@code recipient_type}) are the caller's business.
   *
   * @throws ContentRefused when a field is missing, empty, too long or not what Meta takes
   */
  public static MessageContent parse(JsonNode message) {
    if (message == null || !message.isObject()) {
      throw refused(ContentRefused.Reason.CONTENT_NOT_VALID, "message", "must be a JSON object");
    }
    String type = text(message, "type");
    if (type.isBlank()) {
      throw refused(ContentRefused.Reason.CONTENT_EMPTY, "type", "names the kind of message");
    }
    MessageKind kind =
        MessageKind.ofWireName(type)
            .orElseThrow(
                () ->
                    refused(
                        ContentRefused.Reason.CONTENT_NOT_VALID,
                        "type",
                        "is one of text, image, video, audio, document, sticker, location,"
                            + " contacts, interactive, template, reaction; not "
                            + type));
    JsonNode object = message.get(kind.wireName());
    if (object == null || object.isNull()) {
      throw refused(
          ContentRefused.Reason.CONTENT_EMPTY, kind.wireName(), "holds the " + type + " message");
    }
    Content content = parseObject(kind, object);
    Optional<String> replyTo = Optional.empty();
    JsonNode context = message.get("context");
    if (context != null && !context.isNull()) {
      String id = requiredString(context, "context", "message_id");
      replyTo = Optional.of(id);
    }
    List<String> mentions = new ArrayList<>();
    JsonNode m = message.get("mentions");
    if (m != null && !m.isNull()) {
      if (!m.isArray()) {
        throw refused(ContentRefused.Reason.CONTENT_NOT_VALID, "mentions", "is a list of numbers");
      }
      for (JsonNode n : m) {
        if (!n.isTextual() || n.asText().isBlank()) {
          throw refused(
              ContentRefused.Reason.CONTENT_NOT_VALID, "mentions", "is a list of phone numbers");
        }
        mentions.add(n.asText().strip());
      }
    }
    return new MessageContent(content, replyTo, mentions);
  }

  /** The content of the object {@code object} of kind {@code kind}, checked as {@link #parse}. */
  public static Content parseObject(MessageKind kind, JsonNode object) {
    String at = kind.wireName();
    if (!object.isObject() && !(kind == MessageKind.CONTACTS && object.isArray())) {
      throw refused(ContentRefused.Reason.CONTENT_NOT_VALID, at, "must be a JSON object");
    }
    return switch (kind) {
      case TEXT -> {
        String body = requiredString(object, at, "body");
        maxLength(body, TEXT_MAX, at + ".body");
        yield new Content.Text(body, optionalBoolean(object, at, "preview_url", false));
      }
      case IMAGE -> new Content.Image(source(object, at), caption(object, at));
      case VIDEO -> new Content.Video(source(object, at), caption(object, at));
      case AUDIO ->
          new Content.Audio(source(object, at), optionalBoolean(object, at, "voice", false));
      case DOCUMENT ->
          new Content.Document(
              source(object, at), caption(object, at), optionalString(object, at, "filename"));
      case STICKER -> new Content.Sticker(source(object, at), false);
      case LOCATION ->
          new Content.Location(
              coordinate(object, at, "latitude", 90),
              coordinate(object, at, "longitude", 180),
              optionalString(object, at, "name"),
              optionalString(object, at, "address"));
      case CONTACTS -> contacts(object);
      case INTERACTIVE -> interactive((ObjectNode) object);
      case TEMPLATE -> template((ObjectNode) object);
      case REACTION -> {
        String messageId = requiredString(object, at, "message_id");
        JsonNode emoji = object.get("emoji");
        if (emoji != null && !emoji.isNull() && !emoji.isTextual()) {
          throw refused(ContentRefused.Reason.CONTENT_NOT_VALID, at + ".emoji", "is a string");
        }
        String e = emoji == null ? "" : emoji.asText("").strip();
        if (e.codePointCount(0, e.length()) > 10) {
          throw refused(ContentRefused.Reason.CONTENT_NOT_VALID, at + ".emoji", "is one emoji");
        }
        yield new Content.Reaction(messageId, e);
      }
    };
  }

  private static MediaSource source(JsonNode object, String at) {
    String link = optionalString(object, at, "link");
    String id = optionalString(object, at, "id");
    if (link.isEmpty() == id.isEmpty()) {
      throw refused(
          link.isEmpty()
              ? ContentRefused.Reason.CONTENT_EMPTY
              : ContentRefused.Reason.CONTENT_NOT_VALID,
          at + ".link",
          "names the file: either link (an http or https URL) or id, not both");
    }
    if (!link.isEmpty()) {
      URI uri;
      try {
        uri = URI.create(link);
      } catch (IllegalArgumentException e) {
        throw refused(ContentRefused.Reason.CONTENT_NOT_VALID, at + ".link", "is not a URL");
      }
      if (uri.getScheme() == null
          || !Set.of("http", "https").contains(uri.getScheme().toLowerCase(java.util.Locale.ROOT))
          || uri.getHost() == null) {
        throw refused(
            ContentRefused.Reason.CONTENT_NOT_VALID, at + ".link", "is an http or https URL");
      }
      return MediaSource.link(link);
    }
    return MediaSource.id(id);
  }

  private static String caption(JsonNode object, String at) {
    String caption = optionalString(object, at, "caption");
    maxLength(caption, CAPTION_MAX, at + ".caption");
    return caption;
  }

  private static double coordinate(JsonNode object, String at, String field, int bound) {
    JsonNode n = object.get(field);
    String path = at + "." + field;
    if (n == null || n.isNull() || (n.isTextual() && n.asText().isBlank())) {
      throw refused(ContentRefused.Reason.CONTENT_EMPTY, path, "is required");
    }
    double value;
    if (n.isNumber()) {
      value = n.asDouble();
    } else if (n.isTextual()) {
      // Meta's request schema writes coordinates as strings, its webhook as numbers: take both.
      try {
        value = Double.parseDouble(n.asText().strip());
      } catch (NumberFormatException e) {
        throw refused(ContentRefused.Reason.CONTENT_NOT_VALID, path, "is a number of degrees");
      }
    } else {
      throw refused(ContentRefused.Reason.CONTENT_NOT_VALID, path, "is a number of degrees");
    }
    if (!Double.isFinite(value) || Math.abs(value) > bound) {
      throw refused(
          ContentRefused.Reason.CONTENT_NOT_VALID, path, "is between -" + bound + " and " + bound);
    }
    return value;
  }

  private static Content.Contacts contacts(JsonNode cards) {
    if (!cards.isArray() || cards.isEmpty()) {
      throw refused(ContentRefused.Reason.CONTENT_EMPTY, "contacts", "holds one to five cards");
    }
    if (cards.size() > 5) {
      throw refused(ContentRefused.Reason.CONTENT_NOT_VALID, "contacts", "holds at most 5 cards");
    }
    for (int i = 0; i < cards.size(); i++) {
      JsonNode card = cards.get(i);
      String at = "contacts[" + i + "]";
      if (!card.isObject()) {
        throw refused(ContentRefused.Reason.CONTENT_NOT_VALID, at, "is a contact object");
      }
      requiredString(card.path("name"), at + ".name", "formatted_name");
      JsonNode phones = card.get("phones");
      if (phones != null && !phones.isArray()) {
        throw refused(ContentRefused.Reason.CONTENT_NOT_VALID, at + ".phones", "is a list");
      }
      if (phones != null) {
        for (JsonNode p : phones) {
          requiredString(p, at + ".phones", "phone");
        }
      }
    }
    return new Content.Contacts((ArrayNode) cards);
  }

  private static Content.Interactive interactive(ObjectNode object) {
    String at = "interactive";
    String type = requiredString(object, at, "type");
    String body = requiredString(object.path("body"), at + ".body", "text");
    maxLength(body, 1024, at + ".body.text");
    JsonNode header = object.get("header");
    if (header != null && !header.isNull()) {
      String headerType = requiredString(header, at + ".header", "type");
      if (headerType.equals("text")) {
        maxLength(requiredString(header, at + ".header", "text"), 60, at + ".header.text");
      } else if (Set.of("image", "video", "document").contains(headerType)) {
        source(header.path(headerType), at + ".header." + headerType);
      } else {
        throw refused(
            ContentRefused.Reason.CONTENT_NOT_VALID,
            at + ".header.type",
            "is text, image, video or document");
      }
    }
    JsonNode footer = object.get("footer");
    if (footer != null && !footer.isNull()) {
      maxLength(requiredString(footer, at + ".footer", "text"), 60, at + ".footer.text");
    }
    JsonNode action = object.path("action");
    if (!action.isObject()) {
      throw refused(ContentRefused.Reason.CONTENT_EMPTY, at + ".action", "is required");
    }
    switch (type) {
      case "button" -> buttons(action.path("buttons"), at + ".action.buttons");
      case "list" -> list(action, at + ".action");
      default ->
          throw refused(
              ContentRefused.Reason.CONTENT_NOT_VALID,
              at + ".type",
              "is button (reply buttons) or list; not " + type);
    }
    return new Content.Interactive(object);
  }

  private static void buttons(JsonNode buttons, String at) {
    if (!buttons.isArray() || buttons.isEmpty() || buttons.size() > 3) {
      throw refused(ContentRefused.Reason.CONTENT_NOT_VALID, at, "holds one to three buttons");
    }
    Set<String> ids = new HashSet<>();
    Set<String> titles = new HashSet<>();
    for (JsonNode b : buttons) {
      if (!"reply".equals(b.path("type").asText())) {
        throw refused(ContentRefused.Reason.CONTENT_NOT_VALID, at, "are of type reply");
      }
      String id = requiredString(b.path("reply"), at + ".reply", "id");
      String title = requiredString(b.path("reply"), at + ".reply", "title");
      maxLength(id, 256, at + ".reply.id");
      maxLength(title, 20, at + ".reply.title");
      if (!ids.add(id) || !titles.add(title)) {
        throw refused(
            ContentRefused.Reason.CONTENT_NOT_VALID, at, "have distinct ids and distinct titles");
      }
    }
  }

  private static void list(JsonNode action, String at) {
    maxLength(requiredString(action, at, "button"), 20, at + ".button");
    JsonNode sections = action.path("sections");
    if (!sections.isArray() || sections.isEmpty() || sections.size() > 10) {
      throw refused(
          ContentRefused.Reason.CONTENT_NOT_VALID, at + ".sections", "holds one to ten sections");
    }
    int rows = 0;
    Set<String> ids = new HashSet<>();
    for (JsonNode s : sections) {
      String title = s.path("title").asText("");
      if (sections.size() > 1 && title.isBlank()) {
        throw refused(
            ContentRefused.Reason.CONTENT_EMPTY,
            at + ".sections.title",
            "is required when there are several sections");
      }
      maxLength(title, 24, at + ".sections.title");
      JsonNode r = s.path("rows");
      if (!r.isArray() || r.isEmpty()) {
        throw refused(ContentRefused.Reason.CONTENT_EMPTY, at + ".sections.rows", "has rows");
      }
      for (JsonNode row : r) {
        String id = requiredString(row, at + ".sections.rows", "id");
        maxLength(id, 200, at + ".sections.rows.id");
        maxLength(
            requiredString(row, at + ".sections.rows", "title"), 24, at + ".sections.rows.title");
        maxLength(row.path("description").asText(""), 72, at + ".sections.rows.description");
        if (!ids.add(id)) {
          throw refused(
              ContentRefused.Reason.CONTENT_NOT_VALID, at + ".sections.rows.id", "is unique");
        }
        rows++;
      }
    }
    if (rows > 10) {
      throw refused(
          ContentRefused.Reason.CONTENT_NOT_VALID, at + ".sections.rows", "are at most 10 in all");
    }
  }

  private static Content.Template template(ObjectNode object) {
    String name = requiredString(object, "template", "name");
    String language = requiredString(object.path("language"), "template.language", "code");
    JsonNode components = object.get("components");
    if (components != null && !components.isNull() && !components.isArray()) {
      throw refused(ContentRefused.Reason.CONTENT_NOT_VALID, "template.components", "is a list");
    }
    return new Content.Template(name, language, object);
  }

  // ---- writing ----

  /**
   * {@code content} as a message object: {@code type}, the kind's object, {@code context} for a
   * reply, {@code mentions} when it mentions anyone. {@link #parse} reads it back as it was.
   */
  public static ObjectNode write(MessageContent content) {
    ObjectNode message = NODES.objectNode();
    message.put("type", content.kind().wireName());
    message.set(content.kind().wireName(), writeObject(content.content(), true));
    content.replyTo().ifPresent(id -> message.putObject("context").put("message_id", id));
    if (!content.mentions().isEmpty()) {
      ArrayNode m = message.putArray("mentions");
      content.mentions().forEach(m::add);
    }
    return message;
  }

  /**
   * The fields of Meta's {@code POST /<phone-number-id>/messages} for {@code content}: {@code
   * type}, the kind's object as Meta's request schema has it, and {@code context}. Mentions and the
   * audio's {@code voice} are not in Meta's request and are left out.
   */
  public static ObjectNode graphRequest(MessageContent content) {
    ObjectNode message = NODES.objectNode();
    message.put("type", content.kind().wireName());
    message.set(content.kind().wireName(), writeObject(content.content(), false));
    content.replyTo().ifPresent(id -> message.putObject("context").put("message_id", id));
    return message;
  }

  /** The kind's object alone ({@code {"body": …}} for a text), as {@link #write} writes it. */
  public static JsonNode writeObject(Content content) {
    return writeObject(content, true);
  }

  private static JsonNode writeObject(Content content, boolean kurir) {
    ObjectNode o = NODES.objectNode();
    switch (content) {
      case Content.Text t -> {
        o.put("body", t.body());
        o.put("preview_url", t.previewUrl());
      }
      case Content.Image i -> {
        source(o, i.source());
        putIfNotEmpty(o, "caption", i.caption());
      }
      case Content.Video v -> {
        source(o, v.source());
        putIfNotEmpty(o, "caption", v.caption());
      }
      case Content.Audio a -> {
        source(o, a.source());
        if (kurir) {
          o.put("voice", a.voice());
        }
      }
      case Content.Document d -> {
        source(o, d.source());
        putIfNotEmpty(o, "caption", d.caption());
        putIfNotEmpty(o, "filename", d.filename());
      }
      case Content.Sticker s -> {
        source(o, s.source());
        if (kurir && s.animated()) {
          o.put("animated", true);
        }
      }
      case Content.Location l -> {
        o.put("latitude", l.latitude());
        o.put("longitude", l.longitude());
        putIfNotEmpty(o, "name", l.name());
        putIfNotEmpty(o, "address", l.address());
      }
      case Content.Contacts c -> {
        return c.cards();
      }
      case Content.Interactive i -> {
        return i.object();
      }
      case Content.Template t -> {
        return t.object();
      }
      case Content.Reaction r -> {
        o.put("message_id", r.messageId());
        o.put("emoji", r.emoji());
      }
    }
    return o;
  }

  private static void source(ObjectNode o, MediaSource source) {
    source.link().ifPresent(l -> o.put("link", l));
    source.id().ifPresent(i -> o.put("id", i));
  }

  private static void putIfNotEmpty(ObjectNode o, String field, String value) {
    if (!value.isEmpty()) {
      o.put(field, value);
    }
  }

  // ---- Meta's webhook ----

  /**
   * The content of one message of Meta's webhook ({@code entry[].changes[].value.messages[]}):
   * {@code type} and its object as {@code IncomingMessage} documents it, {@code context.id} as the
   * message it replies to. Media name no source here (the driver downloads the file by Meta's id
   * and keeps it beside the message). A tapped template button ({@code button}: {@code payload},
   * {@code text}) reads as an {@code interactive} {@code button_reply}. Empty for what has no kind
   * of Kurir's ({@code unsupported}, {@code order}, {@code system}, …).
   */
  public static Optional<MessageContent> readIncoming(JsonNode message) {
    String type = message.path("type").asText("");
    Optional<String> replyTo =
        Optional.of(message.path("context").path("id").asText("")).filter(s -> !s.isEmpty());
    if (type.equals("button")) {
      ObjectNode reply = NODES.objectNode();
      reply.put("type", "button_reply");
      reply
          .putObject("button_reply")
          .put("id", message.path("button").path("payload").asText(""))
          .put("title", message.path("button").path("text").asText(""));
      return Optional.of(new MessageContent(new Content.Interactive(reply), replyTo, List.of()));
    }
    Optional<MessageKind> kind = MessageKind.ofWireName(type);
    if (kind.isEmpty() || kind.get() == MessageKind.TEMPLATE) {
      return Optional.empty();
    }
    Content content = lenient(kind.get(), message.path(type), false);
    return Optional.of(new MessageContent(content, replyTo, List.of()));
  }

  // ---- storage ----

  /** {@code content} as the text a store keeps: {@link #write}'s object. */
  public static String toStored(MessageContent content) {
    return write(content).toString();
  }

  /**
   * Content a store kept with {@link #toStored}. Read as written, without {@link #parse}'s checks
   * (what was stored was checked when it came), so that a limit changed later never makes a stored
   * row unreadable.
   */
  public static MessageContent fromStored(String stored) {
    JsonNode message;
    try {
      message = JSON.readTree(stored);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("stored message content is not JSON: " + e.getMessage(), e);
    }
    MessageKind kind =
        MessageKind.ofWireName(message.path("type").asText())
            .orElseThrow(() -> new IllegalStateException("stored content of no known kind"));
    Content content = lenient(kind, message.path(kind.wireName()), true);
    Optional<String> replyTo =
        Optional.of(message.path("context").path("message_id").asText(""))
            .filter(s -> !s.isEmpty());
    List<String> mentions = new ArrayList<>();
    message.path("mentions").forEach(n -> mentions.add(n.asText()));
    return new MessageContent(content, replyTo, mentions);
  }

  /**
   * A kind's object read as it is, without {@link #parse}'s checks: what a store kept, or what
   * Meta's webhook sent. A stored file keeps its {@code link} or {@code id}; an incoming one names
   * none (the driver keeps the file beside the message).
   */
  private static Content lenient(MessageKind kind, JsonNode o, boolean stored) {
    MediaSource source = stored ? storedSource(o) : MediaSource.NONE;
    return switch (kind) {
      case TEXT ->
          new Content.Text(o.path("body").asText(""), o.path("preview_url").asBoolean(false));
      case IMAGE -> new Content.Image(source, o.path("caption").asText(""));
      case VIDEO -> new Content.Video(source, o.path("caption").asText(""));
      case AUDIO -> new Content.Audio(source, o.path("voice").asBoolean(false));
      case DOCUMENT ->
          new Content.Document(source, o.path("caption").asText(""), o.path("filename").asText(""));
      case STICKER -> new Content.Sticker(source, o.path("animated").asBoolean(false));
      case LOCATION ->
          new Content.Location(
              o.path("latitude").asDouble(),
              o.path("longitude").asDouble(),
              o.path("name").asText(""),
              o.path("address").asText(""));
      case CONTACTS -> new Content.Contacts(o.isArray() ? (ArrayNode) o : NODES.arrayNode());
      case INTERACTIVE ->
          new Content.Interactive(o.isObject() ? (ObjectNode) o : NODES.objectNode());
      case TEMPLATE ->
          new Content.Template(
              o.path("name").asText(""),
              o.path("language").path("code").asText(""),
              o.isObject() ? (ObjectNode) o : NODES.objectNode());
      case REACTION ->
          new Content.Reaction(o.path("message_id").asText(""), o.path("emoji").asText(""));
    };
  }

  private static MediaSource storedSource(JsonNode o) {
    return new MediaSource(
        Optional.of(o.path("link").asText("")).filter(s -> !s.isEmpty()),
        Optional.of(o.path("id").asText("")).filter(s -> !s.isEmpty()));
  }

  // ---- checks ----

  private static String text(JsonNode o, String field) {
    JsonNode n = o.get(field);
    return n == null || !n.isTextual() ? "" : n.asText();
  }

  private static String requiredString(JsonNode o, String at, String field) {
    JsonNode n = o.get(field);
    String path = at + "." + field;
    if (n == null || n.isNull() || (n.isTextual() && n.asText().isBlank())) {
      throw refused(ContentRefused.Reason.CONTENT_EMPTY, path, "is required");
    }
    if (!n.isTextual()) {
      throw refused(ContentRefused.Reason.CONTENT_NOT_VALID, path, "is a string");
    }
    return n.asText();
  }

  private static String optionalString(JsonNode o, String at, String field) {
    JsonNode n = o.get(field);
    if (n == null || n.isNull()) {
      return "";
    }
    if (!n.isTextual()) {
      throw refused(ContentRefused.Reason.CONTENT_NOT_VALID, at + "." + field, "is a string");
    }
    return n.asText();
  }

  private static boolean optionalBoolean(JsonNode o, String at, String field, boolean absent) {
    JsonNode n = o.get(field);
    if (n == null || n.isNull()) {
      return absent;
    }
    if (!n.isBoolean()) {
      throw refused(ContentRefused.Reason.CONTENT_NOT_VALID, at + "." + field, "is true or false");
    }
    return n.asBoolean();
  }

  private static void maxLength(String value, int max, String path) {
    if (value.length() > max) {
      throw refused(
          ContentRefused.Reason.CONTENT_TOO_LONG, path, "is at most " + max + " characters");
    }
  }

  private static ContentRefused refused(ContentRefused.Reason reason, String field, String what) {
    return new ContentRefused(reason, field, field + " " + what);
  }
}
