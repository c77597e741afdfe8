package io.kurir.campaign;

import java.util.Locale;

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
}
