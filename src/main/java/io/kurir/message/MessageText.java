package io.kurir.message;

import java.util.regex.Pattern;

/**
 * The text conventions of existing clients. Only three things make a line break: the token {@code
 * <ENTER>} (any case), the two characters backslash + {@code n} (PHP and spreadsheet templates
 * write them; {@code \r\n} written out is one break too), and a real line break. A real line break
 * next to {@code <ENTER>} belongs to it: a template that ends its lines with {@code <ENTER>} and a
 * CRLF gets one break per line, not two. Every other backslash sequence arrives as written ({@code
 * C:\Users\budi\dokumen.pdf}, a literal backslash-u): JSON's own {@code \}{@code uXXXX} escapes are
 * decoded by JSON before the text gets here and stay decoded.
 */
public final class MessageText {
  private static final Pattern ENTER =
      Pattern.compile("(?:\r?\n)?<ENTER>(?:\r?\n)?", Pattern.CASE_INSENSITIVE);

  private MessageText() {}

  public static String normalize(String text) {
    if (text == null) {
      return "";
    }
    if (text.indexOf('<') < 0 && text.indexOf('\\') < 0 && !hasSurrogates(text)) {
      return text; // nothing to convert: the common case, without a regex
    }
    String out = ENTER.matcher(text).replaceAll("\n");
    out = out.replace("\\r\\n", "\n").replace("\\n", "\n");
    return withoutLoneSurrogates(out);
  }

  private static boolean hasSurrogates(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (Character.isSurrogate(text.charAt(i))) {
        return true;
      }
    }
    return false;
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
