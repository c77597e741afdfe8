package io.kurir.api.v1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestTables;
import io.kurir.testing.TestTables.HandedRow;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The safe-sending policy of campaigns (issue 30, item 3) on a real gateway with the sandbox's
 * network and a settable clock (10:00 in Jakarta at the start): the warm-up ramp across days with
 * the device's other sends counted, a campaign waiting for the next day when its whole pool is at
 * its cap, rotation weighted by each device's remaining cap, the random gap between a device's
 * sends on the clock with each release's plan recorded, and the cap on the share nobody answered.
 * Each test sets the figures it is about and turns the others off, explicitly.
 */
class V1CampaignSafeSendingTest {
  /** Midnight in Jakarta after the clock's start: when the next day's caps begin. */
  private static final Instant DAY_2 = Instant.parse("2026-03-10T17:00:00Z");

  @TempDir Path dir;
  SettableClock clock = TestGateway.settableClock();
  TestGateway kurir;

  @AfterEach
  void stop() {
    if (kurir != null) {
      kurir.close();
    }
  }

  /**
   * A gateway with the policy off (no cap, no gap, no unanswered cap) but for {@code flags}, the
   * figures a test is about: a later flag wins.
   */
  private void start(String... flags) {
    List<String> all =
        new ArrayList<>(
            List.of(
                "--campaigns.safe-sending.daily-cap=0",
                "--campaigns.safe-sending.gap-min=0s",
                "--campaigns.safe-sending.gap-max=0s",
                "--campaigns.safe-sending.unanswered-max=100"));
    all.addAll(List.of(flags));
    kurir = TestGateway.start(dir, clock, all.toArray(String[]::new));
  }

  @Test
  void theWarmUpRampGrowsDayByDayCountingTheDevicesOtherSends() throws Exception {
    // 2 on the first day, doubling to a ceiling of 10; no gap, no unanswered cap.
    start(
        "--campaigns.safe-sending.warm-up-start=2",
        "--campaigns.safe-sending.warm-up-growth=100",
        "--campaigns.safe-sending.daily-cap=10");
    Device device = kurir.newDevice(Numbers.fresh(), true);
    CampaignCalls api = new CampaignCalls(kurir, device);
    api.contacts(20, "all");
    long id = api.start("Ramp", "all");

    // Day 1: its cap of 2, then it waits for the next day, still running.
    api.awaitWaiting(id, 18);
    Eventually.until(
        "waiting for the next day", () -> api.get(id).get("waiting_reason").isTextual());
    JsonNode waiting = api.get(id);
    assertThat(waiting.get("status").asText()).isEqualTo("running");
    assertThat(waiting.get("waiting_reason").asText()).isEqualTo("daily_cap");
    assertThat(waiting.get("waiting_until").asText()).isEqualTo(DAY_2.toString());

    // Day 2: a cap of 4, one of which an API send of the device takes. (The pause comes once day
    // 1's two are sent: it would take back a queued one.)
    Eventually.until(
        "day 1's two sent", () -> api.get(id).get("counts").get("queued").asInt() == 0);
    api.pause(id);
    clock.set(DAY_2.plus(Duration.ofHours(3)));
    String other = Numbers.fresh();
    assertThat(kurir.sendAsync(device, other, "Tagihan bulan ini").status()).isEqualTo(200);
    Eventually.until("the API send sent", () -> kurir.sandbox().inbox(other).size() == 1);
    api.resume(id);
    api.awaitWaiting(id, 15);
    Eventually.until(
        "waiting for day 3",
        () ->
            api.get(id)
                .path("waiting_until")
                .asText()
                .equals(DAY_2.plus(Duration.ofDays(1)).toString()));

    // Day 3: 8; day 4: the ceiling of 10, more than the 7 left.
    clock.set(DAY_2.plus(Duration.ofDays(1)));
    api.awaitWaiting(id, 7);
    clock.set(DAY_2.plus(Duration.ofDays(2)));
    api.awaitStatus(id, "done");
    assertThat(api.get(id).get("waiting_reason").isNull()).isTrue();
    assertThat(perDay(TestTables.of(kurir).handed(id))).containsExactly(2, 3, 8, 7);
  }

