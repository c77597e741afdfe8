package io.kurir.driver.sandbox;

import io.kurir.content.CloudMessageJson;
import io.kurir.content.ContentRefused;
import io.kurir.content.MessageContent;
import io.kurir.driver.DeviceLookup;
import io.kurir.driver.DeviceRef;
import io.kurir.driver.DriverReply;
import io.kurir.driver.DriverRequest;
import io.kurir.driver.DriverRequest.Fields;
import io.kurir.driver.DriverRoute;
import io.kurir.driver.DriverRoutes;
import io.kurir.driver.RouteException;
import io.kurir.driver.sandbox.SandboxNetwork.FailureKind;
import io.kurir.phone.PhoneNumbers;
import io.kurir.time.Timestamps;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The sandbox control API ({@code /sandbox/}, JSON): drives the simulated phone network. Served
 * only when {@code drivers.sandbox.api} is on (always in the demo), for operators: behind the admin
 * token, open in the demo ({@link DriverRoute.Access#ADMIN}).
 */
public final class SandboxRoutes {
  private final SandboxNetwork network;
  private final DeviceLookup devices;
  private final PhoneNumbers phones;
  private final Timestamps timestamps;

  public SandboxRoutes(
      SandboxNetwork network, DeviceLookup devices, PhoneNumbers phones, Timestamps timestamps) {
    this.network = network;
    this.devices = devices;
    this.phones = phones;
    this.timestamps = timestamps;
  }

  /** Served as the {@code sandbox} family (its name in the request metrics). */
  public DriverRoutes routes() {
    return new DriverRoutes(
        "sandbox",
        "/sandbox/",
        List.of(
            DriverRoute.get("/sandbox/phones/{number}/inbox", this::inbox).admin(),
            DriverRoute.post("/sandbox/phones/{number}", this::setPhone).admin(),
            DriverRoute.get("/sandbox/groups", ctx -> DriverReply.json(network.groups())).admin(),
            DriverRoute.post("/sandbox/groups", this::createGroup).admin(),
            DriverRoute.get("/sandbox/devices/{device}", this::session).admin(),
            DriverRoute.post("/sandbox/devices/{device}/pair", ctx -> pair(ctx, true)).admin(),
            DriverRoute.post("/sandbox/devices/{device}/unpair", ctx -> pair(ctx, false)).admin(),
            DriverRoute.post("/sandbox/devices/{device}/online", ctx -> setOnline(ctx, true))
                .admin(),
            DriverRoute.post("/sandbox/devices/{device}/offline", ctx -> setOnline(ctx, false))
                .admin(),
            DriverRoute.post("/sandbox/devices/{device}/incoming", this::incoming).admin(),
            DriverRoute.post("/sandbox/devices/{device}/multi-device", this::multiDevice).admin(),
            DriverRoute.post("/sandbox/devices/{device}/take-over", this::takeOver).admin(),
            DriverRoute.post("/sandbox/scan", this::scan).admin(),
            DriverRoute.post("/sandbox/failures", this::injectFailure).admin(),
            DriverRoute.delete("/sandbox/failures", this::clearFailures).admin()));
  }

  private DriverReply inbox(DriverRequest ctx) {
    String number = number(ctx.pathParam("number"), "number");
    List<Map<String, Object>> entries = new ArrayList<>();
    for (var e : network.inbox(number)) {
      Map<String, Object> v = new LinkedHashMap<>();
      v.put("messageId", Long.toString(e.messageId()));
      v.put("networkId", e.networkId());
      v.put("from", e.from());
      v.put("to", e.to());
      v.put("group", e.group());
      v.put("kind", e.kind());
      v.put("text", e.text());
      v.put("receivedAt", timestamps.reply(e.receivedAt()));
      v.put("status", e.status());
      v.put("linkPreview", e.linkPreview());
      if (e.revoked()) {
        v.put("revoked", true); // deleted for everyone: the phone shows that, not what it said
      }
      if (e.edited()) {
        v.put("edited", true); // "text" is the new text
      }
      if (e.mediaName() != null) {
        v.put("mediaName", e.mediaName());
        v.put("mediaType", e.mediaType());
        v.put("mediaBytes", e.mediaBytes());
      }
      if (e.content() != null) {
        // The kind's object beside its name, as the Cloud API writes it (issue 29): what the
        // phone shows of a location, a contact card, buttons, a reply, mentions.
        // A text's object is its text, shown as before under "text".
        com.fasterxml.jackson.databind.JsonNode c = e.content();
        if (!e.kind().equals("text")) {
          v.put(e.kind(), c.get(e.kind()));
        }
        if (c.has("context")) {
          v.put("context", c.get("context"));
        }
        if (c.has("mentions")) {
          v.put("mentions", c.get("mentions"));
        }
      }
      entries.add(v);
    }
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("number", number);
    reply.put("messages", entries);
    // What the devices this phone chats with show it: their read marks and who is typing.
    Map<String, Object> read = new LinkedHashMap<>();
    network
        .readMarks(number)
        .forEach(
            (device, mark) ->
                read.put(
                    device, Map.of("upTo", mark.networkId(), "at", timestamps.reply(mark.at()))));
    reply.put("readBy", read);
    reply.put("typing", network.typing(number).stream().sorted().toList());
    return DriverReply.json(reply);
  }

  private DriverReply setPhone(DriverRequest ctx) {
    String number = number(ctx.pathParam("number"), "number");
    Fields f = ctx.fields();
    f.text("registered").ifPresent(v -> network.setRegistered(number, f.flag("registered")));
    f.text("online").ifPresent(v -> network.setPhoneOnline(number, f.flag("online")));
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("number", number);
    reply.put("registered", network.isRegistered(number));
    reply.put("online", network.isPhoneOnline(number));
    reply.put("status", "ok");
    return DriverReply.json(reply);
  }

  private DriverReply createGroup(DriverRequest ctx) {
    Fields f = ctx.fields();
    String id = f.required("id").strip();
    List<String> members = new ArrayList<>();
    for (String m : f.text("members").orElse("").split(",")) {
      if (!m.isBlank()) {
        members.add(number(m, "members"));
      }
    }
    return DriverReply.json(201, network.createGroup(id, f.text("name").orElse(id), members));
  }

  private DriverReply session(DriverRequest ctx) {
    DeviceRef device = device(ctx);
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("device", Long.toString(device.id()));
    v.put("number", device.number());
    var session = network.session(device.id());
    v.put("paired", session.isPresent());
    v.put("online", session.map(SandboxNetwork.Session::online).orElse(false));
    return DriverReply.json(v);
  }

  private DriverReply pair(DriverRequest ctx, boolean pair) {
    DeviceRef device = device(ctx);
    if (pair) {
      network.pair(device.id(), device.number());
    } else {
      network.unpair(device.id());
    }
    return session(ctx);
  }

  private DriverReply setOnline(DriverRequest ctx, boolean online) {
    DeviceRef device = device(ctx);
    if (!network.setDeviceOnline(device.id(), online)) {
      throw new RouteException(409, "not_paired", "pair the device first");
    }
    return session(ctx);
  }

  private DriverReply incoming(DriverRequest ctx) {
    DeviceRef device = device(ctx);
    Fields f = ctx.fields();
    String from = number(f.required("from"), "from");
    Optional<com.fasterxml.jackson.databind.JsonNode> json = jsonBody(ctx);
    if (json.isPresent() && json.get().hasNonNull("type")) {
      return incomingKind(device, f, from, json.get());
    }
    String message = f.required("message");
    // The fields' text flattens a list and a number into text ("lid", "1"): the JSON types are
    // checked here, so that ["lid"] is not read as a sender kind nor 1 or "yes" as a yes.
    if (json.map(j -> j.path("as")).filter(n -> !n.isMissingNode() && !n.isNull()).isPresent()
        && !json.get().path("as").isTextual()) {
      throw RouteException.fieldNotValid("as", "as must be phone, lid or bsuid");
    }
    Optional<Boolean> reveal = reveal(f, json);
    String as = f.text("as").orElse("phone").strip().toLowerCase(Locale.ROOT);
    boolean delivered =
        switch (as) {
          case "phone" ->
              f.text("name").isPresent()
                  ? network.injectNamedIncoming(device.id(), from, f.text("name").get(), message)
                  : network.injectIncoming(device.id(), from, message);
          case "lid", "bsuid" ->
              network.injectHiddenIncoming(
                  device.id(),
                  from,
                  as.equals("lid") ? SandboxNetwork.HiddenAs.LID : SandboxNetwork.HiddenAs.BSUID,
                  reveal.orElse(false),
                  message);
          default -> throw RouteException.fieldNotValid("as", "as must be phone, lid or bsuid");
        };
    if (!delivered) {
      throw new RouteException(409, "not_paired", "pair the device first");
    }
    return DriverReply.json(Map.of("status", "ok"));
  }

  /**
   * A message of any kind from the phone {@code from}: {@code type} and the kind's object (with
   * {@code context}, {@code mentions}) as Kurir's API and the Cloud API write them; {@code name}
   * the sender's account name, if any. 400 with the field's token for an object Meta would refuse.
   */
  private DriverReply incomingKind(
      DeviceRef device, Fields f, String from, com.fasterxml.jackson.databind.JsonNode json) {
    MessageContent content;
    try {
      content = CloudMessageJson.parse(json);
    } catch (ContentRefused e) {
      throw new RouteException(400, e.token(), e.getMessage());
    }
    if (!network.injectIncoming(device.id(), from, f.text("name"), content)) {
      throw new RouteException(409, "not_paired", "pair the device first");
    }
    return DriverReply.json(Map.of("status", "ok"));
  }

  /** The body as a JSON object when it is one; empty for a form or a query string. */
  private static Optional<com.fasterxml.jackson.databind.JsonNode> jsonBody(DriverRequest ctx) {
    byte[] body = ctx.bodyAsBytes();
    if (body.length == 0) {
      return Optional.empty();
    }
    try {
      com.fasterxml.jackson.databind.JsonNode node =
          new com.fasterxml.jackson.databind.ObjectMapper().readTree(body);
      return node != null && node.isObject() ? Optional.of(node) : Optional.empty();
    } catch (java.io.IOException e) {
      return Optional.empty(); // not JSON: the fields' reader says what is wrong with it
    }
  }

  /**
   * {@code reveal}: a JSON boolean, or the text {@code true}/{@code false} (a form, a query string,
   * a JSON string); 400 {@code reveal_not_valid} for anything else ({@code "yes"}, {@code 1}, a
   * list).
   */
  private static Optional<Boolean> reveal(
      Fields f, Optional<com.fasterxml.jackson.databind.JsonNode> json) {
    com.fasterxml.jackson.databind.JsonNode given =
        json.map(j -> j.path("reveal"))
            .orElse(com.fasterxml.jackson.databind.node.MissingNode.getInstance());
    if (!given.isMissingNode() && !given.isNull() && !given.isBoolean() && !given.isTextual()) {
      throw RouteException.fieldNotValid("reveal", "reveal must be true or false");
    }
    Optional<String> text = f.text("reveal").map(v -> v.strip().toLowerCase(Locale.ROOT));
    if (text.isEmpty()) {
      return Optional.empty();
    }
    return switch (text.get()) {
      case "true" -> Optional.of(true);
      case "false" -> Optional.of(false);
      default -> throw RouteException.fieldNotValid("reveal", "reveal must be true or false");
    };
  }

  private DriverReply injectFailure(DriverRequest ctx) {
    Fields f = ctx.fields();
    String raw = f.text("target").orElse("*").strip();
    String target;
    if (raw.equals("*")) {
      target = raw;
    } else if (phones.normalize(raw).isPresent()) {
      target = phones.normalize(raw).get();
    } else if (network.groups().stream().anyMatch(g -> g.id().equals(raw))) {
      target = raw;
    } else {
      throw RouteException.fieldNotValid(
          "target", "target must be *, a phone number or a group id");
    }
    FailureKind kind;
    try {
      kind = FailureKind.valueOf(f.text("kind").orElse("fail").strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw RouteException.fieldNotValid(
          "kind", "kind must be fail, not_found, offline, rate_limited or refused");
    }
    int count = f.wholeNumber("count", 1_000_000).orElse(1L).intValue();
    if (count < 1) {
      throw RouteException.fieldNotValid("count", "count must be at least 1");
    }
    network.injectFailure(target, kind, count);
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("status", "ok");
    reply.put("target", target);
    reply.put("kind", kind.name().toLowerCase(Locale.ROOT));
    reply.put("count", count);
    return DriverReply.json(reply);
  }

  /** Marks the device's account as multi-device or not ({@code getGroupMember} answers failed). */
  private DriverReply multiDevice(DriverRequest ctx) {
    DeviceRef device = device(ctx);
    Fields f = ctx.fields();
    boolean enabled = f.text("enabled").isEmpty() || f.flag("enabled");
    network.setMultiDevice(device.id(), enabled);
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("device", Long.toString(device.id()));
    reply.put("multiDevice", enabled);
    return DriverReply.json(reply);
  }

  /** A phone scans a QR code: it pairs the device whose current, unexpired code it is. */
  private DriverReply scan(DriverRequest ctx) {
    String code = ctx.fields().required("code").strip();
    long deviceId =
        network
            .scan(code)
            .orElseThrow(
                () -> new RouteException(409, "code_not_valid", "not a current pairing code"));
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("device", Long.toString(deviceId));
    reply.put("paired", true);
    return DriverReply.json(reply);
  }

  /** Another session takes the device's number over: the device's state becomes refresh_it. */
  private DriverReply takeOver(DriverRequest ctx) {
    DeviceRef device = device(ctx);
    if (!network.takeOver(device.id())) {
      throw new RouteException(409, "not_paired", "pair the device first");
    }
    return session(ctx);
  }

  private DriverReply clearFailures(DriverRequest ctx) {
    network.clearFailures();
    return DriverReply.json(Map.of("status", "ok"));
  }

  /** A device named by its id or its number. */
  private DeviceRef device(DriverRequest ctx) {
    String ref = ctx.pathParam("device").strip();
    if (ref.matches("[1-9]\\d{0,17}")) {
      Optional<DeviceRef> byId = devices.byId(Long.parseLong(ref));
      if (byId.isPresent()) {
        return byId.get();
      }
      // not a device id; read it as the device's number below
    }
    Optional<String> number = phones.normalize(ref);
    return number
        .flatMap(devices::byNumber)
        .orElseThrow(() -> new RouteException(404, "not_found", "no device " + ref));
  }

  private String number(String raw, String field) {
    return phones
        .normalize(raw)
        .orElseThrow(
            () -> RouteException.fieldNotValid(field, "'" + raw + "' is not a phone number"));
  }
}
