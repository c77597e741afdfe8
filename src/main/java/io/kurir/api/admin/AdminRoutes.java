package io.kurir.api.admin;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.kurir.api.ApiException;
import io.kurir.api.ErrorCatalogue;
import io.kurir.api.ErrorStyle;
import io.kurir.api.Guards;
import io.kurir.api.RequestFields;
import io.kurir.api.RouteTable;
import io.kurir.device.DeviceState;
import io.kurir.device.Sessions;
import io.kurir.message.Message;
import io.kurir.message.MessageEvent;
import io.kurir.message.MessageHistory;
import io.kurir.message.Messages;
import io.kurir.tenant.ApiKey;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.tenant.MobileCs;
import io.kurir.tenant.TenantException;
import io.kurir.tenant.TenantViews;
import io.kurir.tenant.Tenants;
import io.kurir.tenant.Tenants.Credential;
import io.kurir.time.Timestamps;
import io.kurir.webhook.MessageWebhooks;
import io.kurir.webhook.WebhookDeliveries;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Kurir's own Admin API ({@code /admin/}, JSON, {@code Authorization: Bearer <admin.token>}):
 * partners, licenses and devices. {@code ./kurir admin} does the same from the command line.
 */
public final class AdminRoutes implements RouteTable {
  /** The methods whose requests carry fields the guard checks. */
  private static final List<String> BODY_METHODS = List.of("POST", "PUT", "PATCH");

  private final Tenants tenants;
  private final TenantViews views;
  private final Optional<String> adminToken;

  private final Messages messages;
  private final Sessions sessions;
  private final MessageWebhooks messageWebhooks;
  private final WebhookDeliveries deliveries;
  private final Runnable outboxWake;
  private final java.time.Duration webhookSecretOverlap;
  private final Timestamps timestamps;
  private final AdminMobileCsHandlers mobileCs;
  private final AdminScriptHandlers scripts;

  public AdminRoutes(
      Tenants tenants,
      TenantViews views,
      Messages messages,
      Sessions sessions,
      MessageWebhooks messageWebhooks,
      WebhookDeliveries deliveries,
      Runnable outboxWake,
      java.time.Duration webhookSecretOverlap,
      Timestamps timestamps,
      MobileCs mobileCs,
      String pushAppId,
      Optional<String> publicUrl,
      Optional<String> adminToken) {
    this.mobileCs = new AdminMobileCsHandlers(mobileCs, tenants, timestamps);
    this.scripts = new AdminScriptHandlers(tenants, mobileCs, pushAppId, publicUrl);
    this.webhookSecretOverlap = webhookSecretOverlap;
    this.deliveries = deliveries;
    this.outboxWake = outboxWake;
    this.tenants = tenants;
    this.views = views;
    this.messages = messages;
    this.sessions = sessions;
    this.messageWebhooks = messageWebhooks;
    this.timestamps = timestamps;
    this.adminToken = adminToken;
  }

  @Override
  public String pathPrefix() {
    return "/admin/";
  }

  @Override
  public ErrorStyle errorStyle() {
    return ErrorStyle.KURIR_JSON;
  }

