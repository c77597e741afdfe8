package io.kurir.driver.sandbox;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.kurir.api.ApiException;
import io.kurir.api.ErrorStyle;
import io.kurir.api.Guards;
import io.kurir.api.RequestFields;
import io.kurir.api.RouteTable;
import io.kurir.driver.sandbox.SandboxNetwork.FailureKind;
import io.kurir.phone.PhoneNumbers;
import io.kurir.tenant.Device;
import io.kurir.tenant.TenantException;
import io.kurir.tenant.Tenants;
import io.kurir.time.Timestamps;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The sandbox control API ({@code /sandbox/}, JSON): drives the simulated phone network. Open in
 * demo mode; otherwise served only when {@code drivers.sandbox.api} is on, and then behind the
 * admin token.
 */
public final class SandboxRoutes implements RouteTable {
  private final SandboxNetwork network;
  private final Tenants tenants;
  private final PhoneNumbers phones;
  private final Timestamps timestamps;
  private final Optional<String> requiredToken;

  /**
   * @param requiredToken the admin token callers must present, or empty for an open API (demo)
   */
  public SandboxRoutes(
      SandboxNetwork network,
      Tenants tenants,
      PhoneNumbers phones,
      Timestamps timestamps,
      Optional<String> requiredToken) {
    this.network = network;
    this.tenants = tenants;
    this.phones = phones;
    this.timestamps = timestamps;
    this.requiredToken = requiredToken;
  }

  @Override
  public String pathPrefix() {
    return "/sandbox/";
  }

  @Override
  public ErrorStyle errorStyle() {
    return ErrorStyle.KURIR_JSON;
  }

  @Override
  public void addTo(RoutesConfig r) {
    r.get("/sandbox/phones/{number}/inbox", guarded(this::inbox));
    r.post("/sandbox/phones/{number}", guarded(this::setPhone));
    r.get("/sandbox/groups", guarded(ctx -> ctx.json(network.groups())));
    r.post("/sandbox/groups", guarded(this::createGroup));
    r.get("/sandbox/devices/{device}", guarded(this::session));
    r.post("/sandbox/devices/{device}/pair", guarded(ctx -> pair(ctx, true)));
    r.post("/sandbox/devices/{device}/unpair", guarded(ctx -> pair(ctx, false)));
    r.post("/sandbox/devices/{device}/online", guarded(ctx -> setOnline(ctx, true)));
    r.post("/sandbox/devices/{device}/offline", guarded(ctx -> setOnline(ctx, false)));
    r.post("/sandbox/devices/{device}/incoming", guarded(this::incoming));
    r.post("/sandbox/devices/{device}/multi-device", guarded(this::multiDevice));
    r.post("/sandbox/devices/{device}/take-over", guarded(this::takeOver));
    r.post("/sandbox/scan", guarded(this::scan));
    r.post("/sandbox/failures", guarded(this::injectFailure));
    r.delete("/sandbox/failures", guarded(this::clearFailures));
  }

  private void inbox(Context ctx) {
    String number = number(ctx.pathParam("number"), "number");
    List<Map<String, Object>> entries = new ArrayList<>();
    for (var e : network.inbox(number)) {
      Map<String, Object> v = new LinkedHashMap<>();
      v.put("messageId", Long.toString(e.messageId()));
      v.put("from", e.from());
      v.put("to", e.to());
      v.put("group", e.group());
      v.put("kind", e.kind());
      v.put("text", e.text());
      v.put("receivedAt", timestamps.reply(e.receivedAt()));
      v.put("status", e.status());
      v.put("linkPreview", e.linkPreview());
      if (e.mediaName() != null) {
        v.put("mediaName", e.mediaName());
        v.put("mediaType", e.mediaType());
        v.put("mediaBytes", e.mediaBytes());
      }
      entries.add(v);
    }
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("number", number);
    reply.put("messages", entries);
    ctx.json(reply);
  }

  private void setPhone(Context ctx) {
    String number = number(ctx.pathParam("number"), "number");
    RequestFields f = RequestFields.of(ctx);
    f.text("registered").ifPresent(v -> network.setRegistered(number, f.flag("registered")));
    f.text("online").ifPresent(v -> network.setPhoneOnline(number, f.flag("online")));
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("number", number);
    reply.put("registered", network.isRegistered(number));
    reply.put("online", network.isPhoneOnline(number));
    reply.put("status", "ok");
    ctx.json(reply);
  }

  private void createGroup(Context ctx) {
    RequestFields f = RequestFields.of(ctx);
    String id = f.required("id").strip();
    List<String> members = new ArrayList<>();
    for (String m : f.text("members").orElse("").split(",")) {
      if (!m.isBlank()) {
        members.add(number(m, "members"));
      }
    }
    ctx.status(201).json(network.createGroup(id, f.text("name").orElse(id), members));
  }

