package io.kurir.content;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * What a message says, one record per kind of the Cloud API's message object, with Meta's field
 * names. A record holds what its kind's object holds; the three kinds whose objects are trees of
 * their own ({@code contacts}, {@code interactive}, {@code template}) keep the tree as checked, so
 * that a network that takes Meta's object gets it whole. Immutable; the trees are copied in and
 * out.
 *
 * <p>{@link CloudMessageJson} reads and writes them; a driver switches over the sealed type.
 */
public sealed interface Content {

  /** The kind, as {@code type} names it. */
  MessageKind kind();

  /**
   * The text a person reads first: a text's body, a media's caption, a location's name, a contact
   * card's name, an interactive message's body, a template's name, a reaction's emoji. What the
   * message's {@code body} column and a seed family's reports show.
   */
  String summary();

  /**
   * {@code text}: {@code body}, and whether a link in it may be previewed ({@code preview_url}).
   */
  record Text(String body, boolean previewUrl) implements Content {
    public MessageKind kind() {
      return MessageKind.TEXT;
    }

    public String summary() {
      return body;
    }
  }

  /** {@code image}: the file and its {@code caption} ("" for none). */
  record Image(MediaSource source, String caption) implements Content {
    public MessageKind kind() {
      return MessageKind.IMAGE;
    }

    public String summary() {
      return caption;
    }
  }

  /** {@code video}: the file and its {@code caption} ("" for none). */
  record Video(MediaSource source, String caption) implements Content {
    public MessageKind kind() {
      return MessageKind.VIDEO;
    }

    public String summary() {
      return caption;
    }
  }

  /**
   * {@code audio}: the file, and {@code voice}: whether it is (to be shown as) a voice note
   * recorded in the app, as Meta's incoming audio object says it.
   */
  record Audio(MediaSource source, boolean voice) implements Content {
    public MessageKind kind() {
      return MessageKind.AUDIO;
    }

    public String summary() {
      return "";
    }
  }

  /**
   * {@code document}: the file, its {@code caption} and the {@code filename} shown ("" for none).
   */
  record Document(MediaSource source, String caption, String filename) implements Content {
    public MessageKind kind() {
      return MessageKind.DOCUMENT;
    }

    public String summary() {
      return caption;
    }
  }

  /** {@code sticker}: the file (WebP), and whether it is {@code animated} (incoming only). */
  record Sticker(MediaSource source, boolean animated) implements Content {
    public MessageKind kind() {
      return MessageKind.STICKER;
    }

    public String summary() {
      return "";
    }
  }

  /** {@code location}: {@code latitude}, {@code longitude}, and {@code name}, {@code address}. */
  record Location(double latitude, double longitude, String name, String address)
      implements Content {
    public MessageKind kind() {
      return MessageKind.LOCATION;
    }

    public String summary() {
      return name.isEmpty() ? address : name;
    }
  }

  /**
   * {@code contacts}: one to five contact cards, each Meta's {@code ContactObject} ({@code name}
   * with {@code formatted_name}, {@code phones[]} with {@code phone}, {@code wa_id}, {@code type},
   * {@code emails[]}, {@code org}, {@code urls[]}, {@code addresses[]}, {@code birthday}).
   */
  record Contacts(ArrayNode cards) implements Content {
    public Contacts {
      cards = cards.deepCopy();
    }

    @Override
    public ArrayNode cards() {
      return cards.deepCopy();
    }

    /** Each card's {@code name.formatted_name}, in order. */
    public List<String> names() {
      List<String> names = new ArrayList<>();
      cards.forEach(c -> names.add(c.path("name").path("formatted_name").asText("")));
      return names;
    }

    /** The {@code phone} of each of the card's {@code phones}, in order. */
    public static List<String> phones(JsonNode card) {
      List<String> phones = new ArrayList<>();
      card.path("phones").forEach(p -> phones.add(p.path("phone").asText("")));
      return phones;
    }

    public MessageKind kind() {
      return MessageKind.CONTACTS;
    }

    public String summary() {
      return String.join(", ", names());
    }
  }

  /**
   * {@code interactive}: Meta's {@code InteractiveObject}: {@code type} ({@code button}: up to
   * three reply buttons; {@code list}: a button opening sections of rows; incoming: {@code
   * button_reply} or {@code list_reply}, the choice a user made), {@code header}, {@code body},
   * {@code footer}, {@code action}.
   */
  record Interactive(ObjectNode object) implements Content {
    public Interactive {
      object = object.deepCopy();
    }

    @Override
    public ObjectNode object() {
      return object.deepCopy();
    }

    /** {@code button}, {@code list}, {@code button_reply}, {@code list_reply}. */
    public String type() {
      return object.path("type").asText("");
    }

    /** {@code body.text}, or the title of the reply a user chose. */
    public String bodyText() {
      String reply = object.path(type()).path("title").asText("");
      return reply.isEmpty() ? object.path("body").path("text").asText("") : reply;
    }

    /** The reply buttons' {@code reply.id} and {@code reply.title}, in order. */
    public List<Choice> buttons() {
      List<Choice> buttons = new ArrayList<>();
      object
          .path("action")
          .path("buttons")
          .forEach(
              b ->
                  buttons.add(
                      new Choice(
                          b.path("reply").path("id").asText(""),
                          b.path("reply").path("title").asText(""),
                          "")));
      return buttons;
    }

    /** Every row of every section of a list, in order. */
    public List<Choice> rows() {
      List<Choice> rows = new ArrayList<>();
      object
          .path("action")
          .path("sections")
          .forEach(
              s ->
                  s.path("rows")
                      .forEach(
                          r ->
                              rows.add(
                                  new Choice(
                                      r.path("id").asText(""),
                                      r.path("title").asText(""),
                                      r.path("description").asText("")))));
      return rows;
    }

    /** A reply button or a list row: its id, its title, its description ("" for a button). */
    public record Choice(String id, String title, String description) {}

    public MessageKind kind() {
      return MessageKind.INTERACTIVE;
    }

    public String summary() {
      return bodyText();
    }
  }

  /**
   * {@code template}: Meta's {@code TemplateObject}: {@code name}, {@code language.code}, {@code
   * components} (their parameters), kept whole in {@code object}.
   */
  record Template(String name, String language, ObjectNode object) implements Content {
    public Template {
      object = object.deepCopy();
    }

    @Override
    public ObjectNode object() {
      return object.deepCopy();
    }

    public MessageKind kind() {
      return MessageKind.TEMPLATE;
    }

    public String summary() {
      return name;
    }
  }

  /**
   * {@code reaction}: the {@code emoji} put on the message {@code message_id}; an empty emoji takes
   * the reaction away, as on Meta's network.
   */
  record Reaction(String messageId, String emoji) implements Content {
    public MessageKind kind() {
      return MessageKind.REACTION;
    }

    public String summary() {
      return emoji;
    }

    /** Whether it takes a reaction away rather than putting one. */
    public boolean removes() {
      return emoji.isEmpty();
    }
  }
}
