package io.kurir.message;

import io.kurir.driver.Driver;
import io.kurir.driver.OutgoingMessage;
import io.kurir.driver.SendOutcome;
import io.kurir.tenant.Device;
import java.time.Duration;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device sender's calls to its driver and what follows each: one send on the loop's thread, or
 * several under way at once (a pacing's in-flight above one), each on its own virtual thread, which
 * records its outcome and posts it back for the loop to take in; then the pace, the daily count,
 * and what the outcome says of the rest of the claim window. A driver's exception or error is a
 * failed send, never the loop's end.
 *
 * <p>Thread-safe: sends post from their threads; the count of sends under way is the loop's.
 */
final class DriverSends {
  private static final Logger log = LoggerFactory.getLogger(DeviceSender.class);

  private record Finished(Message message, SendOutcome outcome) {}

  private final Supplier<Device> device;
  private final Driver driver;
  private final SenderWakes w;
  private final SendPacing pacing;
  private final Attempts attempts;
  private final SendObserver observer;
  private final HandOvers handOvers;
  private final ClaimWindow window;
  private final java.util.Queue<Finished> finished =
      new java.util.concurrent.ConcurrentLinkedQueue<>();
  private int inFlight;

  DriverSends(
      Supplier<Device> device,
      Driver driver,
      SenderWakes wakes,
      SendPacing pacing,
      Attempts attempts,
      SendObserver observer,
      HandOvers handOvers,
      ClaimWindow window) {
    this.device = device;
    this.driver = driver;
    this.w = wakes;
    this.pacing = pacing;
    this.attempts = attempts;
    this.observer = observer;
    this.handOvers = handOvers;
    this.window = window;
  }

  /** Sends under way on their own threads, not yet taken in. */
  int inFlight() {
    return inFlight;
  }

  /**
   * Sends {@code m} on its own thread, which records the outcome and posts it back to the loop; the
   * pace counts from this start.
   */
  void dispatch(Message m) {
    inFlight++;
    pacing.underWay(m);
    long gap = pacing.now().nextGapNanos();
    w.lock.lock();
    try {
      w.nextSendNanos = System.nanoTime() + gap;
    } finally {
      w.lock.unlock();
    }
    Thread.ofVirtual()
        .name("send-" + device.get().id() + "-" + m.id())
        .start(
            () -> {
              SendOutcome outcome = sendSafely(m);
              try {
                attempts.record(m, outcome);
              } finally {
                finished.add(new Finished(m, outcome));
                w.lock.lock();
                try {
                  w.changed.signalAll();
                } finally {
                  w.lock.unlock();
                }
              }
            });
  }

  /**
   * Sends {@code m} on the loop's thread and records its outcome; the pace counts from its end (one
   * send at a time, as a linked phone needs).
   */
  void sendHere(Message m) {
    SendOutcome outcome = sendSafely(m);
    attempts.record(m, outcome);
    afterSend(m, outcome, true);
  }

  /** Takes in the outcomes of sends that ran on their own threads. */
  void takeFinished() {
    for (Finished f; (f = finished.poll()) != null; ) {
      inFlight--;
      afterSend(f.message(), f.outcome(), false);
    }
  }

  /** Waits until every send under way has ended (a stop, a pause), taking each in. */
  void awaitUnderWay() {
    while (inFlight > 0) {
      takeFinished();
      if (inFlight > 0) {
        w.lock.lock();
        try {
          if (finished.isEmpty()) {
            w.changed.awaitNanos(Duration.ofMillis(100).toNanos());
          }
        } catch (InterruptedException e) {
          // stopping anyway: the sends end on their own and the loop takes them in
        } finally {
          w.lock.unlock();
        }
      }
    }
  }

  /** Waits up to {@code nanos} (at least a millisecond) for a send to end, a hand-over, a stop. */
  void awaitFinished(long nanos) throws InterruptedException {
    w.lock.lock();
    try {
      if (finished.isEmpty() && w.running && w.handedOver.isEmpty()) {
        w.changed.awaitNanos(Math.max(nanos, 1_000_000));
      }
    } finally {
      w.lock.unlock();
    }
  }

  /** Sends {@code m} on this thread; its time counts in the pacing's estimate and is observed. */
  private SendOutcome sendSafely(Message m) {
    long started = System.nanoTime();
    try (var ids = io.kurir.logging.LogIds.message(device.get().id(), m.id())) {
      SendOutcome outcome = sendOrFailure(m);
      long took = System.nanoTime() - started;
      pacing.measured(took);
      observer.attempted(driver.name(), outcome, Duration.ofNanos(System.nanoTime() - started));
      return outcome;
    }
  }

  /**
   * What follows a send: the pace, the daily count, and what an outcome says of the rest of the
   * window. {@code paceFromEnd}: the gap counts from this send's end (one send at a time, as a
   * linked phone needs), not from its start.
   */
  private void afterSend(Message m, SendOutcome outcome, boolean paceFromEnd) {
    pacing.ended(m);
    handOvers.done(m);
    long now = System.nanoTime();
    boolean deferred = outcome instanceof SendOutcome.Deferred;
    pacing.counted(m, outcome, now);
    if (!isFinal(outcome)) {
      w.lock.lock();
      try {
        w.queueEmpty = false; // it goes back to the queue (a retry, the device away): look again
        w.quiet = false;
        w.syncMayBeQueued |= m.sync();
      } finally {
        w.lock.unlock();
      }
    }
    if (window.claimed().isEmpty() && inFlight == 0 && window.fromHandOvers() && isFinal(outcome)) {
      w.lock.lock();
      try {
        if (!w.workArrived && handOvers.noneSinceLookGuarded() && w.handedOver.isEmpty()) {
          w.queueEmpty = true; // it was when the hand-over was taken, and nothing came since
          w.quiet = true;
        }
      } finally {
        w.lock.unlock();
      }
    }
    // A deferred message took no turn of the pace: the next one may go at once (it waited the
    // gap since the last real send before this one was looked at).
    long gap = paceFromEnd && !deferred ? pacing.now().nextGapNanos() : 0;
    if (outcome instanceof SendOutcome.DeviceUnavailable) {
      gap = Math.max(gap, DeviceSender.OFFLINE_RECHECK.toNanos());
      window.giveBack(); // the rest waits for the device too
    } else if (outcome instanceof SendOutcome.RetryAfter later) {
      gap = Math.max(gap, later.after().toNanos());
      window.giveBack();
    }
    w.lock.lock();
    try {
      w.nextSendNanos = Math.max(paceFromEnd ? 0 : w.nextSendNanos, now + gap);
      w.waitingForDevice = outcome instanceof SendOutcome.DeviceUnavailable;
    } finally {
      w.lock.unlock();
    }
  }

  /** Whether an outcome leaves nothing of the message for this sender to do again. */
  private static boolean isFinal(SendOutcome outcome) {
    return outcome instanceof SendOutcome.Sent
        || outcome instanceof SendOutcome.NotFound
        || outcome instanceof SendOutcome.Permanent
        || outcome instanceof SendOutcome.Accepted;
  }

  private SendOutcome sendOrFailure(Message m) {
    try {
      return driver.send(
          device.get().ref(),
          m.content().isPresent()
              ? OutgoingMessage.of(
                  m.id(),
                  m.recipient(),
                  m.toGroup(),
                  m.content().get(),
                  m.media()
                      .map(r -> new OutgoingMessage.Attachment(r.name(), r.mimeType(), r.path())))
              : new OutgoingMessage(
                  m.id(),
                  m.recipient(),
                  m.toGroup(),
                  m.kind(),
                  m.body(),
                  m.linkPreview(),
                  m.media()
                      .map(r -> new OutgoingMessage.Attachment(r.name(), r.mimeType(), r.path()))));
    } catch (RuntimeException | Error e) {
      log.warn("driver {} failed to send message {}: {}", driver.name(), m.id(), e.toString());
      return new SendOutcome.Failed(e.toString());
    }
  }
}
