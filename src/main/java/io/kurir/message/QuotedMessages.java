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
   * message not sent yet, stays as given: the network decides what it quotes.
   */
  static SendRequest byNetworkId(
      SendRequest request,
      java.util.function.LongFunction<java.util.Optional<String>> networkIdOf) {
    if (request.content().isEmpty() || request.content().get().replyTo().isEmpty()) {
      return request;
    }
    MessageContent content = request.content().get();
    String quoted = content.replyTo().get();
    if (!quoted.matches("\\d{1,19}")) {
      return request;
    }
    java.util.Optional<String> networkId;
    try {
      networkId = networkIdOf.apply(Long.parseLong(quoted));
    } catch (NumberFormatException e) {
      return request;
    }
    if (networkId.isEmpty()) {
      return request;
    }
    MessageContent named = new MessageContent(content.content(), networkId, content.mentions());
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
