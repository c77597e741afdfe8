package io.kurir.message;

import io.kurir.driver.Driver;
import io.kurir.driver.OutgoingMessage;
import io.kurir.driver.SendOutcome;
import io.kurir.tenant.Device;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one loop that sends a device's messages: in order (sync messages ahead of queued async
 * traffic, then by id), one at a time, paced, and only while the device is connected. Each outcome
 * is committed before the next send. It survives any exception and stops only when asked.
 *
 * <p>Thread-safe: API threads enqueue and cancel, the loop runs on its own virtual thread.
 */
final class DeviceSender {
  private static final Logger log = LoggerFactory.getLogger(DeviceSender.class);
  private static final Comparator<Message> SEND_ORDER =
      Comparator.comparing((Message m) -> !m.sync()).thenComparingLong(Message::id);
  private static final Duration OFFLINE_RECHECK = Duration.ofSeconds(5);
  private static final Duration MAX_IDLE_WAIT = Duration.ofSeconds(30);

  private final Device device;
  private final Driver driver;
  private final MessageStore store;
  private final Outcomes outcomes;
  private final Clock clock;
  private final Pacing pacing;
  private final RetryPolicy retries;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final TreeSet<Message> ready = new TreeSet<>(SEND_ORDER);
  private final PriorityQueue<Message> delayed =
      new PriorityQueue<>(Comparator.comparing(Message::notBefore).thenComparingLong(Message::id));
  private long nextSendNanos = System.nanoTime();
  private volatile boolean running = true;
  private Thread thread;

  DeviceSender(
      Device device,
      Driver driver,
      MessageStore store,
      Outcomes outcomes,
      Clock clock,
      Pacing pacing,
      RetryPolicy retries) {
    this.device = device;
    this.driver = driver;
    this.store = store;
    this.outcomes = outcomes;
    this.clock = clock;
    this.pacing = pacing;
    this.retries = retries;
  }

  void start() {
    thread = Thread.ofVirtual().name("sender-" + device.id()).start(this::loop);
  }

