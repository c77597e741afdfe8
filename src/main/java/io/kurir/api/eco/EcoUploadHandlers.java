package io.kurir.api.eco;

import static io.kurir.api.eco.EcoMessageHandlers.plain;

import io.javalin.http.Context;
import io.javalin.http.UploadedFile;
import io.kurir.api.ApiException;
import io.kurir.api.eco.EcoRoutes.EcoRequest;
import io.kurir.media.Uploads;
import io.kurir.message.MediaRef;
import io.kurir.message.MessageText;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/** Uploading images, and sending an uploaded image by name ({@code send_image}). */
public final class EcoUploadHandlers {
  private final Uploads uploads;
  private final EcoMessageHandlers sends;
  private final long maxKb;

  public EcoUploadHandlers(Uploads uploads, EcoMessageHandlers sends, long maxKb) {
    this.uploads = uploads;
    this.sends = sends;
    this.maxKb = maxKb;
  }

  /** {@code POST /api/upload/{key}}: answers {@code success}. */
  void uploadByPath(Context ctx, EcoRequest req) {
    store(ctx, req);
    plain(ctx, EcoResults.SUCCESS);
  }

  /** {@code POST /api/upload} with {@code key} as a form field: answers the upload's id. */
  void upload(Context ctx, EcoRequest req) {
    plain(ctx, Long.toString(store(ctx, req)));
  }

  /** {@code /api/send_image}: the image uploaded under {@code filename}, with a caption. */
  void sendImage(Context ctx, EcoRequest req) {
    java.time.Instant started = java.time.Instant.now();
    var numbers = sends.numbers(req.fields().required("phone_no"), req.device());
    if (sends.refusedWhole(ctx, req, numbers, true)) {
      return;
    }
    String caption = MessageText.normalize(req.fields().text("message").orElse(""));
    Optional<MediaRef> image =
        req.fields().text("filename").flatMap(f -> uploads.find(req.device(), f));
    if (image.isEmpty()) {
      plain(ctx, EcoResults.FILE_NOT_EXISTS);
      return;
    }
    sends.sendToNumbers(ctx, req, numbers, "image", caption, image, true, started);
  }

  private long store(Context ctx, EcoRequest req) {
    UploadedFile file;
    try {
      file = ctx.uploadedFile("file");
    } catch (Exception e) { // not multipart, or a body Jetty cannot read
      throw ApiException.badRequest("file_empty", "send the image as multipart part 'file'");
    }
    if (file == null) {
      throw ApiException.fieldEmpty("file");
    }
    if (file.size() > maxKb * 1024) {
      throw new ApiException(413, EcoResults.fileMoreThan(maxKb), "the image is too large");
    }
    byte[] bytes;
    try (InputStream in = file.content()) {
      bytes = in.readNBytes((int) Math.min(file.size() + 1, Integer.MAX_VALUE));
    } catch (IOException e) {
      throw ApiException.badRequest("malformed_body", "the upload could not be read");
    }
    Uploads.Outcome outcome = uploads.upload(req.device(), file.filename(), bytes);
    if (outcome.refusal().isPresent()) {
      throw switch (outcome.refusal().get()) {
        case EMPTY -> ApiException.fieldEmpty("file");
        case TOO_LARGE -> new ApiException(413, EcoResults.fileMoreThan(maxKb), "too large");
        case NOT_AN_IMAGE ->
            new ApiException(415, "file_type_not_allowed", "only images can be uploaded");
        case OVER_QUOTA ->
            new ApiException(
                413,
                EcoResults.STORAGE_QUOTA_EXCEEDED,
                "the license's uploads would pass media.upload-quota; upload under an existing"
                    + " name to replace a file");
      };
    }
    return outcome.id().orElseThrow();
  }
}
