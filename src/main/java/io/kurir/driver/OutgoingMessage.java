package io.kurir.driver;

import io.kurir.content.MessageContent;
import io.kurir.content.SeedContent;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A message as a driver needs it.
 *
 * <p>A seed family's message has {@code kind} {@code text}, {@code image} or {@code file}, its text
 * in {@code text} and its file in {@code media}; its {@code content} says the same as a text, image
 * or document. A message of Kurir's own API has {@code kind} the wire name of its content's kind
 * ({@code location}, {@code sticker}, …, or {@code text}, {@code image}, {@code document}), {@code
 * text} its content's summary, and its files by {@code link} in the content; a driver reads {@code
 * content} (switching over {@link io.kurir.content.Content}'s records) and is handed only the kinds
 * its {@link Capabilities} declare.
 *
 * @param id Kurir's message id, also the driver's idempotency key
 * @param recipient E.164 number, or group id when {@code toGroup}
 * @param toGroup whether {@code recipient} is a group
 * @param kind {@code text}, {@code image} or {@code file} for a seed family's message, else the
 *     content's kind
 * @param text the text, or the caption of a media message
 * @param linkPreview whether the network may show a preview of a link in the text; false when the
 *     caller asked {@code skip_link}. A driver whose network has no such choice ignores it.
 * @param media the image or file to send, if any (a seed family's, fetched by the gateway)
 * @param content what the message says: the Cloud API message object's kind and object, the message
 *     it replies to, the numbers it mentions
 */
public record OutgoingMessage(
    long id,
    String recipient,
    boolean toGroup,
    String kind,
    String text,
    boolean linkPreview,
    Optional<Attachment> media,
    MessageContent content) {

  /** An image or file: a safe name, its type, and the file the driver reads the bytes from. */
  public record Attachment(String name, String mimeType, Path path) {}

  /** A seed family's message: its content is read from its kind, text and file. */
  public OutgoingMessage(
      long id,
      String recipient,
      boolean toGroup,
      String kind,
      String text,
      boolean linkPreview,
      Optional<Attachment> media) {
    this(
        id,
        recipient,
        toGroup,
        kind,
        text,
        linkPreview,
        media,
        SeedContent.of(kind, text, linkPreview, media.map(Attachment::name).orElse("")));
  }

  /** A message whose links may be previewed. */
  public OutgoingMessage(
      long id,
      String recipient,
      boolean toGroup,
      String kind,
      String text,
      Optional<Attachment> media) {
    this(id, recipient, toGroup, kind, text, true, media);
  }

  /** A text message whose links may be previewed. */
  public OutgoingMessage(long id, String recipient, boolean toGroup, String kind, String text) {
    this(id, recipient, toGroup, kind, text, true, Optional.empty());
  }

  /**
   * Whether its content says more than its kind, text and file: a kind other than a seed family's,
   * a file by link, a reply, mentions. A driver that sends seed messages its own way sends these
   * from the content.
   */
  public boolean carriesOwnContent() {
    return !content.equals(
        SeedContent.of(kind, text, linkPreview, media.map(Attachment::name).orElse("")));
  }

  /** A message of Kurir's own API: {@code content} to {@code recipient}. */
  public static OutgoingMessage of(
      long id, String recipient, boolean toGroup, MessageContent content) {
    return of(id, recipient, toGroup, content, Optional.empty());
  }

  /**
   * A message of Kurir's own API whose file the gateway keeps ({@code file}: one uploaded to Kurir
   * and named by its id in the content): the driver sends that file where the content names it.
   */
  public static OutgoingMessage of(
      long id,
      String recipient,
      boolean toGroup,
      MessageContent content,
      Optional<Attachment> file) {
    return new OutgoingMessage(
        id,
        recipient,
        toGroup,
        content.kind().wireName(),
        content.content().summary(),
        !(content.content() instanceof io.kurir.content.Content.Text t) || t.previewUrl(),
        file,
        content);
  }
}
