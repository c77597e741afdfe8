package io.kurir.media;

import io.kurir.message.FailureReason;
import io.kurir.message.MediaFetch;
import io.kurir.message.MediaRef;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The one intake of the images and files callers give by URL: fetched safely (no internal
 * addresses, the size limit, one deadline over every hop and the body) and kept under the data
 * folder like every sent file. A sync send's family takes the file before sending ({@link #take}
 * with half its caller's time) and answers a failure in its own words; an async send's is taken by
 * the device's sender when the message's turn comes ({@link #fetch}), failing the message with a
 * media reason. Thread-safe.
 */
public final class CallerMedia implements MediaFetch {
  private final SafeFetcher fetcher;
  private final MediaFiles files;

  public CallerMedia(SafeFetcher fetcher, MediaFiles files) {
    this.fetcher = fetcher;
    this.files = files;
  }

  /** What {@link #take} gave: the kept file, or why there is none. */
  public sealed interface Intake {
    /** Fetched and kept. */
    record Kept(MediaRef media) implements Intake {}

    /** Fetched, and not an image where only an image would do; not kept. */
    record NotImage() implements Intake {}

    /** Not an http(s) URL, or one whose host Kurir may not reach. */
    record BadUrl(String why) implements Intake {}

    /** Larger than the media limit. */
    record TooLarge() implements Intake {}

    /** No answer, or no usable one, by the deadline. */
    record Unreachable(String why) implements Intake {}
  }

  /**
   * Fetches {@code url} by {@code deadline} and keeps what came back; with {@code imageOnly}, only
   * an image.
   */
  public Intake take(String url, Instant deadline, boolean imageOnly) {
    return intake(fetcher.fetch(url, deadline), imageOnly);
  }

  /**
   * Why Kurir may not fetch {@code url}, if it may not (checked again when it is fetched: a name
   * may resolve elsewhere by then).
   */
  public Optional<String> refusalOf(String url) {
    return fetcher.refusalOf(url);
  }

  /** How long a fetch may take at most. */
  public Duration timeout() {
    return fetcher.timeout();
  }

  @Override
  public Result fetch(String url, String kind) {
    FetchResult fetched = fetcher.fetch(url.strip());
    if ((kind.equals("video") || kind.equals("audio"))
        && fetched instanceof FetchResult.Fetched ok
        && ok.file().mimeType().equals("application/octet-stream")) {
      // A video or audio of Kurir's API: its container named, for networks that check the type.
      FetchedFile f = ok.file();
      fetched =
          new FetchResult.Fetched(
              new FetchedFile(
                  f.name(), FileTypes.recording(f.bytes()).orElse(f.mimeType()), f.bytes()));
    }
    return switch (intake(fetched, kind.equals("image"))) {
      case Intake.BadUrl bad -> new Result.Refused(FailureReason.MEDIA_URL_WRONG);
      case Intake.TooLarge tooLarge -> new Result.Refused(FailureReason.MEDIA_TOO_LARGE);
      case Intake.Unreachable unreachable -> new Result.Refused(FailureReason.MEDIA_UNREACHABLE);
      case Intake.NotImage notImage -> new Result.Refused(FailureReason.MEDIA_NOT_IMAGE);
      case Intake.Kept kept -> new Result.Kept(kept.media());
    };
  }

  private Intake intake(FetchResult fetched, boolean imageOnly) {
    return switch (fetched) {
      case FetchResult.BadUrl bad -> new Intake.BadUrl(bad.why());
      case FetchResult.TooLarge tooLarge -> new Intake.TooLarge();
      case FetchResult.Unreachable unreachable -> new Intake.Unreachable(unreachable.why());
      case FetchResult.Fetched ok ->
          imageOnly && !ok.file().isImage()
              ? new Intake.NotImage()
              : new Intake.Kept(files.keep(ok.file()));
    };
  }
}
