package io.kurir.api.eco;

import static io.kurir.api.eco.EcoMessageHandlers.plain;

import io.javalin.http.Context;
import io.kurir.api.RequestFields;
import io.kurir.api.eco.EcoRoutes.EcoRequest;
import io.kurir.media.FetchResult;
import io.kurir.media.FetchedFile;
import io.kurir.media.MediaFiles;
import io.kurir.media.SafeFetcher;
import io.kurir.message.MediaRef;
import io.kurir.message.MessageText;
import java.util.List;
import java.util.Optional;

/**
 * Images and files by URL: the gateway fetches the URL itself (safely), keeps the bytes, and sends
 * them through the same pipeline as text; the caller's {@code message} is the caption.
 */
public final class EcoMediaHandlers {
  private final EcoMessageHandlers sends;
  private final SafeFetcher fetcher;
  private final MediaFiles files;
  private final long maxKb;

  public EcoMediaHandlers(
      EcoMessageHandlers sends, SafeFetcher fetcher, MediaFiles files, long maxKb) {
    this.sends = sends;
    this.fetcher = fetcher;
    this.files = files;
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

  private void send(Context ctx, EcoRequest req, String kind, boolean sync) {
    RequestFields f = req.fields();
    List<Optional<String>> numbers = sends.numbers(f.required("phone_no"));
    String caption = MessageText.normalize(f.text("message").orElse(""));
    Optional<String> url = f.text("url");
    if (url.isEmpty()) {
      plain(ctx, EcoResults.URL_WRONG); // real clients forget it; the contract's answer is this
      return;
    }
    boolean image = kind.equals("image");
    FetchResult fetched = fetcher.fetch(url.get());
    String failure =
        switch (fetched) {
          case FetchResult.BadUrl bad -> EcoResults.URL_WRONG;
          case FetchResult.TooLarge tooLarge -> EcoResults.fileMoreThan(maxKb);
          case FetchResult.Unreachable unreachable ->
              image ? EcoResults.imageNotFound(maxKb) : EcoResults.OTHER_ERROR;
          case FetchResult.Fetched ok ->
              image && !ok.file().isImage() ? EcoResults.imageNotFound(maxKb) : null;
        };
    if (failure != null) {
      plain(ctx, failure);
      return;
    }
    FetchedFile file = ((FetchResult.Fetched) fetched).file();
    MediaRef kept = files.keep(file);
    sends.sendToNumbers(ctx, req, numbers, kind, caption, Optional.of(kept), sync);
  }
}
