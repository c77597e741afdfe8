package io.kurir.schedule;

import io.kurir.logging.RepeatingFailure;
import io.kurir.media.FetchResult;
import io.kurir.media.MediaFiles;
import io.kurir.media.SafeFetcher;
import io.kurir.message.MediaRef;
import io.kurir.message.Messages;
import io.kurir.message.Messages.GuardedSend;
import io.kurir.message.Recipient;
import io.kurir.message.SendRefused;
import io.kurir.message.SendRequest;
import io.kurir.store.Database;
import io.kurir.tenant.Device;
import io.kurir.tenant.TenantException;
import io.kurir.tenant.Tenants;
import io.kurir.time.Wakeable;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends schedules when they are due: it sleeps until the earliest waiting schedule is due (or until
 * woken by a new one or a clock change), then hands every due schedule to the message pipeline,
 * where pacing, ordering and offline queues apply as to any message.
 *
 * <p>Exactly once: a schedule becomes a message in the transaction that moves it out of {@code
 * waiting} (or out of this runner's claim, for one whose file had to be fetched), guarded in SQL.
 * However many runners share the database, and whatever crashes in between, a schedule is either
 * still waiting or handed over with its message, never both and never twice.
 *
 * <p>One schedule never holds back the others: one whose device cannot send (disabled, deleted, its
 * license switched off or expired, its driver not loaded) fails with the reason, and one whose
 * hand-over the database refuses holds back only its own device for a while and is tried again.
 *
 * <p>Thread-safe; one runner per gateway.
 */
public final class ScheduleRunner implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ScheduleRunner.class);

  /** Schedules handed over per transaction. */
  private static final int BATCH = 500;

  /** Images and files fetched at once. */
  private static final int PARALLEL_FETCHES = 16;

  /**
   * The longest sleep: schedules written by another node sharing the database do not wake this one,
   * and expired claims of a node that died are given back this often.
   */
  private static final Duration MAX_SLEEP = Duration.ofSeconds(30);

  /**
   * The first wait of a device whose hand-over the database refused; it doubles each time. Longer
   * than the first wait after a failed pass ({@link RepeatingFailure#FIRST_WAIT}), so that the pass
   * after a failed one goes on to other devices.
   */
  private static final Duration FIRST_HOLD = Duration.ofSeconds(2);

  private static final Duration LONGEST_HOLD = Duration.ofMinutes(1);

  /** Devices refused one after another after which the database, not they, is at fault. */
  private static final int REFUSED_IN_A_ROW = 3;

  private final ScheduleStore store;
  private final java.util.function.Consumer<Duration> lateness;
  private final Messages messages;
  private final Tenants tenants;
  private final SafeFetcher fetcher;
  private final MediaFiles files;
  private final Clock clock;
  private final int node;
  private final Duration claimFor;
  private final long maxKb;
  private final SecureRandom tokens = new SecureRandom();
  private final Semaphore fetchSlots = new Semaphore(PARALLEL_FETCHES);

  /** Devices with an image or file being fetched: their later schedules wait for it. */
  private final Set<Long> fetching = ConcurrentHashMap.newKeySet();

  /**
   * Devices whose schedules the database refused to hand over, each with when (in real time: this
   * is a retry of a fault, not a business time) it is tried again. Runner thread only.
   */
  private final Map<Long, Hold> held = new HashMap<>();

  private record Hold(int times, Instant until) {}

  /** The refusals of held devices, told once while they repeat; runner thread only. */
  private final Map<Long, RepeatingFailure> refusals = new HashMap<>();

  private final ExecutorService fetches = Executors.newVirtualThreadPerTaskExecutor();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition woken = lock.newCondition();
  private boolean wakeRequested;
  private volatile boolean stopping;
  private Thread thread;
  // Failed passes, told once while they repeat, and the wait before the next; runner thread only.
  private final RepeatingFailure failures;

  /**
   * @param lateness told how long after its time each due schedule was taken up (the gateway's
   *     metrics); on the runner's thread, so it must be quick
   */
  public ScheduleRunner(
      Database db,
      Messages messages,
      Tenants tenants,
      SafeFetcher fetcher,
      MediaFiles files,
      Clock clock,
      int node,
      long maxKb,
      java.util.function.Consumer<Duration> lateness) {
    this.lateness = lateness;
    this.store = new ScheduleStore(db);
    this.messages = messages;
    this.tenants = tenants;
    this.fetcher = fetcher;
    this.files = files;
    this.clock = clock;
    this.node = node;
    // A claim outlives the fetch it covers: only a node that died leaves one to expire.
    this.claimFor = fetcher.timeout().plus(Duration.ofMinutes(1));
    this.maxKb = maxKb;
    this.failures = new RepeatingFailure(log, "the scheduler's pass", clock);
    Wakeable.wakeOnClockChange(clock, this::wake);
  }

  /** Starts sending: first whatever fell due while the gateway was stopped. */
  public void start() {
    int released = store.releaseClaims(clock.instant(), Optional.of(node));
    if (released > 0) {
      log.info("{} schedule(s) claimed before the last stop wait again", released);
    }
    thread = Thread.ofVirtual().name("kurir-scheduler").start(this::run);
  }

  /** Makes the runner look again now: a schedule was added, or the clock moved. */
  public void wake() {
    lock.lock();
    try {
      wakeRequested = true;
      woken.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void run() {
    Instant lastRelease = Instant.now();
    while (!stopping) {
      // Read before the pass: the wait after a failed one counts from here.
      Instant started = clock.instant();
      try {
        if (Duration.between(lastRelease, Instant.now()).compareTo(MAX_SLEEP) >= 0) {
          store.releaseClaims(clock.instant(), Optional.empty());
          lastRelease = Instant.now();
        }
        boolean more = pass();
        failures.succeeded();
        if (more) {
          continue; // more may be due
        }
        sleepUntilDue();
      } catch (RuntimeException e) {
        if (stopping) {
          break;
        }
        // Told once while it repeats (a database that will not write fails every pass alike).
        pauseUntil(started.plus(failures.failed(e)));
      }
    }
  }

  /**
   * Hands over what is due now, in due order per device; true when it did something and should look
   * again at once.
   *
   * <p>A device whose image or file is being fetched is skipped until the fetch is done, so that
   * what it scheduled later (text included) cannot overtake it, and so is a device held back after
   * a refused hand-over. Texts go over in one transaction; each image or file is claimed and
   * fetched on its own thread.
   */
  private boolean pass() {
    Instant now = clock.instant();
    Set<Long> blocked = new HashSet<>(fetching);
    blocked.addAll(heldNow());
    List<Schedule> texts = new ArrayList<>();
    boolean progress = false;
    for (Schedule s : store.due(now, blocked, BATCH)) {
      if (blocked.contains(s.deviceId()) || isHeld(s.deviceId())) {
        continue; // behind an earlier image or file of its device, or one refused in this pass
      }
      if (s.url().isEmpty()) {
        texts.add(s);
      } else {
        blocked.add(s.deviceId()); // whether fetched now or later, what follows waits for it
        if (!texts.isEmpty()) {
          progress |= handOverTexts(texts); // what came before it goes first
          texts.clear();
        }
        progress |= claimAndFetch(s, now);
      }
    }
    if (!texts.isEmpty()) {
      progress |= handOverTexts(texts);
    }
    return progress;
  }

  /**
   * Hands due texts over. A schedule that can never be sent (its device cannot send, or its text is
   * too long for the pipeline) fails with the reason, alone; the others go on.
   */
  private boolean handOverTexts(List<Schedule> due) {
    Instant now = clock.instant();
    due.forEach(s -> lateness.accept(Duration.between(s.dueAt(), now)));
    Map<Long, Usability> devices = new HashMap<>();
    Map<Long, List<GuardedSend>> sends = new LinkedHashMap<>(); // per device, in due order
    for (Schedule s : due) {
      Usability usability = devices.computeIfAbsent(s.deviceId(), this::usability);
      if (usability.device().isEmpty()) {
        store.fail(s.id(), Optional.empty(), usability.refusal(), clock.instant());
      } else if (s.body().length() > Messages.MAX_TEXT_LENGTH) {
        store.fail(s.id(), Optional.empty(), "message_too_long", clock.instant());
      } else {
        sends
            .computeIfAbsent(s.deviceId(), id -> new ArrayList<>())
            .add(send(usability.device().get(), s, Optional.empty(), Optional.empty()));
      }
    }
    if (!sends.isEmpty()) {
      handOver(sends);
    }
    return true;
  }

  /**
   * Hands the sends over in one transaction. If the database refuses it, each device's sends are
   * tried alone, so that a row the database refuses holds back its own device only: that device
   * waits ({@link #hold}), its schedules still waiting, and is tried again. When {@link
   * #REFUSED_IN_A_ROW} devices are refused one after another, the database refuses everything: the
   * pass ends and is tried again shortly. Nothing is failed for a refusal of the database.
   */
  private void handOver(Map<Long, List<GuardedSend>> byDevice) {
    try {
      messages.acceptGuarded(byDevice.values().stream().flatMap(List::stream).toList());
      byDevice.keySet().forEach(this::handedOver);
      return;
    } catch (SendRefused stopping) {
      throw stopping; // everything waits for the next start
    } catch (RuntimeException e) {
      if (byDevice.size() == 1) {
        hold(byDevice.keySet().iterator().next(), e);
        return;
      }
      log.warn("{} devices' schedules were refused together; trying each alone", byDevice.size());
    }
    int refusedInARow = 0;
    for (Map.Entry<Long, List<GuardedSend>> device : byDevice.entrySet()) {
      try {
        messages.acceptGuarded(device.getValue());
        handedOver(device.getKey());
        refusedInARow = 0;
      } catch (SendRefused stopping) {
        throw stopping;
      } catch (RuntimeException e) {
        hold(device.getKey(), e);
        if (++refusedInARow == REFUSED_IN_A_ROW) {
          throw new IllegalStateException(
              "the database refused the schedules of " + refusedInARow + " devices in a row", e);
        }
      }
    }
  }

  /**
   * Holds a device's schedules back after a refused hand-over, longer each time in a row; told once
   * while the same refusal repeats (then DEBUG), and once when its hand-over works again.
   */
  private void hold(long deviceId, RuntimeException why) {
    Hold before = held.get(deviceId);
    int times = before == null ? 1 : before.times() + 1;
    Duration wait = min(FIRST_HOLD.multipliedBy(1L << Math.min(times - 1, 16)), LONGEST_HOLD);
    held.put(deviceId, new Hold(times, Instant.now().plus(wait)));
    try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
      refusals
          .computeIfAbsent(
              deviceId,
              id ->
                  // Real time, as the hold itself: a retry of a fault, not a business time.
                  new RepeatingFailure(
                      log, "the hand-over of device " + id + "'s schedules", Clock.systemUTC()))
          .failed(why, wait);
    }
  }

  /** The device's schedules were handed over: no longer held, and told if they were. */
  private void handedOver(long deviceId) {
    held.remove(deviceId);
    RepeatingFailure refused = refusals.remove(deviceId);
    if (refused != null) {
      try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
        refused.succeeded();
      }
    }
  }

  private boolean isHeld(long deviceId) {
    Hold hold = held.get(deviceId);
    return hold != null && hold.until().isAfter(Instant.now());
  }

  /**
   * The devices held back now. A hold that ended long ago without a hand-over since (its schedules
   * were removed meanwhile) is forgotten.
   */
  private Set<Long> heldNow() {
    Instant now = Instant.now();
    held.values().removeIf(h -> h.until().plus(LONGEST_HOLD).isBefore(now));
    Set<Long> ids = new HashSet<>();
    held.forEach(
        (id, h) -> {
          if (h.until().isAfter(now)) {
            ids.add(id);
          }
        });
    return ids;
  }

  private GuardedSend send(
      Device device, Schedule s, Optional<MediaRef> media, Optional<Long> claimToken) {
    SendRequest request =
        new SendRequest(
            List.of(Recipient.number(s.target())),
            s.apiType().kind(),
            s.body(),
            "eco.scheduler",
            false,
            false,
            Duration.ZERO,
            media);
    return new GuardedSend(
        device,
        request,
        (tx, messageId) -> ScheduleStore.hand(tx, s.id(), claimToken, messageId, clock.instant()));
  }

  /** A device that may send today, or why it may not. */
  private record Usability(Optional<Device> device, String refusal) {}

  // A disabled device or an expired license does not send what it scheduled before, nor a device
  // whose driver this gateway has not loaded: the schedule fails with the reason. A failure to read
  // (the database) is not a TenantException and fails the pass instead, which is tried again.
  private Usability usability(long deviceId) {
    try {
      Device device = tenants.usableDevice(deviceId);
      if (!tenants.driverLoaded(device)) {
        return new Usability(Optional.empty(), "driver_not_loaded");
      }
      return new Usability(Optional.of(device), null);
    } catch (TenantException e) {
      String refusal =
          switch (e.reason()) {
            case EXPIRED -> "license_expired";
            case DISABLED -> "device_disabled";
            default -> "device_not_found";
          };
      return new Usability(Optional.empty(), refusal);
    }
  }

  /** Claims and starts fetching a due image or file; false when every fetch slot is busy. */
  private boolean claimAndFetch(Schedule s, Instant now) {
    if (!fetchSlots.tryAcquire()) {
      return false;
    }
    long token = tokens.nextLong();
    if (!store.claim(s.id(), token, node, now.plus(claimFor), now)) {
      fetchSlots.release(); // removed, or another node took it
      return true;
    }
    lateness.accept(Duration.between(s.dueAt(), now));
    fetching.add(s.deviceId());
    fetches.submit(
        () -> {
          try {
            fetchAndHandOver(s, token);
          } catch (RuntimeException e) {
            // The claim stays and expires: the schedule waits again and is retried.
            try (var ids = io.kurir.logging.LogIds.schedule(s.deviceId(), s.id())) {
              log.error("schedule {} could not be handed over", s.id(), e);
            }
          } finally {
            fetching.remove(s.deviceId());
            fetchSlots.release();
            wake();
          }
        });
    return true;
  }

  private void fetchAndHandOver(Schedule s, long token) {
    Optional<Long> claim = Optional.of(token);
    String url = s.url().orElseThrow();
    FetchResult fetched = fetcher.fetch(url);
    if (stopping) {
      return; // cut short by the stop, not the URL's fault: the claim is released at next start
    }
    String failure =
        switch (fetched) {
          case FetchResult.BadUrl bad -> "url_not_valid: " + bad.why();
          case FetchResult.TooLarge tooLarge -> "file_more_than_" + maxKb + "KB";
          case FetchResult.Unreachable unreachable -> "url_unreachable: " + unreachable.why();
          case FetchResult.Fetched ok ->
              s.apiType().isImage() && !ok.file().isImage() ? "image_not_found" : null;
        };
    if (failure != null) {
      try (var ids = io.kurir.logging.LogIds.schedule(s.deviceId(), s.id())) {
        log.info("schedule {} failed: {}", s.id(), failure);
      }
      store.fail(s.id(), claim, failure, clock.instant());
      return;
    }
    Usability usability = usability(s.deviceId());
    if (usability.device().isEmpty()) {
      store.fail(s.id(), claim, usability.refusal(), clock.instant());
      return;
    }
    Device device = usability.device().get();
    MediaRef media = files.keep(((FetchResult.Fetched) fetched).file());
    try {
      messages.acceptGuarded(List.of(send(device, s, Optional.of(media), claim)));
    } catch (SendRefused e) {
      // Stopping: the claim is given back at the next start.
    }
  }

  private void sleepUntilDue() {
    Set<Long> heldNow = heldNow();
    Optional<Instant> next = store.nextDue(heldNow);
    Duration wait = MAX_SLEEP;
    if (next.isPresent()) {
      Duration untilDue = Duration.between(clock.instant(), next.get());
      if (untilDue.isNegative() || untilDue.isZero()) {
        // Due already. Either it fell due since the pass looked (then look again at once), or it
        // waits for a fetch in progress (of its device, or for a free slot), whose end wakes us.
        wait = fetching.isEmpty() ? Duration.ZERO : MAX_SLEEP;
      } else {
        wait = min(untilDue, MAX_SLEEP);
      }
    }
    for (long device : heldNow) { // look again when the first hold ends
      Duration untilRelease = Duration.between(Instant.now(), held.get(device).until());
      wait = min(wait, untilRelease.isNegative() ? Duration.ZERO : untilRelease);
    }
    if (wait.isZero()) {
      return;
    }
    lock.lock();
    try {
      long nanos = wait.toNanos();
      while (!wakeRequested && !stopping && nanos > 0) {
        nanos = woken.awaitNanos(nanos);
      }
      wakeRequested = false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopping = true;
    } finally {
      lock.unlock();
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) < 0 ? a : b;
  }

  /**
   * A pause until {@code due} on the injected clock (a moved settable clock wakes it to look) that
   * wakes do not cut short: after an error, requests must not make it spin. A stop ends it.
   */
  private void pauseUntil(Instant due) {
    lock.lock();
    try {
      long left = Duration.between(clock.instant(), due).toNanos();
      while (!stopping && left > 0) {
        woken.awaitNanos(Math.min(left, MAX_SLEEP.toNanos()));
        left = Duration.between(clock.instant(), due).toNanos();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopping = true;
    } finally {
      lock.unlock();
    }
  }

  /** Stops after the pass in progress; fetches in progress end, their claims are released later. */
  @Override
  public void close() {
    stopping = true;
    wake();
    fetches.shutdownNow(); // fetches in progress end now and leave their claims
    try {
      if (thread != null) {
        thread.join(Duration.ofSeconds(15));
      }
      // Before the database closes: a fetch that ends must find it open.
      fetches.awaitTermination(15, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
