package io.kurir.message;

import static io.kurir.message.SenderParts.message;
import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.Pacing;
import io.kurir.driver.SendOutcome;
import io.kurir.time.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A sender's pacing alone: the daily cap on the settable clock, the recipient gap and the sync gap
 * on a nanosecond source the test moves, the claim size and the estimate of a sync wait.
 */
class SendPacingTest {
  private static final ZoneId ZONE = ZoneId.of("Asia/Jakarta");
  private final SettableClock clock = new SettableClock(Instant.parse("2026-03-02T10:00:00Z"));
  private final AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
  private final List<Instant> countedFrom = new ArrayList<>();

  private SendPacing pacing(Pacing p, int storedToday) {
    return new SendPacing(
        () -> p,
        clock,
        ZONE,
        from -> {
          countedFrom.add(from);
          return storedToday;
        },
        nanos::get);
  }

  private static SendOutcome sent() {
    return new SendOutcome.Sent(Optional.empty(), Instant.EPOCH);
  }

  @Test
  void theDailyCapCountsWhatIsStoredThenEachSendAndBeginsAgainTheNextDay() {
    SendPacing pacing = pacing(Pacing.OFF.withDailyCap(3), 2);
    assertThat(pacing.overDailyCap(0)).as("2 of 3 sent today").isFalse();
    assertThat(pacing.overDailyCap(1)).as("a send under way counts").isTrue();
    Instant midnight = Instant.parse("2026-03-02T17:00:00Z"); // 00:00 in Jakarta
    assertThat(countedFrom).containsExactly(midnight.minus(Duration.ofDays(1)));

    pacing.counted(message(1, 7, "+6281", false, clock.instant()), sent(), nanos.get());
    assertThat(pacing.overDailyCap(0)).isTrue();
    assertThat(countedFrom).as("counted from the store once a day").hasSize(1);
    assertThat(pacing.nextDay()).isEqualTo(midnight);

    clock.set(midnight.plusSeconds(1));
    assertThat(pacing.overDailyCap(0)).as("a new day: counted again").isFalse();
    assertThat(countedFrom).last().isEqualTo(midnight);
  }

  @Test
  void aRecipientSentToWaitsOutItsGapWhileOthersGoAhead() {
    SendPacing pacing = pacing(Pacing.OFF.withRecipientGap(Duration.ofSeconds(10)), 0);
    Message first = message(1, 7, "+6281", false, clock.instant());
    Message again = message(2, 7, "+6281", false, clock.instant());
    Message other = message(3, 7, "+6282", false, clock.instant());
    pacing.counted(first, sent(), nanos.get());
    ArrayDeque<Message> claimed = new ArrayDeque<>(List.of(again, other));

    assertThat(pacing.nextSendable(claimed)).isEqualTo(other);
    nanos.addAndGet(Duration.ofSeconds(4).toNanos());
    assertThat(pacing.recipientGapLeftNanos(claimed, Duration.ofSeconds(30)))
        .isEqualTo(Duration.ofSeconds(6).toNanos());

    nanos.addAndGet(Duration.ofSeconds(6).toNanos());
    assertThat(pacing.nextSendable(claimed)).as("its gap passed").isEqualTo(again);
  }

  @Test
  void aSendUnderWayHoldsItsRecipientBackUntilItEnds() {
    SendPacing pacing = pacing(Pacing.OFF.withInFlight(4), 0);
    Message first = message(1, 7, "+6281", false, clock.instant());
    Message again = message(2, 7, "+6281", false, clock.instant());
    pacing.underWay(first);
    assertThat(pacing.nextSendable(new ArrayDeque<>(List.of(again)))).isNull();
    pacing.ended(first);
    pacing.counted(first, sent(), nanos.get());
    assertThat(pacing.nextSendable(new ArrayDeque<>(List.of(again)))).isEqualTo(again);
  }

  @Test
  void aSyncMessageWaitsAtMostTheSyncGapSinceTheLastSendStarted() {
    SendPacing pacing = pacing(Pacing.OFF.withMinGap(Duration.ofSeconds(2)), 0);
    Message sync = message(1, 7, "+6281", true, clock.instant());
    Message async = message(2, 7, "+6282", false, clock.instant());
    long paceLeft = Duration.ofSeconds(2).toNanos();
    pacing.started();
    nanos.addAndGet(Duration.ofMillis(100).toNanos());

    assertThat(pacing.wait(async, paceLeft)).isEqualTo(paceLeft);
    assertThat(pacing.wait(sync, paceLeft))
        .isEqualTo(Pacing.SYNC_GAP_CAP.minusMillis(100).toNanos());
  }

  @Test
  void aClaimCoversAboutTheHorizonAtTheDevicesPace() {
    assertThat(pacing(Pacing.rate(10), 0).claimSize(Duration.ofSeconds(1), 64)).isEqualTo(10);
    assertThat(pacing(Pacing.rate(0.5), 0).claimSize(Duration.ofSeconds(1), 64)).isEqualTo(1);
    assertThat(pacing(Pacing.OFF, 0).claimSize(Duration.ofSeconds(1), 64)).isEqualTo(64);
  }

  @Test
  void theSyncEstimateUsesTheMeasuredSendTimeAndReadsTheQueueAtMostEvery200Ms() {
    SendPacing pacing = pacing(Pacing.OFF, 0);
    assertThat(pacing.syncSendNanos()).as("the floor before a send").isEqualTo(100_000_000L);
    pacing.measured(Duration.ofMillis(1).toNanos());
    assertThat(pacing.syncSendNanos()).isEqualTo(1_000_000L);

    AtomicInteger reads = new AtomicInteger();
    assertThat(pacing.pendingSyncCount(() -> reads.incrementAndGet() * 10)).isEqualTo(10);
    nanos.addAndGet(Duration.ofMillis(100).toNanos());
    assertThat(pacing.pendingSyncCount(() -> reads.incrementAndGet() * 10)).isEqualTo(10);
    nanos.addAndGet(Duration.ofMillis(150).toNanos());
    assertThat(pacing.pendingSyncCount(() -> reads.incrementAndGet() * 10)).isEqualTo(20);
  }
}
