package io.kurir.message;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** How the request and sender threads wait, bounded, for a commit of the writer. */
final class CommitWait {
  private CommitWait() {}

  /**
   * {@code future}'s value, or {@link TimeoutException} once {@code timeout} has passed. Not a
   * timed {@code get}: that parks the request's virtual thread with a timer of the carriers' pool,
   * whose scheduler thread was woken to add and again to cancel it, on every accepted call and
   * claim (with the wakes of the threads around it: the durable accept cost 52–55 µs of CPU a
   * request with it, 47–51 without, alternated runs in docs/performance.md). The deadline is a task
   * of the one timer thread of {@link CompletableFuture#orTimeout}, which a later deadline does not
   * wake, and the wait itself is untimed.
   */
  static <T> T within(CompletableFuture<T> future, java.time.Duration timeout)
      throws ExecutionException, InterruptedException, TimeoutException {
    try {
      return future.copy().orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TimeoutException late
          && !(future.state() == java.util.concurrent.Future.State.FAILED
              && future.exceptionNow() == late)) {
        throw late; // the deadline's, not a failure of the future itself
      }
      throw e;
    }
  }
}
