package io.kurir.message;

import io.kurir.content.MessageContent;
import io.kurir.content.SeedContent;
import java.time.Instant;
import java.util.Optional;

/**
 * One message to one recipient, as stored.
 *
 * @param id decimal digits in every reply; unique and increasing
 * @param recipient E.164 number, or group id when {@code toGroup}
 * @param kind {@code text}, {@code image} or {@code file} for a seed family's message, else the
 *     name of its content's kind ({@code location}, {@code sticker}, …)
 * @param api which API family and call accepted it, e.g. {@code eco}
 * @param sync whether an HTTP caller waits for the first outcome; sync messages go first
 * @param retry {@code flag_retry=on}: failed sends are tried again with backoff
 * @param attempts how many times the message was handed to the driver
 * @param reason why it failed (or last failed, while retried), else empty
 * @param notBefore earliest time to send ({@code pendingTime}, retry backoff)
 * @param media the image or file sent with it ({@code kind} image or file), if any
 * @param mediaUrl where its image or file is still to be fetched from, while {@code media} is empty
 *     (an async media send answered before the fetch)
 * @param linkPreview whether the network may show a preview of a link in the text (the caller's
 *     {@code skip_link} turns it off)
 * @param content what a message of Kurir's own API says (the Cloud API message object); empty for a
 *     seed family's message, which says what {@code kind}, {@code body} and {@code media} say
 *     ({@link #asContent})
 */
public record Message(
    long id,
    long deviceId,
    String recipient,
    boolean toGroup,
    String kind,
    String body,
    String api,
    boolean sync,
    boolean retry,
    int attempts,
    MessageState state,
    Optional<String> reason,
    Instant notBefore,
    Instant createdAt,
    Optional<Instant> sentAt,
    Instant statusAt,
    Optional<MediaRef> media,
    Optional<String> mediaUrl,
    boolean linkPreview,
    Optional<MessageContent> content) {

  /** A seed family's message: its content is its kind, body and media. */
  public Message(
      long id,
      long deviceId,
      String recipient,
      boolean toGroup,
      String kind,
      String body,
      String api,
      boolean sync,
      boolean retry,
      int attempts,
      MessageState state,
      Optional<String> reason,
      Instant notBefore,
      Instant createdAt,
      Optional<Instant> sentAt,
      Instant statusAt,
      Optional<MediaRef> media,
      Optional<String> mediaUrl,
      boolean linkPreview) {
    this(
        id,
        deviceId,
        recipient,
        toGroup,
        kind,
        body,
        api,
        sync,
        retry,
        attempts,
        state,
        reason,
        notBefore,
        createdAt,
        sentAt,
        statusAt,
        media,
        mediaUrl,
        linkPreview,
        Optional.empty());
  }

  /**
   * What it says: its stored content, or for a seed family's message a text, an image or a document
   * with its body as text or caption.
   */
  public MessageContent asContent() {
    return content.orElseGet(
        () -> SeedContent.of(kind, body, linkPreview, media.map(MediaRef::name).orElse("")));
  }

  /**
   * Why it failed, while it is {@code failed}; empty in every other state, also while a retried
   * message keeps its last failure in {@link #reason}. What the replies that show a message's state
   * add as {@code reason}.
   */
  public Optional<String> failureReason() {
    return state == MessageState.FAILED ? reason : Optional.empty();
  }

  /** Whether its image or file must be fetched before it can go out. */
  boolean needsFetch() {
    return media.isEmpty() && mediaUrl.isPresent();
  }

  /** The same message after {@code newAttempts} hand-overs to the driver. */
  Message withAttempts(int newAttempts) {
    return retried(newAttempts, notBefore, reason);
  }

  /** The same message, to be tried again no earlier than {@code newNotBefore}. */
  Message heldUntil(Instant newNotBefore) {
    return retried(attempts, newNotBefore, reason);
  }

  /** The same message after a failed attempt, to be tried again at {@code newNotBefore}. */
  Message retried(int newAttempts, Instant newNotBefore, String lastFailure) {
    return retried(newAttempts, newNotBefore, Optional.of(lastFailure));
  }

  private Message retried(int newAttempts, Instant newNotBefore, Optional<String> lastFailure) {
    return new Message(
        id,
        deviceId,
        recipient,
        toGroup,
        kind,
        body,
        api,
        sync,
        retry,
        newAttempts,
        state,
        lastFailure,
        newNotBefore,
        createdAt,
        sentAt,
        statusAt,
        media,
        mediaUrl,
        linkPreview,
        content);
  }
}
