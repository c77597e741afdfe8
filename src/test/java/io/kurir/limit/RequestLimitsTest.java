package io.kurir.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kurir.time.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestLimitsTest {
  private final SettableClock clock = new SettableClock(Instant.parse("2026-03-10T03:00:00Z"));

  private static RateLimit rate(String text, long burst) {
    return RateLimit.parse(text, burst).orElseThrow();
  }

  @Test
  void ratesAreReadPerSecondMinuteOrHourAndZeroIsOff() {
    assertThat(rate("100/s", 5)).isEqualTo(new RateLimit(100, Duration.ofSeconds(1), 5));
    assertThat(rate("600 / min", 5).period()).isEqualTo(Duration.ofMinutes(1));
    assertThat(rate("5000/h", 5).period()).isEqualTo(Duration.ofHours(1));
    assertThat(rate("0", 5).isOn()).isFalse();
    assertThat(RateLimit.parse("fast", 5)).isEmpty();
    assertThat(RateLimit.parse("100", 5)).as("a rate names its period").isEmpty();
    assertThat(rate("100/s", 2000).refillTime()).isEqualTo(Duration.ofSeconds(20));
  }

  @Test
  void aKeyGetsItsBurstThenWaitsForTheRefillAndIsToldHowLong() {
    RequestLimits limits =
        new RequestLimits(rate("60/min", 3), RateLimit.OFF, List.of(), clock); // one a second

    for (int i = 0; i < 3; i++) {
      limits.admitKey("device 1");
    }
    assertThatThrownBy(() -> limits.admitKey("device 1"))
        .isInstanceOfSatisfying(
            RateLimited.class, e -> assertThat(e.retryAfterSeconds()).isEqualTo(1));
    limits.admitKey("device 2"); // another key has its own bucket

    clock.advance(Duration.ofMillis(1000));
    limits.admitKey("device 1");
    assertThatThrownBy(() -> limits.admitKey("device 1")).isInstanceOf(RateLimited.class);
  }

  @Test
  void retryAfterIsRoundedUpToWholeSeconds() {
    RequestLimits limits = new RequestLimits(rate("1/min", 1), RateLimit.OFF, List.of(), clock);
    limits.admitKey("partner 7");
    clock.advance(Duration.ofMillis(500));

    assertThatThrownBy(() -> limits.admitKey("partner 7"))
        .isInstanceOfSatisfying(
            RateLimited.class, e -> assertThat(e.retryAfterSeconds()).isEqualTo(60));
  }

  @Test
  void addressesAreLimitedApartFromKeysAndExemptRangesAreKnown() {
    RequestLimits limits =
        new RequestLimits(
            RateLimit.OFF, rate("1/h", 2), List.of("127.0.0.0/8", "::1", "10.1.0.0/16"), clock);

    limits.admitKey("device 1"); // per-key off: never refused
    limits.admitKey("device 1");
    limits.admitKey("device 1");
    limits.admitAddress("203.0.113.5");
    limits.admitAddress("203.0.113.5");
    assertThatThrownBy(() -> limits.admitAddress("203.0.113.5"))
        .isInstanceOfSatisfying(
            RateLimited.class,
            e -> assertThat(e.getMessage()).contains("client address").contains("1/h"));
    limits.admitAddress("203.0.113.6");

    assertThat(limits.isExempt("127.0.0.1")).isTrue();
    assertThat(limits.isExempt("0:0:0:0:0:0:0:1")).isTrue();
    assertThat(limits.isExempt("[::1]")).isTrue();
    assertThat(limits.isExempt("10.1.200.3")).isTrue();
    assertThat(limits.isExempt("10.2.0.1")).isFalse();
    assertThat(limits.isExempt("not an address")).isFalse();
    // Asked again, the kept answers are the same.
    assertThat(limits.isExempt("10.2.0.1")).isFalse();
    assertThat(limits.isExempt("[::1]")).isTrue();
    assertThat(limits.isOff()).isFalse();
    assertThat(new RequestLimits(RateLimit.OFF, RateLimit.OFF, List.of(), clock).isOff()).isTrue();
  }
}
