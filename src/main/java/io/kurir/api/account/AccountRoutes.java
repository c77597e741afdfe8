package io.kurir.api.account;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.api.ErrorCatalogue;
import io.kurir.api.ErrorStyle;
import io.kurir.api.Guards;
import io.kurir.api.RemoteMedia;
import io.kurir.api.RequestFields;
import io.kurir.api.RouteTable;
import io.kurir.device.Sessions;
import io.kurir.media.SafeFetcher;
import io.kurir.message.MediaRef;
import io.kurir.message.Message;
import io.kurir.message.MessageText;
import io.kurir.message.Recipient;
import io.kurir.message.SendCommand;
import io.kurir.message.SendResult;
import io.kurir.message.Sends;
import io.kurir.message.Sends.Sent;
import io.kurir.phone.PhoneNumbers;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.MobileCs;
import io.kurir.tenant.Partner;
import io.kurir.tenant.TenantException;
import io.kurir.tenant.Tenants;
import io.kurir.time.Timestamps;
import io.kurir.webhook.MessageWebhooks;
import io.kurir.webhook.MessageWebhooks.Direction;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Account API ({@code /v2.0/}, {@code /v3.0/}): message webhooks, the license check, the mobile
 * CS list and the demo send. Calls name their license by its code (body field or path segment); the
 * demo send uses a partner's Basic credentials and a device key. Failures answer {@code {"status":
 * "failed", "message": token}}.
 */
public final class AccountRoutes implements RouteTable {
  /** Longest webhook URL: it is copied into every delivery. */
  private static final int MAX_URL = 2048;

  private final Tenants tenants;
  private final PhoneNumbers phones;
  private final MessageWebhooks webhooks;

  /** Which caller-given URLs Kurir may fetch: webhook targets and media URLs alike. */
  private final SafeFetcher urlGuard;

  private final MobileCs mobileCs;
  private final Sends sends;
  private final Timestamps timestamps;
  private final Sessions sessions;
  private final RemoteMedia media;

  /**
   * The fields of {@code /v2.0/send-message}, every one its public clients send (PHP, C#, WordPress
   * plugins): an {@code &} before any other name is text. {@code domain} (the site the old
   * service's license was bought for) is read and not needed: the license names the caller. {@code
   * gambar} is an image URL, {@code file} a file URL, {@code caption} their caption.
   */
  private static final Set<String> SEND_FIELDS =
      Set.of(
          "license",
          "domain",
          "wa_number",
          "text",
          "mode",
          "no_wa",
          "gambar",
          "file",
          "caption",
          RequestFields.IDEMPOTENCY_KEY_FIELD);

  public AccountRoutes(
      Tenants tenants,
      PhoneNumbers phones,
      MessageWebhooks webhooks,
      SafeFetcher urlGuard,
      MobileCs mobileCs,
      Sends sends,
      Timestamps timestamps,
      Sessions sessions,
      RemoteMedia media) {
    this.sessions = sessions;
    this.media = media;
    this.tenants = tenants;
    this.phones = phones;
    this.webhooks = webhooks;
    this.urlGuard = urlGuard;
    this.mobileCs = mobileCs;
    this.sends = sends;
    this.timestamps = timestamps;
  }

  @Override
  public String pathPrefix() {
    return "/v2.0/";
  }

  @Override
  public List<String> pathPrefixes() {
    return List.of("/v2.0/", "/v3.0/");
  }

  @Override
  public ErrorStyle errorStyle() {
    return ErrorStyle.STATUS_FAILED_JSON;
  }

  /**
   * A refused license ({@code license} field or path) as 401 {@code invalid_license} or 403 {@code
   * license_disabled} / {@code license_expired}; a refused send names the {@code text} field.
   */
  private static final ErrorCatalogue ERRORS =
      ErrorCatalogue.builder()
          .add(TenantException.Reason.NOT_FOUND, 401, "invalid_license", "no such license")
          .add(TenantException.Reason.DISABLED, 403, "license_disabled")
          .licenseExpired()
          .sendRefusals("text")
          .build();

  /** {@code /v2.0/demo} names a device by its Eco key, and its text {@code message}. */
  private static final ErrorCatalogue DEMO_ERRORS =
      ErrorCatalogue.builder()
          .credentialRefusals("key_disabled", "invalid_key", "no device has this key")
          .sendRefusals("message")
          .build();

