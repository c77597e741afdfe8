package io.kurir.message;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The text conventions of existing clients: the token {@code <ENTER>} and the two characters
 * backslash + {@code n} are line breaks, and {@code \}{@code uXXXX} escapes that arrive unescaped
 * (form posts from PHP's json_encode output, spreadsheet scripts) become the characters they name,
 * surrogate pairs included.
 */
public final class MessageText {
  private static final Pattern ENTER = Pattern.compile("<ENTER>", Pattern.CASE_INSENSITIVE);
  private static final Pattern UNICODE_ESCAPE = Pattern.compile("\\\\u([0-9a-fA-F]{4})");

  private MessageText() {}

  public static String normalize(String text) {
    if (text == null) {
      return "";
    }
    String out = ENTER.matcher(text).replaceAll("\n");
    out = unescapeUnicode(out);
    return out.replace("\\r\\n", "\n").replace("\\n", "\n");
  }

  private static String unescapeUnicode(String text) {
    if (text.indexOf("\\u") < 0) {
      return text;
    }
    Matcher m = UNICODE_ESCAPE.matcher(text);
    StringBuilder out = new StringBuilder(text.length());
    while (m.find()) {
      char c = (char) Integer.parseInt(m.group(1), 16);
      m.appendReplacement(out, Matcher.quoteReplacement(String.valueOf(c)));
    }
    m.appendTail(out);
    return out.toString();
  }
}