  @Override
  public void addTo(RoutesConfig r) {
    r.get(
        "/admin/partners",
        admin(ctx -> ctx.json(tenants.partners().stream().map(views::of).toList())));
    r.post("/admin/partners", admin(List.of("name", "email"), this::createPartner));
    r.post("/admin/partners/{id}/disable", admin(ctx -> tenants.setPartnerDisabled(id(ctx), true)));
    r.post("/admin/partners/{id}/enable", admin(ctx -> tenants.setPartnerDisabled(id(ctx), false)));
    r.post(
        "/admin/partners/{id}/rotate-secret",
        admin(ctx -> ctx.json(views.of(tenants.rotatePartnerSecret(id(ctx))))));

    r.get(
        "/admin/licenses",
        admin(ctx -> ctx.json(tenants.licenses().stream().map(views::of).toList())));
    r.post(
        "/admin/licenses",
        admin(
            List.of("partner", "name", "email", "expires", "allowed", "allow"),
            this::createLicense));
    r.post("/admin/licenses/{id}/disable", admin(ctx -> tenants.setLicenseDisabled(id(ctx), true)));
    r.post("/admin/licenses/{id}/enable", admin(ctx -> tenants.setLicenseDisabled(id(ctx), false)));
    r.post("/admin/licenses/{id}/expires", admin(List.of("expires"), this::setExpiry));
    r.post(
        "/admin/licenses/{id}/rotate-code",
        admin(ctx -> ctx.json(views.of(tenants.rotateLicenseCode(id(ctx))))));
    r.post(
        "/admin/licenses/{id}/rotate-push-key",
        admin(ctx -> ctx.json(views.of(tenants.rotatePushKey(id(ctx))))));
    r.post(
        "/admin/licenses/{id}/rotate-webhook-secret",
        admin(
            ctx -> ctx.json(views.of(tenants.rotateWebhookSecret(id(ctx), webhookSecretOverlap)))));

    r.get(
        "/admin/devices", admin(ctx -> ctx.json(devices(tenants, views, sessions.states().all()))));
    r.post(
        "/admin/devices",
        admin(List.of("license", "number", "driver", "config"), this::createDevice));
    r.get("/admin/devices/{id}", admin(this::device));
    r.patch("/admin/devices/{id}", admin(List.of("config"), this::configureDevice));
    r.delete("/admin/devices/{id}", admin(this::deleteDevice));
    r.post("/admin/devices/{id}/disable", admin(ctx -> tenants.setDeviceDisabled(id(ctx), true)));
    r.post("/admin/devices/{id}/enable", admin(ctx -> tenants.setDeviceDisabled(id(ctx), false)));
    r.post("/admin/devices/{id}/rotate", admin(List.of("credential"), this::rotate));

    r.get("/admin/messages/{id}", admin(this::message));
    r.post("/admin/devices/{id}/pairing", admin(this::pairing));
    r.post("/admin/devices/{id}/link-code", admin(this::linkCode));
    r.post("/admin/devices/{id}/retry", admin(this::retry));

    r.get("/admin/licenses/{id}/api-keys", admin(this::apiKeys));
    r.post("/admin/licenses/{id}/api-keys", admin(List.of("name", "scopes"), this::createApiKey));
    r.delete("/admin/licenses/{id}/api-keys/{keyId}", admin(this::revokeApiKey));
    r.get("/admin/licenses/{id}/mobile-cs", admin(ctx -> mobileCs.list(ctx, id(ctx))));
    r.post(
        "/admin/licenses/{id}/mobile-cs",
        admin(
            List.of("device", "name", "playerId", "handsetId"), ctx -> mobileCs.add(ctx, id(ctx))));
    r.delete("/admin/mobile-cs/{id}", admin(ctx -> mobileCs.remove(ctx, id(ctx))));
    r.get("/admin/devices/{id}/script", admin(ctx -> scripts.script(ctx, id(ctx))));

    r.get("/admin/webhooks", admin(this::webhooks));
    r.post("/admin/webhooks/{id}/replay", admin(this::replay));
  }

  /**
   * Every device as the Admin API and {@code ./kurir admin device list} list it: with its
   * configuration and its recorded session {@code state} ({@code none}, {@code online}, {@code
   * offline}, {@code refresh_it}, {@code failed}, {@code port_down}), read for all devices at once
   * as the console's lists do: asking each driver (an engine's API) for hundreds of devices would
   * make a list slow.
   */
  public static List<Map<String, Object>> devices(
      Tenants tenants, TenantViews views, Map<Long, DeviceState> recorded) {
    return tenants.devices().stream()
        .map(
            d ->
                withState(
                    views.of(d, tenants),
                    recorded.getOrDefault(d.id(), DeviceState.NONE).wireName()))
        .toList();
  }

  /** The device's view with {@code state} after {@code driver}, where a reader looks for it. */
  private static Map<String, Object> withState(Map<String, Object> device, String state) {
    Map<String, Object> v = new LinkedHashMap<>();
    device.forEach(
        (k, value) -> {
          v.put(k, value);
          if (k.equals("driver")) {
            v.put("state", state);
          }
        });
    return v;
  }

