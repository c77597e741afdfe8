package io.kurir.message;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What a dialect asks the core to send: one message per recipient, all accepted together.
 *
 * @param kind {@code text}, {@code image} or {@code file}
 * @param body the (already normalised) text or caption
 * @param api the family and call, recorded for reports, e.g. {@code eco}
 * @param sync whether the caller waits for the outcome
 * @param retry {@code flag_retry=on}
 * @param delay {@code pendingTime}: how long to hold the messages before sending
 * @param media the image or file to send with the text as its caption, if any
 * @param idempotencyKey the caller's key for this request, if any: a repeat with the same key on
 *     the same device stores nothing and is answered the first request's messages ({@link
 *     IdempotencyKeys})
 * @param mediaUrl where to fetch the image or file from when the message's turn comes, for an async
 *     send that answered before fetching it ({@code media} is then empty)
 * @param linkPreview whether the network may show a preview of a link in the text; the contract's
 *     {@code skip_link} turns it off
 * @param content what a message of Kurir's own API says (the Cloud API message object); empty for a
 *     seed family's send, whose {@code kind}, {@code body} and {@code media} say it
 */
public record SendRequest(
    List<Recipient> recipients,
    String kind,
    String body,
    String api,
    boolean sync,
    boolean retry,
    Duration delay,
    Optional<MediaRef> media,
    Optional<String> idempotencyKey,
    Optional<String> mediaUrl,
    boolean linkPreview,
    Optional<io.kurir.content.MessageContent> content) {

  public SendRequest {
    if (idempotencyKey.isPresent()
        && !IdempotencyKeys.wellFormed(idempotencyKey.get()).equals(idempotencyKey)) {
      throw new IllegalArgumentException("not a usable idempotency key");
    }
  }

  /** A seed family's send. */
  public SendRequest(
      List<Recipient> recipients,
      String kind,
      String body,
      String api,
      boolean sync,
      boolean retry,
      Duration delay,
      Optional<MediaRef> media,
      Optional<String> idempotencyKey,
      Optional<String> mediaUrl,
      boolean linkPreview) {
    this(
        recipients,
        kind,
        body,
        api,
        sync,
        retry,
        delay,
        media,
        idempotencyKey,
        mediaUrl,
        linkPreview,
        Optional.empty());
  }

  /** A send whose media, if any, is already fetched. */
  public SendRequest(
      List<Recipient> recipients,
      String kind,
      String body,
      String api,
      boolean sync,
      boolean retry,
      Duration delay,
      Optional<MediaRef> media,
      Optional<String> idempotencyKey) {
    this(
        recipients,
        kind,
        body,
        api,
        sync,
        retry,
        delay,
        media,
        idempotencyKey,
        Optional.empty(),
        true);
  }

  /** A send without an idempotency key. */
  public SendRequest(
      List<Recipient> recipients,
      String kind,
      String body,
      String api,
      boolean sync,
      boolean retry,
      Duration delay,
      Optional<MediaRef> media) {
    this(recipients, kind, body, api, sync, retry, delay, media, Optional.empty());
  }

  /** The same request with the caller's idempotency key, if any. */
  public SendRequest withIdempotencyKey(Optional<String> key) {
    return new SendRequest(
        recipients, kind, body, api, sync, retry, delay, media, key, mediaUrl, linkPreview);
  }

  /**
   * The same request with its image or file still to fetch from {@code url}: an async send answers
   * at once, and the device's sender fetches it when the message's turn comes ({@link MediaFetch}).
   */
  public SendRequest withMediaUrl(Optional<String> url) {
    return new SendRequest(
        recipients, kind, body, api, sync, retry, delay, media, idempotencyKey, url, linkPreview);
  }

  /** The same request with links previewed or not ({@code skip_link} says not). */
  public SendRequest withLinkPreview(boolean preview) {
    return new SendRequest(
        recipients, kind, body, api, sync, retry, delay, media, idempotencyKey, mediaUrl, preview);
  }

  /** A text send. */
  public SendRequest(
      List<Recipient> recipients,
      String kind,
      String body,
      String api,
      boolean sync,
      boolean retry,
      Duration delay) {
    this(recipients, kind, body, api, sync, retry, delay, Optional.empty());
  }
}
