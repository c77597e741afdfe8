package io.kurir.webhook;

import io.kurir.logging.RepeatingFailure;
import io.kurir.media.SafeFetcher;
import io.kurir.store.Database;
import io.kurir.store.Transaction;
import io.kurir.time.Wakeable;
import io.kurir.webhook.WebhookSender.Outcome;
import io.kurir.webhook.WebhookStore.Attempted;
import io.kurir.webhook.WebhookStore.Delivery;
import io.kurir.webhook.WebhookStore.Line;
import io.kurir.webhook.WebhookStore.Window;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable webhook outbox. An event is stored in the same transaction as the change it reports
 * ({@link #add}); this loop delivers it as a signed JSON POST ({@link WebhookSender}). A 2xx answer
 * ends it; a 4xx other than 408 and 429 ends it as {@code failed}; anything else (timeouts, 5xx,
 * refused connections) is tried again with exponential backoff and jitter until {@code retryFor}
 * has passed since the event, then it is {@code dead}.
 *
 * <p>Never twice at once: a delivery is claimed in the database (a guarded UPDATE with a random
 * token and an expiry) before it is sent, and only the holder of the claim records the outcome. A
 * claim left by a node that stopped mid-attempt is given back when the node starts again, or taken
 * by another once it expires.
 *
 * <p>Order, per device and receiving URL: one attempt at a time, oldest event first. An event that
 * fails keeps its place for {@link #HOLD} after its first failed attempt, then the events behind it
 * go on while it is retried on its own; the statuses of one message always go in order.
 *
 * <p>Thread-safe; one loop per gateway (several gateways on one database may each run one).
 */
public final class WebhookOutbox implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WebhookOutbox.class);
  private static final Duration FIRST_BACKOFF = Duration.ofSeconds(10);
  private static final Duration MAX_BACKOFF = Duration.ofHours(1);
  private static final Duration IDLE_RECHECK = Duration.ofSeconds(30);
  private static final Duration EMPTY_PASS_GAP = Duration.ofMillis(5);

  /**
   * How long an event that keeps failing holds back the later events to its URL, from the end of
   * its first failed attempt. It is tried twice more meanwhile (10-12 s and 30-36 s after that
   * failure), so a receiver back within half a minute gets everything in order.
   */
  static final Duration HOLD = Duration.ofMinutes(1);

  /**
   * How long delivered events are kept (for operators' lists) before they are deleted; failed and
   * dead ones are kept until replayed or removed by an operator.
   */
  static final Duration KEEP_DELIVERED = Duration.ofDays(7);

  private static final Duration PRUNE_EVERY = Duration.ofHours(1);
  private static final int PRUNE_BATCH = 5000;

  /** Attempts under way at once (each to a different device or receiver). */
  static final int MAX_IN_FLIGHT = 64;

  /** Events one line may have delivered in a row before it lets the others have its slot. */
  static final int EVENTS_PER_TURN = 32;

  /**
   * Deliveries of one line claimed together (its first that may go and those right behind it),
   * posted one after the other, and recorded in one commit with the claim of the line's next batch:
   * a line's events wait for a commit once per batch instead of once each.
   */
  static final int BATCH = 16;

  /** Lines (devices' URLs with pending events) looked at in one query, at most. */
  private static final int MAX_LINES_PER_LOOK = 256;

  private final WebhookStore store;
  private final java.util.function.Consumer<String> attemptOutcomes;
  private final WebhookSender sender;
  private final Clock clock;
  private final Duration retryFor;
  private final Duration timeout;
  private final Duration claimFor;
  private final int node;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private volatile boolean running = true;
  private final Set<Line> inFlight = ConcurrentHashMap.newKeySet();
  private Line cursor = Line.START; // the line the last pass started last; loop thread only
  private final ExecutorService deliveries = Executors.newVirtualThreadPerTaskExecutor();
  private final AtomicLong attemptsMade = new AtomicLong();
  private boolean signalled; // guarded by lock
  private boolean nothingDue; // the loop's own: whether its last pass found nothing due
  private boolean nonePending; // the loop's own: whether its last pass found no delivery waiting
  private long lastPruneNanos;
  private Thread thread;
  private final io.kurir.store.SecretBox secrets;
  // Failed passes, told once while they repeat, and the wait before the next; loop thread only.
  private final RepeatingFailure failures;

  /**
   * @param timeout the deadline of one attempt, everything included
   * @param node this gateway's node id: its claims carry it
   */
  /**
   * @param attemptOutcomes told how each attempt ended (the gateway's metrics): {@code delivered},
   *     {@code retry} (failed, tried again later), {@code failed} (refused for good) or {@code
   *     dead} (failed for {@code webhook.retry-for}); on the outbox's threads, so it must be quick
   */
  public WebhookOutbox(
      Database db,
      Clock clock,
      SafeFetcher targets,
      Duration retryFor,
      Duration timeout,
      int node,
      java.util.function.Consumer<String> attemptOutcomes) {
    this.attemptOutcomes = attemptOutcomes;
    this.store = new WebhookStore(db);
    this.secrets = db.secrets();
    this.sender = new WebhookSender(clock, targets, timeout);
    this.clock = clock;
    this.retryFor = retryFor;
    this.timeout = timeout;
    // A claim outlives the attempt it covers (and its record): only a node that died leaves one
    // to expire.
    this.claimFor = timeout.plus(Duration.ofMinutes(1));
    this.node = node;
    this.failures = new RepeatingFailure(log, "the webhook outbox's pass", clock);
    Wakeable.wakeOnClockChange(clock, this::wake);
  }

  /** Stores an event for delivery; call it inside the transaction of the change it reports. */
  public static void add(
      Transaction tx,
      long id,
      long deviceId,
      String url,
      String event,
      String payload,
      Instant now) {
    WebhookStore.add(tx, id, deviceId, url, event, payload, now, OptionalLong.empty());
  }

  /**
   * {@link #add} for a status of message {@code messageId}: the statuses of one message are
   * delivered in order whatever happens to the other events.
   */
  public static void addForMessage(
      Transaction tx,
      long id,
      long deviceId,
      long messageId,
      String url,
      String event,
      String payload,
      Instant now) {
    WebhookStore.add(tx, id, deviceId, url, event, payload, now, OptionalLong.of(messageId));
  }

  /**
   * Points the pending deliveries of {@code event} for a device at its new URL (its receiver was
   * fixed: what waited is delivered there, at once), or, when {@code url} is empty, ends them as
   * failed (operators can still replay them). Call it in the transaction that changes the URL.
   */
  public static void retarget(
      Transaction tx, long deviceId, String event, Optional<String> url, Instant now) {
    WebhookStore.retarget(tx, deviceId, event, url, now);
  }

  /** HMAC-SHA256 of {@code "<timestamp>.<body>"} with {@code secret}, in hex. */
  public static String sign(String secret, String timestamp, String body) {
    return WebhookSender.sign(secret, timestamp, body);
  }

  public void start() {
    int released = store.releaseClaimsOf(node);
    if (released > 0) {
      log.info("webhook outbox: {} delivery(s) claimed before the last stop wait again", released);
    }
    lastPruneNanos = System.nanoTime() - PRUNE_EVERY.toNanos(); // prune once at start
    thread = Thread.ofVirtual().name("webhook-outbox").start(this::loop);
  }

  /** Something was added, or time moved: look again now. */
  public void wake() {
    lock.lock();
    try {
      signalled = true; // a wake between the loop's look and its wait is not lost
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Attempts this outbox has made (each POST once started), for tests. */
  long attemptsMade() {
    return attemptsMade.get();
  }

  private void loop() {
    while (running) {
      try {
        pruneIfDue();
        long passStarted = System.nanoTime();
        int startedNow = startDue();
        failures.succeeded();
        if (startedNow == 0) {
          waitForWork();
          spaceEmptyPasses(passStarted);
        }
      } catch (InterruptedException e) {
        return;
      } catch (Throwable e) { // the loop outlives anything one pass runs into
        // Told once while it repeats (a database that will not answer fails every pass alike).
        // The wait counts from before the line is written: whoever reads it (a test that moves
        // the clock next) cannot move the clock before this reading.
        Instant failedAt = null;
        try {
          failedAt = clock.instant();
        } catch (RuntimeException | Error broken) {
          // the clock itself fails: the wait is in real time
        }
        Duration wait = failures.failed(e);
        try {
          pauseUntil(failedAt == null ? null : failedAt.plus(wait), wait);
        } catch (InterruptedException stop) {
          return;
        }
      }
    }
  }

  /**
   * Claims what may be attempted now and starts each on its own thread, at most one per line (a
   * device's URL: that keeps their order), so that a slow or hanging receiver holds up only its own
   * events, each attempt for the timeout at most. Lines are taken in turn from where the last pass
   * stopped, so that busy ones cannot starve the rest. How many were started.
   */
  private int startDue() {
    int free = MAX_IN_FLIGHT - inFlight.size();
    if (free <= 0) {
      nothingDue = false;
      return 0; // a finished attempt wakes the loop
    }
    // Every commit that adds an event wakes the loop, webhooks or not: with no delivery waiting at
    // all (most gateways most of the time, every benchmark row but the webhooks') one index probe
    // answers instead of the walk over the lines and the look for the next change.
    nonePending = !store.anyPending();
    if (nonePending) {
      nothingDue = true;
      return 0;
    }
    Instant now = clock.instant();
    List<Delivery> candidates = new ArrayList<>();
    Set<Line> lines = new HashSet<>();
    // From the line after the last pass's to the end, then from the first line up to it.
    Line start = cursor;
    Line after = start;
    Line until = Line.END;
    while (candidates.size() < free) {
      // Lines right after the cursor were served longest ago: mostly free again. A few more than
      // the free slots are looked at, so that a pass after one attempt ended stays cheap.
      int look = Math.min(MAX_LINES_PER_LOOK, 4 * (free - candidates.size()) + 8);
      Window w = store.eligible(now, after, until, look);
      for (Delivery d : w.candidates()) {
        // The database leaves out lines with a live claim; an attempt of this node whose claim
        // has expired meanwhile (a database that stalled, a test's clock moved hours on) is
        // still under way, and its line waits for it too.
        if (candidates.size() < free && !inFlight.contains(d.line()) && lines.add(d.line())) {
          candidates.add(d);
          cursor = d.line();
        }
      }
      if (w.lines().size() == look) {
        after = w.lines().getLast();
      } else if (until == Line.END && !start.equals(Line.START)) {
        after = Line.START;
        until = start;
      } else {
        break;
      }
    }
    nothingDue = candidates.isEmpty();
    List<List<Delivery>> claimed =
        store.claimBatches(candidates, node, now.plus(claimFor), now, BATCH);
    for (List<Delivery> batch : claimed) {
      Line line = batch.getFirst().line();
      inFlight.add(line);
      deliveries.submit(
          () -> {
            try {
              serve(batch);
            } finally {
              inFlight.remove(line);
              wake();
            }
          });
    }
    return claimed.size();
  }

  /**
   * Attempts the batch {@code first}, then, while its line has more ready and this turn lasts, the
   * next batch (claimed in the commit that records the previous one): a line with a queue costs one
   * commit per batch and no pass of the loop. A turn ends after about {@link #EVENTS_PER_TURN} so
   * that lines with long queues take turns with the rest.
   */
  private void serve(List<Delivery> first) {
    List<Delivery> batch = first;
    int sent = 0;
    while (!batch.isEmpty()) {
      sent += batch.size();
      batch = attempt(batch, running && sent < EVENTS_PER_TURN);
    }
  }

  /**
   * {@code d} with its license's signing secrets decrypted (they are stored encrypted), each
   * decrypted once per batch ({@code opened}: stored to plain; a line's deliveries share them).
   */
  private Delivery opened(Delivery d, java.util.Map<String, String> opened) {
    java.util.function.UnaryOperator<String> open = stored -> openOnce(stored, opened);
    return new Delivery(
        d.id(),
        d.deviceId(),
        d.url(),
        d.event(),
        d.payload(),
        d.attempts(),
        d.created(),
        d.eventAt(),
        d.sequence(),
        open.apply(d.secret()),
        d.previousSecret().map(open),
        d.subscriptionSecret().map(open),
        d.metaFormat(),
        d.claimToken());
  }

  private String openOnce(String stored, java.util.Map<String, String> opened) {
    return stored == null ? null : opened.computeIfAbsent(stored, secrets::open);
  }

  /**
   * The attempts of one batch of a line, in order, and their record; the line's next batch, when
   * asked for and claimed. The batch stops at its first delivery that is not delivered (the ones
   * behind it keep their order: they wait, as behind any delivery that failed), or when the outbox
   * stops; the rest are given back.
   */
  private List<Delivery> attempt(List<Delivery> batch, boolean claimNext) {
    List<Attempted> attempted = new ArrayList<>();
    java.util.Map<String, String> opened = new java.util.HashMap<>();
    int i = 0;
    while (i < batch.size() && running) {
      Delivery d = batch.get(i);
      // The batch was claimed before the deliveries ahead of this one were sent: one whose
      // webhook was removed or pointed at another URL meanwhile is no longer this batch's.
      if (i > 0 && !stillClaimed(d)) {
        break;
      }
      Optional<Outcome> outcome = post(d, opened);
      if (outcome.isEmpty()) {
        break; // stopping: the attempt was cut short, its claim is given back at the next start
      }
      i++;
      attempted.add(attempted(d, outcome.get()));
      if (outcome.get().result() != WebhookSender.Result.DELIVERED) {
        break;
      }
    }
    try {
      return record(attempted, batch.subList(i, batch.size()), claimNext && running);
    } catch (Throwable e) {
      for (Attempted a : attempted) {
        try (var ids =
            io.kurir.logging.LogIds.webhook(a.delivery().deviceId(), a.delivery().id())) {
          log.error(
              "webhook {}: cannot record its attempt ({}); its claim expires and it is tried again",
              a.delivery().id(),
              e,
              e);
        }
      }
      return List.of();
    }
  }

  /** Whether {@code d} is still this batch's to send; a database that fails says no. */
  private boolean stillClaimed(Delivery d) {
    try {
      return store.stillClaimed(d);
    } catch (RuntimeException e) {
      return false; // it is given back (or its claim expires) and tried again
    }
  }

  /** One attempt: how it ended, or nothing when the outbox is stopping and interrupted it. */
  private Optional<Outcome> post(Delivery d, java.util.Map<String, String> opened) {
    attemptsMade.incrementAndGet();
    try {
      return Optional.of(sender.post(opened(d, opened)));
    } catch (InterruptedException e) {
      return Optional.empty();
    } catch (Throwable e) { // one bad delivery must not stop the others
      try (var ids = io.kurir.logging.LogIds.webhook(d.deviceId(), d.id())) {
        log.error("webhook {}: the attempt failed ({}); it is tried again", d.id(), e, e);
      }
      return Optional.of(Outcome.failed(e.toString()));
    }
  }

  /** What an attempt's outcome records: its end, or a retry with backoff until {@code retryFor}. */
  private Attempted attempted(Delivery d, Outcome outcome) {
    Instant now = clock.instant();
    return switch (outcome.result()) {
      case DELIVERED -> Attempted.ended(d, "delivered", null);
      case REFUSED -> Attempted.ended(d, "failed", outcome.error());
      case FAILED ->
          now.isBefore(d.created().plus(retryFor))
              ? Attempted.retried(
                  d, now.plus(backoff(d.attempts() + 1)), now.plus(HOLD), outcome.error())
              : Attempted.ended(d, "dead", outcome.error());
    };
  }

  /** Records a batch's attempts and gives back the rest; the line's next batch, if claimed. */
  private List<Delivery> record(
      List<Attempted> attempted, List<Delivery> givenBack, boolean claimNext) {
    if (attempted.isEmpty() && givenBack.isEmpty()) {
      return List.of();
    }
    Instant now = clock.instant();
    WebhookStore.Recorded recorded =
        store.record(attempted, givenBack, now, claimNext ? BATCH : 0, node, now.plus(claimFor));
    for (int i = 0; i < attempted.size(); i++) {
      Attempted a = attempted.get(i);
      Delivery d = a.delivery();
      boolean ours = recorded.ours().get(i);
      attemptOutcomes.accept(a.retryAt().isPresent() ? "retry" : a.state());
      try (var ids = io.kurir.logging.LogIds.webhook(d.deviceId(), d.id())) {
        if (!ours) {
          // Its claim expired during the attempt and another took it over (or the webhook was
          // removed meanwhile): that one records it. A claim outlives an attempt, so this means
          // a database that stalled for a minute or more.
          log.warn(
              "webhook {}: the claim was lost during the attempt ({}); not recorded",
              d.id(),
              a.retryAt().isPresent() ? "retry" : a.state());
        } else if (a.retryAt().isEmpty() && !a.state().equals("delivered")) {
          log.warn(
              "webhook {} to {} {}: {}", d.id(), withoutCredentials(d.url()), a.state(), a.error());
        }
      }
    }
    return recorded.next();
  }

  /**
   * {@code url} without what may be a credential: the user and password, the query and the fragment
   * (receivers often take a token there). Logs name the receiver, never its secret.
   */
  static String withoutCredentials(String url) {
    try {
      java.net.URI u = java.net.URI.create(url);
      String port = u.getPort() < 0 ? "" : ":" + u.getPort();
      return u.getScheme()
          + "://"
          + u.getHost()
          + port
          + (u.getRawPath() == null ? "" : u.getRawPath());
    } catch (RuntimeException e) {
      return "(an address that does not parse)";
    }
  }

  /**
   * 10 s, doubling, at most an hour, plus up to a fifth more at random (receivers recover
   * together).
   */
  static Duration backoff(int attempts) {
    Duration base = FIRST_BACKOFF.multipliedBy(1L << Math.min(attempts - 1, 20));
    if (base.compareTo(MAX_BACKOFF) > 0) {
      base = MAX_BACKOFF;
    }
    long jitter = ThreadLocalRandom.current().nextLong(base.toMillis() / 5 + 1);
    return base.plusMillis(jitter);
  }

  /** Deletes delivered events older than {@link #KEEP_DELIVERED}, in bounded batches, hourly. */
  private void pruneIfDue() {
    if (System.nanoTime() - lastPruneNanos < PRUNE_EVERY.toNanos()) {
      return;
    }
    lastPruneNanos = System.nanoTime();
    try {
      Instant before = clock.instant().minus(KEEP_DELIVERED);
      while (running && store.pruneDelivered(before, PRUNE_BATCH) == PRUNE_BATCH) {
        // another batch
      }
    } catch (Throwable e) { // pruning is tried again in an hour; deliveries go on meanwhile
      log.error(
          "webhook outbox: pruning delivered events failed ({}); tried again in an hour", e, e);
    }
  }

  /**
   * After a pass that found nothing due, the next one waits until {@link #EMPTY_PASS_GAP} after it
   * started. Most commits wake the outbox (every status change appends to the event log) while few
   * or none carry a delivery, and each pass is two queries: woken by every commit of a busy gateway
   * with no webhooks, the loop took a tenth of the CPU of the sync row. A delivery added meanwhile
   * waits at most this gap; a pass that had work, or no free slot, is not spaced.
   */
  private void spaceEmptyPasses(long passStartedNanos) throws InterruptedException {
    if (!nothingDue) {
      return;
    }
    long left = passStartedNanos + EMPTY_PASS_GAP.toNanos() - System.nanoTime();
    if (left > 0 && running) {
      Thread.sleep(Duration.ofNanos(left));
    }
  }

  private void waitForWork() throws InterruptedException {
    Instant now = clock.instant();
    long wait = IDLE_RECHECK.toMillis();
    // Nothing waits, so nothing falls due: only a new delivery (its commit wakes the loop) can.
    Optional<Instant> next = nonePending ? Optional.empty() : store.nextChange(now);
    if (next.isPresent()) {
      wait = Math.max(1, Math.min(wait, next.get().toEpochMilli() - now.toEpochMilli()));
    } // what is due already is under way or waits for a free slot: a finished attempt wakes us
    lock.lock();
    try {
      if (running && !signalled) {
        changed.await(wait, TimeUnit.MILLISECONDS);
      }
      signalled = false;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The wait after a failed pass: until {@code due} on the injected clock (a moved settable clock
   * wakes it to look), or {@code wait} of real time when the clock could not be read. New events do
   * not cut it short (they would make a failing loop spin); a stop does.
   */
  private void pauseUntil(Instant due, Duration wait) throws InterruptedException {
    long realDeadline = System.nanoTime() + wait.toNanos();
    lock.lock();
    try {
      while (running) {
        long left;
        if (due != null) {
          try {
            left = Duration.between(clock.instant(), due).toNanos();
          } catch (RuntimeException | Error broken) {
            due = null; // the clock itself fails: real time
            continue;
          }
        } else {
          left = realDeadline - System.nanoTime();
        }
        if (left <= 0) {
          return;
        }
        changed.awaitNanos(Math.min(left, IDLE_RECHECK.toNanos()));
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    running = false;
    wake();
    try {
      if (thread != null) {
        thread.join(Duration.ofSeconds(15)); // its pass in progress, then it starts nothing more
      }
      deliveries.shutdown();
      // Attempts under way end within the timeout and are recorded; one cut short stays claimed
      // until this node starts again.
      if (!deliveries.awaitTermination(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS)) {
        deliveries.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      sender.close();
    }
  }
}
