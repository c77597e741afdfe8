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

  /** Its kind. */
  public MessageKind kind() {
    return content.kind();
  }
}
