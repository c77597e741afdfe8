package io.kurir.message;

import io.kurir.content.Content;
import io.kurir.content.MediaSource;
import io.kurir.driver.Driver;
import java.util.Optional;

/**
 * The rule that a media kind of Kurir's own API sent by {@code link} through a driver whose network
 * does not fetch links itself ({@link Driver#takesMediaLinks}, false for GOWA) is fetched by the
 * gateway: the link is kept as the message's media URL, and the device's sender fetches it when the
 * message's turn comes, as it does for the seed families' async media sends ({@link MediaFetch}: no
 * internal addresses, the size limit, one deadline), then hands the driver the file. A network that
 * fetches links itself (the Cloud API, WAHA) gets the link as given.
 */
final class MediaLinks {
  private MediaLinks() {}

  /** {@code request}, with its content's media link to fetch when {@code driver} needs the file. */
  static SendRequest toFetch(Driver driver, SendRequest request) {
    if (request.content().isEmpty()
        || request.media().isPresent()
        || request.mediaUrl().isPresent()
        || driver.takesMediaLinks()) {
      return request;
    }
    // Not withMediaUrl: the seed's copy-constructors leave the content out.
    return linkOf(request.content().get().content())
        .map(
            link ->
                new SendRequest(
                    request.recipients(),
                    request.kind(),
                    request.body(),
                    request.api(),
                    request.sync(),
                    request.retry(),
                    request.delay(),
                    request.media(),
                    request.idempotencyKey(),
                    Optional.of(link),
                    request.linkPreview(),
                    request.content()))
        .orElse(request);
  }

  /** The link of a media kind's file, if it is given by link. */
  static Optional<String> linkOf(Content content) {
    Optional<MediaSource> source =
        switch (content) {
          case Content.Image i -> Optional.of(i.source());
          case Content.Video v -> Optional.of(v.source());
          case Content.Audio a -> Optional.of(a.source());
          case Content.Document d -> Optional.of(d.source());
          case Content.Sticker s -> Optional.of(s.source());
          default -> Optional.empty();
        };
    return source.flatMap(MediaSource::link);
  }
}
