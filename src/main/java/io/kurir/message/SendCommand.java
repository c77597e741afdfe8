package io.kurir.message;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What a family asks {@link Sends#send} to do, with named fields: built with {@link #builder}, so
 * no caller passes a row of booleans by position. One message per recipient, all accepted together.
 *
 * @param recipients whom to send to, in the caller's order
 * @param kind {@code text}, {@code image} or {@code file}
 * @param body the (already normalised) text or caption
 * @param api the family and call, recorded for reports, e.g. {@code eco}
 * @param callerWaitingSince for a sync caller, when its request came: {@link Sends} waits for the
 *     outcomes until the sync timeout from then; empty for a caller answered at once
 * @param retry {@code flag_retry=on}
 * @param delay how long to hold the messages before sending ({@code pendingTime})
 * @param media the image or file, already fetched, with the text as its caption
 * @param mediaUrl where to fetch the image or file from when the message's turn comes (an async
 *     send answered before fetching; {@code media} is then empty)
 * @param idempotencyKey the caller's key for this request, if any ({@link IdempotencyKeys})
 * @param content what a message of Kurir's own API says; empty for a seed family's send
 * @param linkPreview whether the network may show a preview of a link in the text
 */
public record SendCommand(
    List<Recipient> recipients,
    String kind,
    String body,
    String api,
    Optional<Instant> callerWaitingSince,
    boolean retry,
    Duration delay,
    Optional<MediaRef> media,
    Optional<String> mediaUrl,
    Optional<String> idempotencyKey,
    boolean linkPreview,
    Optional<io.kurir.content.MessageContent> content) {

  /** A command of {@code api} (e.g. {@code eco}); a text, without waiting, unless told. */
  public static Builder builder(String api) {
    return new Builder(api);
  }

  /** Whether a sync caller waits for the outcomes. */
  public boolean waits() {
    return callerWaitingSince.isPresent();
  }

  /** The core's request for {@link Messages#accept}. */
  SendRequest toRequest() {
    return new SendRequest(
        recipients,
        kind,
        body,
        api,
        waits(),
        retry,
        delay,
        media,
        idempotencyKey,
        mediaUrl,
        linkPreview,
        content);
  }

  /** Builds a {@link SendCommand}; every field but the recipients has a default. */
  public static final class Builder {
    private final String api;
    private List<Recipient> recipients = List.of();
    private String kind = "text";
    private String body = "";
    private Optional<Instant> callerWaitingSince = Optional.empty();
    private boolean retry;
    private Duration delay = Duration.ZERO;
    private Optional<MediaRef> media = Optional.empty();
    private Optional<String> mediaUrl = Optional.empty();
    private Optional<String> idempotencyKey = Optional.empty();
    private boolean linkPreview = true;
    private Optional<io.kurir.content.MessageContent> content = Optional.empty();

    private Builder(String api) {
      this.api = api;
    }

    public Builder to(List<Recipient> recipients) {
      this.recipients = List.copyOf(recipients);
      return this;
    }

    public Builder to(Recipient recipient) {
      return to(List.of(recipient));
    }

    /** A text message. */
    public Builder text(String text) {
      return kind("text").body(text);
    }

    public Builder kind(String kind) {
      this.kind = kind;
      return this;
    }

    public Builder body(String body) {
      this.body = body;
      return this;
    }

    /** The caller waits for the outcomes, counted from {@code requestCame}. */
    public Builder callerWaitsSince(Instant requestCame) {
      this.callerWaitingSince = Optional.of(requestCame);
      return this;
    }

    /**
     * The caller waits ({@link #callerWaitsSince}) when {@code waits}, else is answered at once.
     */
    public Builder callerWaitsSince(Instant requestCame, boolean waits) {
      this.callerWaitingSince = waits ? Optional.of(requestCame) : Optional.empty();
      return this;
    }

    public Builder retry(boolean retry) {
      this.retry = retry;
      return this;
    }

    public Builder delay(Duration delay) {
      this.delay = delay;
      return this;
    }

    public Builder media(Optional<MediaRef> media) {
      this.media = media;
      return this;
    }

    public Builder mediaUrl(Optional<String> url) {
      this.mediaUrl = url;
      return this;
    }

    public Builder idempotencyKey(Optional<String> key) {
      this.idempotencyKey = key;
      return this;
    }

    public Builder linkPreview(boolean preview) {
      this.linkPreview = preview;
      return this;
    }

    /**
     * Sends {@code content} (Kurir's own API: any kind of the Cloud API message object): the kind
     * is the content's, the body its summary, link previews as its text says. Its files go by link;
     * nothing is fetched by the gateway.
     */
    public Builder content(io.kurir.content.MessageContent content) {
      this.content = Optional.of(content);
      this.kind = content.kind().wireName();
      this.body = content.content().summary();
      this.linkPreview =
          !(content.content() instanceof io.kurir.content.Content.Text t) || t.previewUrl();
      return this;
    }

    public SendCommand build() {
      return new SendCommand(
          recipients,
          kind,
          body,
          api,
          callerWaitingSince,
          retry,
          delay,
          media,
          mediaUrl,
          idempotencyKey,
          linkPreview,
          content);
    }
  }
}
