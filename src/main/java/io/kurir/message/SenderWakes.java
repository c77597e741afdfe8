package io.kurir.message;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What a {@link DeviceSender}'s loop waits on and what wakes it: one lock and its condition, shared
 * by the sender's parts ({@link HandOvers}, {@link ClaimWindow}, {@link DriverSends}, {@link
 * SenderFailures}), and the flags that say what may have changed since the loop last looked. The
 * flags are guarded by {@link #lock}; each part reads and writes them only while holding it.
 *
 * <p>Thread-safe: API threads wake it, the loop waits on it.
 */
final class SenderWakes {
  final ReentrantLock lock = new ReentrantLock();
  final Condition changed = lock.newCondition();
  // Hand-overs committed for the loop to take (see HandOvers); a wait ends when one is there.
  final Queue<Message> handedOver = new java.util.concurrent.ConcurrentLinkedQueue<>();

  volatile boolean running = true;
  long nextSendNanos = System.nanoTime(); // guarded by lock
  boolean waitingForDevice; // the last send found the device offline; guarded by lock
  // Something may be due that the loop has not looked at; guarded by lock.
  boolean workArrived = true;
  boolean queueEmpty; // the last look found nothing pending; guarded by lock
  // The last window came from hand-overs alone and ended with nothing new: the queue is known
  // empty, so the next look at the database can be skipped; guarded by lock.
  boolean quiet;
  // A sync caller may wait in the queue (an offline device refuses them); guarded by lock.
  boolean syncCallersMayWait = true;
  // A sync message may be queued in the database: most are handed over (express), so the look
  // for sync messages before each window is skipped unless something may have queued one (an
  // accept not handed over, a message given back, a retry) or a second has passed since the last
  // look (a retry's backoff ending); guarded by lock.
  boolean syncMayBeQueued = true;
  // The device was switched off or on, or changed, since the loop last looked at it: no wait
  // starts until it has (a look at the queue in between would otherwise spend the wake and leave
  // a switched-off device's lease held until the idle wait ends); guarded by lock.
  boolean deviceChanged;

  /** The device changed: the loop looks at it before it waits again. */
  void deviceChanged() {
    lock.lock();
    try {
      deviceChanged = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** The loop is about to look at its device: changes from here on stop its waits again. */
  void lookingAtDevice() {
    lock.lock();
    try {
      deviceChanged = false;
    } finally {
      lock.unlock();
    }
  }

  /**
   * New messages were committed, a clock moved, or a held message may be due: look again. {@code
   * syncMayWait} false when what arrived are async messages only, so that an offline device's
   * sender need not look for sync callers to refuse.
   */
  void wake(boolean syncMayWait) {
    lock.lock();
    try {
      workArrived = true;
      queueEmpty = false;
      quiet = false;
      syncCallersMayWait |= syncMayWait;
      syncMayBeQueued |= syncMayWait;
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
      workArrived = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** A sync message may be queued again (given back, to be retried, or more than one look took). */
  void syncMayBeQueued() {
    lock.lock();
    try {
      syncMayBeQueued = true;
    } finally {
      lock.unlock();
    }
  }

  /** How long until the pace lets the next send go (negative: it may go now). */
  long paceLeftNanos() {
    lock.lock();
    try {
      return nextSendNanos - System.nanoTime();
    } finally {
      lock.unlock();
    }
  }

  /** Waits up to {@code nanos}, unless work arrived, a hand-over is there, or a stop. */
  void awaitChange(long nanos) throws InterruptedException {
    lock.lock();
    try {
      if (!workArrived && !deviceChanged && running && handedOver.isEmpty()) {
        changed.awaitNanos(nanos);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits for the ownership to offer the lease (or a stop). The wake that started this sender (or
   * any since) is spent here; left set, it would send the loop straight back, thousands of times a
   * second.
   */
  void awaitOffer() throws InterruptedException {
    lock.lock();
    try {
      workArrived = false;
    } finally {
      lock.unlock();
    }
    awaitChange(DeviceSender.MAX_IDLE_WAIT.toNanos());
  }

  /** Waits up to {@code nanos} (the pace), unless signalled or stopping. */
  void awaitPace(long nanos) throws InterruptedException {
    lock.lock();
    try {
      if (running) {
        changed.awaitNanos(nanos);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Waits {@code d} of real time, or until a stop: wakes by new messages do not cut it short. */
  void awaitRealTime(Duration d) throws InterruptedException {
    long until = System.nanoTime() + d.toNanos();
    lock.lock();
    try {
      for (long left = d.toNanos(); running && left > 0; left = until - System.nanoTime()) {
        changed.awaitNanos(left);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Waits up to {@code d} while the device stays switched off (a switch on wakes it). */
  void awaitWhileDisabled(java.util.function.BooleanSupplier disabled, Duration d)
      throws InterruptedException {
    lock.lock();
    try {
      workArrived = false;
      if (running && disabled.getAsBoolean()) {
        changed.await(d.toMillis(), TimeUnit.MILLISECONDS);
      }
    } finally {
      lock.unlock();
    }
  }
}
