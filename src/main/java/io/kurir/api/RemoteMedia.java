package io.kurir.api;

import io.kurir.media.CallerMedia;
import io.kurir.message.MediaRef;
import java.time.Instant;

/**
 * An image or file a caller gave by URL, fetched safely and kept for sending, for the families
 * whose failures are plain 4xx tokens (CRM, multi-agent, push): {@code <field>_not_valid} (not a
 * URL Kurir may fetch), {@code file_more_than_<N>KB} (413), {@code <field>_unreachable}.
 */
public final class RemoteMedia {
  private final CallerMedia media;
  private final long maxKb;

  public RemoteMedia(CallerMedia media, long maxKb) {
    this.media = media;
    this.maxKb = maxKb;
  }

  /** The file at {@code url} (the request's {@code field}), kept; fetched by {@code deadline}. */
  public MediaRef fetch(String field, String url, Instant deadline) {
    return switch (media.take(url.strip(), deadline, false)) {
      case CallerMedia.Intake.BadUrl bad -> throw ApiException.fieldNotValid(field, bad.why());
      case CallerMedia.Intake.TooLarge tooLarge ->
          throw new ApiException(413, "file_more_than_" + maxKb + "KB", "the file is too large");
      case CallerMedia.Intake.Unreachable unreachable ->
          throw new ApiException(400, field + "_unreachable", unreachable.why());
      case CallerMedia.Intake.NotImage notImage ->
          throw new IllegalStateException("not asked for an image only");
      case CallerMedia.Intake.Kept kept -> kept.media();
    };
  }

  /** How long a fetch may take at most. */
  public java.time.Duration timeout() {
    return media.timeout();
  }
}
