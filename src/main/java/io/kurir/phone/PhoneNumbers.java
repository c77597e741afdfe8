package io.kurir.phone;

import com.google.i18n.phonenumbers.NumberParseException;
import com.google.i18n.phonenumbers.PhoneNumberUtil;
import com.google.i18n.phonenumbers.Phonenumber.PhoneNumber;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Reads phone numbers the way customers write them and turns them into E.164 ({@code
 * +6281234567890}). With the default region ID, {@code 0812-3456-7890}, {@code 812 3456 7890},
 * {@code 6281234567890} and {@code +62 812 3456 7890} are all the same number; numbers of other
 * countries need their country code, with or without {@code +}.
 *
 * <p>Thread-safe.
 */
public final class PhoneNumbers {
  private static final PhoneNumberUtil UTIL = PhoneNumberUtil.getInstance();
  private static final Pattern SEPARATORS = Pattern.compile("[\\s\\-\\u2010-\\u2015().\\u00a0/]");

  /** What separates the numbers of a list: commas, semicolons, line breaks. */
  public static final String LIST_SEPARATORS_CHARS = ",;\n";

  private static final Pattern LIST_SEPARATORS = Pattern.compile("[,;\\n]");
  private static final Pattern DIGITS = Pattern.compile("\\+?\\d{4,17}");

  // Reading a number with libphonenumber is a sixth of the CPU of accepting a message (its
  // regexes), and a gateway sends to the same people again and again (an app's users, a school's
  // parents): what a written number means is kept, up to a bound, and forgotten all at once past
  // it (a cache of a pure function: forgetting costs only the next reading).
  static final int REMEMBERED = 50_000;

  private final String defaultRegion;
  private final String homeCountryCode;
  private final ConcurrentHashMap<String, Optional<String>> read = new ConcurrentHashMap<>();

  public PhoneNumbers(String defaultRegion) {
    this.defaultRegion = defaultRegion;
    this.homeCountryCode = Integer.toString(UTIL.getCountryCodeForRegion(defaultRegion));
  }

  /**
   * Each number of a list written the way customers write several numbers (separated by commas,
   * semicolons or line breaks), in order: E.164, or empty where one is not a valid number.
   */
  public List<Optional<String>> normalizeAll(String raw) {
    return parts(raw).stream().map(this::normalize).toList();
  }

  /** The entries of a list as {@link #normalizeAll} reads it, as written (blank ones left out). */
  public static List<String> parts(String raw) {
    if (raw != null && raw.indexOf(',') < 0 && raw.indexOf(';') < 0 && raw.indexOf('\n') < 0) {
      return raw.isBlank() ? List.of() : List.of(raw); // one number, as most requests carry
    }
    List<String> out = new ArrayList<>();
    for (String part : LIST_SEPARATORS.split(raw == null ? "" : raw)) {
      if (!part.isBlank()) {
        out.add(part);
      }
    }
    return out;
  }

  /** The E.164 form of {@code raw}, or empty when it is not a valid phone number. */
  public Optional<String> normalize(String raw) {
    if (raw == null) {
      return Optional.empty();
    }
    Optional<String> known = read.get(raw);
    if (known != null) {
      return known;
    }
    Optional<String> e164 = read(raw);
    if (raw.length() > 40) {
      return e164; // no one writes a number this long: not worth keeping
    }
    if (read.size() >= REMEMBERED) {
      read.clear();
    }
    read.put(raw, e164);
    return e164;
  }

  private Optional<String> read(String raw) {
    String compact = SEPARATORS.matcher(raw.strip()).replaceAll("");
    if (compact.startsWith("00")) {
      compact = "+" + compact.substring(2);
    }
    if (!DIGITS.matcher(compact).matches()) {
      return Optional.empty();
    }
    if (compact.startsWith("+")) {
      return valid(compact, null);
    }
    // Digits that begin with the home country code (62812…) are an international number
    // written without its +; people rarely drop the trunk 0 of an area code that happens to
    // start with the same digits. Otherwise the national reading (0812…, 812…) comes first,
    // then the international one for other countries (4915…).
    String national = compact;
    String international = "+" + compact;
    if (national.startsWith(homeCountryCode)) {
      return valid(international, null).or(() -> valid(national, defaultRegion));
    }
    return valid(national, defaultRegion).or(() -> valid(international, null));
  }

  private static Optional<String> valid(String text, String region) {
    try {
      PhoneNumber number = UTIL.parse(text, region == null ? "ZZ" : region);
      if (UTIL.isValidNumber(number)) {
        return Optional.of(UTIL.format(number, PhoneNumberUtil.PhoneNumberFormat.E164));
      }
      return Optional.empty();
    } catch (NumberParseException e) {
      return Optional.empty();
    }
  }
}
