package io.kurir.media;

import io.kurir.message.FailureReason;
import io.kurir.message.MediaFetch;

/**
 * The image or file of an async send, fetched from the caller's URL when its message's turn comes:
 * safely (no internal addresses, the size limit, one deadline over every hop and the body) and kept
 * under the data folder like every sent file. Thread-safe.
 */
public final class CallerMedia implements MediaFetch {
  private final SafeFetcher fetcher;
  private final MediaFiles files;

  public CallerMedia(SafeFetcher fetcher, MediaFiles files) {
    this.fetcher = fetcher;
    this.files = files;
  }

  @Override
  public Result fetch(String url, String kind) {
    return switch (fetcher.fetch(url.strip())) {
      case FetchResult.BadUrl bad -> new Result.Refused(FailureReason.MEDIA_URL_WRONG);
      case FetchResult.TooLarge tooLarge -> new Result.Refused(FailureReason.MEDIA_TOO_LARGE);
      case FetchResult.Unreachable unreachable ->
          new Result.Refused(FailureReason.MEDIA_UNREACHABLE);
      case FetchResult.Fetched ok ->
          kind.equals("image") && !ok.file().isImage()
              ? new Result.Refused(FailureReason.MEDIA_NOT_IMAGE)
              : new Result.Kept(files.keep(ok.file()));
    };
  }
}
