package io.kurir.driver.gowa;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.content.Content;
import io.kurir.content.MessageContent;
import io.kurir.content.MessageKind;
import io.kurir.driver.Capabilities;
import java.util.EnumSet;

/**
 * A message of Kurir's own API as GOWA's JSON send routes take it ({@code
 * aldinokemal/go-whatsapp-web-multidevice} at {@code 51f7b19}: docs/openapi.yaml, {@code
 * src/domains/send}, {@code src/domains/message}, {@code src/validations}): a text to {@code
 * /send/message} ({@code phone}, {@code message}, {@code reply_message_id}, {@code mentions}), a
 * location to {@code /send/location} ({@code latitude}, {@code longitude}: strings, checked as
 * coordinates), one contact to {@code /send/contact} ({@code contact_name}, {@code contact_phone},
 * both required), a reaction to {@code /message/{message_id}/reaction} ({@code phone}, {@code
 * emoji}).
 */
final class GowaContent {
  private GowaContent() {}

  /**
   * What the GOWA driver carries of Kurir's API. Not the media kinds: GOWA takes them by upload or
   * by a URL it fetches itself ({@code image_url}…), and Kurir hands GOWA no caller's URL (the
   * engine would fetch from inside the operator's network); the seed families' images and files
   * still go, uploaded. Not stickers, interactive messages or templates (no such route, or the
   * Cloud API's alone). Replies and mentions: on texts ({@code /send/message} alone has the
   * fields). Edits, revoke, read marks and typing: {@link GowaActions}.
   */
  static final Capabilities CAPABILITIES =
      new Capabilities(
          EnumSet.of(
              MessageKind.TEXT, MessageKind.LOCATION, MessageKind.CONTACTS, MessageKind.REACTION),
          true,
          true,
          true,
          true,
          true,
          true,
          true);

  /** A JSON request to GOWA: its path and body. */
  record Request(String path, ObjectNode body) {}

  /** The request that sends {@code content} to {@code phone} (a JID), or why it cannot go. */
  static Request request(String phone, MessageContent content) throws Unsendable {
    ObjectNode body = GowaApi.JSON.createObjectNode();
    body.put("phone", phone);
    if (!(content.content() instanceof Content.Text)
        && (content.replyTo().isPresent() || !content.mentions().isEmpty())) {
      throw new Unsendable(
          "GOWA takes a reply or mentions only with a text (/send/message), not a "
              + content.kind());
    }
    return switch (content.content()) {
      case Content.Text t -> {
        body.put("message", t.body());
        content.replyTo().ifPresent(id -> body.put("reply_message_id", id));
        if (!content.mentions().isEmpty()) {
          var mentions = body.putArray("mentions");
          content.mentions().forEach(m -> mentions.add(m.replaceAll("\\D", "")));
        }
        yield new Request("/send/message", body);
      }
      case Content.Location l -> {
        body.put("latitude", Double.toString(l.latitude()));
        body.put("longitude", Double.toString(l.longitude()));
        yield new Request("/send/location", body);
      }
      case Content.Contacts c -> {
        JsonNode cards = c.cards();
        if (cards.size() != 1 || Content.Contacts.phones(cards.get(0)).size() != 1) {
          throw new Unsendable("GOWA sends one contact with one phone (/send/contact)");
        }
        body.put("contact_name", c.names().getFirst());
        // International digits: GOWA refuses a local 0… number and builds the vCard's waid itself.
        body.put(
            "contact_phone",
            Content.Contacts.phones(cards.get(0)).getFirst().replaceAll("\\D", ""));
        yield new Request("/send/contact", body);
      }
      case Content.Reaction r -> {
        body.put("emoji", r.emoji());
        yield new Request("/message/" + GowaApi.enc(r.messageId()) + "/reaction", body);
      }
      default -> throw new Unsendable("the gowa driver cannot carry " + content.kind());
    };
  }

  /** A message GOWA cannot be asked to send, and why. */
  static final class Unsendable extends Exception {
    Unsendable(String why) {
      super(why);
    }
  }
}