  @Override
  public ErrorCatalogue errors() {
    return ERRORS;
  }

  @Override
  public Map<String, ErrorCatalogue> errorsByPrefix() {
    return Map.of("/v2.0/", ERRORS, "/v3.0/", ERRORS, "/v2.0/demo", DEMO_ERRORS);
  }

  @Override
  public void addTo(RoutesConfig routes) {
    routes.post("/v2.0/webhook", this::webhook);
    routes.get("/v3.0/license/expired/{license}", this::licenseCheck);
    routes.get("/v2.0/mobile/get-cs-id-all/{license}", this::mobileCsList);
    routes.post("/v2.0/mobile/get-cs-id-all/{license}", this::mobileCsList);
    routes.post("/v2.0/demo", this::demo);
    routes.post("/v2.0/send-message", this::sendMessage);
  }

  // --- /v2.0/send-message

  /**
   * The legacy send that public clients still call: {@code license}, {@code wa_number} (the
   * recipient), {@code text}, optional {@code mode} ({@code sync} waits for the outcome as {@code
   * send_message} does; anything else queues), {@code no_wa} (the sending device's number; without
   * it the license's primary device sends, {@link Sessions#primaryOf}), {@code gambar} or {@code
   * file} (an image or file URL, sent with the text as its caption) with {@code caption}, and
   * {@code domain} (read, not needed). Form bodies built by hand are read as they are meant ({@link
   * #SEND_FIELDS}). It goes through the same pipeline as every send. Answers {@code
   * {"status":"success","message":"queued"|"sent","msg_id":"<id>"}}, or {@code "failed"} with the
   * outcome ({@code number_not_found}, {@code phone_offline}, {@code other_error}).
   */
  private void sendMessage(Context ctx) {
    Instant started = Instant.now();
    RequestFields f = RequestFields.of(ctx, SEND_FIELDS);
    License license = tenants.licenseToUse(f.required("license"));
    String to =
        phones
            .normalize(f.required("wa_number"))
            .orElseThrow(
                () -> ApiException.fieldNotValid("wa_number", "wa_number is not a phone number"));
    Optional<LegacyMedia> attached = LegacyMedia.of(f);
    String text = legacyText(f, attached.isPresent());
    boolean sync = f.text("mode").map(m -> m.strip().equalsIgnoreCase("sync")).orElse(false);
    Device device = senderOf(license, f.text("no_wa"));
    Guards.countKey(ctx, device);
    if (device.disabled()) {
      throw new ApiException(403, "device_disabled", "the sending device is switched off");
    }
    SendCommand.Builder command =
        attached.isEmpty()
            ? SendCommand.builder("account.send").text(text).idempotencyKey(f.idempotencyKey())
            : withMedia(
                SendCommand.builder("account.send").body(text), attached.get(), sync, f, started);
    Sent sent =
        sends.send(
            device, command.to(Recipient.number(to)).callerWaitsSince(started, sync).build());
    ctx.json(sendReply(sent, sync));
  }

  /** {@code {"status", "message", "msg_id"}}: queued, or a sync send's outcome. */
  private static Map<String, Object> sendReply(Sent sent, boolean sync) {
    Map<String, Object> body = new LinkedHashMap<>();
    if (!sync) {
      body.put("status", "success");
      body.put("message", "queued");
    } else {
      SendResult result = sent.firstOutcome();
      body.put("status", result == SendResult.SENT ? "success" : "failed");
      body.put(
          "message",
          switch (result) {
            case SENT -> "sent";
            case NUMBER_NOT_FOUND -> "number_not_found";
            // No outcome in time: the message was withdrawn; to the caller the phone did not
            // answer.
            case PHONE_OFFLINE, TIMEOUT -> "phone_offline";
            case FAILED, DEVICE_BUSY -> "other_error";
          });
    }
    body.put("msg_id", Long.toString(sent.first().id()));
    return body;
  }

