package io.kurir.store;

import io.kurir.core.KurirException;

/**
 * A text search longer than {@link Dialect#MAX_SEARCH_CHARS}: refused before any SQL runs. The HTTP
 * layer answers it 400 {@code search_too_long} in the family's style; a core that has its own
 * answer for it (the Eco report's {@code keyword_too_long}) checks {@link #isTooLong} first.
 */
public final class SearchTooLong extends KurirException {
  /** Its one reason. */
  public enum Reason implements KurirException.Reason {
    SEARCH_TOO_LONG
  }

  public SearchTooLong() {
    super("a search may be at most " + Dialect.MAX_SEARCH_CHARS + " characters long");
  }

  /** Whether {@code text} is longer than {@link Dialect#MAX_SEARCH_CHARS} characters. */
  public static boolean isTooLong(String text) {
    // Cheap first: a string of at most the limit in UTF-16 units has at most as many code points.
    return text.length() > Dialect.MAX_SEARCH_CHARS
        && text.codePointCount(0, text.length()) > Dialect.MAX_SEARCH_CHARS;
  }

  @Override
  public Reason reason() {
    return Reason.SEARCH_TOO_LONG;
  }

  static void check(String text) {
    if (isTooLong(text)) {
      throw new SearchTooLong();
    }
  }
}
