package io.kurir.campaign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The safe-sending policy's figures and the weighted rotation, without a gateway. */
class SafeSendingTest {

  @Test
  void theDefaultRampGrowsByHalfEachDayToItsCeiling() {
    List<Integer> caps =
        LongStream.rangeClosed(1, 11).mapToObj(SafeSending.DEFAULT::capOnDay).toList();
    assertThat(caps).containsExactly(20, 30, 45, 68, 102, 153, 230, 345, 500, 500, 500);
  }

  @Test
  void aRampThatStartsAtZeroIsTheCeilingAndNoCeilingIsNoCap() {
    SafeSending flat =
        new SafeSending(
            0, 50, 300, Duration.ZERO, Duration.ZERO, 1, 100, Duration.ZERO, Duration.ZERO);
    assertThat(flat.capOnDay(1)).isEqualTo(300);
    assertThat(SafeSending.OFF.capOnDay(1)).isEqualTo(Integer.MAX_VALUE);
    assertThat(SafeSending.OFF.capped()).isFalse();
    SafeSending still =
        new SafeSending(
            20, 0, 500, Duration.ZERO, Duration.ZERO, 1, 100, Duration.ZERO, Duration.ZERO);
    assertThat(still.capOnDay(30)).isEqualTo(20);
  }

  @Test
  void theGapIsDrawnUniformlyBetweenItsBounds() {
    SplittableRandom random = new SplittableRandom(7);
    long[] buckets = new long[4];
    for (int i = 0; i < 4_000; i++) {
      Duration gap = SafeSending.DEFAULT.gap(random);
      assertThat(gap).isBetween(Duration.ofSeconds(10), Duration.ofSeconds(30));
      buckets[(int) Math.min(3, (gap.toMillis() - 10_000) / 5_000)]++;
    }
    // Four equal quarters of 10-30 s, each near a thousand draws.
    for (long n : buckets) {
      assertThat(n).isBetween(850L, 1_150L);
    }
  }

  @Test
  void theUnansweredCapJudgesOnlyAFullWindow() {
    SafeSending p = SafeSending.DEFAULT; // 30 looked at, more than 90 % unanswered holds
    assertThat(p.tooManyUnanswered(29, 29)).isFalse();
    assertThat(p.tooManyUnanswered(30, 27)).isFalse();
    assertThat(p.tooManyUnanswered(30, 28)).isTrue();
    assertThat(SafeSending.OFF.tooManyUnanswered(100, 100)).isFalse();
  }

  @Test
  void badFiguresAreRefused() {
    assertThatThrownBy(
            () ->
                new SafeSending(
                    20,
                    50,
                    500,
                    Duration.ofSeconds(9),
                    Duration.ofSeconds(8),
                    30,
                    90,
                    Duration.ZERO,
                    Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                new SafeSending(
                    20,
                    50,
                    500,
                    Duration.ZERO,
                    Duration.ZERO,
                    30,
                    101,
                    Duration.ZERO,
                    Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theRotationGivesEachDeviceItsShareOfWhatIsLeftInterleaved() {
    WeightedRotation rotation = new WeightedRotation();
    List<WeightedRotation.Candidate> pool =
        List.of(
            new WeightedRotation.Candidate(1, 40),
            new WeightedRotation.Candidate(2, 20),
            new WeightedRotation.Candidate(3, 10));
    List<Long> picks = picks(rotation, pool, 14);
    Map<Long, Integer> n = new HashMap<>();
    picks.forEach(d -> n.merge(d, 1, Integer::sum));
    assertThat(n).containsEntry(1L, 8).containsEntry(2L, 4).containsEntry(3L, 2);
    // Interleaved, not in blocks: the first seven already hold each device's share.
    assertThat(picks.subList(0, 7)).containsExactlyInAnyOrder(1L, 1L, 1L, 1L, 2L, 2L, 3L);
  }

  @Test
  void devicesWithAsMuchLeftTakeTurns() {
    WeightedRotation rotation = new WeightedRotation();
    List<WeightedRotation.Candidate> pool =
        List.of(
            new WeightedRotation.Candidate(1, 500),
            new WeightedRotation.Candidate(2, 500),
            new WeightedRotation.Candidate(3, 500));
    List<Long> picks = picks(rotation, pool, 6);
    assertThat(picks).containsExactly(1L, 2L, 3L, 1L, 2L, 3L);
  }

  private static List<Long> picks(
      WeightedRotation rotation, List<WeightedRotation.Candidate> pool, int n) {
    List<Long> picks = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      picks.add(rotation.pick(pool));
    }
    return picks;
  }
}
