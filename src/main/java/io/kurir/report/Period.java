package io.kurir.report;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Locale;
import java.util.Optional;

/**
 * The periods of {@code report_json}'s {@code time_choose}, as half-open intervals of instants
 * [from, to) computed from calendar days in the operator's time zone.
 */
public enum Period {
  TODAY("today"),
  YESTERDAY("yesterday"),
  /** Today and the six days before. */
  SEVEN_DAYS("7days"),
  /** This calendar month. */
  MONTH("month"),
  /** The previous calendar month. */
  MONTH_BACK("month_back");

  private final String wireName;

  Period(String wireName) {
    this.wireName = wireName;
  }

  public static Optional<Period> ofWireName(String name) {
    String wanted = name.strip().toLowerCase(Locale.ROOT);
    for (Period p : values()) {
      if (p.wireName.equals(wanted)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** The interval's first instant (inclusive). */
  public Instant from(Clock clock, ZoneId zone) {
    LocalDate today = LocalDate.ofInstant(clock.instant(), zone);
    LocalDate first =
        switch (this) {
          case TODAY -> today;
          case YESTERDAY -> today.minusDays(1);
          case SEVEN_DAYS -> today.minusDays(6);
          case MONTH -> today.withDayOfMonth(1);
          case MONTH_BACK -> today.withDayOfMonth(1).minusMonths(1);
        };
    return first.atStartOfDay(zone).toInstant();
  }

  /** The interval's end (exclusive). */
  public Instant to(Clock clock, ZoneId zone) {
    LocalDate today = LocalDate.ofInstant(clock.instant(), zone);
    LocalDate end =
        switch (this) {
          case TODAY, SEVEN_DAYS, MONTH -> today.plusDays(1);
          case YESTERDAY -> today;
          case MONTH_BACK -> today.withDayOfMonth(1);
        };
    return end.atStartOfDay(zone).toInstant();
  }
}
