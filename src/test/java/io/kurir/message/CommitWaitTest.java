package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * An accept's wait for its commit ({@code CommitWait.within}): the value, the future's own failure
 * as it was, and the deadline as a {@link TimeoutException}, told apart from a future that itself
 * failed with one.
 */
class CommitWaitTest {
  @Test
  void aCompletedFutureGivesItsValue() throws Exception {
    assertThat(CommitWait.within(CompletableFuture.completedFuture(7), Duration.ofSeconds(14)))
        .isEqualTo(7);
  }

  @Test
  void aFailureOfTheFutureComesAsItWas() {
    IllegalStateException refused = new IllegalStateException("refused");
    assertThatThrownBy(
            () ->
                CommitWait.within(CompletableFuture.failedFuture(refused), Duration.ofSeconds(14)))
        .isInstanceOf(ExecutionException.class)
        .hasCause(refused);
    TimeoutException itsOwn = new TimeoutException("the database's own");
    assertThatThrownBy(
            () -> CommitWait.within(CompletableFuture.failedFuture(itsOwn), Duration.ofSeconds(14)))
        .isInstanceOf(ExecutionException.class)
        .hasCause(itsOwn);
  }

  @Test
  void aFutureThatDoesNotCompleteInTimeIsATimeoutAndIsLeftAsItWas() {
    CompletableFuture<Integer> never = new CompletableFuture<>();
    assertThatThrownBy(() -> CommitWait.within(never, Duration.ofMillis(1)))
        .isInstanceOf(TimeoutException.class);
    assertThat(never).isNotDone(); // the writer still completes it: what commits later is handled
  }
}
