package io.kurir.message;

import io.kurir.driver.Driver;
import io.kurir.driver.Pacing;
import io.kurir.tenant.Device;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one loop that sends a device's messages, taking them from the database: the queue is the
 * {@code message} table, and only a small window of it is in memory. It holds the device's lease
 * ({@link DeviceLease}); it takes the next messages in order into its {@link ClaimWindow} (sync
 * ones, whose callers wait, ahead of queued async traffic, then by id), committed {@code sending}
 * in one commit, with the messages {@link HandOvers handed over} to it, then hands them to the
 * driver one at a time (or several, as its pacing allows), paced ({@link SendPacing}), and records
 * each outcome. It survives any exception and stops only when asked.
 *
 * <p>What a crash can leave behind is bounded by the claim size: at most {@link
 * ClaimWindow#MAX_CLAIM} messages, and no more than are sent within {@link
 * ClaimWindow#CLAIM_HORIZON} at the device's pace.
 *
 * <p>Thread-safe: API threads wake it, the loop runs on its own virtual thread; its parts share one
 * lock ({@link SenderWakes}).
 */
final class DeviceSender {
  private static final Logger log = LoggerFactory.getLogger(DeviceSender.class);
  static final Duration OFFLINE_RECHECK = Duration.ofSeconds(5);
  static final Duration MAX_IDLE_WAIT = Duration.ofSeconds(30);
  private static final Duration ERROR_PAUSE = Duration.ofSeconds(1);
  private static final Duration CLAIM_TIMEOUT = Duration.ofSeconds(30);

  private final SenderDevice dev;
  private final java.util.function.LongConsumer whenDeleted; // told once this sender has stopped
  private volatile boolean deleted;
  private final Driver driver;
  // Whether the device's queue is held (its network refused the account): it sends nothing then,
  // whatever its driver says, until it is resumed.
  private final java.util.function.LongPredicate held;
  private final MessageStores stores;
  private final Attempts attempts;
  private final Clock clock;
  private final SenderWakes w = new SenderWakes();
  private final DeviceLease lease;
  private final HandOvers handOvers;
  private final SendPacing pacing;
  private final ClaimWindow window;
  private final Deque<Message> claimed; // the window's: committed sending, loop-only
  private final DriverSends sends;
  private final SenderFailures failures;
  private Thread thread;
  private final io.kurir.logging.RepeatingFailure staleLeases; // told once; loop-only
  private Instant tryStarted; // loop-only

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
    this.dev = new SenderDevice(device, deviceNow, driver);
    this.held = held;
    this.staleLeases =
        io.kurir.logging.RepeatingFailure.atFixedPace(
            log, "sending for device " + device.id(), clock, ERROR_PAUSE);
    this.whenDeleted = whenDeleted;
    this.driver = driver;
    this.stores = stores;
    this.attempts = attempts;
    this.clock = clock;
    long id = device.id();
    this.lease = new DeviceLease(id, leases, ownership, CLAIM_TIMEOUT);
    this.handOvers = new HandOvers(w, stores.queue(), ClaimWindow.MAX_CLAIM);
    this.pacing =
        new SendPacing(
            pacing, clock, zone, from -> stores.queue().sentSince(id, from), System::nanoTime);
    this.window =
        new ClaimWindow(
            id,
            w,
            handOvers,
            lease,
            this.pacing,
            stores,
            outcomes,
            media,
            driver,
            clock,
            this::canSend,
            CLAIM_TIMEOUT);
    this.claimed = window.claimed();
    this.sends =
        new DriverSends(dev::get, driver, w, this.pacing, attempts, observer, handOvers, window);
    this.failures = new SenderFailures(dev::get, driver, w, window, clock, trouble);
  }

  void start() {
    thread = Thread.ofVirtual().name("sender-" + dev.get().id()).start(this::loop);
  }

  long deviceId() {
    return dev.get().id();
  }

  /** Its hand-overs: what accepts hand it, and the sync messages it holds claimed unsent. */
  HandOvers handOvers() {
    return handOvers;
  }

  /** Its pacing, read by accepts for the estimate of a sync caller's wait. */
  SendPacing pacing() {
    return pacing;
  }

  /** What wakes its loop. */
  SenderWakes wakes() {
    return w;
  }

  /** Whether this sender holds its device's lease (it may send). */
  boolean holdsLease() {
    return lease.holds();
  }

  /**
   * Gives the device to another node: after the send under way, what it claimed goes back to the
   * queue and the lease is released, so that another node takes it at once.
   */
  void handOff() {
    lease.handOff();
    wake();
  }

  /**
   * The lease table gives this device to another node (this node's lease ran out while it was cut
   * off): it stops sending at once.
   */
  void leaseLost() {
    lease.lost();
    wake();
  }

  /** New messages were committed, a clock moved, or a held message may be due: look again. */
  void wake() {
    w.wake(true);
  }

  /**
   * Whether just-accepted {@code messages} may be handed over directly ({@link HandOvers#reserve}):
   * this sender holds the lease, its device is switched on and may send now. When true, the caller
   * stores them with {@link MessageStore#insertClaimed} and reports with {@link
   * HandOvers#handOver}. Saves a send one commit: the claim's.
   */
  boolean reserveHandOver(List<Message> messages) {
    Instant now = clock.instant();
    if (!handOvers.reserve(
        messages, now, () -> lease.holds() && !dev.get().disabled() && !pacing.capped())) {
      return false;
    }
    if (!canSend()) { // sync callers are refused by the usual path
      handOvers.forgetHeld(messages);
      handOvers.handOver(List.of());
      wake();
      return false;
    }
    return true;
  }

  /** Whether the device's driver says it is connected now. */
  boolean deviceConnected() {
    return canSend();
  }

  /** Whether the device may send now: its queue is not held and its driver says it is connected. */
  private boolean canSend() {
    return !held.test(dev.get().id()) && driver.isConnected(dev.get().ref());
  }

  /** Whether a hand-over would be taken now (tests wait on it instead of sleeping). */
  boolean idleForHandOver() {
    return handOvers.idle(lease::holds);
  }

  /** The device was switched off or on in this process: look at it now. */
  void deviceChanged(Device changed) {
    dev.set(changed);
    w.deviceChanged();
    failures.retryNow(); // a failing sender tries again at once: the change may be the fix (wake)
    lease.tryAtOnce(); // switched on here: the lease is tried at once, not at the next look
    pacing.rereadSoon(); // its configuration may have changed too
    wake();
  }

  /** Asks the loop to stop after the send in progress, if any. */
  void requestStop() {
    w.running = false;
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
    try (var ids = io.kurir.logging.LogIds.device(dev.get().id())) {
      loopWhileRunning();
    }
  }

  private void loopWhileRunning() {
    try {
      while (w.running) {
        // Read before the try: the wait after a failure counts from here, so whoever sees the
        // try (a test that moves the clock next) cannot move the clock before it is read.
        tryStarted = clock.instant();
        failures.tryBegins();
        try {
          w.lookingAtDevice();
          if (dev.refresh()) {
            deviceDeleted();
          }
          if (!w.running) {
            break; // found deleted: nothing more is sent
          }
          if (dev.get().disabled()) {
            pauseWhileDisabled();
          } else if (!lease.holds()) {
            takeLease();
          } else if (lease.letGoAsked()) {
            letGo(lease.lostSeen());
          } else if (!lease.leasesFresh()) {
            // Renewals are not committing: the lease may run out before a claim could be sent.
            // Told once (the renewal loop says why); looked at again each second of real time,
            // as leases run out in real time.
            staleLeases.failed("this node's leases were not renewed lately, so it is paused");
            w.awaitRealTime(ERROR_PAUSE);
          } else {
            staleLeases.succeeded();
            step();
          }
          if (lease.holds() && failures.failing()) {
            failures.worksAgain(); // attached and sending again (or at least not failing)
          }
        } catch (InterruptedException e) {
          if (!w.running) {
            break;
          }
        } catch (io.kurir.store.SecretsKeyChanged e) {
          // Once per gateway, not an ERROR with a trace every second per device.
          if (e.first()) {
            log.error("sender of device {}: {}", dev.get().id(), e.getMessage());
          }
          try {
            // On the injected clock, as other failures.
            failures.awaitRetry(tryStarted.plus(ERROR_PAUSE));
          } catch (InterruptedException stop) {
            // the loop looks at running
          }
        } catch (Throwable e) { // a driver's Error too: the device's queue must not stall
          failures.failedTry(e, tryStarted);
        }
      }
    } finally {
      sends.awaitUnderWay();
      handOvers.close(claimed);
      window.giveBack();
      dev.detach();
      lease.releaseAtStop();
      if (deleted) {
        whenDeleted.accept(dev.get().id());
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
    return lease.released();
  }

  /**
   * Stops sending for this device: after the sends under way, what it claimed goes back to the
   * queue (while this node is still the lease's owner in the table; otherwise the new owner applies
   * the crash rule to it) and the driver lets the device go. A hand-over releases the lease too.
   */
  private void letGo(boolean lost) {
    sends.awaitUnderWay();
    handOvers.close(claimed);
    if (lost) {
      log.warn("device {}: lease lost; another node sends for it now", dev.get().id());
      window.giveBackAsOwner();
    } else {
      window.giveBack();
      lease.awaitRelease();
    }
    dev.detach();
    w.lock.lock();
    try {
      lease.droppedGuarded();
      w.workArrived = false;
    } finally {
      w.lock.unlock();
    }
    lease.letGo(lost);
  }

  /**
   * A switched-off device sends nothing: what it claimed goes back to the queue, its driver lets it
   * go, its lease is given up, and its queue waits until it is switched on again.
   */
  private void pauseWhileDisabled() throws InterruptedException {
    sends.awaitUnderWay();
    handOvers.close(claimed);
    window.giveBack();
    dev.detach();
    lease.giveUpForPause();
    w.awaitWhileDisabled(() -> dev.get().disabled(), SenderDevice.DEVICE_RECHECK);
    dev.lookAgainNow(); // look at the device again before anything else
  }

  /**
   * Takes the device's lease; the first time, or after another owner's lease ran out, whatever that
   * owner left {@code sending} follows the crash rule.
   */
  private void takeLease() throws InterruptedException {
    Leases.Take take = lease.tryTake(clock.instant());
    if (take == null) {
      w.awaitOffer(); // woken when the ownership offers it
      return;
    }
    pacing.countAgain(); // the day's sends are counted again: another node may have sent some
    // Held for sending only once attached and recovered: a driver that cannot attach the device
    // now (a configuration it lacks, a bug) is asked again after a wait that grows while it keeps
    // failing (failedTry), and what a crash left "sending" is not skipped.
    try {
      // Before anything is sent: a driver may set the device's session up.
      dev.attach();
    } catch (RuntimeException | Error e) {
      failures.attachFailing(true); // this node holds the lease: its sync callers may be answered
      throw e;
    }
    failures.attachFailing(false);
    // Only a holder that did not give the lease up can have been cut off mid-send; after a clean
    // stop (or this sender's own pause) what is "sending" is with the network (an accepted send).
    RecoveryStore.Recovered r =
        take == Leases.Take.LEFT_BEHIND
            ? stores
                .recovery()
                .recoverInterrupted(dev.get().id(), driver.deduplicates(), clock.instant())
            : new RecoveryStore.Recovered(0, 0);
    w.lock.lock();
    try {
      lease.heldGuarded();
      handOvers.openGuarded();
      w.syncMayBeQueued = true; // whatever an earlier holder left
    } finally {
      w.lock.unlock();
    }
    if (r.queuedAgain() + r.failed() > 0) {
      log.warn(
          "device {}: {} message(s) were cut off mid-send by a stop: {} queued again, {} failed"
              + " ({})",
          dev.get().id(),
          r.queuedAgain() + r.failed(),
          r.queuedAgain(),
          r.failed(),
          FailureReason.INTERRUPTED);
    }
  }

  private void step() throws InterruptedException {
    sends.takeFinished();
    if (claimed.isEmpty() && sends.inFlight() == 0) {
      window.fromHandOvers(!w.handedOver.isEmpty());
    }
    handOvers.takeInto(claimed);
    if (pacing.overDailyCap(sends.inFlight())) {
      holdForNextDay(sends.inFlight());
      return;
    }
    if (claimed.isEmpty()) {
      window.fill(); // also while sends are under way: the next window is ready when they end
      return;
    }
    // Not by "work arrived": that stays set for the next look at the whole queue, or the quiet
    // rule would take an async message that arrived meanwhile for none.
    if (!claimed.peekFirst().sync() && window.takeSyncLook()) {
      window.claimSyncAhead(); // a caller who waits goes ahead of the claimed campaign
    }
    if (sends.inFlight() >= pacing.now().inFlight()) {
      sends.awaitFinished(MAX_IDLE_WAIT.toNanos());
      return;
    }
    Message m = pacing.nextSendable(claimed);
    if (m == null) { // each claimed recipient has a send under way or is spaced
      sends.awaitFinished(pacing.recipientGapLeftNanos(claimed, MAX_IDLE_WAIT));
      return;
    }
    long waitNanos = pacing.wait(m, w.paceLeftNanos());
    if (waitNanos > 0) {
      w.awaitPace(waitNanos); // short: a claim covers about a second of sends
      return;
    }
    if (held.test(dev.get().id())) {
      // Held after these were claimed or handed over (a send under way found the network
      // refusing the account): nothing more goes to the driver until the device resumes.
      window.giveBack();
      w.awaitChange(OFFLINE_RECHECK.toNanos());
      return;
    }
    if (deleted || !stores.queue().deviceLive(dev.get().id())) {
      // Deleted, here or on another node, after this window was claimed: nothing more goes to the
      // driver. The loop stops; what it claimed goes back and its queue ends device_deleted.
      log.info("device {}: deleted; its sender stops before message {}", dev.get().id(), m.id());
      deviceDeleted();
      return;
    }
    claimed.remove(m);
    if (m.sync() && !handOvers.takeTurn(m)) {
      return; // its caller's wait ended first: withdrawn, never sent
    }
    pacing.started();
    if (pacing.now().inFlight() == 1 && sends.inFlight() == 0) {
      sends.sendHere(m);
    } else {
      sends.dispatch(m);
    }
  }

  /**
   * Over the daily cap: what is claimed goes back to the queue, and the device sends nothing until
   * the next day begins in the operator's zone (or its pacing changes). Not an error: the messages
   * wait, as they would behind a slow pace.
   */
  private void holdForNextDay(int inFlight) throws InterruptedException {
    window.giveBack();
    Instant nextDay = pacing.nextDay();
    // At each look (every PACING_RECHECK); tests wait for it to know the sender holds.
    log.debug(
        "device {}: daily cap reached ({} of {} today); the rest wait until {}",
        dev.get().id(),
        pacing.sentToday() + inFlight,
        pacing.dailyCap(),
        nextDay);
    long untilNextDay = Duration.between(clock.instant(), nextDay).toNanos();
    // Looked at again now and then: the pacing (the cap) may be changed meanwhile.
    w.awaitPace(Math.max(1_000_000, Math.min(untilNextDay, SendPacing.PACING_RECHECK.toNanos())));
    pacing.reread();
  }

  /** The name of the driver this device sends through. */
  String driverName() {
    return driver.name();
  }
}
