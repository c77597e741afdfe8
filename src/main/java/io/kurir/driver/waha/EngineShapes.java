package io.kurir.driver.waha;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What differs between WAHA's engines in the answers Kurir reads: each engine answers a send and
 * lists groups in its own format (WAHA keeps them for backward compatibility; waha issue #760). The
 * other calls Kurir makes ({@code check-exists}, {@code participants/v2}, sessions, webhooks) have
 * one schema for all engines.
 *
 * <ul>
 *   <li>Send reply: WEBJS {@code id: {_serialized: "true_<chat>_<id>", …}}; NOWEB Baileys' message,
 *       {@code key: {remoteJid: "<digits>@s.whatsapp.net", fromMe, id}} and no top-level id; GOWS
 *       {@code id: "true_<chat>_<id>"}. Acks name the message {@code true_<chat>_<id>} with the
 *       chat in {@code @c.us} form on every engine, so the NOWEB key is written that way.
 *   <li>Group list: WEBJS an array of chats ({@code id._serialized}, {@code name}); NOWEB an object
 *       keyed by group id of {@code {id, subject}}; GOWS an array of whatsmeow's {@code {JID,
 *       Name}}.
 *   <li>A send to a group the session is not in: GOWS answers 500 with whatsmeow's error in {@code
 *       exception} ("failed to get group members: you're not participating in that group", or "that
 *       group does not exist"); what NOWEB and WEBJS answer is not documented.
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
final class EngineShapes {
  private EngineShapes() {}

  /**
   * Whether a refused send to a group says the session is not in it, or that it does not exist
   * (whatsmeow's {@code ErrNotInGroup}, {@code ErrGroupNotFound}, passed on by GOWS as a 500).
   */
  static boolean notInGroup(WahaApi.Reply r) {
    if (r.ok()) {
      return false;
    }
    String body = r.body().toString();
    return body.contains("not participating in that group")
        || body.contains("that group does not exist");
  }

  /**
   * The id acks will name the sent message by, from the engine's reply to a send to {@code chatId}:
   * empty when the reply has none (an engine that answered with an empty body).
   */
  static Optional<String> sentId(JsonNode reply, String chatId) {
    JsonNode id = reply.path("id");
    if (id.isTextual() && !id.asText().isBlank()) {
      return Optional.of(id.asText());
    }
    if (id.path("_serialized").isTextual() && !id.path("_serialized").asText().isBlank()) {
      return Optional.of(id.path("_serialized").asText());
    }
    JsonNode key = reply.path("key");
    if (key.path("id").isTextual() && !key.path("id").asText().isBlank()) {
      String chat = chatOf(key.path("remoteJid").asText(chatId));
      return Optional.of(
          key.path("fromMe").asBoolean(true) + "_" + chat + "_" + key.path("id").asText());
    }
    return Optional.empty();
  }

  /** A JID as WAHA writes chats: {@code @s.whatsapp.net} is {@code @c.us}; others unchanged. */
  static String chatOf(String jid) {
    return jid.endsWith("@s.whatsapp.net")
        ? jid.substring(0, jid.length() - "@s.whatsapp.net".length()) + "@c.us"
        : jid;
  }

  /**
   * The engine's group list as id by subject (the first of two groups of one subject); groups
   * without a subject are left out.
   */
  static Map<String, String> groupsBySubject(JsonNode list) {
    Map<String, String> idBySubject = new HashMap<>();
    // An array (WEBJS, GOWS), or an object keyed by group id (NOWEB): its values either way.
    for (JsonNode g : list) {
      String subject = firstText(g, "subject", "Name", "name");
      if (subject.isEmpty()) {
        subject = g.path("groupMetadata").path("subject").asText("");
      }
      String id = firstText(g, "id", "JID");
      if (id.isEmpty()) {
        id = g.path("id").path("_serialized").asText("");
      }
      if (!subject.isEmpty() && !id.isBlank()) {
        idBySubject.putIfAbsent(subject, id);
      }
    }
    return idBySubject;
  }

  private static String firstText(JsonNode node, String... fields) {
    for (String f : fields) {
      if (node.path(f).isTextual() && !node.path(f).asText().isBlank()) {
        return node.path(f).asText();
      }
    }
    return "";
  }
}
