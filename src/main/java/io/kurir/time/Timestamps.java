package io.kurir.time;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The timestamp formats of the API contract, in the operator's time zone. */
public final class Timestamps {
  private static final DateTimeFormatter REPLY = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
  private static final DateTimeFormatter COMPACT = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");

  private static final Pattern LOCAL_SHAPE =
      Pattern.compile("\\d{4}-\\d{2}-\\d{2}[ T]\\d{2}:\\d{2}(:\\d{2})?");
  private static final List<DateTimeFormatter> LOCAL =
      Stream.of(
              "uuuu-MM-dd HH:mm",
              "uuuu-MM-dd HH:mm:ss",
              "uuuu-MM-dd'T'HH:mm",
              "uuuu-MM-dd'T'HH:mm:ss")
          .map(p -> DateTimeFormatter.ofPattern(p).withResolverStyle(ResolverStyle.STRICT))
          .toList();

  private final ZoneId zone;

  public Timestamps(ZoneId zone) {
    this.zone = zone;
  }

  public ZoneId zone() {
    return zone;
  }

  /**
   * A date and time a caller wrote, read in the operator's zone: {@code YYYY-MM-DD HH:MM} (the
   * scheduler's form) or with {@code :SS} (the push family's), with a space or an ISO {@code T};
   * always a four-digit year. Empty when it is not one, or not a real date.
   */
  public Optional<Instant> parseLocal(String raw) {
    String text = raw.strip();
    if (!LOCAL_SHAPE.matcher(text).matches()) {
      return Optional.empty(); // nothing signed or wider than four digits reaches the parser
    }
    for (DateTimeFormatter format : LOCAL) {
      try {
        return Optional.of(LocalDateTime.parse(text, format).atZone(zone).toInstant());
      } catch (DateTimeParseException e) {
        // the next form
      }
    }
    return Optional.empty();
  }

  /** {@code YYYY-MM-DD HH:MM:SS}, as in every reply. */
  public String reply(Instant instant) {
    return REPLY.format(instant.atZone(zone));
  }

  /** {@code YYYYMMDDHHMMSS}, as in {@code [20260101120000] Number not found}. */
  public String compact(Instant instant) {
    return COMPACT.format(instant.atZone(zone));
  }
}