  /** The image ({@code gambar}) or file ({@code file}) URL of a legacy send; the image wins. */
  private record LegacyMedia(String field, String kind, String url) {
    static Optional<LegacyMedia> of(RequestFields f) {
      return f.text("gambar")
          .map(u -> new LegacyMedia("gambar", "image", u.strip()))
          .or(() -> f.text("file").map(u -> new LegacyMedia("file", "file", u.strip())));
    }
  }

  /**
   * The text, or with an image or file its caption: {@code text}, after {@code caption} when both
   * are given (the clients that send both mean both to be read); an image or file may go without.
   */
  private static String legacyText(RequestFields f, boolean withMedia) {
    String text = MessageText.normalize(f.text("text").orElse(""));
    if (!withMedia) {
      if (text.isBlank()) {
        throw ApiException.fieldEmpty("text");
      }
      return text;
    }
    String caption = MessageText.normalize(f.text("caption").orElse(""));
    if (caption.isBlank()) {
      return text;
    }
    return text.isBlank() ? caption : caption + "\n" + text;
  }

  /**
   * An image or file send: queued, it is fetched when its turn comes (the URL is checked now, and
   * again then); sync, it is fetched first, in half the call's time.
   */
  private SendCommand.Builder withMedia(
      SendCommand.Builder command,
      LegacyMedia attached,
      boolean sync,
      RequestFields f,
      Instant started) {
    command.idempotencyKey(f.idempotencyKey()); // a bad key is refused before the fetch
    if (sync) {
      MediaRef file =
          media.fetch(
              attached.field(), attached.url(), started.plus(sends.syncTimeout().dividedBy(2)));
      // What came back decides, as in the CRM's image send: a PDF given as gambar goes as a file.
      return command
          .kind(file.mimeType().startsWith("image/") ? "image" : "file")
          .media(Optional.of(file));
    }
    Optional<String> refusal = urlGuard.refusalOf(attached.url());
    if (refusal.isPresent()) {
      throw ApiException.fieldNotValid(
          attached.field(), "Kurir may not fetch this URL: " + refusal.get());
    }
    return command.kind(attached.kind()).mediaUrl(Optional.of(attached.url()));
  }

  /**
   * The device that sends for {@code license}: the one numbered {@code noWa}, or the license's
   * primary device ({@link Sessions#primaryOf}): the legacy clients never send {@code no_wa}.
   */
  private Device senderOf(License license, Optional<String> noWa) {
    if (noWa.isPresent()) {
      return deviceOf(license, noWa.get());
    }
    return sessions
        .primaryOf(tenants.devicesOf(license))
        .orElseThrow(
            () -> new ApiException(404, "no_device", "the license has no device to send from"));
  }

  // --- /v2.0/webhook

  private void webhook(Context ctx) {
    RequestFields f = RequestFields.of(ctx);
    // An expired license may still look at and remove its webhooks, not set new ones.
    License license = tenants.licenseToRead(f.required("license"));
    Device device = deviceOf(license, f.required("no_wa"));
    Guards.countKey(ctx, device);
    String action = f.required("action").strip().toLowerCase(Locale.ROOT);
    switch (action) {
      case "set" -> set(ctx, f, license, device, Direction.INCOMING);
      case "set_outgoing" -> set(ctx, f, license, device, Direction.OUTGOING);
      case "get" -> reply(ctx, webhooks.urls(device.id()).incoming().orElse(""), null);
      case "get_all" -> {
        MessageWebhooks.Urls urls = webhooks.urls(device.id());
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("incoming", urls.incoming().orElse(""));
        data.put("outgoing", urls.outgoing().orElse(""));
        reply(ctx, "found", data);
      }
      case "unset" -> unset(ctx, device, Direction.INCOMING);
      case "unset_outgoing" -> unset(ctx, device, Direction.OUTGOING);
      default ->
          throw ApiException.fieldNotValid(
              "action", "action is set, set_outgoing, get, get_all, unset or unset_outgoing");
    }
  }

  private void set(
      Context ctx, RequestFields f, License license, Device device, Direction direction) {
    tenants.requireNotExpired(license);
    String url = f.required("url").strip();
    if (url.length() > MAX_URL) {
      throw ApiException.fieldNotValid("url", "at most " + MAX_URL + " characters");
    }
    Optional<String> refusal = urlGuard.refusalOf(url);
    if (refusal.isPresent()) {
      throw ApiException.fieldNotValid("url", "Kurir may not call this URL: " + refusal.get());
    }
    webhooks.set(device.id(), direction, Optional.of(url));
    reply(ctx, url, null);
  }