  @Test
  void aDevicesOwnFiguresWinOverTheGateways() throws Exception {
    start(
        "--campaigns.safe-sending.warm-up-start=2",
        "--campaigns.safe-sending.warm-up-growth=100",
        "--campaigns.safe-sending.daily-cap=10");
    // An old number, linked today: no ramp, but no more than 5 a day.
    Device device =
        kurir.newDevice(
            Numbers.fresh(),
            "sandbox",
            Map.of("pacing.campaign-warm-up-start", "0", "pacing.campaign-daily-cap", "5"));
    kurir.sandbox().pair(device.id(), device.number());
    CampaignCalls api = new CampaignCalls(kurir, device);
    api.contacts(8, "all");
    long id = api.start("Own", "all");
    api.awaitWaiting(id, 3);
    Eventually.until(
        "waiting for the next day",
        () -> api.get(id).path("waiting_reason").asText().equals("daily_cap"));

    assertThatThrownBy(
            () ->
                kurir
                    .gateway()
                    .tenants()
                    .createDevice(
                        device.licenseId(),
                        Numbers.fresh(),
                        "sandbox",
                        Map.of("pacing.campaign-gap-min", "soon")))
        .hasMessageContaining("pacing.campaign-gap-min");
  }

  @Test
  void aPoolSharesByRemainingCapsAndWaitsForTheNextDayWhenAllAreUsed() throws Exception {
    start(
        "--campaigns.safe-sending.warm-up-start=10",
        "--campaigns.safe-sending.warm-up-growth=100",
        "--campaigns.safe-sending.daily-cap=1000");
    // Linked two days ago (a cap of 40 today), yesterday (20) and today (10).
    Device old = daysAgo(2, () -> kurir.newDevice(Numbers.fresh(), true));
    CampaignCalls api = new CampaignCalls(kurir, old);
    Device younger = daysAgo(1, api::device);
    Device newest = api.device();
    api.contacts(100, "all");
    long id = api.start("Pool", "all");

    api.awaitWaiting(id, 30);
    Eventually.until(
        "waiting for the next day",
        () -> api.get(id).path("waiting_reason").asText().equals("daily_cap"));
    Map<Long, Integer> byDevice = byDevice(TestTables.of(kurir).handed(id));
    assertThat(byDevice)
        .containsEntry(old.id(), 40)
        .containsEntry(younger.id(), 20)
        .containsEntry(newest.id(), 10);

    // The next day every cap has doubled: the 30 left go, none past a device's new cap.
    clock.set(DAY_2);
    api.awaitStatus(id, "done");
    byDevice = byDevice(TestTables.of(kurir).handed(id));
    assertThat(byDevice.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(100);
    assertThat(byDevice.get(newest.id())).isBetween(10, 30);
  }

  @Test
  void aDeviceWithLessLeftOfItsDaySendsLessOften() throws Exception {
    // A fixed gap of 10 s: the device with the most left sends every 10 s, the other's gap is
    // stretched by how much less it has left (40 against 10: about four times as long).
    start(
        "--campaigns.safe-sending.warm-up-start=10",
        "--campaigns.safe-sending.warm-up-growth=100",
        "--campaigns.safe-sending.daily-cap=1000",
        "--campaigns.safe-sending.gap-min=10s",
        "--campaigns.safe-sending.gap-max=10s");
    Device old = daysAgo(2, () -> kurir.newDevice(Numbers.fresh(), true));
    CampaignCalls api = new CampaignCalls(kurir, old);
    Device newest = api.device();
    api.contacts(30, "all");
    long id = api.start("Weighted", "all");
    TestTables tables = TestTables.of(kurir);
    for (int step = 0; step <= 8; step++) {
      if (step > 0) {
        clock.advance(Duration.ofSeconds(10));
      }
      int expected = step + 1;
      Eventually.until(
          "the older device's send " + expected,
          () -> byDevice(tables.handed(id)).getOrDefault(old.id(), 0) == expected);
    }
    Map<Long, Integer> byDevice = byDevice(tables.handed(id));
    assertThat(byDevice.get(old.id())).isEqualTo(9);
    // 9 x 10/40 = 2.25: two or three, where an unweighted rotation would have given it 9.
    assertThat(byDevice.get(newest.id())).isBetween(2, 3);
  }

  @Test
  void aDevicesCampaignSendsAreSpacedByTheGapOnTheClockAndTheirPlanIsRecorded() throws Exception {
    start("--campaigns.safe-sending.gap-min=10s", "--campaigns.safe-sending.gap-max=10s");
    Device device = kurir.newDevice(Numbers.fresh(), true);
    CampaignCalls api = new CampaignCalls(kurir, device);
    api.contacts(3, "all");
    Instant t0 = clock.instant();
    long id = api.start("Gap", "all");
    api.awaitWaiting(id, 2);
    clock.advance(Duration.ofSeconds(9));
    assertThat(api.waiting(id)).isEqualTo(2);
    clock.advance(Duration.ofSeconds(1));
    api.awaitWaiting(id, 1);
    clock.advance(Duration.ofSeconds(10));
    api.awaitStatus(id, "done");

    List<HandedRow> handed = TestTables.of(kurir).handed(id);
    assertThat(handed).hasSize(3);
    for (int i = 0; i < 3; i++) {
      long planned = t0.plusSeconds(10L * i).toEpochMilli();
      assertThat(handed.get(i).plannedAt()).as("planned " + i).isEqualTo(planned);
      assertThat(handed.get(i).handedAt()).as("handed " + i).isEqualTo(planned);
    }
  }

  @Test
  void aDeviceWhoseMessagesGoUnansweredTricklesUntilRepliesCome() throws Exception {
    // Looked at: the last 4 messages sent at least a minute ago; more than half unanswered holds.
    start(
        "--campaigns.safe-sending.unanswered-window=4",
        "--campaigns.safe-sending.unanswered-max=50",
        "--campaigns.safe-sending.answer-time=1m",
        "--campaigns.safe-sending.unanswered-hold=1h");
    Device device = kurir.newDevice(Numbers.fresh(), true);
    CampaignCalls api = new CampaignCalls(kurir, device);
    List<String> first = api.contacts(4, "first");
    long firstId = api.start("First", "first");
    api.awaitStatus(firstId, "done");
    Instant firstHanded = clock.instant();
    Eventually.until(
        "the first four on their phones",
        () -> first.stream().allMatch(p -> kurir.sandbox().inbox(p).size() == 1));

    clock.advance(Duration.ofMinutes(2));
    api.contacts(3, "second");
    long secondId = api.start("Second", "second");
    Eventually.until(
        "the second held",
        () -> api.get(secondId).path("waiting_reason").asText().equals("unanswered"));
    assertThat(api.waiting(secondId)).isEqualTo(3);
    assertThat(api.get(secondId).get("waiting_until").asText())
        .isEqualTo(firstHanded.plus(Duration.ofHours(1)).toString());

    // At the end of the hold, one message goes, and the device holds again.
    clock.set(firstHanded.plus(Duration.ofHours(1)));
    api.awaitWaiting(secondId, 2);
    Eventually.until(
        "held again", () -> api.get(secondId).path("waiting_reason").asText().equals("unanswered"));

    // Two of the four answer: half unanswered is not more than half; the rest go.
    kurir.sandbox().injectIncoming(device.id(), first.get(0), "Boleh, info lagi");
    kurir.sandbox().injectIncoming(device.id(), first.get(2), "Ok");
    Eventually.until("the replies stored", () -> kurir.storedIncoming(device.id()) == 2);
    clock.advance(Duration.ofSeconds(1)); // the runner looks again (it would within 30 s)
    api.awaitStatus(secondId, "done");
  }

  /** What {@code make} makes (a device, first linked then) {@code days} days before now. */
  private <T> T daysAgo(int days, java.util.function.Supplier<T> make) {
    Instant today = clock.instant();
    clock.set(today.minus(Duration.ofDays(days)));
    T made = make.get();
    clock.set(today);
    return made;
  }

  /** How many recipients were handed each day in Jakarta, day by day. */
  private static List<Integer> perDay(List<HandedRow> handed) {
    Map<java.time.LocalDate, Integer> n = new java.util.TreeMap<>();
    for (HandedRow r : handed) {
      n.merge(
          Instant.ofEpochMilli(r.handedAt())
              .atZone(java.time.ZoneId.of("Asia/Jakarta"))
              .toLocalDate(),
          1,
          Integer::sum);
    }
    return new ArrayList<>(n.values());
  }

  private static Map<Long, Integer> byDevice(List<HandedRow> handed) {
    Map<Long, Integer> n = new HashMap<>();
    handed.forEach(r -> n.merge(r.deviceId(), 1, Integer::sum));
    return n;
  }
}
