package io.kurir.contactbook;

import java.text.Normalizer;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The words that, sent alone as a reply, unsubscribe a contact from a license's campaigns ({@code
 * contacts.opt-out-words}, default {@code STOP,BERHENTI}). A reply matches when, trimmed and
 * without its final punctuation, it is one of them in any case: "stop", "Stop!" and " BERHENTI."
 * do; "stop sending me promos" and "jangan berhenti" do not, so that ordinary conversation does not
 * unsubscribe anyone.
 */
public final class OptOutWords {
  private final List<String> words;

  public OptOutWords(List<String> words) {
    this.words = words.stream().map(String::strip).filter(w -> !w.isEmpty()).toList();
  }

  /** The word as configured that {@code text} is, if it is one. */
  public Optional<String> match(String text) {
    if (text == null || text.length() > 64) {
      return Optional.empty();
    }
    String t = key(text);
    return words.stream().filter(w -> key(w).equals(t)).findFirst();
  }

  /** The configured words. */
  public List<String> words() {
    return words;
  }

  private static String key(String s) {
    return Normalizer.normalize(s, Normalizer.Form.NFKC)
        .strip()
        .replaceAll("[\\p{Punct}\\s]+$", "")
        .toLowerCase(Locale.ROOT);
  }
}
