package io.kurir.message;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for the first outcome of sync messages on behalf of their callers, and withdraws what could
 * not go out in time, so that a caller told a message failed never sees it sent later.
 *
 * <p>Thread-safe: each caller waits on its own thread.
 */
final class SyncWaits {
  /**
   * Extra wait for a send the driver already has, after the sync timeout ran out, so long as the
   * caller's total stays under 14 s (clients give up at 15 s).
   */
  private static final Duration IN_FLIGHT_GRACE = Duration.ofSeconds(3);

  private static final Duration CALLER_PATIENCE = Duration.ofSeconds(14);

  /** While a sync caller waits, the database is looked at this often (another node may send). */
  private static final Duration OUTCOME_RECHECK = Duration.ofSeconds(1);

  private final MessageStores stores;
  private final Outcomes outcomes;
  private final IdempotentSends idempotent;
  private final Clock clock;
  private final Map<Long, DeviceSender> senders; // this node's, read only

  SyncWaits(
      MessageStores stores,
      Outcomes outcomes,
      IdempotentSends idempotent,
      Clock clock,
      Map<Long, DeviceSender> senders) {
    this.stores = stores;
    this.outcomes = outcomes;
    this.idempotent = idempotent;
    this.clock = clock;
    this.senders = senders;
  }

  /**
   * Waits until {@code deadline} for the first outcome of each sync message, in order. When time
   * runs out, every message the driver has not got yet is withdrawn at once and recorded as failed,
   * so a caller who is told a message failed never sees it sent later; {@code flag_retry=on}
   * messages stay queued instead. A message the driver already has is given a little longer (its
   * send is under way), never past 14 s from {@code callerStarted}.
   *
   * @return one result per message, in the same order
   */
  List<SendResult> awaitAll(List<Message> messages, Instant deadline, Instant callerStarted) {
    if (idempotent.isRepeat(messages)) { // the first request's messages: their caller waits
      return idempotent.awaitStored(messages, deadline);
    }
    SendResult[] results = new SendResult[messages.size()];
    try {
      int next = 0;
      for (; next < messages.size(); next++) {
        SendResult r = poll(messages.get(next), deadline);
        if (r == null) {
          break;
        }
        results[next] = r;
      }
      if (next < messages.size()) {
        expire(messages.subList(next, messages.size()), results, next, callerStarted);
      }
      return List.of(results);
    } finally {
      messages.forEach(m -> outcomes.forget(m.id()));
    }
  }

  /**
   * The outcome if it comes before {@code until}, else null. This node's sender tells at once; a
   * message sent by another node's sender is found in the database, looked at every second.
   */
  private SendResult poll(Message message, Instant until) {
    CompletableFuture<SendResult> told = outcomes.of(message.id());
    while (true) {
      long left = millisUntil(until);
      try {
        return told.get(Math.min(left, OUTCOME_RECHECK.toMillis()), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        Optional<SendResult> stored =
            stores.reads().find(message.id()).flatMap(SyncWaits::finalResult);
        if (stored.isPresent()) {
          return stored.get();
        }
        if (left <= OUTCOME_RECHECK.toMillis()) {
          return null;
        }
      } catch (ExecutionException e) {
        return SendResult.FAILED;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }

  /** What a stored message's state tells a sync caller, once it is final for the first attempt. */
  static Optional<SendResult> finalResult(Message m) {
    if (m.state().wentOut()) {
      return Optional.of(SendResult.SENT);
    }
    if (m.state() != MessageState.FAILED) {
      return Optional.empty();
    }
    String reason = m.reason().orElse("");
    return Optional.of(
        switch (reason) {
          case FailureReason.NUMBER_NOT_FOUND -> SendResult.NUMBER_NOT_FOUND;
          case FailureReason.PHONE_OFFLINE -> SendResult.PHONE_OFFLINE;
          case FailureReason.TIMEOUT -> SendResult.TIMEOUT;
          default -> SendResult.FAILED;
        });
  }

  private void expire(List<Message> late, SendResult[] results, int offset, Instant callerStarted) {
    List<Long> withdrawable = new ArrayList<>();
    for (Message m : late) {
      if (!m.retry() && !outcomes.of(m.id()).isDone()) {
        withdrawable.add(m.id());
      }
    }
    // Guarded: only what no sender has claimed is withdrawn; a claimed one is in a driver's hands.
    Instant now = clock.instant();
    java.util.Set<Long> withdrawn =
        new java.util.HashSet<>(
            stores.outcomes().withdraw(withdrawable, FailureReason.TIMEOUT, now));
    DeviceSender sender = late.isEmpty() ? null : senders.get(late.getFirst().deviceId());
    if (sender != null) {
      for (long id : withdrawable) {
        // One this node's sender holds claimed but has not started: its memory decides, then the
        // database says so (it was claimed, "sending", without ever reaching the driver).
        if (!withdrawn.contains(id) && sender.handOvers().withdrawUnsent(id)) {
          stores
              .outcomes()
              .moveTo(
                  id,
                  MessageState.FAILED,
                  Set.of(MessageState.SENDING, MessageState.PENDING),
                  now,
                  FailureReason.TIMEOUT);
          withdrawn.add(id);
        }
      }
    }
    // Withdrawn while its turn had come on a device that is online: the device is busy, not
    // offline (a caller told phone_offline would look for a phone problem that is not there).
    boolean online = sender != null && !withdrawn.isEmpty() && sender.deviceConnected();
    Instant graceEnd = Instant.now().plus(IN_FLIGHT_GRACE);
    Instant patienceEnd = callerStarted.plus(CALLER_PATIENCE);
    Instant until = graceEnd.isBefore(patienceEnd) ? graceEnd : patienceEnd;
    for (int i = 0; i < late.size(); i++) {
      Message m = late.get(i);
      SendResult r;
      if (withdrawn.contains(m.id())) {
        r = online && !m.notBefore().isAfter(now) ? SendResult.DEVICE_BUSY : SendResult.TIMEOUT;
      } else if (m.retry()) {
        r = outcomes.of(m.id()).getNow(SendResult.TIMEOUT); // flag_retry: it stays queued
      } else {
        r = poll(m, until); // in the driver's hands: its outcome is near
      }
      results[offset + i] = r == null ? SendResult.TIMEOUT : r;
    }
  }

  private long millisUntil(Instant deadline) {
    // Deadlines of sync calls are in real time: the caller's HTTP client does not read our clock.
    return Math.max(1, Duration.between(Instant.now(), deadline).toMillis());
  }
}
