package io.kurir.webhook;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.store.Transaction;
import io.kurir.time.Wakeable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event log: one ordered sequence of events per license (DESIGN.md), each stored in the
 * transaction of the change it reports ({@link #append}), numbered 1, 2, 3… per license. It feeds
 * the pull API and the SSE stream ({@code GET /v1/events}, read by sequence: {@link #after}) and
 * the license's webhook subscriptions (each matching subscription gets a delivery in the durable
 * outbox, in the same transaction). The seed's three webhook URLs keep their own deliveries and
 * payloads ({@link MessageWebhooks}, {@code device/DeviceStates}), stored beside the event in that
 * same transaction.
 *
 * <p>Events older than {@code events.keep-for} are deleted hourly; a reader asking for events after
 * a number that was deleted is told so ({@link #missed}) rather than given a gap.
 *
 * <p>Thread-safe.
 */
public final class Events implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Events.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A message came in to a device. */
  public static final String MESSAGE_RECEIVED = "message.received";

  /** A message a device sends changed state (sending, sent, delivery, read, failed). */
  public static final String MESSAGE_STATUS = "message.status";

  /** A device's connection state changed. */
  public static final String DEVICE_STATUS = "device.status";

  /** A sent message its device deleted for everyone ({@code DELETE /v1/messages/{id}}). */
  public static final String MESSAGE_REVOKED = io.kurir.message.MessageActions.REVOKED;

  /** A sent text its device edited ({@code PATCH /v1/messages/{id}}). */
  public static final String MESSAGE_EDITED = io.kurir.message.MessageActions.EDITED;

  /**
   * A running campaign stopped itself on a ban signal (safe sending's automatic stop), told as an
   * event of the device whose signal stopped it.
   */
  public static final String CAMPAIGN_STOPPED = "campaign.stopped";

  /** Every event type, as subscriptions name them. */
  public static final Set<String> TYPES =
      Set.of(
          MESSAGE_RECEIVED,
          MESSAGE_STATUS,
          DEVICE_STATUS,
          MESSAGE_REVOKED,
          MESSAGE_EDITED,
          CAMPAIGN_STOPPED);

  /** How long a waiting reader sleeps at most before it looks again (events of other nodes). */
  private static final Duration LOOK_AGAIN = Duration.ofSeconds(2);

  private static final Duration PRUNE_EVERY = Duration.ofHours(1);
  private static final int PRUNE_BATCH = 5000;

  /**
   * One stored event.
   *
   * @param data the event's own fields, a JSON object
   */
  public record Event(
      long licenseId, long sequence, long deviceId, String type, Instant at, String data) {

    /**
     * The event as every way out shows it: {@code {"sequence", "type", "timestamp", "device",
     * "data"}}, the shape of a Standard Webhooks payload with Kurir's sequence and device added.
     */
    public String json() {
      try {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("sequence", sequence);
        out.put("type", type);
        out.put("timestamp", WebhookSender.EVENT_TIME.format(at));
        out.put("device", Long.toString(deviceId));
        out.put("data", JSON.readTree(data));
        return JSON.writeValueAsString(out);
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private final EventStore store;
  private final IdGenerator ids;
  private final Clock clock;
  private final Duration keepFor;
  private final Runnable outboxWake;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final Condition stopping = lock.newCondition(); // the pruner's: commits do not wake it
  private long version; // guarded by lock: bumped by each commit that stored events
  private volatile boolean running = true;
  private Thread pruner;

  /**
   * @param keepFor how long events are kept ({@code events.keep-for})
   * @param outboxWake told after a commit that stored deliveries for subscriptions
   */
  public Events(Database db, IdGenerator ids, Clock clock, Duration keepFor, Runnable outboxWake) {
    this.store = new EventStore(db);
    this.ids = ids;
    this.clock = clock;
    this.keepFor = keepFor;
    this.outboxWake = outboxWake;
    Wakeable.wakeOnClockChange(clock, this::signal);
  }

  /**
   * Stores an event of {@code deviceId} of {@code type} with its {@code data} fields, and a
   * delivery of it for each of the license's subscriptions that wants {@code type} (in the
   * subscription's format: a meta one gets none for what Meta's webhooks have no form of, such as a
   * message's {@code pending}); call it in the transaction of the change, and {@link #committed}
   * after its commit. Nothing is stored for a device that does not exist.
   */
  public void append(
      Transaction tx, long deviceId, String type, Map<String, Object> data, Instant at) {
    EventStore.append(tx, deviceId, type, json(data), at)
        .ifPresent(event -> deliverToSubscriptions(tx, event));
  }

  /** {@link #append}, for a device of license {@code licenseId} read in the same transaction. */
  void append(
      Transaction tx,
      long licenseId,
      long deviceId,
      String type,
      Map<String, Object> data,
      Instant at) {
    deliverToSubscriptions(tx, EventStore.append(tx, licenseId, deviceId, type, json(data), at));
  }

  private static String json(Map<String, Object> data) {
    try {
      return JSON.writeValueAsString(data);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private void deliverToSubscriptions(Transaction tx, Event event) {
    String number = null; // read once, for the first meta subscription
    for (SubscriptionStore.Row s : SubscriptionStore.of(tx, event.licenseId())) {
      if (!s.events().contains(event.type())) {
        continue;
      }
      Optional<String> payload;
      if (s.format() == WebhookSubscriptions.Format.META) {
        number = number != null ? number : EventStore.deviceNumber(tx, event.deviceId());
        payload = MetaWebhooks.payload(event, number); // none for a pending status
      } else {
        payload = Optional.of(event.json());
      }
      if (payload.isPresent()) {
        WebhookStore.addForSubscription(
            tx,
            ids.next(),
            event.deviceId(),
            s.id(),
            s.url(),
            event.type(),
            payload.get(),
            event.sequence(),
            event.at());
      }
    }
  }

  /** After the commit of a transaction that {@link #append}ed: readers and the outbox look. */
  public void committed() {
    outboxWake.run();
    signal();
  }

  /**
   * The license's events after {@code after}, oldest first, at most {@code limit}; only those of
   * {@code deviceId} when given (a device key's view: the numbers of the others are skipped).
   */
  public List<Event> after(long licenseId, OptionalLong deviceId, long after, int limit) {
    return store.after(licenseId, deviceId, after, limit);
  }

  /** Whether events after {@code after} were deleted already (older than the retention). */
  public boolean missed(long licenseId, long after) {
    return after + 1 < store.oldestKept(licenseId);
  }

  /** The license's first sequence number still kept (or the next one, when none is). */
  public long oldestKept(long licenseId) {
    return store.oldestKept(licenseId);
  }

  /** The license's last sequence number, 0 before its first event: where a live reader starts. */
  public long last(long licenseId) {
    return store.last(licenseId);
  }

  /** A number that changes with every commit that stored events; see {@link #await}. */
  public long version() {
    lock.lock();
    try {
      return version;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until a commit stored events after {@link #version} gave {@code seen}, the injected clock
   * reaches {@code until}, or the log closes; it also returns now and then by itself (events other
   * nodes stored tell this node nothing), so a caller looks again whenever it returns.
   */
  public void await(long seen, Instant until) throws InterruptedException {
    lock.lock();
    try {
      if (running && version == seen) {
        long left = Duration.between(clock.instant(), until).toNanos();
        if (left > 0) {
          changed.awaitNanos(Math.min(left, LOOK_AGAIN.toNanos()));
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** Whether the log still serves: readers that wait end when it closes. */
  public boolean running() {
    return running;
  }

  private void signal() {
    lock.lock();
    try {
      version++;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Deletes the events older than the retention, in bounded batches; how many. */
  public int prune() {
    Instant before = clock.instant().minus(keepFor);
    int total = 0;
    int n;
    do {
      n = store.prune(before, PRUNE_BATCH);
      total += n;
    } while (running && n == PRUNE_BATCH);
    return total;
  }

  /** Starts the hourly pruning (the first at once). */
  public void start() {
    pruner =
        Thread.ofVirtual()
            .name("event-log-prune")
            .start(
                () -> {
                  while (running) {
                    try {
                      prune();
                    } catch (Throwable e) { // tried again in an hour; the log goes on
                      log.error("event log: pruning failed ({}); tried again in an hour", e, e);
                    }
                    lock.lock();
                    try {
                      if (running) {
                        // Real time: retention is not a rule tests drive by the clock (prune()).
                        stopping.await(PRUNE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
                      }
                    } catch (InterruptedException e) {
                      return;
                    } finally {
                      lock.unlock();
                    }
                  }
                });
  }

  @Override
  public void close() {
    running = false;
    signal();
    lock.lock();
    try {
      stopping.signalAll();
    } finally {
      lock.unlock();
    }
  }
}