  /**
   * One device: its configuration, its session state as its driver sees it now ({@code port_down}
   * when the driver is not running; {@code failed} while its sender keeps failing, see {@link
   * io.kurir.device.Sessions#shownState}), as the console's device page shows it, and where its
   * events go.
   */
  private void device(Context ctx) {
    Device device = tenants.device(id(ctx));
    Map<String, Object> v =
        device(
            tenants,
            views,
            device,
            sessions.shownState(device).map(DeviceState::wireName).orElse("port_down"),
            messageWebhooks.urls(device.id()),
            sessions.states().statusWebhook(device.id()));
    // Why it is in its state (a passkey asked for on the phone, a failed session restarted): the
    // reason of its last recorded change, as its history shows it.
    v.put("stateReason", sessions.states().lastReason(device.id()).orElse(null));
    ctx.json(v);
  }

  /**
   * A device as {@code GET /admin/devices/{id}} and {@code ./kurir admin device show} show it: with
   * its {@code state}, and its three webhook URLs with the secret that signs their calls (its
   * license's), which a receiver needs to check {@code X-Kurir-Signature}.
   */
  public static Map<String, Object> device(
      Tenants tenants,
      TenantViews views,
      Device device,
      String state,
      MessageWebhooks.Urls urls,
      Optional<String> statusWebhook) {
    Map<String, Object> v = withState(views.of(device, tenants), state);
    Map<String, Object> webhooks = new LinkedHashMap<>();
    webhooks.put("incoming", urls.incoming().orElse(null));
    webhooks.put("outgoing", urls.outgoing().orElse(null));
    webhooks.put("status", statusWebhook.orElse(null));
    webhooks.put("secret", tenants.license(device.licenseId()).webhookSecret());
    v.put("webhooks", webhooks);
    return v;
  }

  /** The license's API keys that are not revoked, without the keys themselves. */
  private void apiKeys(Context ctx) {
    ctx.json(tenants.apiKeys().of(id(ctx)).stream().map(AdminRoutes::apiKey).toList());
  }

  /** {@code {name, scopes}}: a new key, answered once with its {@code key}. */
  private void createApiKey(Context ctx) {
    RequestFields f = RequestFields.of(ctx);
    ApiKey made =
        tenants
            .apiKeys()
            .create(id(ctx), f.required("name"), ApiScope.parse(f.text("scopes").orElse("")));
    ctx.status(201).json(apiKey(made));
  }

  private void revokeApiKey(Context ctx) {
    tenants.apiKeys().revoke(id(ctx), parseId(ctx.pathParam("keyId"), "keyId"));
    ctx.status(204);
  }

