package io.kurir.message;

import io.kurir.content.MessageContent;

/**
 * The message a reply quotes, named for the network: Kurir's API and its Cloud API door answer
 * Kurir's message ids, so a caller quotes a message by one of them, while the network knows the
 * message by its own id.
 */
final class QuotedMessages {
  private QuotedMessages() {}

  /**
   * {@code request} with its reply's {@code context.message_id} named as the network names it: a
   * caller of Kurir's API (or of its Cloud API door) quotes a message by Kurir's id, sent or
   * received by this device, and the network knows it by its own. An id Kurir does not know, or a
   * message not sent yet, stays as given: the network decides what it quotes. A reaction's {@code
   * reaction.message_id} is named so too.
   */
  static SendRequest byNetworkId(
      SendRequest request,
      java.util.function.LongFunction<java.util.Optional<String>> networkIdOf) {
    if (request.content().isEmpty()) {
      return request;
    }
    MessageContent content = request.content().get();
    if (content.content() instanceof io.kurir.content.Content.Reaction r) {
      // A reaction names its message as a reply does: by Kurir's id, told the network by its own.
      return named(
          request,
          new MessageContent(
              new io.kurir.content.Content.Reaction(
                  networkIdOf(r.messageId(), networkIdOf).orElse(r.messageId()), r.emoji()),
              content.replyTo(),
              content.mentions()));
    }
    if (content.replyTo().isEmpty()) {
      return request;
    }
    java.util.Optional<String> networkId = networkIdOf(content.replyTo().get(), networkIdOf);
    if (networkId.isEmpty()) {
      return request;
    }
    return named(request, new MessageContent(content.content(), networkId, content.mentions()));
  }

  /** The network's id of Kurir's message {@code id} (digits), when it is one Kurir knows. */
  private static java.util.Optional<String> networkIdOf(
      String id, java.util.function.LongFunction<java.util.Optional<String>> networkIdOf) {
    if (!id.matches("\\d{1,18}")) {
      return java.util.Optional.empty();
    }
    return networkIdOf.apply(Long.parseLong(id));
  }

  private static SendRequest named(SendRequest request, MessageContent named) {
    return new SendRequest(
        request.recipients(),
        request.kind(),
        request.body(),
        request.api(),
        request.sync(),
        request.retry(),
        request.delay(),
        request.media(),
        request.idempotencyKey(),
        request.mediaUrl(),
        request.linkPreview(),
        java.util.Optional.of(named));
  }
}
