package io.kurir.driver.waha;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.driver.ActionOutcome;
import io.kurir.driver.ChatRef;
import io.kurir.driver.EngineWatch;
import io.kurir.driver.OutgoingMessage;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The WAHA driver's actions on sent messages and chats, as WAHA's API has them (its OpenAPI and
 * {@code chats.controller.ts} / {@code chatting.controller.ts}, marked on WEBJS, NOWEB and GOWS):
 *
 * <ul>
 *   <li>revoke: {@code DELETE /api/{session}/chats/{chatId}/messages/{messageId}};
 *   <li>edit: {@code PUT /api/{session}/chats/{chatId}/messages/{messageId}} with {@code
 *       EditMessageRequest} {@code {text}};
 *   <li>read: {@code POST /api/sendSeen} with {@code SendSeenRequest} {@code {session, chatId,
 *       messageIds?}};
 *   <li>typing: {@code POST /api/startTyping} and {@code /api/stopTyping} with {@code ChatRequest}
 *       {@code {session, chatId}}.
 * </ul>
 *
 * A message is named as the engine serialises its ids, {@code <fromMe>_<chatId>_<id>}: the chat is
 * read from that id when it has one (a send to a number may have gone to its LID chat). The engine
 * answers an action on a message it cannot find with 500 and the engine's error (WAHA's exception
 * filter passes a non-HTTP error on so): the network's refusal, in its words. 401, 404 and 422 (no
 * such session, session not WORKING) and an engine that cannot be reached: the device cannot act
 * now.
 *
 * <p>Thread-safe.
 */
final class WahaActions {
  private static final Pattern SERIALIZED = Pattern.compile("(?:true|false)_([^_]+@[a-z.]+)_.+");

  private final WahaApi api;
  private final EngineWatch engine;

  WahaActions(WahaApi api, EngineWatch engine) {
    this.api = api;
    this.engine = engine;
  }

  ActionOutcome revoke(String session, ChatRef chat, String messageId) {
    return outcome(() -> api.delete(messagePath(session, chat, messageId)));
  }

  ActionOutcome edit(String session, ChatRef chat, String messageId, String text) {
    ObjectNode body = WahaApi.JSON.createObjectNode();
    body.put("text", text);
    body.put("linkPreview", false); // an edit keeps the message as it was sent: no new preview
    return outcome(() -> api.put(messagePath(session, chat, messageId), body));
  }

  ActionOutcome markRead(String session, ChatRef chat, Optional<String> messageId) {
    ObjectNode body = chatBody(session, chat);
    // NOWEB marks only the messages named; WEBJS and GOWS the whole chat.
    messageId.ifPresent(id -> body.putArray("messageIds").add(id));
    return outcome(() -> api.post("/api/sendSeen", body));
  }

  ActionOutcome typing(String session, ChatRef chat, boolean typing) {
    ObjectNode body = chatBody(session, chat);
    return outcome(() -> api.post(typing ? "/api/startTyping" : "/api/stopTyping", body));
  }

  private static ObjectNode chatBody(String session, ChatRef chat) {
    ObjectNode body = WahaApi.JSON.createObjectNode();
    body.put("session", session);
    body.put("chatId", chatId(chat));
    return body;
  }

  private static String messagePath(String session, ChatRef chat, String messageId) {
    Matcher m = SERIALIZED.matcher(messageId);
    String chatId = m.matches() ? m.group(1) : chatId(chat);
    return "/api/"
        + encode(session)
        + "/chats/"
        + encode(chatId)
        + "/messages/"
        + encode(messageId);
  }

  /** The chat as the engine names it, as a send to it does ({@link WahaDriver#chatId}). */
  static String chatId(ChatRef chat) {
    return WahaDriver.chatId(new OutgoingMessage(0, chat.id(), chat.group(), "text", ""));
  }

  private static String encode(String part) {
    return URLEncoder.encode(part, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private ActionOutcome outcome(EngineWatch.Call<WahaApi.Reply> call) {
    WahaApi.Reply r;
    try {
      r = engine.call(call);
    } catch (IOException e) {
      return new ActionOutcome.Unavailable("the WAHA engine did not answer: " + e.getMessage());
    }
    if (r.ok()) {
      return ActionOutcome.DONE;
    }
    return switch (r.status()) {
      case 401, 404, 422 ->
          new ActionOutcome.Unavailable("the engine cannot act for the session: " + r.describe());
      default -> new ActionOutcome.Refused(r.describe());
    };
  }
}
