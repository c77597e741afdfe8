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
    if (text.indexOf('<') < 0 && text.indexOf('\\') < 0 && !hasSurrogates(text)) {
      return text; // nothing to convert: the common case, without a regex
    }
    String out = ENTER.matcher(text).replaceAll("\n");
    out = unescapeUnicode(out);
    return out.replace("\\r\\n", "\n").replace("\\n", "\n");
  }

  private static boolean hasSurrogates(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (Character.isSurrogate(text.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  private static String unescapeUnicode(String text) {
    if (text.indexOf("\\u") < 0) {
      return withoutLoneSurrogates(text);
    }
    Matcher m = UNICODE_ESCAPE.matcher(text);
    StringBuilder out = new StringBuilder(text.length());
    while (m.find()) {
      char c = (char) Integer.parseInt(m.group(1), 16);
      m.appendReplacement(out, Matcher.quoteReplacement(String.valueOf(c)));
    }
    m.appendTail(out);
    return withoutLoneSurrogates(out);
  }

  /**
   * A high surrogate without its low half (or the reverse) cannot be stored or sent as UTF-8; it
   * becomes U+FFFD, the replacement character, so what is stored is what is sent.
   */
  private static String withoutLoneSurrogates(CharSequence text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        out.append(c).append(text.charAt(++i));
      } else if (Character.isSurrogate(c)) {
        out.append('\uFFFD');
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
