package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

  @Test
  void waitsTheFirstBackoffThenDoubles() {
    RetryPolicy policy = new RetryPolicy(Duration.ofSeconds(30), 3);

    assertThat(policy.backoffAfter(1)).contains(Duration.ofSeconds(30));
    assertThat(policy.backoffAfter(2)).contains(Duration.ofSeconds(60));
    assertThat(policy.backoffAfter(3)).contains(Duration.ofSeconds(120));
  }

  @Test
  void givesUpAfterMaxRetries() {
    RetryPolicy policy = new RetryPolicy(Duration.ofSeconds(30), 3);

    assertThat(policy.backoffAfter(4)).isEmpty(); // 1 attempt + 3 retries done
    assertThat(policy.backoffAfter(5)).isEmpty();
    assertThat(policy.backoffAfter(100)).isEmpty();
  }

  @Test
  void offersExactlyMaxRetriesRetries() {
    for (int maxRetries = 0; maxRetries <= 20; maxRetries++) {
      RetryPolicy policy = new RetryPolicy(Duration.ofMillis(5), maxRetries);
      List<Duration> waits = new ArrayList<>();
      int attempts = 1;
      for (Optional<Duration> wait = policy.backoffAfter(attempts);
          wait.isPresent();
          wait = policy.backoffAfter(++attempts)) {
        waits.add(wait.get());
      }
      assertThat(waits).as("maxRetries=%d", maxRetries).hasSize(maxRetries);
      for (int i = 1; i < waits.size(); i++) {
        assertThat(waits.get(i)).isEqualTo(waits.get(i - 1).multipliedBy(2));
      }
    }
  }

  @Test
  void zeroRetriesMeansNoRetry() {
    assertThat(new RetryPolicy(Duration.ofSeconds(5), 0).backoffAfter(1)).isEmpty();
  }

  @Test
  void keepsSubSecondPrecision() {
    RetryPolicy policy = new RetryPolicy(Duration.ofMillis(250), 4);

    assertThat(policy.backoffAfter(1)).contains(Duration.ofMillis(250));
    assertThat(policy.backoffAfter(4)).contains(Duration.ofSeconds(2));
  }

  @Test
  void doublingStopsGrowingAfterTwentyDoublings() {
    // A first wait of 1 ms keeps 2^20 of it (17.5 min) under the one-hour cap.
    RetryPolicy policy = new RetryPolicy(Duration.ofMillis(1), 40);

    assertThat(policy.backoffAfter(21)).contains(Duration.ofMillis(1L << 20));
    assertThat(policy.backoffAfter(22)).contains(Duration.ofMillis(1L << 20));
    assertThat(policy.backoffAfter(40)).contains(Duration.ofMillis(1L << 20));
  }

  @Test
  void theWaitIsCappedAtAnHour() {
    RetryPolicy policy = new RetryPolicy(Duration.ofMinutes(10), 20);
    assertThat(policy.backoffAfter(3)).contains(Duration.ofMinutes(40));
    assertThat(policy.backoffAfter(4)).contains(RetryPolicy.MAX_BACKOFF);
    assertThat(policy.backoffAfter(20)).contains(Duration.ofHours(1));
  }
}
