package io.kurir.content;

import java.util.List;
import java.util.Optional;

/**
 * A message's content with what travels around it in the Cloud API's message object: the message it
 * replies to ({@code context.message_id}) and the people it mentions (Kurir's {@code mentions}:
 * phone numbers; the networks that have mentions, WhatsApp Web's, notify them; the Cloud API has
 * none and leaves them out).
 *
 * @param content the kind and its object
 * @param replyTo the id of the message it quotes, as the caller gave it, if a reply
 * @param mentions the numbers it mentions, as given, in order
 */
public record MessageContent(Content content, Optional<String> replyTo, List<String> mentions) {

  public MessageContent {
    mentions = List.copyOf(mentions);
  }

  /** Content that replies to nothing and mentions nobody. */
  public static MessageContent of(Content content) {
    return new MessageContent(content, Optional.empty(), List.of());
  }

  /**
   * The text an incoming message with this content shows where only text is read (the seed's
   * incoming webhook, keyword auto-replies): its summary; nothing for a reaction, an audio or a
   * sticker, which are no text to answer.
   */
  public String incomingText() {
    return switch (content) {
      case Content.Reaction r -> "";
      case Content.Audio a -> "";
      case Content.Sticker s -> "";
      default -> content.summary();
    };
  }

  /** Its kind. */
  public MessageKind kind() {
    return content.kind();
  }
}
