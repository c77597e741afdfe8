package io.kurir.driver.cloud;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A device's default template, sent instead of a free-form text message once the customer's 24-hour
 * window is known to be closed: the configuration key {@code template} as {@code name} or {@code
 * name:language} ({@code en_US} when not given). Its body's one parameter, {@code {{1}}}, is the
 * message's text.
 */
record CloudTemplate(String name, String language) {
  private static final Pattern FORM =
      Pattern.compile("([a-z0-9_]{1,512})(?::([A-Za-z]{2,3}(?:_[A-Za-z0-9]{2,4})?))?");

  static final String DEFAULT_LANGUAGE = "en_US";

  static Optional<CloudTemplate> parse(String raw) {
    Matcher m = FORM.matcher(raw.strip());
    if (!m.matches()) {
      return Optional.empty();
    }
    return Optional.of(
        new CloudTemplate(m.group(1), m.group(2) == null ? DEFAULT_LANGUAGE : m.group(2)));
  }

  /**
   * The text as a template parameter: Meta refuses parameters with new lines, tabs or more than
   * four spaces in a row, so these become single spaces; an empty text becomes "-".
   */
  static String parameter(String text) {
    String flat = text.replaceAll("[\\r\\n\\t]+", " ").replaceAll(" {2,}", " ").strip();
    return flat.isEmpty() ? "-" : flat;
  }
}
