package io.kurir.api;

import io.kurir.media.FetchResult;
import io.kurir.media.MediaFiles;
import io.kurir.media.SafeFetcher;
import io.kurir.message.MediaRef;
import java.time.Instant;

/**
 * An image or file a caller gave by URL, fetched safely and kept for sending, for the families
 * whose failures are plain 4xx tokens (CRM, multi-agent, push): {@code <field>_not_valid} (not a
 * URL Kurir may fetch), {@code file_more_than_<N>KB} (413), {@code <field>_unreachable}.
 */
public final class RemoteMedia {
  private final SafeFetcher fetcher;
  private final MediaFiles files;
  private final long maxKb;

  public RemoteMedia(SafeFetcher fetcher, MediaFiles files, long maxKb) {
    this.fetcher = fetcher;
    this.files = files;
    this.maxKb = maxKb;
  }

  /** The file at {@code url} (the request's {@code field}), kept; fetched by {@code deadline}. */
  public MediaRef fetch(String field, String url, Instant deadline) {
    FetchResult fetched = fetcher.fetch(url.strip(), deadline);
    return switch (fetched) {
      case FetchResult.BadUrl bad -> throw ApiException.fieldNotValid(field, bad.why());
      case FetchResult.TooLarge tooLarge ->
          throw new ApiException(413, "file_more_than_" + maxKb + "KB", "the file is too large");
      case FetchResult.Unreachable unreachable ->
          throw new ApiException(400, field + "_unreachable", unreachable.why());
      case FetchResult.Fetched ok -> files.keep(ok.file());
    };
  }

  /** How long a fetch may take at most. */
  public java.time.Duration timeout() {
    return fetcher.timeout();
  }
}
