package io.kurir.message;

import io.kurir.driver.Driver;
import io.kurir.driver.OutgoingMessage;
import io.kurir.driver.SendOutcome;
import io.kurir.tenant.Device;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
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
  private static final Comparator<Message> BY_ID = Comparator.comparingLong(Message::id);
  private static final Duration OFFLINE_RECHECK = Duration.ofSeconds(5);
  private static final Duration MAX_IDLE_WAIT = Duration.ofSeconds(30);
  private static final Duration RECORD_RETRY = Duration.ofSeconds(5);
  static final int MAX_UNCOMMITTED = 64;

  private final Device device;
  private final Driver driver;
  private final MessageStore store;
  private final Outcomes outcomes;
  private final Clock clock;
  private final Pacing pacing;
  private final RetryPolicy retries;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  // Ready to go: sync messages (a caller is waiting) ahead of async ones, each in id order. Kept
  // apart so that an offline device's check of its sync messages never walks a campaign.
  private final TreeSet<Message> readySync = new TreeSet<>(BY_ID);
  private final TreeSet<Message> readyAsync = new TreeSet<>(BY_ID);
  private final PriorityQueue<Message> delayed =
      new PriorityQueue<>(Comparator.comparing(Message::notBefore).thenComparingLong(Message::id));
  private final Semaphore uncommitted = new Semaphore(MAX_UNCOMMITTED);
  private long nextSendNanos = System.nanoTime();
  private boolean waitingForDevice; // the last send found the device offline
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
        addReady(message);
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void addReady(Message m) {
    (m.sync() ? readySync : readyAsync).add(m);
  }

  /** Takes a message out of the queue if it has not been handed to the driver yet. */
  boolean withdraw(long messageId) {
    return withdrawAll(List.of(messageId)).contains(messageId);
  }

  /** Takes out every listed message not yet handed to the driver; returns those taken out. */
  Set<Long> withdrawAll(Collection<Long> messageIds) {
    if (messageIds.isEmpty()) {
      return Set.of();
    }
    Set<Long> wanted = new HashSet<>(messageIds);
    Set<Long> taken = new HashSet<>();
    lock.lock();
    try {
      for (Collection<Message> queue :
          List.<Collection<Message>>of(readySync, readyAsync, delayed)) {
        queue.removeIf(m -> wanted.contains(m.id()) && taken.add(m.id()));
      }
      return taken;
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

  /**
   * The device is connected again: the recheck delay taken after a send found it offline no longer
   * applies (a waiting OTP would otherwise sit out the rest of it).
   */
  void connectionRestored() {
    lock.lock();
    try {
      if (waitingForDevice) {
        waitingForDevice = false;
        nextSendNanos = System.nanoTime();
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  int queued() {
    lock.lock();
    try {
      return readySync.size() + readyAsync.size() + delayed.size();
    } finally {
      lock.unlock();
    }
  }

  /** Asks the loop to stop after the send in progress, if any. */
  void requestStop() {
    running = false;
    wake();
  }

  /** Waits until the loop has stopped and its sends are recorded, or until {@code deadline}. */
  void awaitStop(Instant deadline) {
    try {
      if (thread != null) {
        thread.join(
            Duration.ofMillis(Math.max(1, Duration.between(Instant.now(), deadline).toMillis())));
      }
      // Sent messages whose commit is still queued: the writer finishes them before it closes.
      uncommitted.tryAcquire(
          MAX_UNCOMMITTED,
          Math.max(1, Duration.between(Instant.now(), deadline).toMillis()),
          TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
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
      } catch (Throwable e) { // a driver's Error too: the device's queue must not stall
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
        addReady(delayed.poll());
      }
      if (!running) {
        return;
      }
      if (readySync.isEmpty() && readyAsync.isEmpty()) {
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
        for (Message m : readySync) {
          if (m.sync() && !m.retry()) {
            refused.add(m);
          } else if (m.sync()) {
            outcomes.report(m.id(), SendResult.PHONE_OFFLINE); // flag_retry: it stays queued
          }
        }
        refused.forEach(readySync::remove);
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
        next = readySync.isEmpty() ? readyAsync.pollFirst() : readySync.pollFirst();
      }
    } finally {
      lock.unlock();
    }
    for (Message m : refused) {
      recordSafely(m, () -> fail(m, FailureReason.PHONE_OFFLINE, SendResult.PHONE_OFFLINE), false);
    }
    if (next != null) {
      Message m = next;
      uncommitted.acquire();
      SendOutcome outcome = sendSafely(m);
      recordSafely(m, () -> record(m, outcome), true);
    }
  }

  /**
   * Runs the recording of a message's outcome; if the database refuses it, the message goes back
   * into the queue (a little later) instead of being lost from memory while still pending.
   */
  private void recordSafely(Message m, Runnable recording, boolean holdsPermit) {
    try {
      recording.run();
    } catch (RuntimeException e) {
      log.error(
          "device {}: cannot record message {}: {}; retrying", device.id(), m.id(), e.toString());
      enqueue(m.heldUntil(clock.instant().plus(RECORD_RETRY)));
      if (holdsPermit) {
        uncommitted.release();
      }
    }
  }

  private SendOutcome sendSafely(Message m) {
    try {
      return driver.send(
          device,
          new OutgoingMessage(
              m.id(),
              m.recipient(),
              m.toGroup(),
              m.kind(),
              m.body(),
              m.media()
                  .map(r -> new OutgoingMessage.Attachment(r.name(), r.mimeType(), r.path()))));
    } catch (RuntimeException | Error e) {
      log.warn("driver {} failed to send message {}: {}", driver.name(), m.id(), e.toString());
      return new SendOutcome.Failed(e.toString());
    }
  }

  private void record(Message m, SendOutcome outcome) {
    long gap = pacing.nextGapNanos();
    switch (outcome) {
      case SendOutcome.Sent sent -> recordSent(m, sent.at());
      case SendOutcome.NotFound notFound ->
          failAttempt(m, FailureReason.NUMBER_NOT_FOUND, SendResult.NUMBER_NOT_FOUND);
      case SendOutcome.PhoneOffline offline -> {
        if (m.sync() && !m.retry()) {
          fail(m, FailureReason.PHONE_OFFLINE, SendResult.PHONE_OFFLINE);
        } else {
          // Not an attempt: the message waits for the device like the rest of the queue.
          enqueue(m);
          outcomes.report(m.id(), SendResult.PHONE_OFFLINE);
          gap = Math.max(gap, OFFLINE_RECHECK.toNanos());
        }
      }
      case SendOutcome.Failed failed -> retryOrFail(m, failed.detail());
    }
    if (!(outcome instanceof SendOutcome.Sent)) {
      uncommitted.release();
    }
    lock.lock();
    try {
      nextSendNanos = System.nanoTime() + gap;
      waitingForDevice = outcome instanceof SendOutcome.PhoneOffline;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Records a sent message without holding up the next send: its commit joins the next group
   * commit, and the caller is told once it is durable. At most {@link #MAX_UNCOMMITTED} sends of a
   * device await their commit at a time, which bounds what a crash can leave {@code pending}
   * although sent (those are sent again after the restart, with the same id for the driver to
   * deduplicate). A failed commit is retried; the caller is told either way, since the message did
   * go out.
   */
  private void recordSent(Message m, Instant at) {
    // Urgent: the sender's window of uncommitted sends waits on it, and the next OTP with it.
    commitWithRetry(() -> store.moveLater(m.id(), MessageState.SENT, at, null, true, true), 0)
        .whenComplete(
            (moved, error) -> {
              uncommitted.release();
              if (error != null) {
                log.error(
                    "device {}: message {} was sent but not recorded: {}",
                    device.id(),
                    m.id(),
                    error.toString());
              }
              outcomes.report(m.id(), SendResult.SENT);
            });
  }

  private static CompletableFuture<Boolean> commitWithRetry(
      Supplier<CompletableFuture<Boolean>> write, int attempt) {
    return write
        .get()
        .handle(
            (moved, error) -> {
              if (error == null) {
                return CompletableFuture.completedFuture(moved);
              }
              if (attempt >= 5) {
                return CompletableFuture.<Boolean>failedFuture(error);
              }
              Executor later = CompletableFuture.delayedExecutor(1L << attempt, TimeUnit.SECONDS);
              return CompletableFuture.supplyAsync(() -> attempt + 1, later)
                  .thenCompose(next -> commitWithRetry(write, next));
            })
        .thenCompose(f -> f);
  }

  private void retryOrFail(Message m, String detail) {
    int attempts = m.attempts() + 1;
    var backoff = m.retry() ? retries.backoffAfter(attempts) : Optional.<Duration>empty();
    if (backoff.isEmpty()) {
      if (m.retry()) {
        log.info("message {} failed ({}) after {} attempts; giving up", m.id(), detail, attempts);
      }
      failAttempt(m, FailureReason.DRIVER_ERROR, SendResult.FAILED);
      return;
    }
    Instant notBefore = clock.instant().plus(backoff.get());
    store.scheduleRetry(m.id(), attempts, notBefore, FailureReason.DRIVER_ERROR, clock.instant());
    log.info("message {} failed ({}); retry {} at {}", m.id(), detail, attempts, notBefore);
    enqueue(m.retried(attempts, notBefore, FailureReason.DRIVER_ERROR));
    outcomes.report(m.id(), SendResult.FAILED); // after it is queued again: the caller may look
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
