package io.kurir.api.graph;

import io.javalin.http.Context;
import io.javalin.http.UploadedFile;
import io.kurir.api.ApiException;
import io.kurir.media.ReceivedMedia;
import io.kurir.media.UploadedMedia;
import io.kurir.media.Uploads;
import io.kurir.tenant.ApiCaller;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Media as the Cloud API has it: {@code POST /{phone-number-id}/media} (multipart: {@code file},
 * {@code messaging_product}, {@code type}) answering {@code {"id"}}; {@code GET /{media-id}}
 * answering Meta's media URL object; {@code DELETE /{media-id}}; and the file itself at the URL
 * answered. Kept as {@link UploadedMedia} says. A media id may also be an incoming message's id
 * ({@link ReceivedMedia}: what a meta webhook subscription names an incoming file by), described
 * and downloaded alike, not deleted (it goes with the retention settings).
 *
 * <p>The URL is short-lived and signed, as Meta's is ({@link #URL_LIFETIME}, Meta's five minutes):
 * clients fetch it with the token (Meta's documents) or without (some SDKs treat it as a CDN URL).
 * The signature is an HMAC-SHA256 keyed with the device's Eco key, which every node of a database
 * reads, so any node serves the URL; rotating the key ends every URL of the device at once.
 */
final class GraphMediaHandlers {
  /** How long a media URL works, as Meta's lookaside URLs do. */
  static final Duration URL_LIFETIME = Duration.ofMinutes(5);

  private final Tenants tenants;
  private final UploadedMedia uploads;
  private final ReceivedMedia received;
  private final Optional<String> publicUrl;
  private final Clock clock;

  GraphMediaHandlers(
      Tenants tenants,
      UploadedMedia uploads,
      ReceivedMedia received,
      Optional<String> publicUrl,
      Clock clock) {
    this.tenants = tenants;
    this.uploads = uploads;
    this.received = received;
    this.publicUrl = publicUrl;
    this.clock = clock;
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
            + "/file?"
            + signedQuery(media));
    reply.put("mime_type", media.mimeType());
    reply.put("sha256", media.sha256());
    reply.put("file_size", media.size());
    reply.put("id", Long.toString(media.id()));
    ctx.json(reply);
  }

  void delete(Context ctx, ApiCaller caller) {
    UploadedMedia.Media media = find(ctx, caller);
    // An incoming message's file goes with the retention settings, not by a caller's delete.
    if (!uploads.delete(media)) { // deleted meanwhile, or a received file
      throw GraphErrors.noSuchObject(ctx.pathParam("mediaId"));
    }
    ctx.json(Map.of("success", true));
  }

  /** The file, for the caller the token is. */
  void download(Context ctx, ApiCaller caller) throws IOException {
    send(ctx, find(ctx, caller));
  }

  /** The file, for a URL whose signature is good and not yet expired. */
  void downloadSigned(Context ctx) throws IOException {
    String id = ctx.pathParam("mediaId");
    long expires;
    long mediaId;
    try {
      expires = Long.parseLong(Optional.ofNullable(ctx.queryParam("expires")).orElse(""));
      mediaId = Long.parseLong(id);
    } catch (NumberFormatException e) {
      throw GraphErrors.noSuchObject(id);
    }
    String hash = Optional.ofNullable(ctx.queryParam("hash")).orElse("");
    UploadedMedia.Media media =
        uploads
            .find(mediaId)
            .or(() -> received.find(mediaId))
            .filter(m -> clock.instant().getEpochSecond() <= expires)
            .filter(
                m ->
                    MessageDigest.isEqual(
                        signature(m, expires).getBytes(StandardCharsets.US_ASCII),
                        hash.getBytes(StandardCharsets.US_ASCII)))
            .orElseThrow(
                () ->
                    GraphErrors.error(
                        401,
                        GraphErrors.BAD_TOKEN,
                        "the media URL expired or is not valid: ask GET /{media-id} for a new one"));
    send(ctx, media);
  }

  private static void send(Context ctx, UploadedMedia.Media media) throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(media.path());
    } catch (java.nio.file.NoSuchFileException e) { // swept meanwhile
      throw GraphErrors.noSuchObject(Long.toString(media.id()));
    }
    ctx.contentType(media.mimeType()).result(bytes);
  }

  private String signedQuery(UploadedMedia.Media media) {
    long expires = clock.instant().plus(URL_LIFETIME).getEpochSecond();
    return "expires=" + expires + "&hash=" + signature(media, expires);
  }

  /** HMAC-SHA256 of {@code <media id>:<expires>} keyed with the device's Eco key, in hex. */
  private String signature(UploadedMedia.Media media, long expires) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(
          new SecretKeySpec(
              tenants.device(media.deviceId()).ecoKey().getBytes(StandardCharsets.UTF_8),
              "HmacSHA256"));
      return HexFormat.of()
          .formatHex(mac.doFinal((media.id() + ":" + expires).getBytes(StandardCharsets.US_ASCII)));
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  /**
   * The upload, or the file of the incoming message, the path names, of a device the caller
   * reaches; Meta's 100/33 otherwise.
   */
  private UploadedMedia.Media find(Context ctx, ApiCaller caller) {
    String id = ctx.pathParam("mediaId");
    long mediaId;
    try {
      mediaId = Long.parseLong(id);
    } catch (NumberFormatException e) {
      throw GraphErrors.noSuchObject(id);
    }
    return caller.devices(tenants).stream()
        .flatMap(d -> uploads.find(d, mediaId).or(() -> received.find(d, mediaId)).stream())
        .findFirst()
        .orElseThrow(() -> GraphErrors.noSuchObject(id));
  }

  private static ApiException missingFile() {
    return GraphErrors.error(
        400, GraphErrors.PARAMETER_MISSING, "The parameter file is required (multipart).");
  }
}
