package io.kurir.limit;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A request rate: {@code count} requests every {@code period} on average, with up to {@code burst}
 * at once after a quiet spell. A count of 0 turns the limit off.
 *
 * @param count requests allowed per {@code period}; 0: no limit
 * @param period the period {@code count} is given over (a second, a minute or an hour)
 * @param burst most requests allowed at once, at least 1 when the limit is on
 */
public record RateLimit(long count, Duration period, long burst) {
  /** No limit. */
  public static final RateLimit OFF = new RateLimit(0, Duration.ofSeconds(1), 0);

  private static final Pattern TEXT =
      Pattern.compile("(\\d{1,9})\\s*/\\s*(s|sec|second|m|min|minute|h|hour)");

  public boolean isOn() {
    return count > 0;
  }

  /**
   * The rate written {@code 100/s}, {@code 600/min} or {@code 5000/h} ({@code 0} for none) with
   * bursts of {@code burst}; empty when {@code text} is none of these.
   */
  public static Optional<RateLimit> parse(String text, long burst) {
    String raw = text.strip().toLowerCase(Locale.ROOT);
    if (raw.equals("0") || raw.matches("0\\s*/.*")) {
      return Optional.of(OFF);
    }
    Matcher m = TEXT.matcher(raw);
    if (!m.matches()) {
      return Optional.empty();
    }
    Duration period =
        switch (m.group(2)) {
          case "s", "sec", "second" -> Duration.ofSeconds(1);
          case "m", "min", "minute" -> Duration.ofMinutes(1);
          default -> Duration.ofHours(1);
        };
    return Optional.of(new RateLimit(Long.parseLong(m.group(1)), period, burst));
  }

  /**
   * How long an empty bucket takes to fill up to its burst again. A caller quiet for that long has
   * a full bucket, exactly as a caller never seen: its bucket can be forgotten.
   */
  public Duration refillTime() {
    return isOn()
        ? Duration.ofNanos(Math.ceilDiv(period.toNanos() * Math.max(burst, 1), count))
        : Duration.ZERO;
  }

  @Override
  public String toString() {
    if (!isOn()) {
      return "off";
    }
    String unit = period.equals(Duration.ofSeconds(1)) ? "s" : period.toHours() == 1 ? "h" : "min";
    return count + "/" + unit + ", bursts of " + burst;
  }
}
