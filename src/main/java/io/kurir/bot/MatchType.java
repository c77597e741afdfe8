package io.kurir.bot;

import java.util.Locale;
import java.util.Optional;

/**
 * How a rule's keyword must appear in an incoming text: the whole text ({@code match}), its
 * beginning ({@code partial}), or anywhere in it ({@code partial_all}). Declared from the most
 * specific to the least: when rules of several types match, the earlier type wins.
 */
public enum MatchType {
  MATCH,
  PARTIAL,
  PARTIAL_ALL;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<MatchType> ofWireName(String name) {
    for (MatchType t : values()) {
      if (t.wireName().equals(name.strip().toLowerCase(Locale.ROOT))) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }
}
