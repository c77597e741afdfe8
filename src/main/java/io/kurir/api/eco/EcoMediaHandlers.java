package io.kurir.api.eco;

import static io.kurir.api.eco.EcoMessageHandlers.plain;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.api.RequestFields;
import io.kurir.api.eco.EcoRoutes.EcoRequest;
import io.kurir.media.CallerMedia;
import io.kurir.message.GroupIds;
import io.kurir.message.MediaRef;
import io.kurir.message.MessageText;
import io.kurir.message.Messages;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Images and files by URL: the gateway fetches the URL itself (safely), keeps the bytes, and sends
 * them through the same pipeline as text; the caller's {@code message} is the caption.
 */
public final class EcoMediaHandlers {
  private final EcoMessageHandlers sends;
  private final EcoGroupHandlers groups;
  private final CallerMedia media;
  private final long maxKb;

  public EcoMediaHandlers(EcoMessageHandlers sends, CallerMedia media, long maxKb) {
    this.sends = sends;
    this.groups = sends.groups();
    this.media = media;
    this.maxKb = maxKb;
  }

  void sendImageUrl(Context ctx, EcoRequest req) {
    send(ctx, req, "image", true);
  }

  void asyncSendImageUrl(Context ctx, EcoRequest req) {
    send(ctx, req, "image", false);
  }

  void sendFileUrl(Context ctx, EcoRequest req) {
    send(ctx, req, "file", true);
  }

  void asyncSendFileUrl(Context ctx, EcoRequest req) {
    send(ctx, req, "file", false);
  }

  void sendImageUrlGroupId(Context ctx, EcoRequest req) {
    sendToGroup(ctx, req, "image", true);
  }

  void asyncSendImageUrlGroupId(Context ctx, EcoRequest req) {
    sendToGroup(ctx, req, "image", false);
  }

  void sendFileUrlGroupId(Context ctx, EcoRequest req) {
    sendToGroup(ctx, req, "file", true);
  }

  void asyncSendFileUrlGroupId(Context ctx, EcoRequest req) {
    sendToGroup(ctx, req, "file", false);
  }

  // Everything that can be refused without the file is checked before fetching it, and a sync
  // call's fetch gets half of its time: the send needs the rest.

  private void send(Context ctx, EcoRequest req, String kind, boolean sync) {
    Instant started = Instant.now();
    req.fields().idempotencyKey(); // a bad key is refused before the fetch
    List<Optional<String>> numbers = sends.numbers(req.fields().required("phone_no"), req.device());
    if (sends.refusedWhole(ctx, req, numbers, sync)) {
      return; // nothing fetched for a list that will not be sent
    }
    String caption = caption(req.fields());
    if (!sync) {
      // Answered at once: the file is fetched when the message's turn comes.
      Optional<String> url = urlOrAnswer(ctx, req.fields());
      if (url.isPresent()) {
        sends.sendToNumbers(
            ctx, req, numbers, kind, caption, Optional.empty(), url, false, started);
      }
      return;
    }
    Optional<MediaRef> kept =
        fetchOrAnswer(ctx, req.fields(), kind, false, deadline(started, sync));
    if (kept.isPresent()) {
      sends.sendToNumbers(ctx, req, numbers, kind, caption, kept, sync, started);
    }
  }

  /**
   * The request's {@code url} if Kurir may fetch it (an http(s) URL whose host is not internal);
   * else answers {@code url_wrong}. It is checked again when it is fetched: a name may resolve
   * elsewhere by then.
   */
  private Optional<String> urlOrAnswer(Context ctx, RequestFields f) {
    Optional<String> url =
        f.text("url").map(String::strip).filter(u -> media.refusalOf(u).isEmpty());
    if (url.isEmpty()) {
      plain(ctx, EcoResults.URL_WRONG);
    }
    return url;
  }

  private void sendToGroup(Context ctx, EcoRequest req, String kind, boolean sync) {
    Instant started = Instant.now();
    req.fields().idempotencyKey(); // a bad key is refused before the fetch
    Optional<String> group = GroupIds.normalize(req.fields().required("group_id"));
    if (group.isEmpty()) {
      plain(ctx, EcoResults.GROUP_NOT_FOUND);
      return;
    }
    String caption = caption(req.fields());
    if (!sync) {
      Optional<String> url = urlOrAnswer(ctx, req.fields());
      if (url.isPresent()) {
        groups.queue(ctx, req, group, kind, caption, Optional.empty(), url);
      }
      return;
    }
    Optional<MediaRef> kept = fetchOrAnswer(ctx, req.fields(), kind, true, deadline(started, sync));
    if (kept.isEmpty()) {
      return;
    }
    if (sync) {
      groups.sendAndWait(ctx, req, group, kind, caption, kept, started);
    } else {
      groups.queue(ctx, req, group, kind, caption, kept);
    }
  }

  private Instant deadline(Instant started, boolean sync) {
    return sync ? started.plus(sends.syncTimeout().dividedBy(2)) : started.plus(media.timeout());
  }

  private static String caption(RequestFields f) {
    String caption = MessageText.normalize(f.text("message").orElse(""));
    if (caption.length() > Messages.MAX_TEXT_LENGTH) {
      throw ApiException.badRequest("message_too_long", "the caption is too long");
    }
    return caption;
  }

  /**
   * Fetches the request's {@code url} and keeps the file; when that fails, answers the failure
   * (group sends answer {@code other_error} where sends to numbers answer {@code Other error}).
   */
  private Optional<MediaRef> fetchOrAnswer(
      Context ctx, RequestFields f, String kind, boolean toGroup, Instant deadline) {
    Optional<String> url = f.text("url");
    if (url.isEmpty()) {
      plain(ctx, EcoResults.URL_WRONG); // real clients forget it; the contract's answer is this
      return Optional.empty();
    }
    CallerMedia.Intake taken = media.take(url.get(), deadline, kind.equals("image"));
    if (taken instanceof CallerMedia.Intake.Kept kept) {
      return Optional.of(kept.media());
    }
    plain(
        ctx,
        switch (taken) {
          case CallerMedia.Intake.BadUrl bad -> EcoResults.URL_WRONG;
          case CallerMedia.Intake.TooLarge tooLarge -> EcoResults.fileMoreThan(maxKb);
          // A URL that cannot be fetched is not a verdict on the image: image_not_found is only
          // for what came back and is not an image.
          case CallerMedia.Intake.Unreachable unreachable ->
              toGroup ? EcoResults.GROUP_OTHER_ERROR : EcoResults.OTHER_ERROR;
          case CallerMedia.Intake.NotImage notImage -> EcoResults.imageNotFound(maxKb);
          case CallerMedia.Intake.Kept kept -> throw new AssertionError("returned above");
        });
    return Optional.empty();
  }
}
