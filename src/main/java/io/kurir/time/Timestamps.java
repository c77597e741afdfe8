package io.kurir.time;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/** The timestamp formats of the API contract, in the operator's time zone. */
public final class Timestamps {
  private static final DateTimeFormatter REPLY = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
  private static final DateTimeFormatter COMPACT = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");

  private final ZoneId zone;

  public Timestamps(ZoneId zone) {
    this.zone = zone;
  }

  public ZoneId zone() {
    return zone;
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