  private void session(Context ctx) {
    Device device = device(ctx);
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("device", Long.toString(device.id()));
    v.put("number", device.number());
    var session = network.session(device.id());
    v.put("paired", session.isPresent());
    v.put("online", session.map(SandboxNetwork.Session::online).orElse(false));
    ctx.json(v);
  }

  private void pair(Context ctx, boolean pair) {
    Device device = device(ctx);
    if (pair) {
      network.pair(device.id(), device.number());
    } else {
      network.unpair(device.id());
    }
    session(ctx);
  }

  private void setOnline(Context ctx, boolean online) {
    Device device = device(ctx);
    if (!network.setDeviceOnline(device.id(), online)) {
      throw new ApiException(409, "not_paired", "pair the device first");
    }
    session(ctx);
  }

  private void incoming(Context ctx) {
    Device device = device(ctx);
    RequestFields f = RequestFields.of(ctx);
    String from = number(f.required("from"), "from");
    String message = f.required("message");
    boolean delivered =
        f.text("name").isPresent()
            ? network.injectNamedIncoming(device.id(), from, f.text("name").get(), message)
            : network.injectIncoming(device.id(), from, message);
    if (!delivered) {
      throw new ApiException(409, "not_paired", "pair the device first");
    }
    ctx.json(Map.of("status", "ok"));
  }

  private void injectFailure(Context ctx) {
    RequestFields f = RequestFields.of(ctx);
    String raw = f.text("target").orElse("*").strip();
    String target;
    if (raw.equals("*")) {
      target = raw;
    } else if (phones.normalize(raw).isPresent()) {
      target = phones.normalize(raw).get();
    } else if (network.groups().stream().anyMatch(g -> g.id().equals(raw))) {
      target = raw;
    } else {
      throw ApiException.fieldNotValid("target", "target must be *, a phone number or a group id");
    }
    FailureKind kind;
    try {
      kind = FailureKind.valueOf(f.text("kind").orElse("fail").strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw ApiException.fieldNotValid(
          "kind", "kind must be fail, not_found, offline, rate_limited or refused");
    }
    int count = f.wholeNumber("count", 1_000_000).orElse(1L).intValue();
    if (count < 1) {
      throw ApiException.fieldNotValid("count", "count must be at least 1");
    }
    network.injectFailure(target, kind, count);
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("status", "ok");
    reply.put("target", target);
    reply.put("kind", kind.name().toLowerCase(Locale.ROOT));
    reply.put("count", count);
    ctx.json(reply);
  }

  /** Marks the device's account as multi-device or not ({@code getGroupMember} answers failed). */
  private void multiDevice(Context ctx) {
    Device device = device(ctx);
    RequestFields f = RequestFields.of(ctx);
    boolean enabled = f.text("enabled").isEmpty() || f.flag("enabled");
    network.setMultiDevice(device.id(), enabled);
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("device", Long.toString(device.id()));
    reply.put("multiDevice", enabled);
    ctx.json(reply);
  }

  /** A phone scans a QR code: it pairs the device whose current, unexpired code it is. */
  private void scan(Context ctx) {
    String code = RequestFields.of(ctx).required("code").strip();
    long deviceId =
        network
            .scan(code)
            .orElseThrow(
                () -> new ApiException(409, "code_not_valid", "not a current pairing code"));
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("device", Long.toString(deviceId));
    reply.put("paired", true);
    ctx.json(reply);
  }

  /** Another session takes the device's number over: the device's state becomes refresh_it. */
  private void takeOver(Context ctx) {
    Device device = device(ctx);
    if (!network.takeOver(device.id())) {
      throw new ApiException(409, "not_paired", "pair the device first");
    }
    session(ctx);
  }

  private void clearFailures(Context ctx) {
    network.clearFailures();
    ctx.json(Map.of("status", "ok"));
  }

  /** A device named by its id or its number. */
  private Device device(Context ctx) {
    String ref = ctx.pathParam("device").strip();
    if (ref.matches("[1-9]\\d{0,17}")) {
      try {
        return tenants.device(Long.parseLong(ref));
      } catch (TenantException e) {
        // not a device id; read it as the device's number below
      }
    }
    Optional<String> number = phones.normalize(ref);
    return tenants.devices().stream()
        .filter(d -> number.isPresent() && d.number().equals(number.get()))
        .findFirst()
        .orElseThrow(() -> new ApiException(404, "not_found", "no device " + ref));
  }

  private String number(String raw, String field) {
    return phones
        .normalize(raw)
        .orElseThrow(
            () -> ApiException.fieldNotValid(field, "'" + raw + "' is not a phone number"));
  }

  private Handler guarded(Handler handler) {
    return ctx -> {
      requiredToken.ifPresent(token -> Guards.requireBearer(ctx, token));
      handler.handle(ctx);
    };
  }
}
