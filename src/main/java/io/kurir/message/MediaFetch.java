package io.kurir.message;

/**
 * Fetches the image or file of a message whose async send answered before fetching it. Called by
 * the device's sender when the message's turn comes, so a device's messages keep their order.
 * Implementations fetch the caller's URL safely (no internal addresses, a size limit, one deadline)
 * and keep the bytes. Thread-safe.
 */
@FunctionalInterface
public interface MediaFetch {

  /** Nothing to fetch, ever: for gateways and tests with no media. */
  MediaFetch NONE = (url, kind) -> new Result.Refused(FailureReason.MEDIA_UNREACHABLE);

  /** Fetches {@code url} for a message of {@code kind} ({@code image} or {@code file}). */
  Result fetch(String url, String kind);

  /** What fetching gave. */
  sealed interface Result {
    /** Fetched and kept. */
    record Kept(MediaRef media) implements Result {}

    /** Not usable; {@code reason} is one of {@link FailureReason}'s media reasons. */
    record Refused(String reason) implements Result {}
  }
}
