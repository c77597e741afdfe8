package io.kurir.content;

import java.util.Optional;

/**
 * Where a media kind's file is, as Meta's {@code MediaObject} says it: a {@code link} (an http(s)
 * URL the network fetches) or an {@code id} (a file the network already holds). An incoming message
 * names neither: its file travels beside it, kept by the gateway ({@code IncomingMessage.media}).
 *
 * @param link the URL of the file, if given by link
 * @param id the network's (or Kurir's) id of an uploaded file, if given by id
 */
public record MediaSource(Optional<String> link, Optional<String> id) {

  /** No source: the file of an incoming message, which the gateway keeps beside it. */
  public static final MediaSource NONE = new MediaSource(Optional.empty(), Optional.empty());

  /** A file by its URL. */
  public static MediaSource link(String url) {
    return new MediaSource(Optional.of(url), Optional.empty());
  }

  /** A file by its id. */
  public static MediaSource id(String id) {
    return new MediaSource(Optional.empty(), Optional.of(id));
  }
}
