package io.kurir.api;

/**
 * Counts the entries of a list a caller sends as one field ({@code phone_no}, {@code bulk_msg_id},
 * {@code include_player_ids}) before any entry is read, so that a list far over its limit is
 * refused for the price of one pass over its characters: reading a million phone numbers took
 * seconds of CPU before the limit was checked.
 */
public final class ListedValues {
  private ListedValues() {}

  /**
   * The non-blank entries of {@code raw} between any of {@code separators}, counted up to {@code
   * stopAfter} (a caller that knows the limit stops there).
   */
  public static int count(String raw, String separators, int stopAfter) {
    if (raw == null) {
      return 0;
    }
    int count = 0;
    boolean inEntry = false;
    for (int i = 0; i < raw.length() && count <= stopAfter; i++) {
      char c = raw.charAt(i);
      if (separators.indexOf(c) >= 0) {
        inEntry = false;
      } else if (!inEntry && !Character.isWhitespace(c)) {
        inEntry = true;
        count++;
      }
    }
    return count;
  }

  /** Whether {@code raw} holds more than {@code max} entries. */
  public static boolean moreThan(String raw, String separators, int max) {
    return count(raw, separators, max) > max;
  }
}
