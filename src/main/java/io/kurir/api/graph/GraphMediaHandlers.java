package io.kurir.api.graph;

import io.javalin.http.Context;
import io.javalin.http.UploadedFile;
import io.kurir.api.ApiException;
import io.kurir.media.UploadedMedia;
import io.kurir.media.Uploads;
import io.kurir.tenant.ApiCaller;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Media as the Cloud API has it: {@code POST /{phone-number-id}/media} (multipart: {@code file},
 * {@code messaging_product}, {@code type}) answering {@code {"id"}}; {@code GET /{media-id}}
 * answering Meta's media URL object; {@code DELETE /{media-id}}; and the file itself at the URL
 * answered, downloaded with the same token. Kept as {@link UploadedMedia} says.
 */
final class GraphMediaHandlers {
  private final Tenants tenants;
  private final UploadedMedia uploads;
  private final Optional<String> publicUrl;

  GraphMediaHandlers(Tenants tenants, UploadedMedia uploads, Optional<String> publicUrl) {
    this.tenants = tenants;
    this.uploads = uploads;
    this.publicUrl = publicUrl;
  }

  void upload(Context ctx, Device device) {
    UploadedFile file;
    String product;
    String declared;
    try {
      file = ctx.uploadedFile("file");
      product = Optional.ofNullable(ctx.formParam("messaging_product")).orElse("");
      declared = ctx.formParam("type");
    } catch (RuntimeException e) { // not multipart, or a body Jetty cannot read
      throw missingFile();
    }
    if (!product.equals("whatsapp")) {
      throw GraphErrors.error(
          400,
          GraphErrors.INVALID_PARAMETER,
          product.isEmpty()
              ? "The parameter messaging_product is required."
              : "Param messaging_product must be whatsapp");
    }
    if (file == null) {
      throw missingFile();
    }
    byte[] bytes;
    try (InputStream in = file.content()) {
      bytes = in.readAllBytes();
    } catch (IOException e) {
      throw GraphErrors.error(400, GraphErrors.MEDIA_UPLOAD, "the upload could not be read");
    }
    String type = declared != null && !declared.isBlank() ? declared : file.contentType();
    Uploads.Outcome outcome = uploads.upload(device, file.filename(), type, bytes);
    if (outcome.refusal().isPresent()) {
      throw GraphErrors.error(
          400,
          GraphErrors.MEDIA_UPLOAD,
          switch (outcome.refusal().get()) {
            case EMPTY -> "the file is empty";
            case TOO_LARGE -> "the file is larger than media.max-kb";
            case NOT_AN_IMAGE -> "the file is of a type that cannot be sent";
            case OVER_QUOTA -> "the license's uploads would pass media.upload-quota";
          });
    }
    ctx.json(Map.of("id", Long.toString(outcome.id().orElseThrow())));
  }

  void describe(Context ctx, ApiCaller caller) {
    UploadedMedia.Media media = find(ctx, caller);
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("messaging_product", "whatsapp");
    reply.put(
        "url",
        publicUrl.orElseGet(() -> ctx.scheme() + "://" + ctx.host()).replaceAll("/+$", "")
            + "/graph/"
            + ctx.pathParam("version")
            + "/"
            + media.id()
            + "/file");
    reply.put("mime_type", media.mimeType());
    reply.put("sha256", media.sha256());
    reply.put("file_size", media.size());
    reply.put("id", Long.toString(media.id()));
    ctx.json(reply);
  }

  void delete(Context ctx, ApiCaller caller) {
    UploadedMedia.Media media = find(ctx, caller);
    if (!uploads.delete(media)) { // deleted meanwhile
      throw GraphErrors.noSuchObject(ctx.pathParam("mediaId"));
    }
    ctx.json(Map.of("success", true));
  }

  void download(Context ctx, ApiCaller caller) throws IOException {
    UploadedMedia.Media media = find(ctx, caller);
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(media.path());
    } catch (java.nio.file.NoSuchFileException e) { // swept meanwhile
      throw GraphErrors.noSuchObject(ctx.pathParam("mediaId"));
    }
    ctx.contentType(media.mimeType()).result(bytes);
  }

  /** The upload the path names, of a device the caller reaches; Meta's 100/33 otherwise. */
  private UploadedMedia.Media find(Context ctx, ApiCaller caller) {
    String id = ctx.pathParam("mediaId");
    long mediaId;
    try {
      mediaId = Long.parseLong(id);
    } catch (NumberFormatException e) {
      throw GraphErrors.noSuchObject(id);
    }
    return caller.devices(tenants).stream()
        .flatMap(d -> uploads.find(d, mediaId).stream())
        .findFirst()
        .orElseThrow(() -> GraphErrors.noSuchObject(id));
  }

  private static ApiException missingFile() {
    return GraphErrors.error(
        400, GraphErrors.PARAMETER_MISSING, "The parameter file is required (multipart).");
  }
}
