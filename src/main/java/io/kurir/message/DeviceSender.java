package io.kurir.message;

import io.kurir.driver.Driver;
import io.kurir.driver.OutgoingMessage;
import io.kurir.driver.Pacing;
import io.kurir.driver.SendOutcome;
import io.kurir.tenant.Device;
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
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one loop that sends a device's messages, taking them from the database: the queue is the
 * {@code message} table, and only a small window of it is in memory. It holds the device's lease;
 * it takes the next messages in order (sync ones, whose callers wait, ahead of queued async
 * traffic, then by id), commits a {@code sending} attempt for them in one commit, then hands them
 * to the driver one at a time, paced, and records each outcome. It survives any exception and stops
 * only when asked.
 *
 * <p>What a crash can leave behind is bounded by the claim size: at most {@link #MAX_CLAIM}
 * messages, and no more than are sent within {@link #CLAIM_HORIZON} at the device's pace.
 *
 * <p>Thread-safe: API threads wake it, the loop runs on its own virtual thread.
 */
final class DeviceSender {
  private static final Logger log = LoggerFactory.getLogger(DeviceSender.class);
  private static final Duration OFFLINE_RECHECK = Duration.ofSeconds(5);
  private static final Duration MAX_IDLE_WAIT = Duration.ofSeconds(30);
  private static final Duration ERROR_PAUSE = Duration.ofSeconds(1);
  private static final Duration CLAIM_TIMEOUT = Duration.ofSeconds(30);

  /** The most messages of one device committed {@code sending} at a time. */
  static final int MAX_CLAIM = 64;

  /** A claim covers about what the device sends in this time at its pace. */
  static final Duration CLAIM_HORIZON = Duration.ofSeconds(1);

  private volatile Device device; // looked at again now and then: it may be switched off
  private final java.util.function.LongFunction<Device> deviceNow;
  private long deviceCheckedNanos = System.nanoTime();
  private final java.util.function.LongConsumer whenDeleted; // told once this sender has stopped
  private volatile boolean deleted;
  private boolean attached;
  private final Driver driver;
  // Whether the device's queue is held (its network refused the account): it sends nothing then,
  // whatever its driver says, until it is resumed.
  private final java.util.function.LongPredicate held;
  private final MessageStores stores;
  private final Leases leases;
  private final DeviceOwnership ownership;
  private volatile boolean triedLease; // later tries need the ownership's permit
  private volatile boolean handOffAsked; // give the device to another node
  private volatile boolean leaseLostSeen; // the table gives the lease to another node
  private volatile CompletableFuture<?> released = CompletableFuture.completedFuture(null);
  private final Attempts attempts;
  private final Outcomes outcomes;
  private final MediaFetch media;
  private final Clock clock;
  private final Supplier<Pacing> pacingNow;
  private final SendObserver observer;
  // Read again now and then (a device's configuration may change); read by accepts too.
  private volatile Pacing pacing;
  private volatile long pacingReadNanos = System.nanoTime();

  /** How often a sender reads its device's pacing again. */
  private static final Duration PACING_RECHECK = Duration.ofSeconds(2);

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final Deque<Message> claimed = new ArrayDeque<>(); // committed sending, loop-only
  private long nextSendNanos = System.nanoTime();
  private boolean waitingForDevice; // the last send found the device offline
  private boolean workArrived = true; // something may be due that the loop has not looked at
  private volatile boolean holdsLease;
  // Direct hand-over: accepted messages claimed in their own commit while this sender is idle.
  private boolean queueEmpty; // the last look found nothing pending; guarded by lock
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
  // How long the driver's recent sends took (a moving average), for the estimate of a sync wait.
  private volatile long recentSendNanos;

  /** The least time a sync send is counted for in that estimate, before any send was measured. */
  private static final Duration SYNC_SEND_FLOOR = Duration.ofMillis(100);

  private final java.util.Queue<Message> handedOver =
      new java.util.concurrent.ConcurrentLinkedQueue<>();
  // Whether hand-overs are taken; off while pausing or stopping, so that none is left behind in
  // memory claimed; guarded by lock.
  private boolean acceptingHandOvers;
  // The last window came from hand-overs alone and ended with nothing new: the queue is known
  // empty, so the next look at the database can be skipped; guarded by lock.
  private boolean quiet;
  private boolean windowFromHandOvers; // loop-only
  // A sync caller may wait in the queue (an offline device refuses them); guarded by lock.
  private boolean syncCallersMayWait = true;
  // A sync message may be queued in the database: most are handed over (express), so the look
  // for sync messages before each window is skipped unless something may have queued one (an
  // accept not handed over, a message given back, a retry) or a second has passed since the last
  // look (a retry's backoff ending); guarded by lock.
  private boolean syncMayBeQueued = true;
  private long syncLookedNanos; // loop-only
  private static final Duration SYNC_RECHECK = Duration.ofSeconds(1);
  private volatile boolean running = true;
  private Thread thread;
  // The loop's failures, told once (see failedTry); loop-only.
  private final io.kurir.logging.RepeatingFailure failures;
  private final io.kurir.logging.RepeatingFailure staleLeases;
  private final SenderTrouble trouble;
  private boolean stuckRecorded; // the device's state says its sender is stuck; loop-only
  // Ends a failing loop's wait (set before a wake, so the wait sees it or is signalled); cleared
  // as each try begins, so that a change during a failing try still ends the wait after it.
  private volatile boolean retryNow;
  private Instant tryStarted; // loop-only
  private volatile boolean attachFailing; // the last attach threw (this node holds the lease)

  // Several sends under way at once (a pacing's in-flight above one): each runs on its own virtual
  // thread, records its outcome and posts it here; the loop takes it in. Loop-only otherwise.
  private record Finished(Message message, SendOutcome outcome) {}

  private final java.util.Queue<Finished> finished =
      new java.util.concurrent.ConcurrentLinkedQueue<>();
  private int inFlight;
  private final Set<String> underWay = new java.util.HashSet<>(); // order holds per recipient
  private final java.util.Map<String, Long> lastSendTo = new java.util.HashMap<>();
  private final java.time.ZoneId zone; // the operator's: where a day of the daily cap begins
  private java.time.LocalDate capDay; // the day sentToday counts; null before the first count
  private int sentToday;

  DeviceSender(
      Device device,
      java.util.function.LongFunction<Device> deviceNow,
      Driver driver,
      MessageStores stores,
      Leases leases,
      DeviceOwnership ownership,
      Attempts attempts,
      Outcomes outcomes,
      MediaFetch media,
      Clock clock,
      java.time.ZoneId zone,
      Supplier<Pacing> pacing,
      SendObserver observer,
      SenderTrouble trouble,
      java.util.function.LongConsumer whenDeleted,
      java.util.function.LongPredicate held) {
    this.device = device;
    this.held = held;
    this.trouble = trouble;
    this.failures =
        new io.kurir.logging.RepeatingFailure(log, "the sender of device " + device.id(), clock);
    this.staleLeases =
        io.kurir.logging.RepeatingFailure.atFixedPace(
            log, "sending for device " + device.id(), clock, ERROR_PAUSE);
    this.whenDeleted = whenDeleted;
    this.observer = observer;
    this.zone = zone;
    this.deviceNow = deviceNow;
    this.driver = driver;
    this.stores = stores;
    this.leases = leases;
    this.ownership = ownership;
    this.attempts = attempts;
    this.outcomes = outcomes;
    this.media = media;
    this.clock = clock;
    this.pacingNow = pacing;
    this.pacing = pacing.get();
  }

  void start() {
    thread = Thread.ofVirtual().name("sender-" + device.id()).start(this::loop);
  }

  long deviceId() {
    return device.id();
  }

  /** Whether this sender holds its device's lease (it may send). */
  boolean holdsLease() {
    return holdsLease;
  }

  /**
   * Gives the device to another node: after the send under way, what it claimed goes back to the
   * queue and the lease is released, so that another node takes it at once.
   */
  void handOff() {
    handOffAsked = true;
    wake();
  }

  /**
   * The lease table gives this device to another node (this node's lease ran out while it was cut
   * off): it stops sending at once.
   */
  void leaseLost() {
    leaseLostSeen = true;
    wake();
  }

  /** New messages were committed, a clock moved, or a held message may be due: look again. */
  void wake() {
    wake(true);
  }

  /**
   * {@link #wake}; {@code syncMayWait} false when what arrived are async messages only, so that an
   * offline device's sender need not look for sync callers to refuse.
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

  /**
   * Whether just-accepted {@code messages} may be handed over directly, claimed in their own
   * commit: this sender holds the lease, and either it has nothing pending or claimed and may send
   * now (so no older message is passed over), or they are sync messages (an express hand-over: a
   * caller waits, and sync messages go ahead of queued async ones anyway), at most {@link
   * #MAX_CLAIM} of them outstanding. When true, the caller stores them with {@link
   * MessageStore#insertClaimed} and reports with {@link #handOver}. Saves a send one commit: the
   * claim's.
   */
  boolean reserveHandOver(List<Message> messages) {
    Instant now = clock.instant();
    boolean allSync = true;
    for (Message m : messages) {
      if (m.notBefore().isAfter(now) || m.needsFetch()) {
        return false;
      }
      allSync &= m.sync();
    }
    lock.lock();
    try {
      if (!running || !acceptingHandOvers || !holdsLease || device.disabled()) {
        return false;
      }
      boolean idle =
          queueEmpty
              && directInFlight == 0
              && !workArrived
              && nextSendNanos - System.nanoTime() <= 0;
      boolean express =
          !idle
              && allSync
              && expressOutstanding.size() + messages.size() <= MAX_CLAIM
              && !waitingForDevice;
      if (!idle && !express) {
        return false;
      }
      directInFlight++;
      queueEmpty = false;
      if (express) {
        expressTaken = true;
        quiet = false;
        messages.forEach(m -> expressOutstanding.add(m.id()));
      } else {
        messages.stream().filter(Message::sync).forEach(m -> claimedSync.add(m.id()));
      }
    } finally {
      lock.unlock();
    }
    if (!canSend()) { // sync callers are refused by the usual path
      forgetHeld(messages);
      handOver(List.of());
      wake();
      return false;
    }
    return true;
  }

  /**
   * The hand-over reserved by {@link #reserveHandOver} is committed: {@code claimedNow} to send. If
   * this sender stopped or paused meanwhile, they go back to the queue instead.
   */
  void handOver(List<Message> claimedNow) {
    boolean taken;
    lock.lock();
    try {
      directInFlight--;
      taken = acceptingHandOvers;
      if (taken) {
        handedOver.addAll(claimedNow);
      }
      // Not "work arrived": the loop takes hand-overs from their own queue, and a window of
      // hand-overs alone may then end without a look at the database (see quiet).
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (!taken) {
      forgetHeld(claimedNow);
      for (Message m : claimedNow) {
        // Looked for again once back in the queue: a look before this commit missed it.
        stores.queue().unclaim(m.id(), m.notBefore()).thenRun(this::wake);
      }
    }
  }

  /**
   * A hand-over reserved by {@link #reserveHandOver} stored none of {@code messages} claimed (the
   * caller was refused, or the lease moved): they no longer count as outstanding.
   */
  void handOverDropped(List<Message> messages) {
    forgetHeld(messages);
  }

  /** {@code messages} are no longer held by this sender unsent (their hand-over did not happen). */
  private void forgetHeld(List<Message> messages) {
    for (Message m : messages) {
      expressOutstanding.remove(m.id());
      claimedSync.remove(m.id());
    }
  }

  /**
   * Whether this loop may send sync message {@code m} now: false when its caller's wait ended first
   * and withdrew it ({@link #withdrawUnsent}).
   */
  private boolean takeTurn(Message m) {
    lock.lock();
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
      lock.unlock();
    }
  }

  /**
   * Withdraws sync message {@code messageId}, held claimed by this sender (handed over or taken
   * from the queue), if this loop has not started sending it: true when it never goes out (the
   * caller then records it failed). The claim in the database says only "sending", so this sender's
   * memory decides.
   */
  boolean withdrawUnsent(long messageId) {
    lock.lock();
    try {
      if (startedHandOvers.contains(messageId)
          || !(expressOutstanding.remove(messageId) || claimedSync.remove(messageId))) {
        return false;
      }
      withdrawnHandOvers.add(messageId);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** A sync message this loop claimed from the database, until it starts or goes back. */
  private void noteClaimedSync(Message m) {
    if (m.sync()) {
      lock.lock();
      try {
        claimedSync.add(m.id());
      } finally {
        lock.unlock();
      }
    }
  }

  /** Sync messages this sender holds claimed (handed over or taken) and has not started yet. */
  int syncHandOversOutstanding() {
    return Math.max(0, expressOutstanding.size() - startedHandOvers.size()) + claimedSync.size();
  }

  /**
   * How long one sync send takes on this device, for the estimate of a sync caller's wait: the sync
   * gap ({@link Pacing#syncGapNanos}) or the driver's recent send time shared by the sends it may
   * have under way at once, whichever is longer; {@link #SYNC_SEND_FLOOR} stands for the send time
   * until one was measured. A measured time is used as it is: an unpaced device that sends in a
   * millisecond is not refused at 100 callers.
   */
  long syncSendNanos() {
    long send = recentSendNanos > 0 ? recentSendNanos : SYNC_SEND_FLOOR.toNanos();
    return Math.max(pacing.syncGapNanos(), send / Math.max(1, pacing.inFlight()));
  }

  /**
   * The device's sync messages waiting in the database, read through {@code read} at most every
   * {@link #PENDING_SYNC_RECHECK}: the estimate of a sync caller's wait does not need it exact, and
   * a read per sync send cost the sync row a sixth of its rate (and scanned a queued campaign's
   * pending rows each time).
   */
  int pendingSyncCount(java.util.function.IntSupplier read) {
    long now = System.nanoTime();
    if (now - pendingSyncReadNanos > PENDING_SYNC_RECHECK.toNanos()) {
      pendingSyncSeen = read.getAsInt();
      pendingSyncReadNanos = now;
    }
    return pendingSyncSeen;
  }

  private static final Duration PENDING_SYNC_RECHECK = Duration.ofMillis(200);
  private volatile long pendingSyncReadNanos = System.nanoTime() - Duration.ofDays(1).toNanos();
  private volatile int pendingSyncSeen;

  /** Whether the device's driver says it is connected now. */
  boolean deviceConnected() {
    return canSend();
  }

  /** Whether the device may send now: its queue is not held and its driver says it is connected. */
  private boolean canSend() {
    return !held.test(device.id()) && driver.isConnected(device.ref());
  }

  /** Whether a hand-over would be taken now (tests wait on it instead of sleeping). */
  boolean idleForHandOver() {
    lock.lock();
    try {
      return running
          && acceptingHandOvers
          && holdsLease
          && queueEmpty
          && directInFlight == 0
          && handedOver.isEmpty();
    } finally {
      lock.unlock();
    }
  }

  /** Whether a hand-over is being committed (tests). */
  boolean handOverInFlight() {
    lock.lock();
    try {
      return directInFlight > 0;
    } finally {
      lock.unlock();
    }
  }

  /** Stops taking hand-overs and takes in those already made, to send or to give back. */
  private void closeHandOvers() {
    lock.lock();
    try {
      acceptingHandOvers = false;
    } finally {
      lock.unlock();
    }
    for (Message m; (m = handedOver.poll()) != null; ) {
      claimed.addLast(m);
    }
  }

  /** The device was switched off or on in this process: look at it now. */
  void deviceChanged(Device changed) {
    device = changed;
    retryNow = true; // a failing sender tries again at once: the change may be the fix (wake)
    triedLease = false; // switched on here: the lease is tried at once, not at the next look
    pacingReadNanos = 0; // its configuration may have changed too
    wake();
  }

  /** Asks the loop to stop after the send in progress, if any. */
  void requestStop() {
    running = false;
    wake();
  }

  /**
   * Waits until the loop has stopped and what it claimed is recorded or back in the queue, or until
   * {@code deadline}.
   */
  void awaitStop(Instant deadline) {
    try {
      if (thread != null) {
        thread.join(
            Duration.ofMillis(Math.max(1, Duration.between(Instant.now(), deadline).toMillis())));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void loop() {
    // Every record of this thread is about the device: it carries its id.
    try (var ids = io.kurir.logging.LogIds.device(device.id())) {
      loopWhileRunning();
    }
  }

  private void loopWhileRunning() {
    try {
      while (running) {
        // Read before the try: the wait after a failure counts from here, so whoever sees the
        // try (a test that moves the clock next) cannot move the clock before it is read.
        tryStarted = clock.instant();
        retryNow = false;
        try {
          refreshDevice();
          if (!running) {
            break; // found deleted: nothing more is sent
          }
          if (device.disabled()) {
            pauseWhileDisabled();
          } else if (!holdsLease) {
            takeLease();
          } else if (leaseLostSeen || handOffAsked) {
            letGo(leaseLostSeen);
          } else if (!ownership.leasesFresh()) {
            // Renewals are not committing: the lease may run out before a claim could be sent.
            // Told once (the renewal loop says why); looked at again each second of real time,
            // as leases run out in real time.
            staleLeases.failed("this node's leases were not renewed lately, so it is paused");
            awaitRealTime(ERROR_PAUSE);
          } else {
            staleLeases.succeeded();
            step();
          }
          if (holdsLease && failures.failing()) {
            worksAgain(); // attached and sending again (or at least not failing)
          }
        } catch (InterruptedException e) {
          if (!running) {
            break;
          }
        } catch (io.kurir.store.SecretsKeyChanged e) {
          // Once per gateway, not an ERROR with a trace every second per device.
          if (e.first()) {
            log.error("sender of device {}: {}", device.id(), e.getMessage());
          }
          try {
            awaitRetry(tryStarted.plus(ERROR_PAUSE)); // on the injected clock, as other failures
          } catch (InterruptedException stop) {
            // the loop looks at running
          }
        } catch (Throwable e) { // a driver's Error too: the device's queue must not stall
          failedTry(e);
        }
      }
    } finally {
      awaitSendsUnderWay();
      closeHandOvers();
      giveBackClaimed();
      detach();
      if (holdsLease) {
        // Not waited for here: a stop waits for every sender's release at once (Messages.close).
        released = leases.release(device.id());
      }
      if (deleted) {
        whenDeleted.accept(device.id());
      }
    }
  }

  /**
   * The device was deleted: the loop stops after the send in progress, gives back what it claimed
   * and detaches the device from its driver (its queue is ended by whoever is told).
   */
  void deviceDeleted() {
    deleted = true;
    requestStop();
  }

  /** Whether this sender stops (or stopped) because its device was deleted. */
  boolean deleted() {
    return deleted;
  }

  /** The release of the lease at this sender's stop; done when there was none to release. */
  CompletableFuture<?> released() {
    return released;
  }

  /**
   * Waits for the ownership to offer the lease (or a stop). The wake that started this sender (or
   * any since) is spent here; left set, it would send the loop straight back, thousands of times a
   * second.
   */
  private void awaitOffer() throws InterruptedException {
    lock.lock();
    try {
      workArrived = false;
    } finally {
      lock.unlock();
    }
    awaitChange(MAX_IDLE_WAIT.toNanos());
  }

  /** Releases the lease and waits (briefly) for the commit, so that others may take it at once. */
  private void awaitRelease() {
    try {
      leases.release(device.id()).get(CLAIM_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      log.warn(
          "device {}: lease not released ({}); it runs out instead", device.id(), e.toString());
    }
  }

  /**
   * Stops sending for this device: after the sends under way, what it claimed goes back to the
   * queue (while this node is still the lease's owner in the table; otherwise the new owner applies
   * the crash rule to it) and the driver lets the device go. A hand-over releases the lease too.
   */
  private void letGo(boolean lost) {
    awaitSendsUnderWay();
    closeHandOvers();
    if (lost) {
      log.warn("device {}: lease lost; another node sends for it now", device.id());
      for (Message m; (m = claimed.pollFirst()) != null; ) {
        expressOutstanding.remove(m.id());
        claimedSync.remove(m.id());
        stores.queue().unclaimAsOwner(m.id(), m.notBefore(), leases.owner());
      }
    } else {
      giveBackClaimed();
      awaitRelease();
    }
    detach();
    lock.lock();
    try {
      holdsLease = false;
      handOffAsked = false;
      leaseLostSeen = false;
      workArrived = false;
    } finally {
      lock.unlock();
    }
    ownership.letGo(device.id(), !lost, true);
  }

  /** Reads the device again every {@link #DEVICE_RECHECK}: another process may switch it off. */
  private void refreshDevice() {
    if (System.nanoTime() - deviceCheckedNanos < DEVICE_RECHECK.toNanos()) {
      return;
    }
    deviceCheckedNanos = System.nanoTime();
    try {
      device = deviceNow.apply(device.id());
    } catch (io.kurir.tenant.TenantException e) {
      if (e.reason() == io.kurir.tenant.TenantException.Reason.NOT_FOUND) {
        // Deleted by another process (./kurir admin on the same file, another node's signal lost).
        log.info("device {}: deleted; its sender stops", device.id());
        deviceDeleted();
      } else {
        log.warn("device {}: cannot read it again: {}", device.id(), e.toString());
      }
    } catch (RuntimeException e) {
      log.warn("device {}: cannot read it again: {}", device.id(), e.toString());
    }
  }

  private static final Duration DEVICE_RECHECK = Duration.ofSeconds(30);

  /**
   * A switched-off device sends nothing: what it claimed goes back to the queue, its driver lets it
   * go, its lease is given up, and its queue waits until it is switched on again.
   */
  private void pauseWhileDisabled() throws InterruptedException {
    awaitSendsUnderWay();
    closeHandOvers();
    giveBackClaimed();
    detach();
    if (holdsLease) {
      leases.release(device.id());
      holdsLease = false;
      ownership.letGo(device.id(), false, false);
    }
    lock.lock();
    try {
      workArrived = false;
      if (running && device.disabled()) {
        changed.await(DEVICE_RECHECK.toMillis(), TimeUnit.MILLISECONDS);
      }
    } finally {
      lock.unlock();
    }
    deviceCheckedNanos = 0; // look at the device again before anything else
  }

  private void detach() {
    if (attached) {
      attached = false;
      try {
        driver.detach(device.ref());
      } catch (RuntimeException e) {
        log.warn("driver {}: detach of device {}: {}", driver.name(), device.id(), e.toString());
      }
    }
  }

  /**
   * Takes the device's lease; the first time, or after another owner's lease ran out, whatever that
   * owner left {@code sending} follows the crash rule.
   */
  private void takeLease() throws InterruptedException {
    if (triedLease && !ownership.mayTake(device.id())) {
      // Not offered: the lease is another node's, or beyond this node's share. Woken when the
      // ownership offers it; a send woken by costs no database write.
      awaitOffer();
      return;
    }
    triedLease = true;
    Leases.Take take = leases.acquire(device.id(), clock.instant());
    if (take == Leases.Take.REFUSED) {
      // Another owner's, and alive: the ownership offers it again when it has run out or was
      // given up.
      awaitOffer();
      return;
    }
    ownership.took(device.id());
    capDay = null; // the day's sends are counted again: another node may have sent some
    // Held for sending only once attached and recovered: a driver that cannot attach the device
    // now (a configuration it lacks, a bug) is asked again after a wait that grows while it keeps
    // failing (failedTry), and what a crash left "sending" is not skipped.
    try {
      // Before anything is sent: a driver may set the device's session up.
      driver.attach(device.ref());
    } catch (RuntimeException | Error e) {
      attachFailing = true; // this node holds the lease: its sync callers may be answered
      throw e;
    }
    attachFailing = false;
    attached = true;
    // Only a holder that did not give the lease up can have been cut off mid-send; after a clean
    // stop (or this sender's own pause) what is "sending" is with the network (an accepted send).
    RecoveryStore.Recovered r =
        take == Leases.Take.LEFT_BEHIND
            ? stores
                .recovery()
                .recoverInterrupted(device.id(), driver.deduplicates(), clock.instant())
            : new RecoveryStore.Recovered(0, 0);
    lock.lock();
    try {
      holdsLease = true;
      leaseLostSeen = false;
      handOffAsked = false;
      acceptingHandOvers = true;
      syncMayBeQueued = true; // whatever an earlier holder left
    } finally {
      lock.unlock();
    }
    if (r.queuedAgain() + r.failed() > 0) {
      log.warn(
          "device {}: {} message(s) were cut off mid-send by a stop: {} queued again, {} failed"
              + " ({})",
          device.id(),
          r.queuedAgain() + r.failed(),
          r.queuedAgain(),
          r.failed(),
          FailureReason.INTERRUPTED);
    }
  }

  private void step() throws InterruptedException {
    takeFinished();
    if (claimed.isEmpty() && inFlight == 0) {
      windowFromHandOvers = !handedOver.isEmpty();
    }
    takeHandOvers();
    if (overDailyCap()) {
      holdForNextDay();
      return;
    }
    if (claimed.isEmpty()) {
      fill(); // also while sends are under way: the next window is ready when they end
      return;
    }
    // Not by "work arrived": that stays set for the next look at the whole queue, or the quiet
    // rule would take an async message that arrived meanwhile for none.
    if (!claimed.peekFirst().sync() && takeSyncLook()) {
      claimSyncAhead(); // a caller who waits goes ahead of the claimed campaign
    }
    if (inFlight >= pacing.inFlight()) {
      awaitFinished(MAX_IDLE_WAIT.toNanos());
      return;
    }
    Message m = nextSendable();
    if (m == null) { // each claimed recipient has a send under way or is spaced
      awaitFinished(recipientGapLeftNanos());
      return;
    }
    long waitNanos = paceWait(m);
    if (waitNanos > 0) {
      awaitPace(waitNanos); // short: a claim covers about a second of sends
      return;
    }
    if (held.test(device.id())) {
      // Held after these were claimed or handed over (a send under way found the network
      // refusing the account): nothing more goes to the driver until the device resumes.
      giveBackClaimed();
      awaitChange(OFFLINE_RECHECK.toNanos());
      return;
    }
    if (deleted || !stores.queue().deviceLive(device.id())) {
      // Deleted, here or on another node, after this window was claimed: nothing more goes to the
      // driver. The loop stops; what it claimed goes back and its queue ends device_deleted.
      log.info("device {}: deleted; its sender stops before message {}", device.id(), m.id());
      deviceDeleted();
      return;
    }
    claimed.remove(m);
    if (m.sync() && !takeTurn(m)) {
      return; // its caller's wait ended first: withdrawn, never sent
    }
    lastSendStartNanos = System.nanoTime();
    if (pacing.inFlight() == 1 && inFlight == 0) {
      SendOutcome outcome = sendSafely(m);
      attempts.record(m, outcome);
      afterSend(m, outcome, true);
    } else {
      dispatch(m);
    }
  }

  /**
   * Takes the messages handed over into the claimed window: sync ones (callers wait) after the sync
   * messages already first in it and ahead of the async ones, the rest at the end.
   */
  private void takeHandOvers() {
    List<Message> sync = new ArrayList<>();
    for (Message m; (m = handedOver.poll()) != null; ) {
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

  /**
   * Sends {@code m} on its own thread, which records the outcome and posts it back to the loop; the
   * pace counts from this start.
   */
  private void dispatch(Message m) {
    inFlight++;
    underWay.add(m.recipient());
    long gap = pacing.nextGapNanos();
    lock.lock();
    try {
      nextSendNanos = System.nanoTime() + gap;
    } finally {
      lock.unlock();
    }
    Thread.ofVirtual()
        .name("send-" + device.id() + "-" + m.id())
        .start(
            () -> {
              SendOutcome outcome = sendSafely(m);
              try {
                attempts.record(m, outcome);
              } finally {
                finished.add(new Finished(m, outcome));
                lock.lock();
                try {
                  changed.signalAll();
                } finally {
                  lock.unlock();
                }
              }
            });
  }

  /** Takes in the outcomes of sends that ran on their own threads. */
  private void takeFinished() {
    for (Finished f; (f = finished.poll()) != null; ) {
      inFlight--;
      afterSend(f.message(), f.outcome(), false);
    }
  }

  /** Waits until every send under way has ended (a stop, a pause). */
  private void awaitSendsUnderWay() {
    while (inFlight > 0) {
      takeFinished();
      if (inFlight > 0) {
        lock.lock();
        try {
          if (finished.isEmpty()) {
            changed.awaitNanos(Duration.ofMillis(100).toNanos());
          }
        } catch (InterruptedException e) {
          // stopping anyway: the sends end on their own and the loop takes them in
        } finally {
          lock.unlock();
        }
      }
    }
  }

  private void awaitFinished(long nanos) throws InterruptedException {
    lock.lock();
    try {
      if (finished.isEmpty() && running && handedOver.isEmpty()) {
        changed.awaitNanos(Math.max(nanos, 1_000_000));
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * The first claimed message whose recipient has no send under way and was not sent to within the
   * pacing's recipient gap; null when there is none.
   */
  private Message nextSendable() {
    if (underWay.isEmpty() && lastSendTo.isEmpty()) {
      return claimed.peekFirst();
    }
    long now = System.nanoTime();
    long recipientGap = pacing.recipientGap().toNanos();
    for (Message m : claimed) {
      if (underWay.contains(m.recipient())) {
        continue;
      }
      Long last = lastSendTo.get(m.recipient());
      if (last == null || now - last >= recipientGap) {
        return m;
      }
    }
    return null;
  }

  /** How long until the first spaced recipient of the claimed messages may be sent to again. */
  private long recipientGapLeftNanos() {
    long now = System.nanoTime();
    long recipientGap = pacing.recipientGap().toNanos();
    long least = MAX_IDLE_WAIT.toNanos();
    for (Message m : claimed) {
      Long last = lastSendTo.get(m.recipient());
      if (last != null && !underWay.contains(m.recipient())) {
        least = Math.min(least, recipientGap - (now - last));
      }
    }
    return least;
  }

  /**
   * What follows a send: the pace, the daily count, and what an outcome says of the rest of the
   * window. {@code paceFromEnd}: the gap counts from this send's end (one send at a time, as a
   * linked phone needs), not from its start.
   */
  private void afterSend(Message m, SendOutcome outcome, boolean paceFromEnd) {
    underWay.remove(m.recipient());
    expressOutstanding.remove(m.id());
    startedHandOvers.remove(m.id());
    long now = System.nanoTime();
    boolean deferred = outcome instanceof SendOutcome.Deferred;
    if (deferred) {
      // Nothing went to the network: no recipient gap; the message waits for its own time.
    } else if (pacing.recipientGap().isPositive()) {
      lastSendTo.put(m.recipient(), now);
      if (lastSendTo.size() > MAX_SPACED_RECIPIENTS) {
        long gap = pacing.recipientGap().toNanos();
        lastSendTo.values().removeIf(t -> now - t >= gap);
      }
    } else {
      lastSendTo.clear();
    }
    if (outcome instanceof SendOutcome.Sent || outcome instanceof SendOutcome.Accepted) {
      sentToday++;
    }
    if (!isFinal(outcome)) {
      lock.lock();
      try {
        queueEmpty = false; // it goes back to the queue (a retry, the device away): look again
        quiet = false;
        syncMayBeQueued |= m.sync();
      } finally {
        lock.unlock();
      }
    }
    if (claimed.isEmpty() && inFlight == 0 && windowFromHandOvers && isFinal(outcome)) {
      lock.lock();
      try {
        if (!workArrived && directInFlight == 0 && !expressTaken && handedOver.isEmpty()) {
          queueEmpty = true; // it was when the hand-over was taken, and nothing came since
          quiet = true;
        }
      } finally {
        lock.unlock();
      }
    }
    // A deferred message took no turn of the pace: the next one may go at once (it waited the
    // gap since the last real send before this one was looked at).
    long gap = paceFromEnd && !deferred ? pacing.nextGapNanos() : 0;
    if (outcome instanceof SendOutcome.DeviceUnavailable) {
      gap = Math.max(gap, OFFLINE_RECHECK.toNanos());
      giveBackClaimed(); // the rest waits for the device too
    } else if (outcome instanceof SendOutcome.RetryAfter later) {
      gap = Math.max(gap, later.after().toNanos());
      giveBackClaimed();
    }
    lock.lock();
    try {
      nextSendNanos = Math.max(paceFromEnd ? 0 : nextSendNanos, now + gap);
      waitingForDevice = outcome instanceof SendOutcome.DeviceUnavailable;
    } finally {
      lock.unlock();
    }
  }

  /** Recipients whose last send time is kept for the recipient gap, before old ones are dropped. */
  private static final int MAX_SPACED_RECIPIENTS = 10_000;

  /**
   * Whether the device reached its daily cap (counting the sends under way): counted from the
   * database at the first look of each day, then as sends go out.
   */
  private boolean overDailyCap() {
    int cap = pacing.dailyCap();
    if (cap <= 0) {
      capDay = null;
      return false;
    }
    java.time.LocalDate today = java.time.LocalDate.ofInstant(clock.instant(), zone);
    if (!today.equals(capDay)) {
      sentToday = stores.queue().sentSince(device.id(), today.atStartOfDay(zone).toInstant());
      capDay = today;
    }
    return sentToday + inFlight >= cap;
  }

  /**
   * Over the daily cap: what is claimed goes back to the queue, and the device sends nothing until
   * the next day begins in the operator's zone (or its pacing changes). Not an error: the messages
   * wait, as they would behind a slow pace.
   */
  private void holdForNextDay() throws InterruptedException {
    giveBackClaimed();
    Instant nextDay = capDay.plusDays(1).atStartOfDay(zone).toInstant();
    long untilNextDay = Duration.between(clock.instant(), nextDay).toNanos();
    // Looked at again now and then: the pacing (the cap) may be changed meanwhile.
    awaitPace(Math.max(1_000_000, Math.min(untilNextDay, PACING_RECHECK.toNanos())));
    pacingReadNanos = 0;
    pacing = pacingNow.get();
    pacingReadNanos = System.nanoTime();
  }

  /** Whether an outcome leaves nothing of the message for this sender to do again. */
  private static boolean isFinal(SendOutcome outcome) {
    return outcome instanceof SendOutcome.Sent
        || outcome instanceof SendOutcome.NotFound
        || outcome instanceof SendOutcome.Permanent
        || outcome instanceof SendOutcome.Accepted;
  }

  /** How long to wait before sending {@code next}: a sync caller waits at most a short gap. */
  private long paceWait(Message next) {
    long waitNanos;
    lock.lock();
    try {
      waitNanos = nextSendNanos - System.nanoTime();
    } finally {
      lock.unlock();
    }
    if (next.sync() && waitNanos > 0) {
      waitNanos = Math.min(waitNanos, pacing.syncGapNanos() - sinceLastSendNanos());
    }
    return waitNanos;
  }

  private long lastSendStartNanos = System.nanoTime() - Duration.ofDays(1).toNanos();

  private long sinceLastSendNanos() {
    return System.nanoTime() - lastSendStartNanos;
  }

  /** Whether to look for sync messages in the database now (see syncMayBeQueued). */
  private boolean takeSyncLook() {
    boolean flagged;
    lock.lock();
    try {
      flagged = syncMayBeQueued;
      syncMayBeQueued = false;
    } finally {
      lock.unlock();
    }
    long now = System.nanoTime();
    if (flagged || now - syncLookedNanos > SYNC_RECHECK.toNanos()) {
      syncLookedNanos = now;
      return true;
    }
    return false;
  }

  /** A sync message may be queued again (given back, to be retried, or more than one look took). */
  private void syncMayBeQueued() {
    lock.lock();
    try {
      syncMayBeQueued = true;
    } finally {
      lock.unlock();
    }
  }

  /** Claims sync messages that arrived while async ones are claimed, and puts them first. */
  private void claimSyncAhead() throws InterruptedException {
    windowFromHandOvers = false;
    Instant now = clock.instant();
    int limit = Math.min(SYNC_AHEAD, claimSize());
    List<Message> sync = stores.queue().dueSync(device.id(), now, limit);
    if (sync.size() == limit) {
      syncMayBeQueued(); // more may wait
    }
    if (sync.isEmpty()) {
      return;
    }
    Set<Long> taken = claim(sync, now);
    for (int i = sync.size() - 1; i >= 0; i--) {
      Message m = sync.get(i);
      if (taken.contains(m.id())) {
        claimed.addFirst(m.withAttempts(m.attempts() + 1));
        noteClaimedSync(m);
      }
    }
  }

  /** Sync messages claimed at once ahead of a claimed window. */
  private static final int SYNC_AHEAD = 8;

  /** Claims the next messages that may go now, or waits until some may. */
  private void fill() throws InterruptedException {
    boolean knownEmpty;
    boolean refuseSync;
    lock.lock();
    try {
      knownEmpty = quiet && !workArrived && handedOver.isEmpty();
      quiet = false;
      if (knownEmpty) {
        // Nothing arrived since the last hand-over went out: wait without asking the database;
        // any accept wakes this, and the periodic look covers what another node stores.
        changed.awaitNanos(MAX_IDLE_WAIT.toNanos());
        return;
      }
      workArrived = false;
      if (directInFlight == 0) {
        expressTaken = false; // this look sees whatever was queued behind them
      }
      refuseSync = syncCallersMayWait;
    } finally {
      lock.unlock();
    }
    Instant now = clock.instant();
    if (pacingReadNanos == 0 || System.nanoTime() - pacingReadNanos > PACING_RECHECK.toNanos()) {
      pacing = pacingNow.get(); // a device's configuration may change while it sends
      pacingReadNanos = System.nanoTime();
    }
    if (!canSend()) {
      if (refuseSync) {
        lock.lock();
        try {
          syncCallersMayWait = false; // until a sync message arrives again
        } finally {
          lock.unlock();
        }
        refuseWaitingCallers(now);
      }
      awaitChange(OFFLINE_RECHECK.toNanos());
      return;
    }
    long waitNanos;
    lock.lock();
    try {
      waitNanos = nextSendNanos - System.nanoTime();
    } finally {
      lock.unlock();
    }
    int limit = claimSize();
    boolean withSync = takeSyncLook();
    List<Message> due = stores.queue().due(device.id(), now, limit, withSync);
    if (withSync && due.stream().filter(Message::sync).count() == limit) {
      syncMayBeQueued(); // more may wait
    }
    if (due.isEmpty()) {
      Optional<Instant> held = stores.queue().nextNotBefore(device.id());
      lock.lock();
      try {
        queueEmpty = held.isEmpty() && !workArrived && directInFlight == 0 && !expressTaken;
      } finally {
        lock.unlock();
      }
      long idle =
          held.map(t -> Duration.between(now, t))
              .filter(d -> d.compareTo(MAX_IDLE_WAIT) < 0)
              .orElse(MAX_IDLE_WAIT)
              .toNanos();
      awaitChange(Math.max(idle, 1_000_000));
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
      awaitChange(waitNanos); // woken early by a new sync message, which then goes first
      return;
    }
    Set<Long> taken = claim(due, now);
    if (taken.isEmpty() && !leases.holds(device.id())) {
      leaseLostSeen = true; // the loop lets the device go
      return;
    }
    windowFromHandOvers = false;
    for (Message m : due) {
      if (taken.contains(m.id())) {
        claimed.addLast(m.withAttempts(m.attempts() + 1));
        noteClaimedSync(m);
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
      log.warn(
          "device {}: fetching the media of message {}: {}", device.id(), m.id(), e.toString());
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
        log.info("device {}: message {} not sent: {}", device.id(), m.id(), refused.reason());
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
                device.id(),
                leases.owner(),
                due.stream().map(Message::id).toList(),
                now,
                due.getFirst().sync());
    try {
      return commit.get(CLAIM_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      // Not committed in time: nothing goes to the driver now, and what the claim commits later
      // goes back to the queue (the loop tries again), not left "sending" with nobody on it.
      commit.thenAccept(
          ids -> {
            ids.forEach(id -> stores.queue().unclaim(id, now));
            syncMayBeQueued();
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
    long gap = pacing.meanGapNanos();
    if (gap <= 0) {
      return MAX_CLAIM;
    }
    return (int) Math.max(1, Math.min(MAX_CLAIM, CLAIM_HORIZON.toNanos() / gap));
  }

  /**
   * The device is not connected: sync callers without {@code flag_retry} are told at once and their
   * messages fail; {@code flag_retry} ones are told while their messages stay queued.
   */
  private void refuseWaitingCallers(Instant now) {
    List<Long> waiting = stores.queue().waitingSyncCallers(device.id());
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
  private void giveBackClaimed() {
    for (Message m; (m = claimed.pollFirst()) != null; ) {
      if (!takeTurn(m)) {
        continue; // withdrawn by its caller: it stays failed
      }
      expressOutstanding.remove(m.id());
      startedHandOvers.remove(m.id());
      if (m.sync()) {
        syncMayBeQueued();
      }
      try {
        stores
            .queue()
            .unclaim(m.id(), m.notBefore())
            .get(CLAIM_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        log.warn("device {}: message {} stays sending: {}", device.id(), m.id(), e.toString());
      }
    }
  }

  private void awaitChange(long nanos) throws InterruptedException {
    lock.lock();
    try {
      if (!workArrived && running && handedOver.isEmpty()) {
        changed.awaitNanos(nanos);
      }
    } finally {
      lock.unlock();
    }
  }

  private void awaitPace(long nanos) throws InterruptedException {
    lock.lock();
    try {
      if (running) {
        changed.awaitNanos(nanos);
      }
    } finally {
      lock.unlock();
    }
  }

  /** The name of the driver this device sends through. */
  String driverName() {
    return driver.name();
  }

  private SendOutcome sendSafely(Message m) {
    long started = System.nanoTime();
    try (var ids = io.kurir.logging.LogIds.message(device.id(), m.id())) {
      SendOutcome outcome = sendOrFailure(m);
      long took = System.nanoTime() - started;
      recentSendNanos = recentSendNanos == 0 ? took : (recentSendNanos * 3 + took) / 4;
      observer.attempted(driver.name(), outcome, Duration.ofNanos(System.nanoTime() - started));
      return outcome;
    }
  }

  private SendOutcome sendOrFailure(Message m) {
    try {
      return driver.send(
          device.ref(),
          new OutgoingMessage(
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

  /**
   * A try of the loop failed (an attach that throws, any error of a step): told by {@link
   * #failures} (one ERROR line with the trace, then DEBUG while it repeats), recorded as the
   * device's state once it repeats, and the loop waits before the next try, longer each time, on
   * the injected clock. A stop or a change of the device ends the wait; new messages do not (a
   * failing device under traffic would otherwise be tried once per message).
   */
  private void failedTry(Throwable e) {
    Duration wait = failures.failed(e);
    if (failures.tries() == STUCK_AFTER_TRIES) {
      stuckRecorded = true;
      try {
        trouble.stuck(device.id(), e.toString());
      } catch (RuntimeException recordFailed) {
        log.warn("device {}: its state not recorded: {}", device.id(), recordFailed.toString());
      }
    }
    try {
      awaitRetry(tryStarted.plus(wait));
    } catch (InterruptedException stop) {
      // the loop looks at running
    }
  }

  /** The loop works again after failing: one INFO line, and the device's state read again. */
  private void worksAgain() {
    failures.succeeded();
    if (stuckRecorded) {
      stuckRecorded = false;
      try {
        trouble.worksAgain(device.id(), io.kurir.device.DeviceState.of(driver.state(device.ref())));
      } catch (RuntimeException e) {
        log.warn("device {}: its state not recorded: {}", device.id(), e.toString());
      }
    }
  }

  /** Failed tries in a row after which the device's state says its sender is stuck. */
  static final int STUCK_AFTER_TRIES = 2;

  /**
   * Waits until {@code due} on the injected clock (a moved settable clock wakes senders), a stop,
   * or a change of the device.
   */
  private void awaitRetry(Instant due) throws InterruptedException {
    while (true) {
      boolean refuse;
      lock.lock();
      try {
        refuse = false;
        while (running && !retryNow && !refuse) {
          long left = Duration.between(clock.instant(), due).toNanos();
          if (left <= 0) {
            return;
          }
          if (attachFailing && syncCallersMayWait) {
            syncCallersMayWait = false; // until a sync message arrives again
            refuse = true;
          } else {
            changed.awaitNanos(Math.min(left, MAX_IDLE_WAIT.toNanos()));
          }
        }
        if (!refuse) {
          return;
        }
      } finally {
        lock.unlock();
      }
      // The driver cannot attach the device: a sync caller is answered as for a device that is
      // not connected (phone_offline) instead of waiting out its time; async messages wait.
      try {
        refuseWaitingCallers(clock.instant());
      } catch (RuntimeException e) {
        log.debug("device {}: sync callers not answered: {}", device.id(), e.toString());
      }
    }
  }

  /** Waits {@code d} of real time, or until a stop: wakes by new messages do not cut it short. */
  private void awaitRealTime(Duration d) throws InterruptedException {
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
}