  void enqueue(Message message) {
    lock.lock();
    try {
      if (message.notBefore().isAfter(clock.instant())) {
        delayed.add(message);
      } else {
        ready.add(message);
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Takes a message out of the queue if it has not been handed to the driver yet. */
  boolean withdraw(long messageId) {
    lock.lock();
    try {
      return ready.removeIf(m -> m.id() == messageId) || delayed.removeIf(m -> m.id() == messageId);
    } finally {
      lock.unlock();
    }
  }

  void wake() {
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  int queued() {
    lock.lock();
    try {
      return ready.size() + delayed.size();
    } finally {
      lock.unlock();
    }
  }

  /** Stops after the send in progress, if any, has been recorded. */
  void stop() {
    running = false;
    wake();
    if (thread != null) {
      try {
        thread.join(Duration.ofSeconds(15));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void loop() {
    while (running) {
      try {
        step();
      } catch (InterruptedException e) {
        if (!running) {
          return;
        }
      } catch (RuntimeException e) {
        log.error("sender of device {}: {}", device.id(), e.toString(), e);
        pause(Duration.ofSeconds(1));
      }
    }
  }

  private void step() throws InterruptedException {
    Message next = null;
    List<Message> refused = List.of();
    lock.lock();
    try {
      Instant now = clock.instant();
      while (!delayed.isEmpty() && !delayed.peek().notBefore().isAfter(now)) {
        ready.add(delayed.poll());
      }
      if (!running) {
        return;
      }
      if (ready.isEmpty()) {
        Duration wait = MAX_IDLE_WAIT;
        if (!delayed.isEmpty()) {
          wait = Duration.between(now, delayed.peek().notBefore());
        }
        changed.await(
            Math.max(1, Math.min(wait.toMillis(), MAX_IDLE_WAIT.toMillis())),
            TimeUnit.MILLISECONDS);
        return;
      }
      if (!driver.isConnected(device)) {
        // Queued async traffic waits for the device; a sync caller is told at once.
        refused = new ArrayList<>();
        for (Message m : ready) {
          if (m.sync() && !m.retry()) {
            refused.add(m);
          } else if (m.sync()) {
            outcomes.report(m.id(), SendResult.PHONE_OFFLINE); // flag_retry: it stays queued
          }
        }
        ready.removeAll(refused);
        if (refused.isEmpty()) {
          changed.await(OFFLINE_RECHECK.toMillis(), TimeUnit.MILLISECONDS);
          return;
        }
      } else {
        long waitNanos = nextSendNanos - System.nanoTime();
        if (waitNanos > 0) {
          changed.awaitNanos(waitNanos); // woken early by a new sync message, which then goes first
          return;
        }
        next = ready.pollFirst();
      }
    } finally {
      lock.unlock();
    }
    for (Message m : refused) {
      fail(m, FailureReason.PHONE_OFFLINE, SendResult.PHONE_OFFLINE);
    }
    if (next != null) {
      SendOutcome outcome = sendSafely(next);
      record(next, outcome);
    }
  }

  private SendOutcome sendSafely(Message m) {
    try {
      return driver.send(
          device, new OutgoingMessage(m.id(), m.recipient(), m.toGroup(), m.kind(), m.body()));
    } catch (RuntimeException e) {
      log.warn("driver {} failed to send message {}: {}", driver.name(), m.id(), e.toString());
      return new SendOutcome.Failed(e.toString());
    }
  }

  private void record(Message m, SendOutcome outcome) {
    long gap = pacing.nextGapNanos();
    switch (outcome) {
      case SendOutcome.Sent sent ->
          // The next send need not wait for this commit (the driver deduplicates a resend after a
          // crash); the caller is told only once it is committed.
          store
              .moveLater(m.id(), MessageState.SENT, sent.at(), null, true)
              .whenComplete((moved, error) -> outcomes.report(m.id(), SendResult.SENT));
      case SendOutcome.NotFound notFound ->
          failAttempt(m, FailureReason.NUMBER_NOT_FOUND, SendResult.NUMBER_NOT_FOUND);
      case SendOutcome.PhoneOffline offline -> {
        if (m.sync() && !m.retry()) {
          fail(m, FailureReason.PHONE_OFFLINE, SendResult.PHONE_OFFLINE);
        } else {
          // Not an attempt: the message waits for the device like the rest of the queue.
          outcomes.report(m.id(), SendResult.PHONE_OFFLINE);
          enqueue(m);
          gap = Math.max(gap, OFFLINE_RECHECK.toNanos());
        }
      }
      case SendOutcome.Failed failed -> retryOrFail(m, failed.detail());
    }
    lock.lock();
    try {
      nextSendNanos = System.nanoTime() + gap;
    } finally {
      lock.unlock();
    }
  }

  private void retryOrFail(Message m, String detail) {
    int attempts = m.attempts() + 1;
    var backoff = m.retry() ? retries.backoffAfter(attempts) : Optional.<Duration>empty();
    if (backoff.isEmpty()) {
      failAttempt(m, FailureReason.DRIVER_ERROR, SendResult.FAILED);
      return;
    }
    Instant notBefore = clock.instant().plus(backoff.get());
    store.scheduleRetry(m.id(), attempts, notBefore, FailureReason.DRIVER_ERROR);
    outcomes.report(m.id(), SendResult.FAILED);
    log.info("message {} failed ({}); retry {} at {}", m.id(), detail, attempts, notBefore);
    enqueue(m.retried(attempts, notBefore, FailureReason.DRIVER_ERROR));
  }

  private void fail(Message m, String reason, SendResult result) {
    store.moveTo(m.id(), MessageState.FAILED, clock.instant(), reason, false);
    outcomes.report(m.id(), result);
  }

  /** The driver was given the message and it failed: the attempt counts. */
  private void failAttempt(Message m, String reason, SendResult result) {
    store.moveTo(m.id(), MessageState.FAILED, clock.instant(), reason, true);
    outcomes.report(m.id(), result);
  }

  private static void pause(Duration d) {
    try {
      Thread.sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
