package io.kurir.driver;

import java.nio.file.Path;
import java.util.Optional;

/**
 * A message as a driver needs it.
 *
 * @param id Kurir's message id, also the driver's idempotency key
 * @param recipient E.164 number, or group id when {@code toGroup}
 * @param toGroup whether {@code recipient} is a group
 * @param kind {@code text}, {@code image} or {@code file}
 * @param text the text, or the caption of a media message
 * @param linkPreview whether the network may show a preview of a link in the text; false when the
 *     caller asked {@code skip_link}. A driver whose network has no such choice ignores it.
 * @param media the image or file to send, if any
 */
public record OutgoingMessage(
    long id,
    String recipient,
    boolean toGroup,
    String kind,
    String text,
    boolean linkPreview,
    Optional<Attachment> media) {

  /** An image or file: a safe name, its type, and the file the driver reads the bytes from. */
  public record Attachment(String name, String mimeType, Path path) {}

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
}
