package io.kurir.content;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A vCard, as WhatsApp Web shares a contact (WAHA's {@code vCards}, GOWA's {@code contact.vcard}),
 * read as a Cloud API contact card ({@link Content.Contacts}): its {@code FN} the card's {@code
 * name.formatted_name}, each {@code TEL} a phone, with WhatsApp's {@code waid} as {@code wa_id}.
 */
public final class VCards {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern WAID = Pattern.compile("waid=(\\d+)");

  private VCards() {}

  /** {@code vcard} as a contact card. */
  public static ObjectNode card(String vcard) {
    ObjectNode card = JSON.createObjectNode();
    ArrayNode phones = card.putArray("phones");
    String name = "";
    for (String line : vcard.split("\\r?\\n")) {
      int colon = line.indexOf(':');
      if (colon < 0) {
        continue;
      }
      String key = line.substring(0, colon).toUpperCase(Locale.ROOT);
      String value = line.substring(colon + 1).strip();
      if (key.equals("FN")) {
        name = value.replace("\\,", ",").replace("\\;", ";");
      } else if (key.startsWith("TEL") || key.contains(".TEL")) {
        ObjectNode phone = phones.addObject();
        phone.put("phone", value);
        Matcher waid = WAID.matcher(key.toLowerCase(Locale.ROOT));
        if (waid.find()) {
          phone.put("wa_id", waid.group(1));
        }
      }
    }
    card.putObject("name").put("formatted_name", name);
    return card;
  }
}
