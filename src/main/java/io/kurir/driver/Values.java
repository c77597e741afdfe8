package io.kurir.driver;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** How settings and configuration values are written: one reading for every driver. */
public final class Values {
  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");
  private static final Duration MAX_DURATION = Duration.ofDays(365);

  private Values() {}

  /** Whether {@code raw} is written as a duration, whatever its size. */
  public static boolean looksLikeDuration(String raw) {
    return DURATION.matcher(raw.strip()).matches();
  }

  /**
   * {@code 500ms}, {@code 2s}, {@code 5m}, {@code 1h}, at most 365 days; empty when not one, or too
   * long.
   */
  public static Optional<Duration> duration(String raw) {
    Matcher m = DURATION.matcher(raw.strip());
    if (!m.matches() || m.group(1).length() > 12) {
      return Optional.empty();
    }
    long n = Long.parseLong(m.group(1));
    Duration d =
        switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          case "d" -> Duration.ofDays(n);
          default -> Duration.ofHours(n);
        };
    return d.compareTo(MAX_DURATION) > 0 ? Optional.empty() : Optional.of(d);
  }

  /** Whether {@code raw} is an absolute {@code http} or {@code https} address with a host. */
  public static boolean httpUrl(String raw) {
    try {
      java.net.URI uri = java.net.URI.create(raw);
      return ("https".equals(uri.getScheme()) || "http".equals(uri.getScheme()))
          && uri.getHost() != null;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** true/false, yes/no, on/off, 1/0; empty when not one of them. */
  public static Optional<Boolean> bool(String raw) {
    return switch (raw.strip().toLowerCase(Locale.ROOT)) {
      case "true", "yes", "on", "1" -> Optional.of(true);
      case "false", "no", "off", "0" -> Optional.of(false);
      default -> Optional.empty();
    };
  }
}
