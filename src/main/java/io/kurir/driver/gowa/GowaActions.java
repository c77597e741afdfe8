package io.kurir.driver.gowa;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.driver.ActionOutcome;
import io.kurir.driver.ChatRef;
import io.kurir.driver.ContactId;
import io.kurir.driver.EngineWatch;
import java.io.IOException;
import java.util.Optional;

/**
 * The GOWA driver's actions on sent messages and chats, as GOWA's OpenAPI (9.0.0) has them, each a
 * JSON {@code POST} scoped to the device's slot ({@code X-Device-Id}) with the chat as {@code
 * phone} (a JID):
 *
 * <ul>
 *   <li>revoke: {@code /message/{message_id}/revoke} {@code {phone}};
 *   <li>edit: {@code /message/{message_id}/update} {@code {phone, message}} ("before 15 minutes");
 *   <li>read: {@code /message/{message_id}/read} {@code {phone}}: GOWA marks one message, so a chat
 *       is marked up to the message named, or the latest received there; with none, there is
 *       nothing GOWA can mark;
 *   <li>typing: {@code /send/chat-presence} {@code {phone, action: start|stop}}.
 * </ul>
 *
 * GOWA answers {@code {code: "SUCCESS"}} when WhatsApp took it; 401 {@code AUTHENTICATION_ERROR}
 * (not logged in) and an engine that cannot be reached: the device cannot act now; any other
 * refusal (400 {@code VALIDATION_ERROR}, 500 from whatsmeow): the network's, in its words.
 *
 * <p>Thread-safe.
 */
final class GowaActions {
  private final GowaApi api;
  private final EngineWatch engine;

  GowaActions(GowaApi api, EngineWatch engine) {
    this.api = api;
    this.engine = engine;
  }

  ActionOutcome revoke(String slot, ChatRef chat, String messageId) {
    return outcome(slot, "/message/" + GowaApi.enc(messageId) + "/revoke", phone(chat));
  }

  ActionOutcome edit(String slot, ChatRef chat, String messageId, String text) {
    ObjectNode body = phone(chat);
    body.put("message", text);
    return outcome(slot, "/message/" + GowaApi.enc(messageId) + "/update", body);
  }

  ActionOutcome markRead(String slot, ChatRef chat, Optional<String> messageId) {
    if (messageId.isEmpty()) {
      return new ActionOutcome.Refused(
          "GOWA marks a chat read by a received message, and none came in chat " + chat.id());
    }
    return outcome(slot, "/message/" + GowaApi.enc(messageId.get()) + "/read", phone(chat));
  }

  ActionOutcome typing(String slot, ChatRef chat, boolean typing) {
    ObjectNode body = phone(chat);
    body.put("action", typing ? "start" : "stop");
    return outcome(slot, "/send/chat-presence", body);
  }

  /** {@code {phone}}: the chat as GOWA names it, as a send to it does. */
  private static ObjectNode phone(ChatRef chat) {
    ObjectNode body = GowaApi.JSON.createObjectNode();
    String jid;
    if (chat.group()) {
      jid = GowaDriver.groupJid(chat.id());
    } else {
      Optional<ContactId> hidden = ContactId.parse(chat.id()).filter(id -> !id.isPhone());
      jid =
          hidden
              .map(ContactId::address)
              .orElse(chat.id().replaceAll("\\D", "") + "@s.whatsapp.net");
    }
    body.put("phone", jid);
    return body;
  }

  private ActionOutcome outcome(String slot, String path, ObjectNode body) {
    GowaApi.Reply r;
    try {
      r = engine.call(() -> api.post(slot, path, body));
    } catch (IOException e) {
      return new ActionOutcome.Unavailable("GOWA did not answer: " + e.getMessage());
    }
    if (r.ok()) {
      return ActionOutcome.DONE;
    }
    return r.status() == 401 || r.code().equals("DEVICE_NOT_FOUND")
        ? new ActionOutcome.Unavailable("GOWA cannot act for the device: " + r.describe())
        : new ActionOutcome.Refused(r.describe());
  }
}
