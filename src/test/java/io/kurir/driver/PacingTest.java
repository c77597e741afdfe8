package io.kurir.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PacingTest {
  private static final Pacing PHONE = new Pacing(Duration.ofSeconds(1), Duration.ofSeconds(2));

  @Test
  void aDevicesKeysOverrideTheDriversPacingPartByPart() {
    Pacing p =
        Pacing.of(
            Map.of(
                "pacing.in-flight", "8", "pacing.recipient-gap", "6s", "pacing.daily-cap", "1000"),
            PHONE);
    assertThat(p)
        .isEqualTo(
            new Pacing(
                Duration.ofSeconds(1), Duration.ofSeconds(2), 8, Duration.ofSeconds(6), 1000));
  }

  @Test
  void aRateGivesTheGapAndDropsTheJitter() {
    Pacing p = Pacing.of(Map.of("pacing.rate", "80", "pacing.jitter", "2s"), PHONE);
    assertThat(p.minGap()).isEqualTo(Duration.ofNanos(12_500_000));
    assertThat(p.jitter()).isZero();
    assertThat(Pacing.of(Map.of("pacing.rate", "0"), PHONE)).isEqualTo(PHONE);
  }

  @Test
  void emptyValuesLeaveTheDriversPacing() {
    assertThat(Pacing.of(Map.of("pacing.in-flight", " ", "pacing.min-gap", ""), PHONE))
        .isEqualTo(PHONE);
  }

  @Test
  void eachBadValueIsNamedWithItsKey() {
    List<String> problems =
        Pacing.problems(
            Map.of(
                "pacing.in-flight", "0",
                "pacing.rate", "fast",
                "pacing.recipient-gap", "6 seconds",
                "pacing.daily-cap", "-1"));
    assertThat(problems)
        .containsExactlyInAnyOrder(
            "'pacing.in-flight' = '0' is not a whole number from 1 to 64",
            "'pacing.rate' = 'fast' is not a whole number from 0 to 1000",
            "'pacing.recipient-gap' = '6 seconds' is not a duration such as 500ms or 2s",
            "'pacing.daily-cap' = '-1' is not a whole number from 0 to 10000000");
    assertThat(Pacing.problems(Map.of("pacing.in-flight", "64", "pacing.rate", "80"))).isEmpty();
  }

  @Test
  void aCampaignGapsLeastAboveItsMostIsRefused() {
    assertThat(
            Pacing.problems(
                Map.of("pacing.campaign-gap-min", "90s", "pacing.campaign-gap-max", "30s")))
        .containsExactly(
            "'pacing.campaign-gap-min' = '90s' is longer than 'pacing.campaign-gap-max' = '30s'");
    assertThat(
            Pacing.problems(
                Map.of("pacing.campaign-gap-min", "30s", "pacing.campaign-gap-max", "30s")))
        .isEmpty();
  }

  @Test
  void aPacingOutsideItsBoundsCannotBeMade() {
    assertThatThrownBy(() -> PHONE.withInFlight(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PHONE.withInFlight(65)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PHONE.withDailyCap(-1)).isInstanceOf(IllegalArgumentException.class);
  }
}
