package io.kurir.api.multiagent;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.UploadedFile;
import io.kurir.api.ApiException;
import io.kurir.api.ErrorCatalogue;
import io.kurir.api.ErrorStyle;
import io.kurir.api.Guards;
import io.kurir.api.RemoteMedia;
import io.kurir.api.RequestFields;
import io.kurir.api.RouteTable;
import io.kurir.contact.ContactIdentities;
import io.kurir.media.FetchedFile;
import io.kurir.media.FileTypes;
import io.kurir.media.MediaFiles;
import io.kurir.message.GroupIds;
import io.kurir.message.MediaRef;
import io.kurir.message.Message;
import io.kurir.message.MessageText;
import io.kurir.message.Recipient;
import io.kurir.message.SendCommand;
import io.kurir.message.Sends;
import io.kurir.phone.PhoneNumbers;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import io.kurir.time.Timestamps;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The multi-agent API ({@code /api/srv1/}): sends by the device's {@code device-key} header, queued
 * like the Eco API's async sends. Success is {@code {"status": 200, "message": "Success!", "data":
 * <message record>}}; failures carry the HTTP status in {@code status}.
 */
public final class MultiAgentRoutes implements RouteTable {
  private final Tenants tenants;
  private final ContactIdentities contacts;
  private final PhoneNumbers phones;
  private final Sends sends;
  private final RemoteMedia remote;
  private final MediaFiles files;
  private final Timestamps timestamps;
  private final long maxKb;

  public MultiAgentRoutes(
      Tenants tenants,
      PhoneNumbers phones,
      Sends sends,
      RemoteMedia remote,
      MediaFiles files,
      Timestamps timestamps,
      long maxKb,
      ContactIdentities contacts) {
    this.contacts = contacts;
    this.tenants = tenants;
    this.phones = phones;
    this.sends = sends;
    this.remote = remote;
    this.files = files;
    this.timestamps = timestamps;
    this.maxKb = maxKb;
  }

  @Override
  public String pathPrefix() {
    return "/api/srv1/";
  }

  @Override
  public ErrorStyle errorStyle() {
    return ErrorStyle.STATUS_CODE_JSON;
  }

  /** A refused {@code device-key} or send, in the API's {@code {"status": <code>}} style. */
  private static final ErrorCatalogue ERRORS =
      ErrorCatalogue.builder()
          .credentialRefusals(
              "device_disabled", "invalid_device_key", "no device has this device-key")
          .sendRefusals("message")
          .build();

  @Override
  public ErrorCatalogue errors() {
    return ERRORS;
  }

  @Override
  public void addTo(RoutesConfig routes) {
    routes.post("/api/srv1/send-text", this::sendText);
    routes.post("/api/srv1/send-media-url", this::sendMediaUrl);
    routes.post("/api/srv1/send-media", this::sendMedia);
  }

  /** {@code number}, {@code message}, {@code group} (1: {@code number} is a group id). */
  private void sendText(Context ctx) {
    Device device = device(ctx);
    RequestFields f = RequestFields.of(ctx);
    String text = requireText(MessageText.normalize(f.required("message")));
    send(ctx, device, recipient(f, device), "text", text, Optional.empty(), f.idempotencyKey());
  }

  /** Adds {@code media_url} and {@code type} ({@code text}, {@code image}, {@code document}). */
  private void sendMediaUrl(Context ctx) {
    Instant started = Instant.now();
    Device device = device(ctx);
    RequestFields f = RequestFields.of(ctx);
    Recipient to = recipient(f, device);
    String type = type(f);
    String text = MessageText.normalize(f.text("message").orElse(""));
    Optional<String> key = f.idempotencyKey(); // a bad key is refused before the fetch
    if (type.equals("text")) {
      send(ctx, device, to, "text", requireText(text), Optional.empty(), key);
      return;
    }
    MediaRef media =
        remote.fetch("media_url", f.required("media_url"), started.plus(remote.timeout()));
    send(ctx, device, to, kindOf(type, media), text, Optional.of(media), key);
  }

  /** Multipart: the file in part {@code media}. */
  private void sendMedia(Context ctx) {
    Device device = device(ctx);
    RequestFields f = RequestFields.of(ctx);
    Recipient to = recipient(f, device);
    String type = type(f);
    String text = MessageText.normalize(f.text("message").orElse(""));
    Optional<String> key = f.idempotencyKey(); // a bad key is refused before the file is kept
    if (type.equals("text")) {
      send(ctx, device, to, "text", requireText(text), Optional.empty(), key);
      return;
    }
    MediaRef media = files.keep(uploaded(ctx));
    send(ctx, device, to, kindOf(type, media), text, Optional.of(media), key);
  }

