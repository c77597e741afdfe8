package io.kurir.campaign;

import java.util.Locale;
import java.util.Optional;

/**
 * Where a campaign is: {@code draft → scheduled → running → paused → done}, or {@code cancelled}. A
 * draft can be changed and sends nothing; a scheduled one waits for its start time; a running one
 * is fed to the queue; a paused one sends nothing more until resumed; done and cancelled are final
 * and keep their report.
 */
public enum CampaignStatus {
  DRAFT,
  SCHEDULED,
  RUNNING,
  PAUSED,
  DONE,
  CANCELLED;

  /** The name stored and shown in replies. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  static CampaignStatus ofWireName(String name) {
    return valueOf(name.toUpperCase(Locale.ROOT));
  }

  /** The status a caller named, if it is one. */
  public static Optional<CampaignStatus> parse(String name) {
    for (CampaignStatus s : values()) {
      if (s.wireName().equals(name.strip().toLowerCase(Locale.ROOT))) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  /** Whether nothing more happens to it. */
  public boolean isFinal() {
    return this == DONE || this == CANCELLED;
  }
}
