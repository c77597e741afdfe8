package io.kurir.message;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device sender's hold on its device's lease ({@code device_lease}): taking it when the ownership
 * offers it, noticing when it is asked to give the device to another node or the table gives it
 * away, and releasing it. Only the holder may claim and send.
 *
 * <p>Thread-safe: the flags are volatile; the loop takes and releases, other threads ask.
 */
final class DeviceLease {
  private static final Logger log = LoggerFactory.getLogger(DeviceSender.class);

  private final long deviceId;
  private final Leases leases;
  private final DeviceOwnership ownership;
  private final Duration releaseWait;
  private volatile boolean triedLease; // later tries need the ownership's permit
  private volatile boolean handOffAsked; // give the device to another node
  private volatile boolean leaseLostSeen; // the table gives the lease to another node
  private volatile boolean holdsLease;
  private volatile CompletableFuture<?> released = CompletableFuture.completedFuture(null);

  /** {@code releaseWait}: how long a release is waited for before the lease is left to run out. */
  DeviceLease(long deviceId, Leases leases, DeviceOwnership ownership, Duration releaseWait) {
    this.deviceId = deviceId;
    this.leases = leases;
    this.ownership = ownership;
    this.releaseWait = releaseWait;
  }

  /** Whether the sender holds the lease (it may send). */
  boolean holds() {
    return holdsLease;
  }

  /** Asks the holder to give the device to another node. */
  void handOff() {
    handOffAsked = true;
  }

  /** The lease table gives this device to another node: the holder stops at once. */
  void lost() {
    leaseLostSeen = true;
  }

  /** Whether the lease was lost (as opposed to handed off). */
  boolean lostSeen() {
    return leaseLostSeen;
  }

  /** Whether the holder is to let the device go: lost, or asked to hand it off. */
  boolean letGoAsked() {
    return leaseLostSeen || handOffAsked;
  }

  /** The device was switched on here: the lease is tried at once, not at the next look. */
  void tryAtOnce() {
    triedLease = false;
  }

  /** Whether this node's leases were renewed lately (a claim may be sent before they run out). */
  boolean leasesFresh() {
    return ownership.leasesFresh();
  }

  /**
   * Tries to take the lease at {@code now}: null when it is not to be had now (another node's,
   * beyond this node's share, or refused); the sender then waits for the ownership's offer. The
   * first try needs no permit; later ones do.
   */
  Leases.Take tryTake(Instant now) {
    if (triedLease && !ownership.mayTake(deviceId)) {
      // Not offered: the lease is another node's, or beyond this node's share. Woken when the
      // ownership offers it; a send woken by costs no database write.
      return null;
    }
    triedLease = true;
    Leases.Take take = leases.acquire(deviceId, now);
    if (take == Leases.Take.REFUSED) {
      // Another owner's, and alive: the ownership offers it again when it has run out or was
      // given up.
      return null;
    }
    ownership.took(deviceId);
    return take;
  }

  /** The lease is held for sending from now on; the caller holds the sender's lock. */
  void heldGuarded() {
    holdsLease = true;
    leaseLostSeen = false;
    handOffAsked = false;
  }

  /** The lease is no longer held (let go); the caller holds the sender's lock. */
  void droppedGuarded() {
    holdsLease = false;
    handOffAsked = false;
    leaseLostSeen = false;
  }

  /** This node's name in the lease table. */
  String owner() {
    return leases.owner();
  }

  /** Whether the table still says this node holds the lease. */
  boolean stillHeld() {
    return leases.holds(deviceId);
  }

  /** Releases the lease and waits (briefly) for the commit, so that others may take it at once. */
  void awaitRelease() {
    try {
      leases.release(deviceId).get(releaseWait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      log.warn("device {}: lease not released ({}); it runs out instead", deviceId, e.toString());
    }
  }

  /**
   * Tells the ownership the device was let go; {@code lost} when the table gave the lease away (it
   * was not released, so the other nodes are not told).
   */
  void letGo(boolean lost) {
    ownership.letGo(deviceId, !lost, true);
  }

  /** A switched-off device: the lease, if held, is given up (not waited for). */
  void giveUpForPause() {
    if (holdsLease) {
      leases.release(deviceId);
      holdsLease = false;
      ownership.letGo(deviceId, false, false);
    }
  }

  /**
   * The sender stopped: the lease, if held, is released. Not waited for here: a stop waits for
   * every sender's release at once (Messages.close).
   */
  void releaseAtStop() {
    if (holdsLease) {
      released = leases.release(deviceId);
    }
  }

  /** The release of the lease at the sender's stop; done when there was none to release. */
  CompletableFuture<?> released() {
    return released;
  }
}
