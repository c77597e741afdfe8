package io.kurir.media;

/** What fetching a caller's URL gave. */
public sealed interface FetchResult {

  record Fetched(FetchedFile file) implements FetchResult {}

  /** Not a usable URL: not http(s), no host, or a host Kurir may not reach. */
  record BadUrl(String why) implements FetchResult {}

  /** Larger than the limit (known from the header or counted while reading). */
  record TooLarge() implements FetchResult {}

  /** Nothing usable came back: unreachable, timed out, or an error status. */
  record Unreachable(String why) implements FetchResult {}
}
