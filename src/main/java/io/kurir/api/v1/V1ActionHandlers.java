package io.kurir.api.v1;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.api.RequestFields;
import io.kurir.contact.ContactIdentities;
import io.kurir.content.CloudMessageJson;
import io.kurir.content.Content;
import io.kurir.content.MessageContent;
import io.kurir.content.MessageKind;
import io.kurir.driver.ChatRef;
import io.kurir.message.GroupIds;
import io.kurir.message.MessageActions;
import io.kurir.message.MessageHistories;
import io.kurir.message.MessageText;
import io.kurir.message.Recipient;
import io.kurir.message.SendCommand;
import io.kurir.message.Sends;
import io.kurir.phone.PhoneNumbers;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The actions on a message or a chat besides sending ({@link MessageActions}): {@code DELETE
 * /v1/messages/{id}} (revoke, or cancel a queued message), {@code PATCH /v1/messages/{id}} (edit a
 * text), {@code POST /v1/messages/{id}/reactions} (a reaction: a queued message of kind {@code
 * reaction}, sent as {@code POST /v1/messages} sends), {@code POST /v1/chats/{chat}/read} and
 * {@code POST /v1/chats/{chat}/typing}.
 */
final class V1ActionHandlers {
  private final Tenants tenants;
  private final MessageActions actions;
  private final MessageHistories histories;
  private final Sends sends;
  private final PhoneNumbers phones;
  private final ContactIdentities contacts;
  private final V1SendHandler send;

  V1ActionHandlers(
      Tenants tenants,
      MessageActions actions,
      MessageHistories histories,
      Sends sends,
      PhoneNumbers phones,
      ContactIdentities contacts,
      V1SendHandler send) {
    this.tenants = tenants;
    this.actions = actions;
    this.histories = histories;
    this.sends = sends;
    this.phones = phones;
    this.contacts = contacts;
    this.send = send;
  }

  /** {@code DELETE /v1/messages/{id}}: 200 with the message, revoked or cancelled. */
  void revoke(Context ctx) {
    long id = messageId(ctx);
    Set<Long> devices = V1Routes.caller(ctx).deviceIdsToRead(tenants);
    MessageActions.Removal done = actions.revoke(id, devices);
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("result", done.name().toLowerCase(java.util.Locale.ROOT));
    reply.put("message", shown(id, devices));
    ctx.json(reply);
  }

  /** {@code PATCH /v1/messages/{id}} {@code {"text": {"body"}}}: 200 with the message. */
  void edit(Context ctx) {
    long id = messageId(ctx);
    RequestFields f = RequestFields.of(ctx);
    String text = MessageText.normalize(f.text("text.body").orElse(""));
    if (text.isBlank()) {
      throw ApiException.fieldEmpty("text.body");
    }
    Set<Long> devices = V1Routes.caller(ctx).deviceIdsToRead(tenants);
    actions.edit(id, devices, text);
    ctx.json(shown(id, devices));
  }

  /**
   * {@code POST /v1/messages/{id}/reactions} {@code {"emoji"}} (empty or absent: takes the reaction
   * away): a message of kind {@code reaction} from the device of message {@code id} to its chat,
   * queued, paced and idempotent as every send; 201 with it, as {@code POST /v1/messages}.
   */
  void react(Context ctx) {
    Instant started = Instant.now();
    long id = messageId(ctx);
    RequestFields f = RequestFields.of(ctx);
    String emoji = f.text("emoji").orElse("");
    Optional<Duration> wait = V1SendHandler.wait(ctx);
    Optional<String> key = f.idempotencyKey();
    MessageActions.Target target =
        actions.reactionTarget(id, V1Routes.caller(ctx).deviceIdsToRead(tenants));
    Device device = tenants.usableDeviceForRequest(target.deviceId());
    Recipient to =
        target.chat().group()
            ? new Recipient(target.chat().id(), true)
            : Recipient.number(target.chat().id());
    SendCommand command =
        SendCommand.builder("v1")
            .to(to)
            .content(MessageContent.of(reaction(target.networkId(), emoji)))
            .idempotencyKey(key)
            .callerWaitsSince(started, wait.isPresent())
            .build();
    send.answer(ctx, device, sends.send(device, command, wait.orElse(Duration.ZERO)), wait);
  }

  /** The reaction as Meta's message object reads it (one emoji at most: 400 otherwise). */
  private static Content reaction(String networkId, String emoji) {
    com.fasterxml.jackson.databind.node.ObjectNode o =
        com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
    o.put("message_id", networkId).put("emoji", emoji);
    return CloudMessageJson.parseObject(MessageKind.REACTION, o);
  }

  /** {@code POST /v1/chats/{chat}/read} {@code {device?, message_id?}}: 200. */
  void read(Context ctx) {
    RequestFields f = RequestFields.of(ctx);
    Device device =
        tenants.usableDeviceForRequest(send.device(V1Routes.caller(ctx), f.text("device")).id());
    ChatRef chat = chat(ctx, device);
    Optional<Long> upTo =
        f.text("message_id")
            .map(
                m -> {
                  if (!m.matches("\\d{1,18}")) {
                    throw ApiException.fieldNotValid("message_id", "a message id is digits");
                  }
                  return Long.parseLong(m);
                });
    actions.markRead(device, chat, upTo);
    ctx.json(done(device, chat));
  }

  /** {@code POST /v1/chats/{chat}/typing} {@code {device?, state: typing|paused}}: 200. */
  void typing(Context ctx) {
    RequestFields f = RequestFields.of(ctx);
    Device device =
        tenants.usableDeviceForRequest(send.device(V1Routes.caller(ctx), f.text("device")).id());
    ChatRef chat = chat(ctx, device);
    String state = f.text("state").map(String::strip).orElse("typing");
    if (!state.equals("typing") && !state.equals("paused")) {
      throw ApiException.fieldNotValid("state", "state is typing or paused");
    }
    actions.typing(device, chat, state.equals("typing"));
    Map<String, Object> reply = done(device, chat);
    reply.put("state", state);
    ctx.json(reply);
  }

  private static Map<String, Object> done(Device device, ChatRef chat) {
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("success", true);
    reply.put("device", Long.toString(device.id()));
    reply.put("chat", chat.id());
    reply.put("group", chat.group());
    return reply;
  }

  /**
   * The chat the path names: a group by id ({@code <phone>-<suffix>}, {@code ...@g.us}), else a
   * number as the Eco API reads it, or a LID or BSUID the device met.
   */
  private ChatRef chat(Context ctx, Device device) {
    String raw = ctx.pathParam("chat");
    Optional<String> group = GroupIds.normalize(raw);
    if (group.isPresent()) {
      return new ChatRef(group.get(), true);
    }
    return new ChatRef(
        phones
            .normalize(raw)
            .or(() -> contacts.sendableAddress(device.id(), raw))
            .orElseThrow(
                () ->
                    ApiException.badRequest(
                        "invalid_chat", "the chat is a phone number or a group id: " + raw)),
        false);
  }

  private Map<String, Object> shown(long id, Set<Long> devices) {
    return histories
        .outgoing(id, devices)
        .map(o -> V1MessageHandlers.view(o, actions.actions(id)))
        .orElseThrow(() -> new ApiException(404, "message_not_found", "no message " + id));
  }

  private static long messageId(Context ctx) {
    String id = ctx.pathParam("id");
    if (!id.matches("\\d{1,18}")) {
      throw new ApiException(404, "message_not_found", "no message " + id);
    }
    return Long.parseLong(id);
  }
}