  private void unset(Context ctx, Device device, Direction direction) {
    webhooks.set(device.id(), direction, Optional.empty());
    reply(ctx, "unset success", null);
  }

  /** The license's device with the number {@code noWa}. */
  private Device deviceOf(License license, String noWa) {
    String number =
        phones
            .normalize(noWa)
            .orElseThrow(() -> ApiException.fieldNotValid("no_wa", "no_wa is not a phone number"));
    return tenants.devicesOf(license).stream()
        .filter(d -> d.number().equals(number))
        .findFirst()
        .orElseThrow(
            () -> new ApiException(404, "no_wa_not_found", "the license has no device " + noWa));
  }

  private static void reply(Context ctx, String message, Map<String, Object> data) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", "success");
    body.put("message", message);
    if (data != null) {
      body.put("data", data);
    }
    ctx.json(body);
  }

  // --- /v3.0/license/expired/{license}

  private void licenseCheck(Context ctx) {
    Map<String, Object> body = new LinkedHashMap<>();
    Optional<License> found = tenants.licenseByCode(ctx.pathParam("license").strip());
    if (found.isEmpty()) {
      body.put("success", false);
      body.put("message", "license not found");
      body.put("expired_date", null);
      body.put("status", "failed");
    } else {
      License license = found.get();
      Guards.countKey(ctx, license);
      boolean expired = tenants.isExpired(license);
      boolean off = license.disabled() || tenants.partner(license.partnerId()).disabled();
      String until = license.expiresOn().map(Object::toString).orElse(null);
      body.put("success", !off);
      body.put(
          "message",
          off
              ? "license is switched off"
              : expired
                  ? "license expired on " + until
                  : until == null
                      ? "license active, no expiry date"
                      : "license active until " + until);
      body.put("expired_date", until);
      body.put("status", off ? "failed" : expired ? "expired" : "active");
    }
    ctx.json(body);
  }

  // --- /v2.0/mobile/get-cs-id-all/{license}

  private void mobileCsList(Context ctx) {
    License license = tenants.licenseToRead(ctx.pathParam("license"));
    Guards.countKey(ctx, license);
    List<Map<String, Object>> entries =
        mobileCs.of(license.id()).stream()
            .map(
                e -> {
                  Map<String, Object> m = new LinkedHashMap<>();
                  m.put("id", e.id());
                  m.put("cs_nama", e.name());
                  m.put("player_id", e.playerId());
                  m.put("device_id", e.handsetId());
                  m.put("created_at", timestamps.reply(e.createdAt()));
                  return m;
                })
            .toList();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", entries.isEmpty() ? "not_found" : "found");
    body.put("message", entries.size() + " mobile CS");
    body.put("data", entries);
    ctx.json(body);
  }

  // --- /v2.0/demo

  /**
   * Sends a text from the device of {@code key}, which must belong to the partner whose Basic
   * credentials sign the call: {@code {"status":"success","message":"queued","msg_id":"<id>"}}.
   */
  private void demo(Context ctx) {
    Partner partner = Guards.requirePartner(ctx, tenants);
    RequestFields f = RequestFields.of(ctx);
    Device device = tenants.deviceForEcoKey(f.required("key").strip());
    if (tenants.license(device.licenseId()).partnerId() != partner.id()) {
      throw new ApiException(403, "not_your_client", "the key is not of your clients");
    }
    String to =
        phones
            .normalize(f.required("phone_no"))
            .orElseThrow(() -> ApiException.fieldNotValid("phone_no", "not a phone number"));
    String text = MessageText.normalize(f.required("message"));
    if (text.isBlank()) {
      throw ApiException.fieldEmpty("message");
    }
    Message m =
        sends
            .send(
                device,
                SendCommand.builder("account.demo")
                    .to(Recipient.number(to))
                    .text(text)
                    .idempotencyKey(f.idempotencyKey())
                    .build())
            .first();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", "success");
    body.put("message", "queued");
    body.put("msg_id", Long.toString(m.id()));
    ctx.json(body);
  }
}
