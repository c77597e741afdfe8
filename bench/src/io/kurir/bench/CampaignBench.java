package io.kurir.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.Gateway;
import io.kurir.bench.Bench.Row;
import io.kurir.campaign.Campaign;
import io.kurir.campaign.CampaignDraft;
import io.kurir.campaign.CampaignStatus;
import io.kurir.campaign.QuietHours;
import io.kurir.contactbook.ImportReport;
import io.kurir.tenant.License;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Campaigns (issue 30): the expansion of a 100,000-recipient audience (its time, and the heap it
 * keeps while it runs) on SQLite and PostgreSQL, and how late a campaign's messages are sent
 * against the safe-sending policy's schedule.
 *
 * <p>The heap is the bench's own JVM's (the gateway runs in it): in use after a full GC, sampled
 * every 200 ms while a second campaign of the same audience expands, against the same measure taken
 * just before it started. A list of 100,000 recipients held whole would show there as tens of
 * megabytes; the runner holds one page of 500.
 */
final class CampaignBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int AUDIENCE = 100_000;
  private static final int POOL = 20;

  private final NodesBench.Starter start;
  private final List<Row> rows;

  CampaignBench(NodesBench.Starter start, List<Row> rows) {
    this.start = start;
    this.rows = rows;
  }

  /** The expansion rows on the gateway {@code start} makes: {@code prefix} names its database. */
  void expansion(String prefix, String name, String... flags) throws Exception {
    Bench.log(prefix + "expanding a " + AUDIENCE + "-recipient campaign");
    List<String> all = new ArrayList<>(List.of(flags));
    all.addAll(List.of(policy("0s", "0s")));
    try (Gateway gateway = start.start(name, all.toArray(String[]::new))) {
      License license = Bench.newLicense(gateway.tenants());
      Bench.newDevice(gateway, license, "+6281600000001");
      importAudience(gateway, license, AUDIENCE, "semua");
      // Quiet now: the runner expands the audience and sends nothing, so the figures are the
      // expansion's alone.
      ZoneId zone = gateway.settings().zone();
      LocalTime now = Instant.now().atZone(zone).toLocalTime().truncatedTo(ChronoUnit.MINUTES);
      QuietHours quiet = new QuietHours(now.minusHours(1), now.plusHours(2));

      Campaign timed = create(gateway, license, "semua", Optional.of(quiet));
      long started = System.nanoTime();
      gateway.campaigns().start(license.id(), timed.id());
      awaitExpanded(gateway, license, timed.id());
      double seconds = (System.nanoTime() - started) / 1e9;
      long recipients = gateway.campaigns().counts(license.id(), timed.id()).total();

      Campaign sampled = create(gateway, license, "semua", Optional.of(quiet));
      long before = heapAfterGc();
      AtomicLong most = new AtomicLong(before);
      AtomicBoolean expanding = new AtomicBoolean(true);
      int[] samples = {0};
      Thread sampler =
          Thread.ofPlatform()
              .name("heap-sampler")
              .start(
                  () -> {
                    while (expanding.get()) {
                      most.accumulateAndGet(heapAfterGc(), Math::max);
                      samples[0]++;
                      sleep(200);
                    }
                  });
      long sampledStart = System.nanoTime();
      gateway.campaigns().start(license.id(), sampled.id());
      awaitExpanded(gateway, license, sampled.id());
      double sampledSeconds = (System.nanoTime() - sampledStart) / 1e9;
      expanding.set(false);
      sampler.join();
      long after = heapAfterGc();

      rows.add(
          new Row(
              prefix + "100,000-recipient campaign: expansion",
              String.format(Locale.ROOT, "%.1f s", seconds),
              Double.NaN,
              "",
              "",
              String.format(
                  Locale.ROOT,
                  "%,d contacts of one tag in the book taken into the campaign's recipients, 500 a"
                      + " commit (%,.0f a second), from start to the campaign expanded; in quiet"
                      + " hours, so nothing is sent meanwhile",
                  recipients,
                  recipients / seconds)));
      rows.add(
          new Row(
              prefix + "100,000-recipient campaign: heap while expanding",
              "+" + mb(Math.max(0, most.get() - before)),
              Double.NaN,
              "",
              "",
              String.format(
                  Locale.ROOT,
                  "largest heap in use after a full GC (MemoryMXBean, %d samples every 200 ms"
                      + " during a second expansion of the same audience, %.1f s with the GCs)"
                      + " minus the same before its start: %s before, at most %s, %s after;"
                      + " gateway and bench in one JVM",
                  samples[0],
                  sampledSeconds,
                  mb(before),
                  mb(most.get()),
                  mb(after))));
    }
  }

  /**
   * A campaign over a pool of {@link #POOL} devices, sent to the end: each message's driver sent
   * time minus the moment the safe-sending policy planned its release ({@code
   * campaign_recipient.planned_at}, its device's slot after the random gap), and minus the commit
   * that released it ({@code handed_at}). With {@code gapMin}/{@code gapMax} zero the policy's gaps
   * are off and the queue's own lateness shows.
   */
  void lateness(String name, int recipients, String gapMin, String gapMax) throws Exception {
    Bench.log(name);
    try (Gateway gateway = start.start("campaign-lateness-" + recipients, policy(gapMin, gapMax))) {
      License license = Bench.newLicense(gateway.tenants());
      for (int i = 0; i < POOL; i++) {
        Bench.newDevice(gateway, license, String.format(Locale.ROOT, "+62816%07d", 100 + i));
      }
      importAudience(gateway, license, recipients, "promo");
      Campaign c = create(gateway, license, "promo", Optional.empty());
      long started = System.nanoTime();
      gateway.campaigns().start(license.id(), c.id());
      Instant deadline = Instant.now().plus(Duration.ofMinutes(10));
      while (gateway.campaigns().get(license.id(), c.id()).status() != CampaignStatus.DONE) {
        if (Instant.now().isAfter(deadline)) {
          throw new IllegalStateException(
              "campaign not done after 10 min: "
                  + gateway.campaigns().counts(license.id(), c.id()));
        }
        sleep(50);
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      List<Long> planned = lateness(gateway, c.id(), "planned_at");
      List<Long> handed = lateness(gateway, c.id(), "handed_at");
      if (planned.size() != recipients || handed.size() != recipients) {
        throw new IllegalStateException(
            "expected " + recipients + " sent, found " + planned.size() + " planned");
      }
      rows.add(
          new Row(
              name,
              ms(planned, 0.5) + " median",
              Double.NaN,
              ms(planned, 0.5),
              ms(planned, 0.99) + ", max " + ScheduleBench.ms(planned.getLast()),
              String.format(
                  Locale.ROOT,
                  "a campaign of %,d recipients over a pool of %d devices, no quiet hours, the"
                      + " policy's gap %s to %s, no daily cap, pacing off: driver's sent time minus"
                      + " the policy's planned release (campaign_recipient.planned_at); minus the"
                      + " release's commit (handed_at): median %s, p99 %s; done in %.1f s (%,.0f"
                      + " sent a second)",
                  recipients,
                  POOL,
                  gapMin,
                  gapMax,
                  ms(handed, 0.5),
                  ms(handed, 0.99),
                  seconds,
                  recipients / seconds)));
    }
  }

  /** Sent time minus {@code column} of each of the campaign's recipients, sorted. */
  private static List<Long> lateness(Gateway gateway, long campaign, String column) {
    List<Long> late =
        gateway
            .database()
            .jdbi()
            .withHandle(
                h ->
                    h.createQuery(
                            "SELECT m.sent_at - r."
                                + column
                                + " FROM campaign_recipient r JOIN message m ON m.id = r.message_id"
                                + " WHERE r.campaign_id = ? AND m.sent_at IS NOT NULL"
                                + " AND r."
                                + column
                                + " IS NOT NULL")
                        .bind(0, campaign)
                        .mapTo(Long.class)
                        .list());
    Collections.sort(late);
    return late;
  }

  private static String ms(List<Long> sorted, double p) {
    return ScheduleBench.ms(ScheduleBench.percentile(sorted, p));
  }

  /**
   * The safe-sending policy's flags: no daily cap or warm-up (the bench's numbers are new), no hold
   * for unanswered messages (nobody answers here), the random gap given.
   */
  static String[] policy(String gapMin, String gapMax) {
    return new String[] {
      "--campaigns.safe-sending.daily-cap=0",
      "--campaigns.safe-sending.unanswered-max=100",
      "--campaigns.safe-sending.gap-min=" + gapMin,
      "--campaigns.safe-sending.gap-max=" + gapMax
    };
  }

  private static void importAudience(Gateway gateway, License license, int n, String tag) {
    StringBuilder csv = new StringBuilder(n * 40).append("phone,name,tags,kota\n");
    for (int i = 0; i < n; i++) {
      csv.append(String.format(Locale.ROOT, "+62857%07d,Pelanggan %d,%s,Bandung%n", i, i, tag));
    }
    ImportReport report = gateway.contactBook().importCsv(license.id(), csv.toString(), false);
    if (!report.refused().isEmpty()) {
      throw new IllegalStateException("refused rows: " + report.refused().getFirst());
    }
  }

  private static Campaign create(
      Gateway gateway, License license, String tag, Optional<QuietHours> quiet) throws Exception {
    ObjectNode message =
        (ObjectNode)
            JSON.readTree(
                "{\"type\":\"text\",\"text\":{\"body\":\"Halo {name}, promo di {kota}\"}}");
    return gateway
        .campaigns()
        .create(
            license.id(),
            new CampaignDraft(
                "Bench " + tag,
                List.of(tag),
                message,
                List.of(),
                List.of(),
                Optional.empty(),
                quiet,
                Optional.empty()));
  }

  private static void awaitExpanded(Gateway gateway, License license, long id) {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(10));
    while (!gateway.campaigns().get(license.id(), id).expanded()) {
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException("campaign " + id + " not expanded after 10 min");
      }
      sleep(10);
    }
  }

  private static long heapAfterGc() {
    for (int i = 0; i < 2; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** As {@link Bench}'s rows (MB of 1,024 × 1,024 bytes), to a tenth: the figures are small. */
  private static String mb(long bytes) {
    return String.format(Locale.ROOT, "%.1f MB", bytes / (1024.0 * 1024));
  }
}
