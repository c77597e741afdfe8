package io.kurir.campaign;

import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;

/**
 * The hours of the day a campaign sends nothing, in a time zone's wall clock: from {@code from}
 * (included) to {@code to} (excluded), across midnight when {@code from} is after {@code to}
 * (21:00–06:00, the default). People asleep do not want a promotion, and a burst of messages in the
 * night is what gets numbers reported.
 *
 * @param from when the quiet starts
 * @param to when sending may start again
 */
public record QuietHours(LocalTime from, LocalTime to) {
  /** 21:00–06:00: the default. */
  public static final QuietHours DEFAULT = new QuietHours(LocalTime.of(21, 0), LocalTime.of(6, 0));

  public QuietHours {
    if (from.equals(to)) {
      throw new IllegalArgumentException("quiet hours that start when they end are not hours");
    }
  }

  /** Whether {@code at} falls in the quiet hours in {@code zone}. */
  public boolean isQuiet(Instant at, ZoneId zone) {
    LocalTime t = at.atZone(zone).toLocalTime();
    return from.isBefore(to)
        ? !t.isBefore(from) && t.isBefore(to)
        : !t.isBefore(from) || t.isBefore(to);
  }

  /** When the quiet hours around {@code at} end: the next {@code to} in {@code zone}. */
  public Instant endAfter(Instant at, ZoneId zone) {
    ZonedDateTime local = at.atZone(zone);
    ZonedDateTime end = local.with(to).withSecond(0).withNano(0);
    if (!end.isAfter(local)) {
      end = end.plusDays(1);
    }
    return end.toInstant();
  }

  /** {@code HH:MM}, as stored and shown. */
  static String text(LocalTime t) {
    return String.format("%02d:%02d", t.getHour(), t.getMinute());
  }
}
