package io.kurir.driver.waha;

import io.kurir.logging.RepeatingFailure;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings back sessions the engine reports {@code FAILED} (docs/decisions.md, "FAILED WAHA
 * sessions"): a restart at once, then again after 30 s, 1 min, 2 min … (at most {@link #MAX_WAIT}
 * apart, on the injected clock) while the session stays FAILED; after {@link #RESTARTS} restarts
 * that did not help, a logout and a start (the link is lost: the number shows a QR code again),
 * then restarts again. Ends when the engine reports the session anything but FAILED, STOPPED or
 * STARTING (which a restart passes through).
 *
 * <p>Thread-safe: one loop takes the steps; the driver tells it of failures and recoveries.
 */
final class FailedSessions {
  private static final Logger log = LoggerFactory.getLogger(FailedSessions.class);

  /** Restarts before the session is logged out and started. */
  static final int RESTARTS = 3;

  /** The wait after the first step; doubled after each. */
  static final Duration FIRST_WAIT = Duration.ofSeconds(30);

  /** The longest wait between two steps. */
  static final Duration MAX_WAIT = Duration.ofMinutes(5);

  private final WahaDriver driver;

  /**
   * A session being brought back: the steps taken, the restarts since the last logout, when the
   * next step is due, and since when the session is up again (null while it is not).
   */
  private static final class Recovery {
    int steps;
    int restarts;
    Instant due;
    Instant upSince;
  }

  /**
   * How long a session must stay up before a new failure starts again from a restart at once: one
   * that fails again sooner (a restart that held a minute) keeps its back-off.
   */
  static final Duration FORGET_AFTER = MAX_WAIT.multipliedBy(2);

  // Guarded by itself; the loop waits on it.
  private final Map<Long, Recovery> failing = new HashMap<>();

  FailedSessions(WahaDriver driver) {
    this.driver = driver;
  }

  /** The engine reported the device's session FAILED: its recovery begins, unless under way. */
  void failed(long deviceId) {
    synchronized (failing) {
      Instant now = driver.context().clock().instant();
      Recovery r = failing.get(deviceId);
      if (r != null && (r.upSince == null || r.upSince.plus(FORGET_AFTER).isAfter(now))) {
        // A step's restart failed again, or the session failed soon after it came back: the next
        // step comes at its time.
        r.upSince = null;
        failing.notifyAll();
        return;
      }
      r = new Recovery();
      r.due = now;
      failing.put(deviceId, r);
      failing.notifyAll();
    }
  }

  /**
   * The session is up again (or shows a QR code, or asks for a passkey): no more steps, and once it
   * stayed so for {@link #FORGET_AFTER}, its back-off is forgotten.
   */
  void ended(long deviceId) {
    synchronized (failing) {
      Recovery r = failing.get(deviceId);
      if (r != null && r.upSince == null) {
        r.upSince = driver.context().clock().instant();
      }
    }
  }

  /** The device was detached (or deleted): no more steps for it here. */
  void forget(long deviceId) {
    synchronized (failing) {
      failing.remove(deviceId);
    }
  }

  void wake() {
    synchronized (failing) {
      failing.notifyAll();
    }
  }

  /** The wait after {@code steps} steps: 30 s, 1 min, 2 min, 4 min, then 5 min. */
  static Duration waitAfter(int steps) {
    Duration d = FIRST_WAIT;
    for (int i = 1; i < steps && d.compareTo(MAX_WAIT) < 0; i++) {
      d = d.multipliedBy(2);
    }
    return d.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : d;
  }

  /** Takes each step when it is due; survives any exception. */
  void loop() {
    RepeatingFailure failures =
        new RepeatingFailure(log, "the WAHA failed-session restarts", driver.context().clock());
    while (!driver.closed()) {
      try {
        long deviceId;
        int restarts;
        synchronized (failing) {
          Map.Entry<Long, Recovery> next = null;
          while (next == null) {
            Instant now = driver.context().clock().instant();
            long waitMillis = 1000;
            failing
                .values()
                .removeIf(r -> r.upSince != null && !r.upSince.plus(FORGET_AFTER).isAfter(now));
            for (Map.Entry<Long, Recovery> e : failing.entrySet()) {
              if (e.getValue().upSince != null) {
                continue; // up again: no step
              }
              long left = Duration.between(now, e.getValue().due).toMillis();
              if (left <= 0) {
                next = e;
                break;
              }
              waitMillis = Math.min(waitMillis, left);
            }
            if (next == null) {
              failing.wait(waitMillis); // woken by a failure or a moved clock too
            }
          }
          deviceId = next.getKey();
          Recovery r = next.getValue();
          restarts = r.restarts;
          r.steps++;
          r.restarts = r.restarts >= RESTARTS ? 0 : r.restarts + 1;
          r.due = driver.context().clock().instant().plus(waitAfter(r.steps));
        }
        if (driver.statusOf(deviceId).filter("FAILED"::equals).isPresent()) {
          driver.recoveryStep(deviceId, restarts);
        } else {
          // Between a restart's STOPPED and its outcome: looked at again when the next is due.
          undo(deviceId);
        }
        failures.succeeded();
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        failures.failed(e);
      }
    }
  }

  /** A step that was not taken does not count. */
  private void undo(long deviceId) {
    synchronized (failing) {
      Recovery r = failing.get(deviceId);
      if (r != null) {
        r.steps--;
        r.restarts = r.restarts == 0 ? RESTARTS : r.restarts - 1;
      }
    }
  }
}
