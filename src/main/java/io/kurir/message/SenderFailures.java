package io.kurir.message;

import io.kurir.driver.Driver;
import io.kurir.tenant.Device;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device sender's failing tries (an attach that throws, any error of a step): told by a {@link
 * io.kurir.logging.RepeatingFailure} (one ERROR line with the trace, then DEBUG while it repeats),
 * recorded as the device's state once they repeat, and waited out, longer each time, on the
 * injected clock. While the driver cannot attach the device, its sync callers are answered as for a
 * device that is not connected.
 *
 * <p>The loop's own, except {@link #retryNow} and {@link #attachFailing}, set from other threads.
 */
final class SenderFailures {
  private static final Logger log = LoggerFactory.getLogger(DeviceSender.class);

  /** Failed tries in a row after which the device's state says its sender is stuck. */
  static final int STUCK_AFTER_TRIES = 2;

  private final Supplier<Device> device;
  private final Driver driver;
  private final SenderWakes w;
  private final ClaimWindow window;
  private final Clock clock;
  private final SenderTrouble trouble;
  private final io.kurir.logging.RepeatingFailure failures;
  private boolean stuckRecorded; // the device's state says its sender is stuck
  // Ends a failing loop's wait (set before a wake, so the wait sees it or is signalled); cleared
  // as each try begins, so that a change during a failing try still ends the wait after it.
  private volatile boolean retryNow;
  private volatile boolean attachFailing; // the last attach threw (this node holds the lease)

  SenderFailures(
      Supplier<Device> device,
      Driver driver,
      SenderWakes wakes,
      ClaimWindow window,
      Clock clock,
      SenderTrouble trouble) {
    this.device = device;
    this.driver = driver;
    this.w = wakes;
    this.window = window;
    this.clock = clock;
    this.trouble = trouble;
    this.failures =
        new io.kurir.logging.RepeatingFailure(
            log, "the sender of device " + device.get().id(), clock);
  }

  /** A try begins: a change during an earlier failing try no longer ends a wait. */
  void tryBegins() {
    retryNow = false;
  }

  /** The device changed: a failing sender tries again at once (the change may be the fix). */
  void retryNow() {
    retryNow = true;
  }

  /** Whether the last attach threw while this node holds the lease. */
  void attachFailing(boolean failing) {
    attachFailing = failing;
  }

  /** Whether the loop's last tries failed. */
  boolean failing() {
    return failures.failing();
  }

  /**
   * A try that began at {@code tryStarted} failed: told, recorded once it repeats, and waited out
   * (a stop or a change of the device ends the wait; new messages do not: a failing device under
   * traffic would otherwise be tried once per message).
   */
  void failedTry(Throwable e, Instant tryStarted) {
    Duration wait = failures.failed(e);
    if (failures.tries() == STUCK_AFTER_TRIES) {
      stuckRecorded = true;
      try {
        trouble.stuck(device.get().id(), e.toString());
      } catch (RuntimeException recordFailed) {
        log.warn(
            "device {}: its state not recorded: {}", device.get().id(), recordFailed.toString());
      }
    }
    try {
      awaitRetry(tryStarted.plus(wait));
    } catch (InterruptedException stop) {
      // the loop looks at running
    }
  }

  /** The loop works again after failing: one INFO line, and the device's state read again. */
  void worksAgain() {
    failures.succeeded();
    if (stuckRecorded) {
      stuckRecorded = false;
      try {
        trouble.worksAgain(
            device.get().id(), io.kurir.device.DeviceState.of(driver.state(device.get().ref())));
      } catch (RuntimeException e) {
        log.warn("device {}: its state not recorded: {}", device.get().id(), e.toString());
      }
    }
  }

  /**
   * Waits until {@code due} on the injected clock (a moved settable clock wakes senders), a stop,
   * or a change of the device.
   */
  void awaitRetry(Instant due) throws InterruptedException {
    while (true) {
      boolean refuse;
      w.lock.lock();
      try {
        refuse = false;
        while (w.running && !retryNow && !refuse) {
          long left = Duration.between(clock.instant(), due).toNanos();
          if (left <= 0) {
            return;
          }
          if (attachFailing && w.syncCallersMayWait) {
            w.syncCallersMayWait = false; // until a sync message arrives again
            refuse = true;
          } else {
            w.changed.awaitNanos(Math.min(left, DeviceSender.MAX_IDLE_WAIT.toNanos()));
          }
        }
        if (!refuse) {
          return;
        }
      } finally {
        w.lock.unlock();
      }
      // The driver cannot attach the device: a sync caller is answered as for a device that is
      // not connected (phone_offline) instead of waiting out its time; async messages wait.
      try {
        window.refuseWaitingCallers(clock.instant());
      } catch (RuntimeException e) {
        log.debug("device {}: sync callers not answered: {}", device.get().id(), e.toString());
      }
    }
  }
}
