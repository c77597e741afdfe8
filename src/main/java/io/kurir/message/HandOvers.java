package io.kurir.message;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * A device sender's hand-overs: accepted messages claimed in their own commit and handed straight
 * to the sender, either because it is idle (nothing pending or claimed, and it may send now, so no
 * older message is passed over) or because they are sync messages (an express hand-over: a caller
 * waits, and sync messages go ahead of queued async ones anyway). It also keeps which sync messages
 * the sender holds claimed and has not started, so that a caller whose wait ended may withdraw one
 * ({@link #withdrawUnsent}) and the loop never sends it.
 *
 * <p>Thread-safe: API threads reserve and hand over, the loop takes; everything shared is guarded
 * by the sender's {@link SenderWakes#lock}.
 */
final class HandOvers {
  private final SenderWakes w;
  private final MessageStore queue;
  private final int maxOutstanding;

  private int directInFlight; // hand-overs being committed; guarded by lock
  // An express hand-over (sync messages claimed while the queue was not known empty) was taken
  // since the last look at the database: a window of hand-overs then proves nothing about the
  // queue; guarded by lock.
  private boolean expressTaken;
  // Sync messages claimed by express hand-over and not yet sent: bounded, as the claim window is,
  // since they too may be cut off by a crash.
  private final Set<Long> expressOutstanding = java.util.concurrent.ConcurrentHashMap.newKeySet();
  // Sync messages held claimed whose caller's wait ended before this loop started them: never
  // sent, the caller was told so (Messages.expire). Moved here from expressOutstanding or
  // claimedSync under lock, so that the loop and the caller cannot both take one; guarded by lock.
  private final Set<Long> withdrawnHandOvers = new java.util.HashSet<>();
  // Express hand-overs this loop has started sending (still outstanding until their outcome, for
  // the crash bound); added under lock, removed with their outstanding mark.
  private final Set<Long> startedHandOvers = java.util.concurrent.ConcurrentHashMap.newKeySet();
  // Sync messages this sender holds claimed that are not express hand-overs (taken from the queue,
  // or handed over while it was idle) and has not started: a caller's timeout may withdraw them as
  // it does express hand-overs; taken (by either) under lock.
  private final Set<Long> claimedSync = java.util.concurrent.ConcurrentHashMap.newKeySet();
  // Whether hand-overs are taken; off while pausing or stopping, so that none is left behind in
  // memory claimed; guarded by lock.
  private boolean acceptingHandOvers;

  /**
   * {@code maxOutstanding}: the most express hand-overs outstanding at once ({@link
   * ClaimWindow#MAX_CLAIM}, the crash bound).
   */
  HandOvers(SenderWakes wakes, MessageStore queue, int maxOutstanding) {
    this.w = wakes;
    this.queue = queue;
    this.maxOutstanding = maxOutstanding;
  }

  /**
   * Whether just-accepted {@code messages} may be handed over directly, claimed in their own
   * commit: {@code mayTake} (the sender holds the lease and its device is switched on, read under
   * the lock) and the sender is idle, or they are sync messages within the bound. When true, the
   * caller stores them with {@link MessageStore#insertClaimed} and reports with {@link #handOver}.
   */
  boolean reserve(List<Message> messages, Instant now, BooleanSupplier mayTake) {
    boolean allSync = true;
    for (Message m : messages) {
      if (m.notBefore().isAfter(now) || m.needsFetch()) {
        return false;
      }
      allSync &= m.sync();
    }
    w.lock.lock();
    try {
      if (!w.running || !acceptingHandOvers || !mayTake.getAsBoolean()) {
        return false;
      }
      boolean idle =
          w.queueEmpty
              && directInFlight == 0
              && !w.workArrived
              && w.nextSendNanos - System.nanoTime() <= 0;
      boolean express =
          !idle
              && allSync
              && expressOutstanding.size() + messages.size() <= maxOutstanding
              && !w.waitingForDevice;
      if (!idle && !express) {
        return false;
      }
      directInFlight++;
      w.queueEmpty = false;
      if (express) {
        expressTaken = true;
        w.quiet = false;
        messages.forEach(m -> expressOutstanding.add(m.id()));
      } else {
        messages.stream().filter(Message::sync).forEach(m -> claimedSync.add(m.id()));
      }
    } finally {
      w.lock.unlock();
    }
    return true;
  }

  /**
   * The hand-over reserved by {@link #reserve} is committed: {@code claimedNow} to send. If the
   * sender stopped or paused meanwhile, they go back to the queue instead.
   */
  void handOver(List<Message> claimedNow) {
    boolean taken;
    w.lock.lock();
    try {
      directInFlight--;
      taken = acceptingHandOvers;
      if (taken) {
        w.handedOver.addAll(claimedNow);
      }
      // Not "work arrived": the loop takes hand-overs from their own queue, and a window of
      // hand-overs alone may then end without a look at the database (see quiet).
      w.changed.signalAll();
    } finally {
      w.lock.unlock();
    }
    if (!taken) {
      forgetHeld(claimedNow);
      for (Message m : claimedNow) {
        // Looked for again once back in the queue: a look before this commit missed it.
        queue.unclaim(m.id(), m.notBefore()).thenRun(() -> w.wake(true));
      }
    }
  }

  /** {@code messages} are no longer held by this sender unsent (their hand-over did not happen). */
  void forgetHeld(List<Message> messages) {
    for (Message m : messages) {
      expressOutstanding.remove(m.id());
      claimedSync.remove(m.id());
    }
  }

  /** A message's send ended (or it went back to the queue): it no longer counts as outstanding. */
  void done(Message m) {
    expressOutstanding.remove(m.id());
    startedHandOvers.remove(m.id());
  }

  /**
   * Whether the loop may send sync message {@code m} now: false when its caller's wait ended first
   * and withdrew it ({@link #withdrawUnsent}).
   */
  boolean takeTurn(Message m) {
    w.lock.lock();
    try {
      if (withdrawnHandOvers.remove(m.id())) {
        return false;
      }
      claimedSync.remove(m.id());
      if (expressOutstanding.contains(m.id())) {
        startedHandOvers.add(m.id());
      }
      return true;
    } finally {
      w.lock.unlock();
    }
  }

  /**
   * Withdraws sync message {@code messageId}, held claimed by this sender (handed over or taken
   * from the queue), if the loop has not started sending it: true when it never goes out (the
   * caller then records it failed). The claim in the database says only "sending", so this sender's
   * memory decides.
   */
  boolean withdrawUnsent(long messageId) {
    w.lock.lock();
    try {
      if (startedHandOvers.contains(messageId)
          || !(expressOutstanding.remove(messageId) || claimedSync.remove(messageId))) {
        return false;
      }
      withdrawnHandOvers.add(messageId);
      return true;
    } finally {
      w.lock.unlock();
    }
  }

  /** A sync message the loop claimed from the database, until it starts or goes back. */
  void noteClaimedSync(Message m) {
    if (m.sync()) {
      w.lock.lock();
      try {
        claimedSync.add(m.id());
      } finally {
        w.lock.unlock();
      }
    }
  }

  /** Sync messages this sender holds claimed (handed over or taken) and has not started yet. */
  int syncOutstanding() {
    return Math.max(0, expressOutstanding.size() - startedHandOvers.size()) + claimedSync.size();
  }

  /**
   * Whether a hand-over would be taken now, given {@code leaseHeld} (tests wait on it instead of
   * sleeping).
   */
  boolean idle(BooleanSupplier leaseHeld) {
    w.lock.lock();
    try {
      return w.running
          && acceptingHandOvers
          && leaseHeld.getAsBoolean()
          && w.queueEmpty
          && directInFlight == 0
          && w.handedOver.isEmpty();
    } finally {
      w.lock.unlock();
    }
  }

  /** Whether a hand-over is being committed (tests). */
  boolean inFlight() {
    w.lock.lock();
    try {
      return directInFlight > 0;
    } finally {
      w.lock.unlock();
    }
  }

  /** Hand-overs are taken from now on (the lease is held); the caller holds the lock. */
  void openGuarded() {
    acceptingHandOvers = true;
  }

  /**
   * Stops taking hand-overs and puts those already made into {@code claimed}, to send or give back.
   */
  void close(Deque<Message> claimed) {
    w.lock.lock();
    try {
      acceptingHandOvers = false;
    } finally {
      w.lock.unlock();
    }
    for (Message m; (m = w.handedOver.poll()) != null; ) {
      claimed.addLast(m);
    }
  }

  /**
   * Whether no hand-over is being committed and no express one was taken since the last look at the
   * database; the caller holds the lock.
   */
  boolean noneSinceLookGuarded() {
    return directInFlight == 0 && !expressTaken;
  }

  /**
   * The loop looks at the whole queue now: an express hand-over taken before proves nothing about
   * it no more, unless one is still being committed; the caller holds the lock.
   */
  void lookingAtQueueGuarded() {
    if (directInFlight == 0) {
      expressTaken = false; // this look sees whatever was queued behind them
    }
  }

  /**
   * Takes the messages handed over into the claimed window: sync ones (callers wait) after the sync
   * messages already first in it and ahead of the async ones, the rest at the end.
   */
  void takeInto(Deque<Message> claimed) {
    List<Message> sync = new ArrayList<>();
    for (Message m; (m = w.handedOver.poll()) != null; ) {
      if (m.sync() && !claimed.isEmpty()) {
        sync.add(m);
      } else {
        claimed.addLast(m);
      }
    }
    if (sync.isEmpty()) {
      return;
    }
    Deque<Message> syncFirst = new ArrayDeque<>();
    while (!claimed.isEmpty() && claimed.peekFirst().sync()) {
      syncFirst.addLast(claimed.pollFirst());
    }
    syncFirst.addAll(sync);
    for (var it = syncFirst.descendingIterator(); it.hasNext(); ) {
      claimed.addFirst(it.next());
    }
  }
}