  private FetchedFile uploaded(Context ctx) {
    UploadedFile file;
    try {
      file = ctx.uploadedFile("media");
    } catch (Exception e) { // not multipart
      throw ApiException.badRequest("media_empty", "send the file as multipart part 'media'");
    }
    if (file == null) {
      throw ApiException.fieldEmpty("media");
    }
    if (file.size() > maxKb * 1024) {
      throw new ApiException(413, "file_more_than_" + maxKb + "KB", "the file is too large");
    }
    byte[] bytes;
    try (InputStream in = file.content()) {
      bytes = in.readAllBytes();
    } catch (IOException e) {
      throw ApiException.badRequest("malformed_body", "the file could not be read");
    }
    if (bytes.length == 0) {
      throw ApiException.fieldEmpty("media");
    }
    String name = FileTypes.sanitize(file.filename());
    return new FetchedFile(name, FileTypes.typeOf(bytes, name), bytes);
  }

  private static String type(RequestFields f) {
    String type = f.text("type").orElse("text").strip().toLowerCase(Locale.ROOT);
    if (!List.of("text", "image", "document").contains(type)) {
      throw ApiException.fieldNotValid("type", "type is text, image or document");
    }
    return type;
  }

  /** An image is sent as an image only when it is one; anything else goes as a document. */
  private static String kindOf(String type, MediaRef media) {
    return type.equals("image") && media.mimeType().startsWith("image/") ? "image" : "file";
  }

  private static String requireText(String text) {
    if (text.isBlank()) {
      throw ApiException.fieldEmpty("message");
    }
    return text;
  }

  private Recipient recipient(RequestFields f, Device device) {
    String raw = f.required("number");
    if (f.flag("group")) {
      return new Recipient(
          GroupIds.normalize(raw)
              .orElseThrow(
                  () -> ApiException.fieldNotValid("number", "a group id is <phone>-<suffix>")),
          true);
    }
    // A LID or a BSUID the device met (an agent answering the contact_name it was pushed) too.
    return Recipient.number(
        phones
            .normalize(raw)
            .or(() -> contacts.sendableAddress(device.id(), raw))
            .orElseThrow(() -> ApiException.fieldNotValid("number", "not a phone number")));
  }

  private Device device(Context ctx) {
    String key = Optional.ofNullable(ctx.header("device-key")).orElse("").strip();
    if (key.isEmpty()) {
      throw new ApiException(401, "device_key_empty", "send the device-key header");
    }
    Device device = tenants.deviceFor(Tenants.Credential.DEVICE_KEY, key);
    Guards.countKey(ctx, device);
    return device;
  }

  private void send(
      Context ctx,
      Device device,
      Recipient to,
      String kind,
      String text,
      Optional<MediaRef> media,
      Optional<String> key) {
    Message m =
        sends
            .send(
                device,
                SendCommand.builder("multiagent")
                    .to(to)
                    .kind(kind)
                    .body(text)
                    .media(media)
                    .idempotencyKey(key)
                    .build())
            .first();
    ctx.json(reply(device, to, kind, m));
  }

  /** {@code {"status": 200, "message": "Success!", "data": {…the message…}}}. */
  private Map<String, Object> reply(Device device, Recipient to, String kind, Message m) {
    Map<String, Object> data = new LinkedHashMap<>();
    // A number without its +; a group id, a LID or a BSUID as it is.
    String number = to.address().startsWith("+") ? to.address().substring(1) : to.address();
    data.put("id", Long.toString(m.id()));
    data.put("device_id", Long.toString(device.id()));
    data.put("message", m.body());
    data.put("number", number);
    data.put("type", kind.equals("file") ? "document" : kind);
    // A LID is already a chat id (WhatsApp's own); a BSUID names the chat by itself.
    boolean networkId = !to.group() && !to.address().startsWith("+");
    data.put("chat_id", networkId ? number : number + (to.group() ? "@g.us" : "@c.us"));
    data.put("from_me", true);
    data.put("from_group", to.group());
    data.put("api", true);
    data.put("created_at", timestamps.reply(m.createdAt()));
    data.put("updated_at", timestamps.reply(m.statusAt()));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", 200);
    body.put("message", "Success!");
    body.put("data", data);
    return body;
  }
}