  /**
   * An API key as the Admin API, {@code ./kurir admin key} and the console show it: {@code {id,
   * licenseId, name, scopes, createdAt}}, and {@code key} only in the answer to its creation.
   */
  public static Map<String, Object> apiKey(ApiKey k) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("id", Long.toString(k.id()));
    v.put("licenseId", Long.toString(k.licenseId()));
    v.put("name", k.name());
    v.put("scopes", k.scopes().stream().sorted().map(ApiScope::wireName).toList());
    v.put("createdAt", k.createdAt().toString());
    k.key().ifPresent(key -> v.put("key", key));
    return v;
  }

  /** Deletes a device; its history stays (docs/decisions.md, "Deleting a device"). */
  private void deleteDevice(Context ctx) {
    tenants.deleteDevice(id(ctx));
    ctx.status(204);
  }

  private void createPartner(Context ctx) {
    RequestFields f = RequestFields.of(ctx);
    ctx.status(201)
        .json(views.of(tenants.createPartner(f.required("name"), f.text("email").orElse(""))));
  }

  private void createLicense(Context ctx) {
    RequestFields f = RequestFields.of(ctx);
    long partner = parseId(f.required("partner"), "partner");
    LocalDate expires = f.text("expires").map(AdminRoutes::date).orElse(null);
    List<String> allowed =
        f.textOf("allowed", "allow").map(a -> Arrays.asList(a.split(","))).orElse(List.of());
    ctx.status(201)
        .json(
            views.of(
                tenants.createLicense(
                    partner, f.required("name"), f.text("email").orElse(""), expires, allowed)));
  }

  /** {@code {"expires": "YYYY-MM-DD"}} renews a license; {@code null} or {@code ""}: no expiry. */
  private void setExpiry(Context ctx) {
    LocalDate expires = RequestFields.of(ctx).text("expires").map(AdminRoutes::date).orElse(null);
    ctx.json(views.of(tenants.setLicenseExpiry(id(ctx), expires)));
  }

  private void createDevice(Context ctx) {
    RequestFields f = RequestFields.of(ctx);
    long license = parseId(f.required("license"), "license");
    ctx.status(201)
        .json(
            views.of(
                tenants.createDevice(
                    license,
                    f.required("number"),
                    f.text("driver").orElse(null),
                    f.stringMap("config")),
                tenants));
  }

  /** {@code {"config": {"key": "value", "other": null}}}: null or "" removes a key. */
  private void configureDevice(Context ctx) {
    Map<String, String> changes = RequestFields.of(ctx).stringMap("config");
    if (changes.isEmpty()) {
      throw ApiException.fieldEmpty("config");
    }
    ctx.json(views.of(tenants.configureDevice(id(ctx), changes), tenants));
  }

  private void rotate(Context ctx) {
    RequestFields f = RequestFields.of(ctx);
    Credential credential = Credential.parse(f.text("credential").orElse("key"));
    ctx.json(views.of(tenants.rotate(id(ctx), credential)));
  }

  /**
   * A device's pairing: its state, and when it is not paired the current pairing payload (the text
   * of the QR code to scan). {@code ./kurir admin device qr} shows it in a terminal. A code that
   * nothing could scan in this set-up (a sandbox device without the sandbox API) is refused with
   * what to change.
   */
  private void pairing(Context ctx) {
    var device = tenants.device(id(ctx));
    sessions
        .pairingObstacle(device)
        .ifPresent(
            why -> {
              throw new ApiException(409, "pairing_not_scannable", why);
            });
    var state = sessions.state(device);
    if (state.isEmpty()) {
      // Not "paired, no code": nothing can be asked of an engine that cannot be reached.
      throw new ApiException(503, "driver_down", sessions.downReason(device));
    }
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("device", Long.toString(device.id()));
    reply.put("state", state.get().wireName());
    reply.put(
        "payload",
        sessions.pairing(device) instanceof Sessions.Pairing.Code code ? code.payload() : null);
    ctx.json(reply);
  }

  /**
   * An operator's retry of a device whose queue is held because its network refused the account (a
   * bad token, a wrong number id, a locked account): the queue resumes, and the next send tells
   * whether the cause is gone. 409 {@code device_not_held} for a device that is not held.
   */
  private void retry(Context ctx) {
    var device = tenants.device(id(ctx));
    if (!sessions.retry(device)) {
      throw new ApiException(
          409, "device_not_held", "the device's queue is not held: nothing to retry");
    }
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("device", Long.toString(device.id()));
    reply.put("state", sessions.state(device).map(DeviceState::wireName).orElse("port_down"));
    ctx.json(reply);
  }

  /**
   * A code that links the device's number when typed on its phone (WhatsApp: Linked devices → Link
   * with phone number instead), the alternative to the QR code.
   */
  private void linkCode(Context ctx) {
    var device = tenants.device(id(ctx));
    switch (sessions.linkCode(device)) {
      case Sessions.LinkCode.Code c ->
          ctx.json(Map.of("device", Long.toString(device.id()), "code", c.code()));
      case Sessions.LinkCode.AlreadyPaired a ->
          throw new ApiException(409, "already_paired", "the device is paired: log it out first");
      case Sessions.LinkCode.DriverDown d ->
          throw new ApiException(503, "driver_down", sessions.downReason(device));
      case Sessions.LinkCode.Unavailable u ->
          throw new ApiException(
              409,
              "link_code_unavailable",
              "driver " + device.driver() + " gives no link code for this device now");
    }
  }

  /** Webhook deliveries by state ({@code ?state=}, default failed), newest first. */
  private void webhooks(Context ctx) {
    String state = Optional.ofNullable(ctx.queryParam("state")).orElse("failed").strip();
    if (!List.of("failed", "dead", "pending", "delivered").contains(state)) {
      throw ApiException.fieldNotValid("state", "state must be failed, dead, pending or delivered");
    }
    ctx.json(deliveries.list(state).stream().map(d -> view(d, timestamps)).toList());
  }

  private void replay(Context ctx) {
    if (!deliveries.replay(id(ctx))) {
      throw ApiException.notFound("no failed or dead delivery " + ctx.pathParam("id"));
    }
    outboxWake.run();
  }

  /**
   * A webhook delivery as the Admin API and {@code ./kurir admin} show it, its times in the
   * operator zone like every other admin reply.
   */
  public static Map<String, Object> view(WebhookDeliveries.Delivery d, Timestamps timestamps) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("id", Long.toString(d.id()));
    v.put("deviceId", Long.toString(d.deviceId()));
    v.put("url", d.url());
    v.put("event", d.event());
    v.put("state", d.state());
    v.put("attempts", d.attempts());
    v.put("lastError", d.lastError().orElse(null));
    v.put("createdAt", timestamps.reply(d.createdAt()));
    v.put("finishedAt", d.finishedAt().map(timestamps::reply).orElse(null));
    v.put("payload", d.payload());
    return v;
  }

  /** A message of any device with every state it went through: why it did or did not go out. */
  private void message(Context ctx) {
    MessageHistory history =
        messages
            .history(id(ctx))
            .orElseThrow(() -> ApiException.notFound("no message " + ctx.pathParam("id")));
    Message m = history.message();
    Map<String, Object> message = new LinkedHashMap<>();
    message.put("id", Long.toString(m.id()));
    message.put("deviceId", Long.toString(m.deviceId()));
    message.put("recipient", m.recipient());
    message.put("toGroup", m.toGroup());
    message.put("kind", m.kind());
    message.put("text", m.body());
    message.put("api", m.api());
    message.put("sync", m.sync());
    message.put("retry", m.retry());
    message.put("state", m.state().wireName());
    message.put("reason", m.reason().orElse(null));
    message.put("attempts", m.attempts());
    message.put("createdAt", timestamps.reply(m.createdAt()));
    message.put("sentAt", m.sentAt().map(timestamps::reply).orElse(null));
    message.put("statusAt", timestamps.reply(m.statusAt()));
    List<Map<String, Object>> events = new ArrayList<>();
    for (MessageEvent e : history.events()) {
      Map<String, Object> event = new LinkedHashMap<>();
      event.put("state", e.state().wireName());
      event.put("reason", e.reason().orElse(null));
      event.put("at", timestamps.reply(e.at()));
      events.add(event);
    }
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("message", message);
    reply.put("events", events);
    ctx.json(reply);
  }

  /** {@link #admin(List, Handler)} for a call that takes no fields. */
  private Handler admin(Handler handler) {
    return admin(List.of(), handler);
  }

  /**
   * Guard: the bearer token is the configured admin token, and a POST, PUT or PATCH carries no
   * field but {@code fields} (400 {@code unknown_field} naming it: a misspelt field such as {@code
   * partnerId} must not be ignored while the call succeeds).
   */
  private Handler admin(List<String> fields, Handler handler) {
    return ctx -> {
      if (adminToken.isEmpty()) {
        throw new ApiException(403, "admin_disabled", "set admin.token to use the Admin API");
      }
      Guards.requireBearer(ctx, adminToken.get());
      if (BODY_METHODS.contains(ctx.method().name())) {
        RequestFields.of(ctx).refuseUnknown(fields);
      }
      handler.handle(ctx);
      if (ctx.result() == null && ctx.resultInputStream() == null) {
        ctx.json(Map.of("status", "ok")); // one field: its order cannot vary
      }
    };
  }

  /** A refusal of the tenant core in the Admin API's (and the console's) tokens. */
  public static final ErrorCatalogue ERRORS =
      ErrorCatalogue.builder()
          .add(TenantException.Reason.NOT_FOUND, 404, "not_found")
          .add(TenantException.Reason.INVALID, 400, "invalid")
          .add(TenantException.Reason.CONFLICT, 409, "conflict")
          .addAll(403, "forbidden", TenantException.Reason.DISABLED, TenantException.Reason.EXPIRED)
          .build();

  @Override
  public ErrorCatalogue errors() {
    return ERRORS;
  }

  private static long id(Context ctx) {
    return parseId(ctx.pathParam("id"), "id");
  }

  private static long parseId(String raw, String field) {
    try {
      return Long.parseLong(raw.strip());
    } catch (NumberFormatException e) {
      throw ApiException.fieldNotValid(field, field + " must be an id (digits)");
    }
  }

  private static LocalDate date(String raw) {
    try {
      return LocalDate.parse(raw.strip());
    } catch (DateTimeParseException e) {
      throw ApiException.fieldNotValid("expires", "expires must be a date YYYY-MM-DD");
    }
  }
}
