package io.kurir.webhook;

import io.kurir.media.SafeFetcher;
import io.kurir.store.Database;
import io.kurir.time.Wakeable;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable webhook outbox. An event is stored in the same transaction as the change it reports
 * ({@link #add}); this loop delivers it as a JSON POST, per device in order, signed with the
 * license's secret: {@code X-Kurir-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">}
 * with {@code X-Kurir-Timestamp} and {@code X-Kurir-Event-Id}. A 2xx answer ends it; a 4xx other
 * than 408 and 429 ends it as {@code failed}; anything else (timeouts, 5xx, refused connections) is
 * tried again with exponential backoff and jitter until {@code retryFor} has passed since the
 * event, then it is {@code dead}.
 *
 * <p>Thread-safe; one loop per gateway.
 */
public final class WebhookOutbox implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WebhookOutbox.class);
  private static final Duration FIRST_BACKOFF = Duration.ofSeconds(10);
  private static final Duration MAX_BACKOFF = Duration.ofHours(1);
  private static final Duration IDLE_RECHECK = Duration.ofSeconds(30);

  /**
   * How long delivered events are kept (for operators' lists) before they are deleted; failed and
   * dead ones are kept until replayed or removed by an operator.
   */
  static final Duration KEEP_DELIVERED = Duration.ofDays(7);

  private static final Duration PRUNE_EVERY = Duration.ofHours(1);

  /** Deliveries under way at once (each to a different device or receiver). */
  private static final int MAX_IN_FLIGHT = 64;

  /** A delivery waiting to go out. */
  record Delivery(
      long id,
      long deviceId,
      String url,
      String event,
      String payload,
      int attempts,
      Instant created,
      String secret,
      Optional<String> previousSecret) {}

  private final Database db;
  private final Clock clock;
  private final SafeFetcher targets;
  private final Duration retryFor;
  private final Duration timeout;
  private final HttpClient http;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private volatile boolean running = true;
  private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
  private final ExecutorService deliveries = Executors.newVirtualThreadPerTaskExecutor();
  private boolean signalled; // guarded by lock
  private Thread thread;

  public WebhookOutbox(
      Database db, Clock clock, SafeFetcher targets, Duration retryFor, Duration timeout) {
    this.db = db;
    this.clock = clock;
    this.targets = targets;
    this.retryFor = retryFor;
    this.timeout = timeout;
    this.http =
        HttpClient.newBuilder()
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(timeout)
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    Wakeable.wakeOnClockChange(clock, this::wake);
  }

  /** Stores an event for delivery; call it inside the transaction of the change it reports. */
  public static void add(
      Handle h, long id, long deviceId, String url, String event, String payload, Instant now) {
    h.createUpdate(
            "INSERT INTO webhook_delivery (id, device_id, url, event, payload, state, attempts,"
                + " next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?)")
        .bind(0, id)
        .bind(1, deviceId)
        .bind(2, url)
        .bind(3, event)
        .bind(4, payload)
        .bind(5, now.toEpochMilli())
        .bind(6, now.toEpochMilli())
        .execute();
  }

  public void start() {
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

  private void loop() {
    long lastPrune = System.nanoTime() - PRUNE_EVERY.toNanos(); // prune once at start
    while (running) {
      try {
        if (System.nanoTime() - lastPrune >= PRUNE_EVERY.toNanos()) {
          prune();
          lastPrune = System.nanoTime();
        }
        // Each due delivery goes on its own thread, at most one per device and receiver at a time
        // (that keeps their order): a slow or hanging receiver holds up only its own events.
        int started = 0;
        for (Delivery d : due()) {
          String stream = d.deviceId() + "\n" + d.url();
          if (inFlight.size() >= MAX_IN_FLIGHT || !inFlight.add(stream)) {
            continue;
          }
          started++;
          deliveries.submit(
              () -> {
                try {
                  deliverSafely(d);
                } finally {
                  inFlight.remove(stream);
                  wake();
                }
              });
        }
        if (started == 0) {
          waitForWork();
        }
      } catch (InterruptedException e) {
        return;
      } catch (Throwable e) { // the loop must outlive any single bad delivery
        log.error("webhook outbox: {}", e.toString(), e);
        pause();
      }
    }
  }

  /**
   * The oldest pending delivery of each device and receiving URL, if it is due: per device and
   * receiver, events keep their order, and one failing receiver holds up only its own.
   */
  private List<Delivery> due() {
    long now = clock.millis();
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT d.id, d.device_id, d.url, d.event, d.payload, d.attempts,"
                            + " d.created_at, l.webhook_secret, CASE WHEN"
                            + " l.previous_secret_until > :now THEN l.previous_webhook_secret END"
                            + " AS previous_secret FROM webhook_delivery d"
                            + " JOIN device v ON v.id = d.device_id"
                            + " JOIN license l ON l.id = v.license_id"
                            + " WHERE d.state = 'pending' AND d.next_attempt_at <= :now"
                            + " AND d.id = (SELECT MIN(o.id) FROM webhook_delivery o"
                            + " WHERE o.device_id = d.device_id AND o.url = d.url"
                            + " AND o.state = 'pending')"
                            + " ORDER BY d.id LIMIT 100")
                    .bind("now", now)
                    .map(
                        (rs, ctx) ->
                            new Delivery(
                                rs.getLong("id"),
                                rs.getLong("device_id"),
                                rs.getString("url"),
                                rs.getString("event"),
                                rs.getString("payload"),
                                rs.getInt("attempts"),
                                Instant.ofEpochMilli(rs.getLong("created_at")),
                                rs.getString("webhook_secret"),
                                Optional.ofNullable(rs.getString("previous_secret"))))
                    .list());
  }

  /** Deletes delivered events older than {@link #KEEP_DELIVERED}, in bounded batches. */
  private void prune() {
    long before = clock.millis() - KEEP_DELIVERED.toMillis();
    int deleted;
    do {
      deleted =
          db.writes()
              .write(
                  h ->
                      h.createUpdate(
                              "DELETE FROM webhook_delivery WHERE id IN (SELECT id FROM"
                                  + " webhook_delivery WHERE state = 'delivered'"
                                  + " AND finished_at < ? LIMIT 5000)")
                          .bind(0, before)
                          .execute());
    } while (deleted == 5000 && running);
  }

  private void deliverSafely(Delivery d) {
    try {
      deliver(d);
    } catch (RuntimeException e) { // one bad delivery must not stop the others
      log.error("webhook delivery {}: {}", d.id(), e.toString(), e);
    }
  }

  /**
   * Points the pending deliveries of {@code event} for a device at its new URL (its receiver was
   * fixed: what waited is delivered there, at once), or, when {@code url} is empty, ends them as
   * failed (operators can still replay them). Call it in the transaction that changes the URL.
   */
  public static void retarget(
      Handle h, long deviceId, String event, Optional<String> url, Instant now) {
    if (url.isPresent()) {
      h.createUpdate(
              "UPDATE webhook_delivery SET url = ?, next_attempt_at = ? WHERE device_id = ?"
                  + " AND event = ? AND state = 'pending'")
          .bind(0, url.get())
          .bind(1, now.toEpochMilli())
          .bind(2, deviceId)
          .bind(3, event)
          .execute();
    } else {
      h.createUpdate(
              "UPDATE webhook_delivery SET state = 'failed', last_error = 'the webhook was"
                  + " removed', finished_at = ? WHERE device_id = ? AND event = ?"
                  + " AND state = 'pending'")
          .bind(0, now.toEpochMilli())
          .bind(1, deviceId)
          .bind(2, event)
          .execute();
    }
  }

  private void deliver(Delivery d) {
    Optional<String> refused = targets.refusalOf(d.url());
    String error;
    boolean retry;
    if (refused.isPresent()) {
      error = "refused: " + refused.get();
      retry = false;
    } else {
      String timestamp = Long.toString(clock.instant().getEpochSecond());
      try {
        HttpResponse<Void> reply =
            http.send(
                HttpRequest.newBuilder(URI.create(d.url()))
                    .timeout(timeout)
                    .header("Content-Type", "application/json")
                    .header("User-Agent", "Kurir-Webhook")
                    .header("X-Kurir-Event", d.event())
                    .header("X-Kurir-Event-Id", Long.toString(d.id()))
                    .header("X-Kurir-Timestamp", timestamp)
                    .header("X-Kurir-Signature", signatures(d, timestamp))
                    .POST(HttpRequest.BodyPublishers.ofString(d.payload(), StandardCharsets.UTF_8))
                    .build(),
                HttpResponse.BodyHandlers.discarding());
        int status = reply.statusCode();
        if (status >= 200 && status < 300) {
          finish(d, "delivered", null);
          return;
        }
        error = "HTTP " + status;
        // The receiver refused it for good (4xx), or moved (3xx: redirects are not followed);
        // a timeout, throttling or a server error may pass.
        retry = status >= 500 || status == 408 || status == 429;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        error = e.toString();
        retry = true;
      }
    }
    if (!retry) {
      finish(d, "failed", error);
      return;
    }
    int attempts = d.attempts() + 1;
    Instant now = clock.instant();
    if (!now.isBefore(d.created().plus(retryFor))) {
      finish(d, "dead", error);
      return;
    }
    Instant next = now.plus(backoff(attempts));
    String lastError = error;
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "UPDATE webhook_delivery SET attempts = ?, next_attempt_at = ?, last_error = ?"
                            + " WHERE id = ?")
                    .bind(0, attempts)
                    .bind(1, next.toEpochMilli())
                    .bind(2, lastError)
                    .bind(3, d.id())
                    .execute());
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

  private void finish(Delivery d, String state, String error) {
    long now = clock.millis();
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "UPDATE webhook_delivery SET state = ?, attempts = attempts + 1,"
                            + " last_error = ?, finished_at = ? WHERE id = ?")
                    .bind(0, state)
                    .bind(1, error)
                    .bind(2, now)
                    .bind(3, d.id())
                    .execute());
    if (!state.equals("delivered")) {
      log.warn("webhook {} to {} {}: {}", d.id(), d.url(), state, error);
    }
  }

  /**
   * {@code sha256=<hex>} with the license's secret; during the overlap after a rotation also a
   * second one with the previous secret, comma-separated: receivers accept the delivery if any
   * signature matches a secret they hold.
   */
  private static String signatures(Delivery d, String timestamp) {
    String current = "sha256=" + sign(d.secret(), timestamp, d.payload());
    return d.previousSecret()
        .map(old -> current + ", sha256=" + sign(old, timestamp, d.payload()))
        .orElse(current);
  }

  /** HMAC-SHA256 of {@code "<timestamp>.<body>"} with {@code secret}, in hex. */
  public static String sign(String secret, String timestamp, String body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return HexFormat.of()
          .formatHex(mac.doFinal((timestamp + "." + body).getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private void waitForWork() throws InterruptedException {
    Long nextDue =
        db.jdbi()
            .withHandle(
                h ->
                    h.createQuery(
                            "SELECT MIN(next_attempt_at) FROM webhook_delivery"
                                + " WHERE state = 'pending'")
                        .mapTo(Long.class)
                        .findOne()
                        .orElse(null));
    long wait = IDLE_RECHECK.toMillis();
    if (nextDue != null && nextDue > clock.millis()) {
      wait = Math.min(wait, nextDue - clock.millis());
    } // due already: under way, or waiting for a free slot; a finished delivery wakes the loop
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

  private static void pause() {
    try {
      Thread.sleep(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    running = false;
    wake();
    deliveries.shutdown();
    try {
      if (thread != null) {
        thread.join(Duration.ofSeconds(15));
      }
      // Deliveries under way finish and are recorded; one still hanging stays pending.
      if (!deliveries.awaitTermination(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS)) {
        deliveries.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
