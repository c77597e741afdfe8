package io.kurir.api.v1;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.contact.ContactIdentities;
import io.kurir.content.Content;
import io.kurir.message.Chats;
import io.kurir.message.GroupIds;
import io.kurir.message.MessageHistories;
import io.kurir.phone.PhoneNumbers;
import io.kurir.tenant.ApiCaller;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * Conversations ({@code GET /v1/chats}, {@code GET /v1/chats/{chat}/messages}) and the files of
 * messages ({@code GET /v1/media/{id}}) over {@link Chats}: a device's chats, newest first, a
 * chat's messages in and out, newest first, both paged by the cursor {@code GET /v1/messages}
 * answers.
 */
final class V1ChatHandlers {
  private static final int PREVIEW = 100;

  private final Tenants tenants;
  private final Chats chats;
  private final PhoneNumbers phones;
  private final ContactIdentities contacts;
  private final BiFunction<ApiCaller, Optional<String>, Device> device;

  /**
   * @param device the device a request names ({@code device}: a device key's own, a license's only
   *     one, or the one named by id or number), as a send chooses it
   */
  V1ChatHandlers(
      Tenants tenants,
      Chats chats,
      PhoneNumbers phones,
      ContactIdentities contacts,
      BiFunction<ApiCaller, Optional<String>, Device> device) {
    this.tenants = tenants;
    this.chats = chats;
    this.phones = phones;
    this.contacts = contacts;
    this.device = device;
  }

  void list(Context ctx) {
    Device d = device.apply(V1Routes.caller(ctx), V1MessageHandlers.query(ctx, "device"));
    int limit = V1MessageHandlers.limit(ctx);
    Optional<Long> before =
        V1MessageHandlers.query(ctx, "cursor").map(c -> V1MessageHandlers.cursor(c, "chats"));
    List<Chats.Chat> page = chats.chats(d.id(), before, limit + 1);
    List<Map<String, Object>> data = new ArrayList<>();
    for (Chats.Chat c : page.subList(0, Math.min(limit, page.size()))) {
      data.add(view(d, c));
    }
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("data", data);
    if (page.size() > limit) {
      reply.put(
          "next_cursor",
          V1MessageHandlers.cursorOf("chats", page.get(limit - 1).last().messageId()));
    }
    ctx.json(reply);
  }

  void messages(Context ctx) {
    Device d = device.apply(V1Routes.caller(ctx), V1MessageHandlers.query(ctx, "device"));
    String chat = chat(d, ctx.pathParam("chat"));
    int limit = V1MessageHandlers.limit(ctx);
    Optional<Long> before =
        V1MessageHandlers.query(ctx, "cursor").map(c -> V1MessageHandlers.cursor(c, "chat"));
    List<MessageHistories.Entry> page = chats.messages(d.id(), chat, before, limit + 1);
    if (page.isEmpty() && before.isEmpty()) {
      throw new ApiException(404, "chat_not_found", "device " + d.id() + " has no chat " + chat);
    }
    List<Map<String, Object>> data = new ArrayList<>();
    for (MessageHistories.Entry e : page.subList(0, Math.min(limit, page.size()))) {
      data.add(view(e));
    }
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("chat", chat);
    reply.put("data", data);
    if (page.size() > limit) {
      reply.put("next_cursor", V1MessageHandlers.cursorOf("chat", page.get(limit - 1).messageId()));
    }
    ctx.json(reply);
  }

  /**
   * The file of a message (incoming or outgoing) of the caller's devices, with its type: 410 {@code
   * media_expired} once the retention sweep released it, 404 {@code media_not_found} for a message
   * with no file or one the key does not reach.
   */
  void media(Context ctx) throws IOException {
    String id = ctx.pathParam("id");
    Optional<Chats.File> file =
        id.matches("\\d{1,18}")
            ? chats.file(Long.parseLong(id), V1Routes.caller(ctx).deviceIdsToRead(tenants))
            : Optional.empty();
    switch (file.orElse(new Chats.NoFile())) {
      case Chats.Kept kept -> {
        byte[] bytes = kept.read().orElseThrow(() -> expired(id));
        ctx.header("Content-Disposition", kept.disposition());
        // A received file is the sender's: never let a browser read it as something else.
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.contentType(kept.mimeType()).result(bytes);
      }
      case Chats.Released released -> throw expired(id);
      case Chats.NoFile none ->
          throw new ApiException(404, "media_not_found", "message " + id + " has no file here");
    }
  }

  private static ApiException expired(String id) {
    return new ApiException(
        410,
        "media_expired",
        "the file of message " + id + " is no longer kept (media.keep-for, the retention period)");
  }

  /**
   * The chat a path names: a group id, a network id (LID, BSUID; the phone's chat once the phone is
   * known), or a number as customers write one.
   */
  private String chat(Device d, String given) {
    String chat = given.strip();
    if (chat.isEmpty()) {
      throw ApiException.badRequest("invalid_chat", "the chat is a number or a group id");
    }
    Optional<String> group = GroupIds.normalize(chat);
    if (group.isPresent()) {
      return group.get();
    }
    Optional<String> network = contacts.sendableAddress(d.id(), chat);
    if (network.isPresent()) {
      return network.get();
    }
    // A "+" in a path may arrive as a space when a client form-encoded it.
    return phones.normalize(chat.startsWith(" ") ? "+" + chat.strip() : chat).orElse(chat);
  }

  /** A chat of the list: its address, name, unread count and last message. */
  private static Map<String, Object> view(Device d, Chats.Chat c) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("chat", c.chat());
    v.put("device", Long.toString(d.id()));
    v.put("group", c.group());
    c.name().ifPresent(n -> v.put("name", n));
    v.put("unread", c.unread());
    v.put("last_message", last(c.last()));
    return v;
  }

  /** A chat's last message in short: id, direction, kind, a preview of what it says, its time. */
  private static Map<String, Object> last(MessageHistories.Entry e) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("id", Long.toString(e.messageId()));
    switch (e) {
      case MessageHistories.Outgoing o -> {
        Content content = o.message().asContent().content();
        v.put("direction", "out");
        v.put("type", content.kind().wireName());
        v.put("preview", preview(content));
        v.put("status", o.message().state().wireName());
        v.put("at", o.message().createdAt().toString());
      }
      case MessageHistories.Incoming i -> {
        Content content = i.content().content();
        v.put("direction", "in");
        v.put("type", content.kind().wireName());
        v.put("preview", preview(content));
        i.groupId().ifPresent(g -> v.put("from", i.from()));
        v.put("at", i.receivedAt().toString());
      }
    }
    return v;
  }

  /** What a message says in a line: its text or caption cut short, else its kind's mark. */
  static String preview(Content content) {
    String text = content.summary() == null ? "" : content.summary().strip();
    if (content instanceof Content.Reaction r) {
      text = r.emoji();
    }
    if (text.isEmpty()) {
      return "[" + content.kind().wireName() + "]";
    }
    return text.codePointCount(0, text.length()) > PREVIEW
        ? text.substring(0, text.offsetByCodePoints(0, PREVIEW)) + "…"
        : text;
  }

  /** A message of a chat, in or out, as {@code GET /v1/messages/{id}} shows it. */
  static Map<String, Object> view(MessageHistories.Entry e) {
    return switch (e) {
      case MessageHistories.Outgoing o -> V1MessageHandlers.view(o);
      case MessageHistories.Incoming i -> V1MessageHandlers.view(i);
    };
  }
}
