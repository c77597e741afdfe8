package io.kurir.message;

import io.kurir.driver.Drivers;
import io.kurir.store.Database;
import io.kurir.store.NodeSignals;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's device senders: started for the devices with work (or switched on), told of changes
 * to their device here and on other nodes, stopped together. Holds the leases' ownership, which
 * offers devices to senders.
 *
 * <p>Thread-safe.
 */
final class SenderRegistry implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Messages.class);

  /** How long a stop waits for its leases' release before it tells the other nodes anyway. */
  private static final Duration RELEASE_GRACE = Duration.ofSeconds(5);

  /** How long a stop waits for sends in progress. */
  private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(15);

  /** Receipts for network ids no message took are kept this long. */
  private static final Duration KEEP_EARLY_RECEIPTS = Duration.ofDays(1);

  private final MessageStores stores;
  private final Clock clock;
  private final Drivers drivers;
  private final Tenants tenants;
  private final Outcomes outcomes;
  private final Attempts attempts;
  private final MediaFetch media;
  private final Leases leases;
  private final Map<Long, DeviceSender> senders = new ConcurrentHashMap<>();
  private final DeviceOwnership ownership;
  private final NodeSignals signals;
  private volatile boolean closed;
  private final SendObserver observer;
  private final SenderTrouble trouble;
  // Whether a device's sender may send now, besides its driver's word: false while its queue is
  // held (its network refused the account).
  private final java.util.function.LongPredicate held;

  SenderRegistry(
      Database db,
      MessageStores stores,
      Clock clock,
      Drivers drivers,
      Tenants tenants,
      Outcomes outcomes,
      Attempts attempts,
      MediaFetch media,
      Leases leases,
      Messages.Wiring wiring) {
    this.observer = wiring.observer();
    this.trouble = wiring.trouble();
    this.held = wiring.held();
    this.stores = stores;
    this.clock = clock;
    this.drivers = drivers;
    this.tenants = tenants;
    this.outcomes = outcomes;
    this.attempts = attempts;
    this.media = media;
    this.leases = leases;
    this.signals = db.signals();
    this.ownership =
        new DeviceOwnership(
            db,
            leases,
            clock,
            new DeviceOwnership.Senders() {
              @Override
              public Map<Long, DeviceSender> all() {
                return senders;
              }

              @Override
              public Optional<DeviceSender> start(long deviceId) {
                return closed ? Optional.empty() : senderOf(deviceId);
              }
            },
            () -> stores.receipts().pruneEarlyReceipts(clock.instant().minus(KEEP_EARLY_RECEIPTS)));
  }

  /** This node's senders by device id; the map is live (read it, do not change it). */
  Map<Long, DeviceSender> all() {
    return senders;
  }

  /** The device's sender here, if it has one. */
  DeviceSender get(long deviceId) {
    return senders.get(deviceId);
  }

  /** Whether the gateway is stopping (no sender starts any more). */
  boolean closed() {
    return closed;
  }

  /**
   * Starts a sender for every device with messages still to send, or cut off mid-send by the last
   * stop (each applies the crash rule when it takes its lease), first, then for every other device
   * that is switched on (its driver attaches it), and the loop that renews leases.
   */
  void resume() {
    startOwnership();
    List<Long> devices = stores.queue().devicesWithWork();
    for (long deviceId : devices) {
      senderOf(deviceId);
    }
    if (!devices.isEmpty()) {
      log.info("resumed the queues of {} device(s)", devices.size());
    }
    // Every other device too: its driver attaches it now (an engine's session is set up at
    // start, not at the first send), and its sender is ready when a message comes.
    for (Device d : tenants.devices()) {
      if (!d.disabled() && drivers.names().contains(d.driver())) {
        senderOf(d.id());
      }
    }
  }

  private final java.util.concurrent.atomic.AtomicBoolean ownershipStarted =
      new java.util.concurrent.atomic.AtomicBoolean();

  /**
   * Listens to the other nodes and starts the leases' upkeep: this node's own leases, and its share
   * of free ones, are offered first.
   */
  private void startOwnership() {
    if (ownershipStarted.compareAndSet(false, true)) {
      listenToOtherNodes();
    }
    ownership.start();
  }

  /**
   * What other nodes on the database signal: work for a device this node sends for, the outcome of
   * a sync message a caller here waits for, a device changed there.
   */
  private void listenToOtherNodes() {
    // Work another node stored before this one listened was never heard: its holders look again.
    signals.whenListening(
        () ->
            senders
                .values()
                .forEach(
                    s -> {
                      if (s.holdsLease()) {
                        s.wake();
                      }
                    }));
    signals.subscribe(
        NodeSignals.Topic.WORK,
        deviceId -> {
          DeviceSender s = senders.get(deviceId);
          if (s != null && s.holdsLease()) {
            s.wake();
          }
        });
    signals.subscribe(
        NodeSignals.Topic.OUTCOME,
        messageId -> {
          if (outcomes.isExpected(messageId)) {
            stores
                .reads()
                .find(messageId)
                .flatMap(SyncWaits::finalResult)
                .ifPresent(r -> outcomes.report(messageId, r));
          }
        });
    signals.subscribe(
        NodeSignals.Topic.DEVICE,
        deviceId -> {
          try {
            deviceChangedHere(tenants.device(deviceId));
          } catch (io.kurir.tenant.TenantException e) {
            if (e.reason() == io.kurir.tenant.TenantException.Reason.NOT_FOUND) {
              deviceDeletedHere(deviceId); // deleted through another node
            } else {
              log.debug("device {} changed elsewhere: {}", deviceId, e.toString());
            }
          }
        });
  }

  /**
   * Wakes the device's sender for messages just committed; when another node sends for the device,
   * that node is told instead.
   */
  void wakeSender(DeviceSender sender, boolean sync) {
    if (sender.holdsLease() || !signals.shared()) {
      sender.wakes().wake(sync);
    } else {
      signals.publish(NodeSignals.Topic.WORK, sender.deviceId());
    }
  }

  DeviceSender senderFor(Device device) {
    DeviceSender existing = senders.get(device.id());
    if (existing != null) {
      return existing;
    }
    if (!closed) {
      startOwnership(); // on the first sender, if resume() has not started it yet
    }
    synchronized (senders) { // no new sender once close() has begun
      if (closed) {
        throw new SendRefused(SendRefused.Reason.STOPPING, "the gateway is stopping");
      }
      if (!drivers.names().contains(device.driver())) {
        throw new SendRefused(
            SendRefused.Reason.DRIVER_NOT_LOADED,
            "the device's driver '" + device.driver() + "' is not loaded");
      }
      return senders.computeIfAbsent(
          device.id(),
          id -> {
            DeviceSender s =
                new DeviceSender(
                    device,
                    tenants::device,
                    drivers.of(device.ref()),
                    stores,
                    leases,
                    ownership,
                    attempts,
                    outcomes,
                    media,
                    clock,
                    tenants.zone(),
                    () -> drivers.pacingOf(device.ref()),
                    observer,
                    new SenderTrouble() { // the registry's, told for each sender
                      @Override
                      public void stuck(long deviceId, String why) {
                        trouble.stuck(deviceId, why);
                      }

                      @Override
                      public void worksAgain(
                          long deviceId, io.kurir.device.DeviceState driverSays) {
                        trouble.worksAgain(deviceId, driverSays);
                      }
                    },
                    this::endQueueOfDeleted,
                    deviceId -> held.test(deviceId));
            s.start();
            return s;
          });
    }
  }

  private Optional<DeviceSender> senderOf(long deviceId) {
    DeviceSender existing = senders.get(deviceId);
    if (existing != null) {
      return Optional.of(existing);
    }
    try {
      return Optional.of(senderFor(tenants.device(deviceId)));
    } catch (io.kurir.tenant.TenantException e) {
      // Deleted while this gateway was stopped (./kurir admin device delete): its queue ends now.
      endQueueOfDeleted(deviceId);
      return Optional.empty();
    } catch (RuntimeException e) {
      try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
        log.error("cannot start the sender of device {}: {}", deviceId, e.toString());
      }
      return Optional.empty();
    }
  }

  /**
   * A device was switched off or on: its sender detaches it, or takes it up again; the other nodes
   * are told.
   */
  void deviceChanged(Device device) {
    deviceChangedHere(device);
    signals.publish(NodeSignals.Topic.DEVICE, device.id());
  }

  private void deviceChangedHere(Device device) {
    DeviceSender s = senders.get(device.id());
    if (s != null) {
      s.deviceChanged(device);
    } else if (!device.disabled()) {
      senderOf(device.id()); // its queue may hold what waited while it was off
    }
  }

  /**
   * A device was deleted: its sender here stops at once (after the send in progress) and detaches
   * it from its driver, its queue ends, and the other nodes are told to do the same.
   */
  void deviceDeleted(Device device) {
    deviceDeletedHere(device.id());
    signals.publish(NodeSignals.Topic.DEVICE, device.id());
  }

  private void deviceDeletedHere(long deviceId) {
    DeviceSender s = senders.get(deviceId);
    if (s != null) {
      s.deviceDeleted();
      s.awaitStop(Instant.now().plus(SHUTDOWN_GRACE));
    }
    endQueueOfDeleted(deviceId); // no sender here: what waits in the queue ends all the same
  }

  /**
   * Fails what a deleted device still has queued ({@code pending}, never handed to its driver) with
   * {@link FailureReason#DEVICE_DELETED}, and tells the sync callers waiting on it. Called by the
   * device's sender once it stopped, and by whoever deleted it; the second finds nothing left.
   */
  private void endQueueOfDeleted(long deviceId) {
    senders.computeIfPresent(deviceId, (id, s) -> s.deleted() ? null : s);
    int ended = 0;
    while (true) {
      List<Long> queued = stores.queue().pendingIds(deviceId, DELETE_BATCH);
      java.util.Set<Long> failed =
          stores.outcomes().withdraw(queued, FailureReason.DEVICE_DELETED, clock.instant());
      failed.forEach(id -> outcomes.report(id, SendResult.FAILED));
      ended += failed.size();
      if (failed.isEmpty()) {
        break;
      }
    }
    if (ended > 0) {
      try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
        log.info("device {} deleted: {} queued message(s) failed", deviceId, ended);
      }
    }
  }

  private static final int DELETE_BATCH = 500;

  /** A device became able, or unable, to send. */
  void connectionChanged(long deviceId, boolean connected) {
    DeviceSender s = senders.get(deviceId);
    if (s != null && connected) {
      s.wakes().connectionRestored();
    } else if (s != null) {
      s.wake();
    }
  }

  /**
   * Stops every sender after its send in progress, all at once and within one deadline, so that a
   * hung driver cannot hold shutdown up device by device; queued messages stay stored as pending.
   */
  @Override
  public void close() {
    synchronized (senders) {
      closed = true;
    }
    senders.values().forEach(DeviceSender::requestStop);
    Instant deadline = Instant.now().plus(SHUTDOWN_GRACE);
    senders.values().forEach(s -> s.awaitStop(deadline));
    // The other nodes are told once the leases are released, so that they take them at once.
    Instant releasedBy = Instant.now().plus(RELEASE_GRACE);
    for (DeviceSender s : senders.values()) {
      try {
        s.released()
            .get(
                Math.max(1, Duration.between(Instant.now(), releasedBy).toMillis()),
                TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        break; // the database is slow or gone: the leases run out instead
      }
    }
    ownership.close(); // the leases are released: the other nodes are told to take them now
  }
}
