package io.kurir.api.v1;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.message.Message;
import io.kurir.message.MessageEvent;
import io.kurir.message.MessageHistories;
import io.kurir.message.MessageState;
import io.kurir.tenant.ApiCaller;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code GET /v1/messages/{id}} and {@code GET /v1/messages}: messages sent by any family (the same
 * ids as the Eco API's) and, with {@code direction=in}, messages received, within the devices the
 * caller's key reaches.
 */
final class V1MessageHandlers {
  private static final int DEFAULT_PAGE = 50;

  private final Tenants tenants;
  private final MessageHistories histories;
  private final io.kurir.message.MessageActions actions;

  V1MessageHandlers(
      Tenants tenants, MessageHistories histories, io.kurir.message.MessageActions actions) {
    this.tenants = tenants;
    this.histories = histories;
    this.actions = actions;
  }

  void one(Context ctx) {
    String id = ctx.pathParam("id");
    Set<Long> devices = V1Routes.caller(ctx).deviceIdsToRead(tenants);
    Optional<Map<String, Object>> found = Optional.empty();
    if (id.matches("\\d{1,18}")) {
      long n = Long.parseLong(id);
      found =
          histories
              .outgoing(n, devices)
              .map(o -> view(o, actions.actions(n)))
              .or(() -> histories.incoming(n, devices).map(V1MessageHandlers::view));
    }
    ctx.json(
        found.orElseThrow(() -> new ApiException(404, "message_not_found", "no message " + id)));
  }

  void list(Context ctx) {
    ApiCaller caller = V1Routes.caller(ctx);
    String direction = query(ctx, "direction").orElse("out").toLowerCase(Locale.ROOT);
    if (!direction.equals("out") && !direction.equals("in")) {
      throw ApiException.badRequest("invalid_direction", "direction is out or in");
    }
    Optional<MessageState> state = query(ctx, "status").map(V1MessageHandlers::state);
    if (state.isPresent() && direction.equals("in")) {
      throw ApiException.badRequest(
          "invalid_status", "a received message has no status: leave status out with in");
    }
    int limit = limit(ctx);
    MessageHistories.Filter filter =
        new MessageHistories.Filter(
            devices(ctx, caller),
            state,
            query(ctx, "from").map(v -> instant("from", v)),
            query(ctx, "to").map(v -> instant("to", v)),
            query(ctx, "cursor").map(c -> cursor(c, direction)));
    // One more than asked: whether there is a next page, without a count.
    List<Map<String, Object>> data = new ArrayList<>();
    List<Long> ids = new ArrayList<>();
    if (direction.equals("out")) {
      for (MessageHistories.Outgoing m : histories.outgoing(filter, limit + 1)) {
        data.add(view(m));
        ids.add(m.message().id());
      }
    } else {
      for (MessageHistories.Incoming m : histories.incoming(filter, limit + 1)) {
        data.add(view(m));
        ids.add(m.id());
      }
    }
    Map<String, Object> reply = new LinkedHashMap<>();
    if (data.size() > limit) {
      reply.put("data", data.subList(0, limit));
      reply.put("next_cursor", cursorOf(direction, ids.get(limit - 1)));
    } else {
      reply.put("data", data);
    }
    ctx.json(reply);
  }

  /** The devices a page covers: the one {@code device} names (an id or a number), else all. */
  private Set<Long> devices(Context ctx, ApiCaller caller) {
    Set<Long> all = caller.deviceIdsToRead(tenants);
    Optional<String> named = query(ctx, "device");
    if (named.isEmpty()) {
      return all;
    }
    String d = named.get();
    if (d.matches("\\d{1,18}") && all.contains(Long.parseLong(d))) {
      return Set.of(Long.parseLong(d));
    }
    return caller.devices(tenants).stream()
        .filter(x -> x.number().equals(d) || x.number().equals("+" + d))
        .map(Device::id)
        .findFirst()
        .map(Set::of)
        .orElseThrow(() -> new ApiException(404, "device_not_found", "no device " + d));
  }

  static Optional<String> query(Context ctx, String name) {
    return Optional.ofNullable(ctx.queryParam(name)).map(String::strip).filter(s -> !s.isEmpty());
  }

  static int limit(Context ctx) {
    Optional<String> given = query(ctx, "limit");
    if (given.isEmpty()) {
      return DEFAULT_PAGE;
    }
    String v = given.get();
    if (!v.matches("\\d{1,4}")
        || Integer.parseInt(v) < 1
        || Integer.parseInt(v) > MessageHistories.MAX_PAGE) {
      throw ApiException.badRequest(
          "invalid_limit", "limit is a whole number from 1 to " + MessageHistories.MAX_PAGE);
    }
    return Integer.parseInt(v);
  }

  private static MessageState state(String name) {
    try {
      return MessageState.ofWireName(name);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest(
          "invalid_status", "status is pending, sending, sent, delivery, read or failed");
    }
  }

  private static Instant instant(String field, String v) {
    try {
      return Instant.parse(v);
    } catch (DateTimeParseException e) {
      throw ApiException.badRequest(
          "invalid_" + field, field + " is an ISO 8601 time, e.g. 2026-11-28T06:00:00Z");
    }
  }

  /**
   * The cursor after message {@code id}: opaque to clients (base64url of the direction and the id),
   * so that what it holds may change without breaking them.
   */
  static String cursorOf(String direction, long id) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString((direction + ":" + id).getBytes(StandardCharsets.UTF_8));
  }

  static long cursor(String cursor, String direction) {
    try {
      String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
      if (text.startsWith(direction + ":")
          && text.substring(direction.length() + 1).matches("\\d{1,18}")) {
        return Long.parseLong(text.substring(direction.length() + 1));
      }
    } catch (IllegalArgumentException e) {
      // not base64: refused below
    }
    throw ApiException.badRequest(
        "invalid_cursor", "cursor is a next_cursor this API answered, for the same direction");
  }

  /**
   * A sent message: the Cloud API's message object ({@code type} and an object of that type) with
   * its id, device, recipient, status, each status change with its time, the failure's reason and
   * the network's id.
   */
  static Map<String, Object> view(MessageHistories.Outgoing o) {
    Message m = o.message();
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("id", Long.toString(m.id()));
    v.put("direction", "out");
    v.put("device", Long.toString(m.deviceId()));
    v.put("to", m.recipient());
    if (m.toGroup()) {
      v.put("group", true);
    }
    if (m.content().isPresent()) {
      // Sent as a whole message object (any kind, a reply): shown as it was given.
      io.kurir.content.MessageContent c = m.content().get();
      v.put("type", c.kind().wireName());
      v.put(c.kind().wireName(), io.kurir.content.CloudMessageJson.writeObject(c.content()));
      c.replyTo().ifPresent(r -> v.put("context", Map.of("message_id", r)));
    } else {
      seedContent(m, v);
    }
    v.put("status", m.state().wireName());
    m.failureReason().ifPresent(r -> v.put("reason", r));
    o.networkId().ifPresent(n -> v.put("network_id", n));
    v.put("api", m.api());
    v.put("created_at", m.createdAt().toString());
    List<Map<String, Object>> statuses = new ArrayList<>();
    for (MessageEvent e : o.events()) {
      Map<String, Object> s = new LinkedHashMap<>();
      s.put("status", e.state().wireName());
      s.put("at", e.at().toString());
      e.reason().ifPresent(r -> s.put("reason", r));
      statuses.add(s);
    }
    v.put("statuses", statuses);
    if (m.media().isPresent()) {
      v.put("media_link", "/v1/media/" + m.id());
    }
    return v;
  }

  /** A message of the seed's kinds (text, image, file) in the Cloud API's shape. */
  private static void seedContent(Message m, Map<String, Object> v) {
    String type = typeOf(m.kind());
    v.put("type", type);
    Map<String, Object> content = new LinkedHashMap<>();
    if (type.equals("text")) {
      content.put("body", m.body());
    } else {
      if (!m.body().isEmpty()) {
        content.put("caption", m.body());
      }
      m.media()
          .ifPresent(
              media -> {
                content.put("filename", media.name());
                content.put("mime_type", media.mimeType());
              });
      m.mediaUrl().filter(u -> m.media().isEmpty()).ifPresent(u -> content.put("link", u));
    }
    v.put(type, content);
  }

  /**
   * A sent message with what was done to it after it went out ({@code actions}: revoked, edited
   * with the new text), when anything was.
   */
  static Map<String, Object> view(
      MessageHistories.Outgoing o, List<io.kurir.message.MessageActions.Action> done) {
    Map<String, Object> v = view(o);
    if (!done.isEmpty()) {
      List<Map<String, Object>> shown = new ArrayList<>();
      for (io.kurir.message.MessageActions.Action a : done) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("action", a.action());
        a.text().ifPresent(t -> s.put("text", t));
        s.put("at", a.at().toString());
        shown.add(s);
      }
      v.put("actions", shown);
    }
    return v;
  }

  /**
   * A received message: who sent it (its name when the network gave one), its group, and what it
   * says as the Cloud API's message object ({@code type} and the kind's object, {@code context} for
   * a reply). A media kind's object names its file by {@code id} (the message's id, as {@code GET
   * /v1/media/{id}} takes it) and {@code media_link} is that route.
   */
  static Map<String, Object> view(MessageHistories.Incoming i) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("id", Long.toString(i.id()));
    v.put("direction", "in");
    v.put("device", Long.toString(i.deviceId()));
    v.put("from", i.from());
    i.senderName().ifPresent(n -> v.put("from_name", n));
    i.groupId().ifPresent(g -> v.put("group_id", g));
    io.kurir.content.MessageContent c = i.content();
    String type = c.kind().wireName();
    v.put("type", type);
    com.fasterxml.jackson.databind.JsonNode object =
        io.kurir.content.CloudMessageJson.writeObject(c.content());
    if (i.mediaType().isPresent() && object.isObject()) {
      com.fasterxml.jackson.databind.node.ObjectNode media =
          ((com.fasterxml.jackson.databind.node.ObjectNode) object).deepCopy();
      media.remove("link");
      media.put("id", Long.toString(i.id()));
      media.put("mime_type", i.mediaType().get());
      object = media;
    }
    v.put(type, object);
    c.replyTo().ifPresent(r -> v.put("context", Map.of("message_id", r)));
    i.networkId().ifPresent(n -> v.put("network_id", n));
    v.put("received_at", i.receivedAt().toString());
    if (i.mediaType().isPresent()) {
      v.put("media_link", "/v1/media/" + i.id());
    }
    return v;
  }

  /** The Cloud API's name of a stored kind: a {@code file} is a {@code document}. */
  private static String typeOf(String kind) {
    return switch (kind) {
      case "image" -> "image";
      case "file" -> "document";
      default -> "text";
    };
  }
}
