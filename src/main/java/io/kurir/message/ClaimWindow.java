package io.kurir.message;

import io.kurir.driver.Driver;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device sender's claim window: the few messages of its queue it holds in memory, committed
 * {@code sending} in one commit while it holds the lease. It reads the next due messages (sync ones
 * first, then by id), fetches the file of an async media send when its turn comes, claims sync
 * messages that arrive ahead of a claimed campaign, refuses sync callers while the device is not
 * connected, and gives back what it claimed and did not send.
 *
 * <p>What a crash can leave behind is bounded by the claim size: at most {@link #MAX_CLAIM}
 * messages, and no more than are sent within {@link #CLAIM_HORIZON} at the device's pace.
 *
 * <p>The loop's own: only the sender's loop calls it.
 */
final class ClaimWindow {
  private static final Logger log = LoggerFactory.getLogger(DeviceSender.class);

  /** The most messages of one device committed {@code sending} at a time. */
  static final int MAX_CLAIM = 64;

  /** A claim covers about what the device sends in this time at its pace. */
  static final Duration CLAIM_HORIZON = Duration.ofSeconds(1);

  /** Sync messages claimed at once ahead of a claimed window. */
  private static final int SYNC_AHEAD = 8;

  private static final Duration SYNC_RECHECK = Duration.ofSeconds(1);

  private final long deviceId;
  private final SenderWakes w;
  private final HandOvers handOvers;
  private final DeviceLease lease;
  private final SendPacing pacing;
  private final MessageStores stores;
  private final Outcomes outcomes;
  private final MediaFetch media;
  private final Driver driver;
  private final Clock clock;
  private final BooleanSupplier canSend;
  private final Duration claimTimeout;
  private final Deque<Message> claimed = new ArrayDeque<>(); // committed sending
  private boolean windowFromHandOvers;
  private long syncLookedNanos;

  /**
   * {@code canSend}: whether the device may send now (not held, connected); {@code claimTimeout}:
   * how long a claim's commit is waited for.
   */
  ClaimWindow(
      long deviceId,
      SenderWakes wakes,
      HandOvers handOvers,
      DeviceLease lease,
      SendPacing pacing,
      MessageStores stores,
      Outcomes outcomes,
      MediaFetch media,
      Driver driver,
      Clock clock,
      BooleanSupplier canSend,
      Duration claimTimeout) {
    this.deviceId = deviceId;
    this.w = wakes;
    this.handOvers = handOvers;
    this.lease = lease;
    this.pacing = pacing;
    this.stores = stores;
    this.outcomes = outcomes;
    this.media = media;
    this.driver = driver;
    this.clock = clock;
    this.canSend = canSend;
    this.claimTimeout = claimTimeout;
  }

  /** The claimed messages, in sending order. */
  Deque<Message> claimed() {
    return claimed;
  }

  /** Whether the window came from hand-overs alone (the queue was not looked at for it). */
  boolean fromHandOvers() {
    return windowFromHandOvers;
  }

  /** Sets whether the window about to be filled comes from hand-overs alone. */
  void fromHandOvers(boolean fromHandOvers) {
    windowFromHandOvers = fromHandOvers;
  }

  /** Whether to look for sync messages in the database now (see SenderWakes.syncMayBeQueued). */
  boolean takeSyncLook() {
    boolean flagged;
    w.lock.lock();
    try {
      flagged = w.syncMayBeQueued;
      w.syncMayBeQueued = false;
    } finally {
      w.lock.unlock();
    }
    long now = System.nanoTime();
    if (flagged || now - syncLookedNanos > SYNC_RECHECK.toNanos()) {
      syncLookedNanos = now;
      return true;
    }
    return false;
  }

  /** Claims sync messages that arrived while async ones are claimed, and puts them first. */
  void claimSyncAhead() throws InterruptedException {
    windowFromHandOvers = false;
    Instant now = clock.instant();
    int limit = Math.min(SYNC_AHEAD, claimSize());
    List<Message> sync = stores.queue().dueSync(deviceId, now, limit);
    if (sync.size() == limit) {
      w.syncMayBeQueued(); // more may wait
    }
    if (sync.isEmpty()) {
      return;
    }
    Set<Long> taken = claim(sync, now);
    for (int i = sync.size() - 1; i >= 0; i--) {
      Message m = sync.get(i);
      if (taken.contains(m.id())) {
        claimed.addFirst(m.withAttempts(m.attempts() + 1));
        handOvers.noteClaimedSync(m);
      }
    }
  }

  /** Claims the next messages that may go now, or waits until some may. */
  void fill() throws InterruptedException {
    boolean knownEmpty;
    boolean refuseSync;
    w.lock.lock();
    try {
      knownEmpty = w.quiet && !w.workArrived && !w.deviceChanged && w.handedOver.isEmpty();
      w.quiet = false;
      if (knownEmpty) {
        // Nothing arrived since the last hand-over went out: wait without asking the database;
        // any accept wakes this, and the periodic look covers what another node stores.
        w.changed.awaitNanos(DeviceSender.MAX_IDLE_WAIT.toNanos());
        return;
      }
      w.workArrived = false;
      handOvers.lookingAtQueueGuarded();
      refuseSync = w.syncCallersMayWait;
    } finally {
      w.lock.unlock();
    }
    Instant now = clock.instant();
    pacing.rereadIfDue();
    if (!canSend.getAsBoolean()) {
      if (refuseSync) {
        w.lock.lock();
        try {
          w.syncCallersMayWait = false; // until a sync message arrives again
        } finally {
          w.lock.unlock();
        }
        refuseWaitingCallers(now);
      }
      w.awaitChange(DeviceSender.OFFLINE_RECHECK.toNanos());
      return;
    }
    long waitNanos = w.paceLeftNanos();
    int limit = claimSize();
    boolean withSync = takeSyncLook();
    List<Message> due = stores.queue().due(deviceId, now, limit, withSync);
    if (withSync && due.stream().filter(Message::sync).count() == limit) {
      w.syncMayBeQueued(); // more may wait
    }
    if (due.isEmpty()) {
      Optional<Instant> held = stores.queue().nextNotBefore(deviceId);
      w.lock.lock();
      try {
        w.queueEmpty = held.isEmpty() && !w.workArrived && handOvers.noneSinceLookGuarded();
      } finally {
        w.lock.unlock();
      }
      long idle =
          held.map(t -> Duration.between(now, t))
              .filter(d -> d.compareTo(DeviceSender.MAX_IDLE_WAIT) < 0)
              .orElse(DeviceSender.MAX_IDLE_WAIT)
              .toNanos();
      w.awaitChange(Math.max(idle, 1_000_000));
      return;
    }
    if (due.getFirst().needsFetch()) {
      fetchMedia(due.getFirst()); // its turn: the device's later messages wait behind it
      return;
    }
    for (int i = 1; i < due.size(); i++) {
      if (due.get(i).needsFetch()) {
        due = due.subList(0, i); // claimed after its fetch, in order
        break;
      }
    }
    if (waitNanos > 0 && !due.getFirst().sync()) {
      w.awaitChange(waitNanos); // woken early by a new sync message, which then goes first
      return;
    }
    Set<Long> taken = claim(due, now);
    if (taken.isEmpty() && !lease.stillHeld()) {
      lease.lost(); // the loop lets the device go
      return;
    }
    windowFromHandOvers = false;
    for (Message m : due) {
      if (taken.contains(m.id())) {
        claimed.addLast(m.withAttempts(m.attempts() + 1));
        handOvers.noteClaimedSync(m);
      }
    }
  }

  /**
   * Fetches the image or file of an async media send whose turn has come, and keeps it with the
   * message; a URL that gives nothing usable fails the message with the reason.
   */
  private void fetchMedia(Message m) {
    MediaFetch.Result result;
    try {
      result = media.fetch(m.mediaUrl().orElseThrow(), m.kind());
    } catch (RuntimeException e) {
      log.warn("device {}: fetching the media of message {}: {}", deviceId, m.id(), e.toString());
      result = new MediaFetch.Result.Refused(FailureReason.MEDIA_UNREACHABLE);
    }
    if (result instanceof MediaFetch.Result.Kept kept
        && !Messages.carries(driver, m.kind(), kept.media().mimeType())) {
      // Fetched only now: the type the network refuses fails the message here, not at the network.
      result = new MediaFetch.Result.Refused(FailureReason.MEDIA_TYPE_NOT_SUPPORTED);
    }
    switch (result) {
      case MediaFetch.Result.Kept kept -> stores.queue().attachMedia(m.id(), kept.media());
      case MediaFetch.Result.Refused refused -> {
        log.info("device {}: message {} not sent: {}", deviceId, m.id(), refused.reason());
        stores.outcomes().withdraw(List.of(m.id()), refused.reason(), clock.instant());
        outcomes.report(m.id(), SendResult.FAILED);
      }
    }
  }

  private Set<Long> claim(List<Message> due, Instant now) throws InterruptedException {
    CompletableFuture<Set<Long>> commit =
        stores
            .queue()
            .claim(
                deviceId,
                lease.owner(),
                due.stream().map(Message::id).toList(),
                now,
                due.getFirst().sync());
    try {
      return CommitWait.within(commit, claimTimeout);
    } catch (TimeoutException e) {
      // Not committed in time: nothing goes to the driver now, and what the claim commits later
      // goes back to the queue (the loop tries again), not left "sending" with nobody on it.
      commit.thenAccept(
          ids -> {
            ids.forEach(id -> stores.queue().unclaim(id, now));
            w.syncMayBeQueued();
          });
      throw new IllegalStateException("cannot commit the sending attempt: " + e, e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot commit the sending attempt: " + e, e);
    }
  }

  /**
   * How many messages to claim at once: what the device sends within {@link #CLAIM_HORIZON} at its
   * pace, at least one and at most {@link #MAX_CLAIM}.
   */
  private int claimSize() {
    return pacing.claimSize(CLAIM_HORIZON, MAX_CLAIM);
  }

  /**
   * The device is not connected: sync callers without {@code flag_retry} are told at once and their
   * messages fail; {@code flag_retry} ones are told while their messages stay queued.
   */
  void refuseWaitingCallers(Instant now) {
    List<Long> waiting = stores.queue().waitingSyncCallers(deviceId);
    if (waiting.isEmpty()) {
      return;
    }
    List<Message> messages = stores.reads().findAll(waiting);
    List<Long> refuse = new ArrayList<>();
    for (Message m : messages) {
      if (m.retry()) {
        outcomes.report(m.id(), SendResult.PHONE_OFFLINE);
      } else {
        refuse.add(m.id());
      }
    }
    for (long id : stores.outcomes().withdraw(refuse, FailureReason.PHONE_OFFLINE, now)) {
      outcomes.report(id, SendResult.PHONE_OFFLINE);
    }
  }

  /** Claimed messages not sent (a stop, a lost device) go back to the queue, not counted. */
  void giveBack() {
    for (Message m; (m = claimed.pollFirst()) != null; ) {
      if (!handOvers.takeTurn(m)) {
        continue; // withdrawn by its caller: it stays failed
      }
      handOvers.done(m);
      if (m.sync()) {
        w.syncMayBeQueued();
      }
      try {
        stores
            .queue()
            .unclaim(m.id(), m.notBefore())
            .get(claimTimeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        log.warn("device {}: message {} stays sending: {}", deviceId, m.id(), e.toString());
      }
    }
  }

  /**
   * The lease was lost: what is claimed goes back to the queue only while this node is still the
   * lease's owner in the table (otherwise the new owner applies the crash rule to it).
   */
  void giveBackAsOwner() {
    for (Message m; (m = claimed.pollFirst()) != null; ) {
      handOvers.forgetHeld(List.of(m));
      stores.queue().unclaimAsOwner(m.id(), m.notBefore(), lease.owner());
    }
  }
}
