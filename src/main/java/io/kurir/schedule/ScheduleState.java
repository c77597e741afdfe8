package io.kurir.schedule;

import java.util.Locale;

/**
 * Where a schedule is in Kurir: {@code waiting} until due; {@code claimed} while its image or file
 * is fetched; {@code handed} once its message is in the pipeline (from then on the message's state
 * tells how it went); {@code failed} when it could not become a message; {@code removed} by its
 * owner.
 */
public enum ScheduleState {
  WAITING,
  CLAIMED,
  HANDED,
  FAILED,
  REMOVED;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static ScheduleState ofWireName(String name) {
    return valueOf(name.toUpperCase(Locale.ROOT));
  }
}
