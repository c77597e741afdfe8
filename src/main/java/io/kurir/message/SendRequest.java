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
 */
public record SendRequest(
    List<Recipient> recipients,
    String kind,
    String body,
    String api,
    boolean sync,
    boolean retry,
    Duration delay,
    Optional<MediaRef> media) {

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
