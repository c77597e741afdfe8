package io.kurir.campaign;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.content.CloudMessageJson;
import io.kurir.content.Content;
import io.kurir.content.MessageContent;
import io.kurir.message.Recipient;
import io.kurir.message.SendRequest;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A campaign's message made for one recipient: its variables filled in, then read as the native
 * message object ({@link CloudMessageJson#parse}), so that what a recipient gets is checked as any
 * {@code /v1/messages} send is.
 *
 * <p>A variable is {@code {name}}, {@code {phone}} or {@code {attribute}} (a column of the contact
 * book's import, its name as kept: lower case, spaces as {@code _}), optionally with a fallback
 * after a bar, {@code {name|Customer}}, used when the contact has no such value. A variable the
 * contact has no value for, and no fallback, becomes empty: a message never shows {@code {kelas}}
 * to its reader. Variables are filled in the text's body, in captions and in a template's text
 * parameters only: a link, a file name or a template's name is not text the reader reads.
 *
 * <p>Stateless and thread-safe.
 */
final class CampaignMessages {
  private CampaignMessages() {}

  /** {@code {variable}} or {@code {variable|fallback}}. */
  private static final Pattern VARIABLE =
      Pattern.compile("\\{\\s*([\\p{L}\\p{N}_ \\-]{1,64}?)\\s*(?:\\|([^{}]*))?\\}");

  /** The fields whose text is filled in, under the kind's object. */
  private static final List<String> TEXT_FIELDS = List.of("body", "caption");

  /** The message object with the recipient's values filled in. */
  static ObjectNode personalise(ObjectNode message, Map<String, String> variables) {
    ObjectNode copy = message.deepCopy();
    JsonNode type = copy.get("type");
    if (type == null || !type.isTextual()) {
      return copy;
    }
    JsonNode object = copy.get(type.asText());
    if (type.asText().equals("template")) {
      // Meta's template: {components: [{type, parameters: [{type: "text", text}]}]}; the
      // approved text around the parameters is Meta's, so only the parameters are the caller's.
      for (JsonNode component : object == null ? copy.missingNode() : object.path("components")) {
        for (JsonNode parameter : component.path("parameters")) {
          if (parameter instanceof ObjectNode p && p.path("text").isTextual()) {
            p.put("text", fill(p.get("text").asText(), variables));
          }
        }
      }
      return copy;
    }
    if (object instanceof ObjectNode o) {
      for (String field : TEXT_FIELDS) {
        JsonNode text = o.get(field);
        if (text != null && text.isTextual()) {
          o.put(field, fill(text.asText(), variables));
        }
      }
    }
    return copy;
  }

  /** {@code text} with its variables replaced by {@code variables}' values. */
  static String fill(String text, Map<String, String> variables) {
    Matcher m = VARIABLE.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String key = m.group(1).strip().toLowerCase(Locale.ROOT).replaceAll("[\\s\\-]+", "_");
      String value = variables.getOrDefault(key, "");
      if (value.isEmpty() && m.group(2) != null) {
        value = m.group(2).strip();
      }
      m.appendReplacement(out, Matcher.quoteReplacement(value));
    }
    m.appendTail(out);
    return out.toString();
  }

  /**
   * The request that sends {@code message} (personalised) to {@code phone}: an async send of the
   * campaign API, carrying the whole content.
   *
   * @throws io.kurir.content.ContentRefused when the filled-in message is not one the network takes
   *     (a text grown past its limit)
   */
  static SendRequest request(ObjectNode message, String phone) {
    MessageContent content = CloudMessageJson.parse(message);
    boolean preview = !(content.content() instanceof Content.Text t) || t.previewUrl();
    return new SendRequest(
        List.of(Recipient.number(phone)),
        content.kind().wireName(),
        content.content().summary(),
        "campaign",
        false,
        false,
        Duration.ZERO,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        preview,
        Optional.of(content));
  }
}
