package io.kurir.message;

import io.kurir.logging.RepeatingFailure;
import io.kurir.store.Database;
import io.kurir.store.NodeSignals;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which devices this node sends for, when several nodes share one database. Each device is owned
 * through its lease ({@link Leases}); this keeps the node's leases alive and decides which others
 * it takes:
 *
 * <ul>
 *   <li>every {@link #RENEW_EVERY} it renews the leases it holds, which last {@link #LEASE_TTL};
 *   <li>every {@link #WATCH_EVERY}, or at once when another node signals that it gave leases up, it
 *       looks at every switched-on device's lease: one that is free, expired, or this node's own
 *       from an earlier run is offered to this node's sender of that device ("permitted"), up to
 *       this node's fair share, {@code ceil(devices / live nodes)}; one nobody took for {@link
 *       #STRAGGLER_AFTER} is taken whatever the share;
 *   <li>a node holding more than its share (a node joined) hands the excess over, one clean release
 *       each, so that the newcomer takes them at once;
 *   <li>a lease this node's sender thinks it holds but the table gives to another (it expired while
 *       this node was cut off) is let go of at once.
 * </ul>
 *
 * <p>A sender tries the lease when it starts, and afterwards only when permitted: a sender that
 * waits for a lease costs no database write, however many sends it is woken by.
 *
 * <p>Thread-safe.
 */
final class DeviceOwnership implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DeviceOwnership.class);

  /**
   * How long a lease lasts without renewal: a node that dies has its devices taken over this long
   * after its last renewal, so sending resumes on another node within {@code LEASE_TTL +
   * WATCH_EVERY} (16 s) of its death, and at worst {@code RENEW_EVERY} earlier.
   */
  static final Duration LEASE_TTL = Duration.ofSeconds(15);

  /** Renewals per lease time: two may fail (a slow commit) before a lease runs out. */
  static final Duration RENEW_EVERY = LEASE_TTL.dividedBy(3);

  /** How often the leases are looked at for devices to take. */
  static final Duration WATCH_EVERY = Duration.ofSeconds(1);

  /** A free lease nobody took for this long is taken whatever this node's share. */
  static final Duration STRAGGLER_AFTER = Duration.ofSeconds(3);

  /**
   * A node whose renewals have not committed for this long stops claiming messages: its leases may
   * run out before it could send them.
   */
  static final Duration FRESH_FOR = LEASE_TTL.minus(Duration.ofSeconds(3));

  /** A device this node let go of is not offered back to it for this long. */
  static final Duration COOL_OFF = Duration.ofSeconds(3);

  /** The number of the {@code LEASES} signal a stopping node sends. */
  static final long STOPPING = -1;

  /** How long hand-overs pause after a device handed over came back: nobody else took it. */
  static final Duration HAND_OFF_PAUSE = Duration.ofMinutes(1);

  /** This node's senders, by device id. */
  interface Senders {
    Map<Long, DeviceSender> all();

    /** The device's sender, started if needed; empty when it cannot run here. */
    Optional<DeviceSender> start(long deviceId);
  }

  private final Database db;
  private final Leases leases;
  private final Clock clock;
  private final Senders senders;
  private final Runnable alsoEveryRenewal;
  private final Set<Long> permitted = ConcurrentHashMap.newKeySet();
  private final Map<Long, Long> coolingUntilNanos = new ConcurrentHashMap<>();
  private final Map<Long, Long> freeSinceNanos = new HashMap<>(); // watcher-only
  private final Semaphore lookNow = new Semaphore(0);
  private volatile long renewedNanos = System.nanoTime();
  // A node stopped cleanly: it still counts as live until its lock is gone, so its devices are
  // taken at the next look whatever the share.
  private volatile boolean nodeStopped;
  private long handOffPausedUntilNanos = System.nanoTime(); // watcher-only
  private long lastReported; // watcher-only: a node that sends for nothing says nothing
  private volatile boolean closed;
  private Thread renewer;
  private Thread watcher;
  // Failures of the two loops, told once while they repeat (docs/decisions.md, "Failures that
  // repeat"). Their pace does not back off: renewals that slowed down would let every lease run
  // out, and a device that waits for a look waits for the next one. Each loop's own.
  private final RepeatingFailure renewals;
  private final RepeatingFailure looks;

  DeviceOwnership(
      Database db, Leases leases, Clock clock, Senders senders, Runnable alsoEveryRenewal) {
    this.db = db;
    this.leases = leases;
    this.clock = clock;
    this.senders = senders;
    this.alsoEveryRenewal = alsoEveryRenewal;
    this.renewals = RepeatingFailure.atFixedPace(log, "lease renewal", clock, RENEW_EVERY);
    this.looks = RepeatingFailure.atFixedPace(log, "the lease watch", clock, WATCH_EVERY);
    // A test's clock that moves is a reason to look at once (a device given up after a failed
    // attach is offered again when its wait has passed on that clock); real time looks every
    // second.
    io.kurir.time.Wakeable.wakeOnClockChange(clock, lookNow::release);
  }

  /**
   * Looks at the leases once (so that this node's own leases from an earlier run and its share of
   * free ones are permitted before any sender starts), then keeps renewing and looking.
   */
  synchronized void start() {
    if (renewer != null) {
      return;
    }
    renewer = Thread.ofVirtual().name("lease-renewer").unstarted(this::renewLoop);
    renewedNanos = System.nanoTime(); // the leases are renewed from now on
    try {
      look(false); // quiet: the gateway's first line says where it listens
    } catch (RuntimeException e) { // the watcher looks again in a second
      log.warn("lease watch failed: {}", e.toString());
    }
    db.signals()
        .subscribe(
            NodeSignals.Topic.LEASES,
            id -> {
              if (id == STOPPING) {
                nodeStopped = true;
              }
              lookNow.release();
            });
    renewer.start();
    watcher = Thread.ofVirtual().name("lease-watcher").start(this::watchLoop);
  }

  /** Whether the device's sender may try to take its lease now (once per permit). */
  boolean mayTake(long deviceId) {
    return permitted.remove(deviceId);
  }

  /**
   * Whether this node's renewals are recent enough to claim messages: a node cut off from the
   * database stops sending before its leases can have run out, so that a node taking one over never
   * sends beside it.
   */
  boolean leasesFresh() {
    return System.nanoTime() - renewedNanos < FRESH_FOR.toNanos();
  }

  /** The device's sender took its lease: a permit left over is spent. */
  void took(long deviceId) {
    permitted.remove(deviceId);
  }

  /**
   * This node let go of the device: with {@code coolOff} (handed over, lost) not offered back to it
   * for a while; when {@code released}, the other nodes are told. A lost lease tells the new owner
   * to look at the queue: until its sender saw the loss, messages accepted here woke only it.
   */
  void letGo(long deviceId, boolean released, boolean coolOff) {
    if (coolOff) {
      coolingUntilNanos.put(deviceId, System.nanoTime() + COOL_OFF.toNanos());
    }
    if (released) {
      db.signals().publish(NodeSignals.Topic.LEASES, deviceId);
    } else if (coolOff) {
      db.signals().publish(NodeSignals.Topic.WORK, deviceId);
    }
  }

  private void renewLoop() {
    while (!closed) {
      try {
        Thread.sleep(RENEW_EVERY);
        long started = System.nanoTime();
        leases.renewAll(clock.instant());
        renewedNanos = started;
        renewals.succeeded();
        alsoEveryRenewal.run();
      } catch (InterruptedException e) {
        return;
      } catch (Throwable e) { // the loop outlives any failure, or every lease would run out
        renewals.failed(e); // told once while it repeats; the pace stays (see renewals)
      }
    }
  }

  private void watchLoop() {
    while (!closed) {
      try {
        lookNow.tryAcquire(WATCH_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        lookNow.drainPermits();
        if (!closed) {
          look(true);
          looks.succeeded();
        }
      } catch (InterruptedException e) {
        return;
      } catch (Throwable e) { // a failed look is tried again; devices wait meanwhile
        looks.failed(e); // told once while it repeats; looked at again at the usual pace
      }
    }
  }

  /** One look at every switched-on device's lease; see the class comment. */
  private void look(boolean report) {
    // Who held a lease before the table was read: only they can be judged to have lost it (a lease
    // taken after the read would look free in it).
    Set<Long> holdingBefore = new HashSet<>();
    senders
        .all()
        .forEach(
            (id, s) -> {
              if (s.holdsLease()) {
                holdingBefore.add(id);
              }
            });
    long now = clock.millis();
    List<LeaseStore.Row> rows = leases.devicesWithLeases();
    int live = db.liveNodes();
    int share = (rows.size() + live - 1) / live;
    Map<Long, DeviceSender> mine = senders.all();
    long nowNanos = System.nanoTime();
    coolingUntilNanos.values().removeIf(until -> until - nowNanos < 0);
    Set<Long> held = new HashSet<>();
    List<Long> ownFromBefore = new ArrayList<>();
    List<Long> takeable = new ArrayList<>();
    for (LeaseStore.Row l : rows) {
      boolean own = leases.owner().equals(l.owner());
      boolean expired = l.owner() == null || l.expiresAt() < now;
      DeviceSender s = mine.get(l.deviceId());
      boolean holding = s != null && s.holdsLease();
      if (own && (!expired || holding)) {
        // Held, also when it looks run out: this node's renewals say whether it may send
        // (leasesFresh), and another node that takes it over changes its owner first.
        held.add(l.deviceId());
        if (!holding) {
          ownFromBefore.add(l.deviceId()); // this node's earlier run: taken back at once
        }
      } else if (!own && holdingBefore.contains(l.deviceId())) {
        s.leaseLost(); // another node took it while this one was cut off: it must not send
      } else if (expired && !holding) {
        takeable.add(l.deviceId());
      }
    }
    for (long deviceId : ownFromBefore) {
      permitted.add(deviceId);
      senders.start(deviceId).ifPresent(DeviceSender::wake);
    }
    freeSinceNanos.keySet().retainAll(new HashSet<>(takeable));
    int count = held.size();
    boolean afterAStop = nodeStopped;
    nodeStopped = false;
    for (long deviceId : takeable) {
      long freeSince = freeSinceNanos.computeIfAbsent(deviceId, id -> nowNanos);
      boolean straggler = afterAStop || nowNanos - freeSince > STRAGGLER_AFTER.toNanos();
      if (coolingUntilNanos.containsKey(deviceId) && !straggler) {
        continue;
      }
      if (count < share || straggler) {
        if (count >= share && !afterAStop) {
          // Nobody else took it: a node that counts as live is not taking its share (still
          // starting, or stuck). Handing over more now would only bounce devices back and forth.
          handOffPausedUntilNanos = nowNanos + HAND_OFF_PAUSE.toNanos();
        }
        count++;
        permitted.add(deviceId);
        senders.start(deviceId).ifPresent(DeviceSender::wake);
      }
    }
    if (report) {
      reportShare(mine, rows.size(), live);
    }
    boolean noneFree = takeable.isEmpty(); // a device given up earlier has been taken
    if (live > 1 && held.size() > share && noneFree && nowNanos - handOffPausedUntilNanos > 0) {
      handOverExcess(mine, held, held.size() - share);
    }
  }

  /**
   * Says in the log when the number of devices this node sends for changes: an operator (or the
   * two-node demo) watches the nodes share the work and one take over.
   */
  private void reportShare(Map<Long, DeviceSender> mine, int devices, int live) {
    long holding = mine.values().stream().filter(DeviceSender::holdsLease).count();
    if (holding != lastReported) {
      lastReported = holding;
      log.info(
          "{}: sends for {} of {} device(s); {} node(s) live on the database",
          leases.owner(),
          holding,
          devices,
          live);
    }
  }

  /** Asks the senders of the {@code excess} newest devices this node holds to hand them over. */
  private void handOverExcess(Map<Long, DeviceSender> mine, Set<Long> held, int excess) {
    List<Long> newestFirst = new ArrayList<>(held);
    newestFirst.sort(java.util.Comparator.reverseOrder());
    for (long deviceId : newestFirst) {
      if (excess <= 0) {
        return;
      }
      DeviceSender s = mine.get(deviceId);
      if (s != null && s.holdsLease()) {
        log.info(
            "device {}: handed over to another node (this node holds more than its share)",
            deviceId);
        s.handOff();
        excess--;
      }
    }
  }

  /** Stops renewing and looking; the senders have released their leases by now: others are told. */
  @Override
  public void close() {
    closed = true;
    for (Thread t : new Thread[] {renewer, watcher}) {
      if (t != null) {
        t.interrupt();
      }
    }
    db.signals().publish(NodeSignals.Topic.LEASES, STOPPING);
  }
}
