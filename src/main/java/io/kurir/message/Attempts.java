package io.kurir.message;

import io.kurir.driver.SendOutcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records what became of an attempt that was committed as {@code sending}: whatever a driver
 * answered, at once or later, ends in a committed state before a waiting caller is told. Every move
 * is guarded in SQL from {@code sending}, so an outcome reported twice (an answer and a later
 * report of the same send) changes the message once.
 *
 * <p>Thread-safe: device senders and driver callbacks call it at once.
 */
final class Attempts {
  private static final Logger log = LoggerFactory.getLogger(Attempts.class);

  private final MessageStores stores;
  private final Outcomes outcomes;
  private final Clock clock;
  private final RetryPolicy retries;

  Attempts(MessageStores stores, Outcomes outcomes, Clock clock, RetryPolicy retries) {
    this.stores = stores;
    this.outcomes = outcomes;
    this.clock = clock;
    this.retries = retries;
  }

  /**
   * Records {@code outcome} of message {@code m}'s attempt; the future completes once it is
   * committed. Nothing here waits for the commit: a sender goes on with its next message.
   */
  CompletableFuture<?> record(Message m, SendOutcome outcome) {
    try (var ids = io.kurir.logging.LogIds.message(m.deviceId(), m.id())) {
      return recordNow(m, outcome);
    }
  }

  private CompletableFuture<?> recordNow(Message m, SendOutcome outcome) {
    Instant now = clock.instant();
    return switch (outcome) {
      case SendOutcome.Sent sent ->
          // Retried: the message did go out, and a crash rule applied to it later would be wrong.
          tell(
              m,
              retrying(
                  () ->
                      stores
                          .receipts()
                          .recordSent(m.id(), m.deviceId(), sent.networkId(), sent.at(), m.sync()),
                  0),
              SendResult.SENT);
      // With the network now: marked (an empty network id when it gave none), so that the crash
      // rule does not take it for a send cut off before the network had it.
      case SendOutcome.Accepted accepted ->
          stores.receipts().recordNetworkId(m.id(), m.deviceId(), accepted.networkId().orElse(""));
      case SendOutcome.NotFound notFound ->
          fail(m, FailureReason.NUMBER_NOT_FOUND, SendResult.NUMBER_NOT_FOUND, now);
      case SendOutcome.DeviceUnavailable unavailable -> {
        if (m.sync() && !m.retry()) {
          yield fail(m, FailureReason.PHONE_OFFLINE, SendResult.PHONE_OFFLINE, now);
        }
        // Not an attempt: the message waits for the device like the rest of the queue.
        yield tell(m, stores.queue().unclaim(m.id(), m.notBefore()), SendResult.PHONE_OFFLINE);
      }
      case SendOutcome.RetryAfter later ->
          // Not an attempt either: the network asked to be called again later.
          stores.queue().unclaim(m.id(), now.plus(later.after()));
      case SendOutcome.Deferred deferred -> {
        // Not an attempt: this message alone waits; the device's queue goes on without it.
        log.debug("message {} deferred until {}: {}", m.id(), deferred.until(), deferred.detail());
        yield stores
            .queue()
            .unclaim(m.id(), deferred.until().isAfter(now) ? deferred.until() : now);
      }
      case SendOutcome.Failed failed -> retryOrFail(m, failed.detail(), now);
      case SendOutcome.Permanent permanent -> {
        log.info("message {} refused by the network: {}", m.id(), permanent.detail());
        yield fail(m, permanent.reason(), SendResult.FAILED, now);
      }
    };
  }

  private CompletableFuture<?> retryOrFail(Message m, String detail, Instant now) {
    int attempts = m.attempts();
    Optional<Duration> backoff =
        m.retry() ? retries.backoffAfter(attempts) : Optional.<Duration>empty();
    if (backoff.isEmpty()) {
      if (m.retry()) {
        log.info("message {} failed ({}) after {} attempts; giving up", m.id(), detail, attempts);
      }
      return fail(m, FailureReason.DRIVER_ERROR, SendResult.FAILED, now);
    }
    Instant notBefore = now.plus(backoff.get());
    log.info("message {} failed ({}); retry {} at {}", m.id(), detail, attempts, notBefore);
    return tell(
        m,
        stores
            .outcomes()
            .scheduleRetry(m.id(), attempts, notBefore, FailureReason.DRIVER_ERROR, now),
        SendResult.FAILED);
  }

  private CompletableFuture<?> fail(Message m, String reason, SendResult result, Instant now) {
    return tell(
        m,
        stores
            .outcomes()
            .moveLater(
                m.id(),
                MessageState.FAILED,
                java.util.Set.of(MessageState.SENDING),
                now,
                reason,
                true),
        result);
  }

  private static <T> CompletableFuture<T> retrying(
      java.util.function.Supplier<CompletableFuture<T>> write, int attempt) {
    return write
        .get()
        .handle(
            (done, error) -> {
              if (error == null) {
                return CompletableFuture.completedFuture(done);
              }
              if (attempt >= 5) {
                return CompletableFuture.<T>failedFuture(error);
              }
              var later =
                  CompletableFuture.delayedExecutor(
                      1L << attempt, java.util.concurrent.TimeUnit.SECONDS);
              return CompletableFuture.supplyAsync(() -> attempt + 1, later)
                  .thenCompose(next -> retrying(write, next));
            })
        .thenCompose(f -> f);
  }

  /** Tells a waiting caller once {@code commit} is done, and logs a commit that failed. */
  private CompletableFuture<?> tell(Message m, CompletableFuture<?> commit, SendResult result) {
    return commit.whenComplete(
        (done, error) -> {
          if (error != null) {
            // The message stays "sending": the next start finds it and applies the crash rule.
            // (On the writer's thread: the ids are put here.)
            try (var ids = io.kurir.logging.LogIds.message(m.deviceId(), m.id())) {
              log.error(
                  "device {}: the outcome of message {} was not recorded: {}",
                  m.deviceId(),
                  m.id(),
                  error.toString());
            }
          }
          if (m.sync()) {
            outcomes.reportSync(m.id(), result);
          } else {
            outcomes.report(m.id(), result);
          }
        });
  }
}
