package io.kurir.webhook;

import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.store.Transaction;
import io.kurir.store.WriteQueue;
import io.kurir.time.Wakeable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
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
      // The stored fields are a JSON object written by this class: put in as they are, not read
      // into a tree and written out again for every reader of the stream and every delivery.
      StringBuilder out = new StringBuilder(96 + data.length());
      out.append("{\"sequence\":").append(sequence).append(",\"type\":");
      FlatJson.quoted(out, type);
      out.append(",\"timestamp\":");
      FlatJson.quoted(out, WebhookSender.EVENT_TIME.format(at));
      out.append(",\"device\":\"").append(deviceId).append("\",\"data\":").append(data);
      return out.append('}').toString();
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
   *
   * <p>In a writer transaction the events are numbered and stored just before its commit, all of
   * them at once ({@link Appended}): a license's counter is then locked only from there to the
   * commit, rather than from its first event on, so the writers of several nodes do not wait for
   * each other's whole transactions. Their subscriptions' deliveries take their ids here, in the
   * order of the changes they report.
   */
  public void append(
      Transaction tx, long deviceId, String type, Map<String, Object> data, Instant at) {
    String fields = json(data);
    Appended appended = WriteQueue.perTransaction(tx, Appended.class, Appended::new);
    if (appended == null) {
      EventStore.append(tx, deviceId, type, fields, at)
          .ifPresent(
              event ->
                  deliver(tx, event, SubscriptionStore.of(tx, event.licenseId()), null, deviceId));
      return;
    }
    Optional<Long> license = licenseOf(tx, deviceId);
    if (license.isEmpty()) {
      return;
    }
    List<SubscriptionStore.Row> wanting = new ArrayList<>();
    List<Long> deliveryIds = new ArrayList<>();
    for (SubscriptionStore.Row s : appended.subscriptions(tx, license.get())) {
      if (s.events().contains(type)) {
        wanting.add(s);
        deliveryIds.add(ids.next());
      }
    }
    Item item = new Item(0, null, OptionalLong.empty(), at);
    item.event = new EventStore.NewEvent(license.get(), deviceId, type, fields, at);
    item.wanting = wanting;
    item.deliveryIds = deliveryIds;
    appended.items.add(item);
  }

  /**
   * {@link #append}s the {@code message.status} event of message {@code messageId}, its fields made
   * by {@code data} from what the message's row tells of it; false when there is no such message.
   * In a writer transaction the rows of all its status events are read together before the commit
   * (one query rather than one per change), and this answers true.
   */
  boolean appendMessageStatus(
      Transaction tx,
      long messageId,
      Function<EventStore.MessageFacts, Map<String, Object>> data,
      Instant at) {
    Appended appended = WriteQueue.perTransaction(tx, Appended.class, Appended::new);
    if (appended == null) {
      Optional<EventStore.MessageFacts> found = EventStore.message(tx, messageId);
      found.ifPresent(m -> append(tx, m.deviceId(), MESSAGE_STATUS, data.apply(m), at));
      return found.isPresent();
    }
    // One delivery id taken now, in the order of the changes: a subscription's delivery keeps its
    // place among the deliveries the transaction stores before its commit.
    appended.items.add(new Item(messageId, data, OptionalLong.of(ids.next()), at));
    return true;
  }

  private static String json(Map<String, Object> fields) {
    return FlatJson.write(fields);
  }

  /** Devices' licenses (a device never changes license), up to {@link #LICENSES_KEPT} of them. */
  private final Map<Long, Long> licenses = new java.util.concurrent.ConcurrentHashMap<>();

  private static final int LICENSES_KEPT = 100_000;

  private Optional<Long> licenseOf(Transaction tx, long deviceId) {
    Long known = licenses.get(deviceId);
    if (known != null) {
      return Optional.of(known);
    }
    Optional<Long> found = EventStore.licenseOf(tx, deviceId);
    if (found.isPresent()) {
      if (licenses.size() >= LICENSES_KEPT) {
        licenses.clear();
      }
      licenses.put(deviceId, found.get());
    }
    return found;
  }

  /**
   * Stores the deliveries of {@code event} to the subscriptions {@code wanting} it, with the ids
   * {@code deliveryIds} (one each, in order; new ones where missing) or new ones when null.
   */
  private void deliver(
      Transaction tx,
      Event event,
      List<SubscriptionStore.Row> wanting,
      List<Long> deliveryIds,
      long deviceId) {
    String number = null; // read once, for the first meta subscription
    for (int i = 0; i < wanting.size(); i++) {
      SubscriptionStore.Row s = wanting.get(i);
      if (!s.events().contains(event.type())) {
        continue;
      }
      Optional<String> payload;
      if (s.format() == WebhookSubscriptions.Format.META) {
        number = number != null ? number : EventStore.deviceNumber(tx, deviceId);
        payload = MetaWebhooks.payload(event, number); // none for a pending status
      } else {
        payload = Optional.of(event.json());
      }
      if (payload.isPresent()) {
        WebhookStore.addForSubscription(
            tx,
            deliveryIds != null && i < deliveryIds.size() ? deliveryIds.get(i) : ids.next(),
            deviceId,
            s.id(),
            s.url(),
            event.type(),
            payload.get(),
            event.sequence(),
            event.at());
      }
    }
  }

  /**
   * An event of a writer transaction waiting for its commit: ready ({@code event} set), or the
   * status event of message {@code messageId}, whose fields wait for the message's row.
   */
  private static final class Item {
    final long messageId;
    final Function<EventStore.MessageFacts, Map<String, Object>> data;
    final OptionalLong firstDeliveryId;
    final Instant at;
    EventStore.NewEvent event;
    List<SubscriptionStore.Row> wanting = List.of();
    List<Long> deliveryIds = List.of();

    Item(
        long messageId,
        Function<EventStore.MessageFacts, Map<String, Object>> data,
        OptionalLong firstDeliveryId,
        Instant at) {
      this.messageId = messageId;
      this.data = data;
      this.firstDeliveryId = firstDeliveryId;
      this.at = at;
    }
  }

  /**
   * The events of one writer transaction, numbered and stored just before its commit; and the
   * license's subscriptions their appends read, kept for the transaction.
   */
  private final class Appended implements WriteQueue.BeforeCommit {
    private final Map<Long, List<SubscriptionStore.Row>> subscriptions = new HashMap<>();
    final List<Item> items = new ArrayList<>();

    List<SubscriptionStore.Row> subscriptions(Transaction tx, long licenseId) {
      List<SubscriptionStore.Row> known = subscriptions.get(licenseId);
      if (known == null) {
        known = SubscriptionStore.of(tx, licenseId);
        subscriptions.put(licenseId, known);
      }
      return known;
    }

    @Override
    public void flush(Transaction tx) {
      if (items.isEmpty()) {
        return;
      }
      List<Long> unread = new ArrayList<>();
      for (Item item : items) {
        if (item.event == null) {
          unread.add(item.messageId);
        }
      }
      Map<Long, EventStore.MessageFacts> facts = EventStore.messages(tx, unread);
      List<Item> ready = new ArrayList<>(items.size());
      for (Item item : items) {
        if (item.event == null && !resolve(tx, item, facts.get(item.messageId))) {
          continue; // no such message (or device) any more: nothing to tell
        }
        ready.add(item);
      }
      items.clear();
      if (ready.isEmpty()) {
        return;
      }
      List<Event> stored = EventStore.appendAll(tx, ready.stream().map(i -> i.event).toList());
      for (int i = 0; i < stored.size(); i++) {
        Item item = ready.get(i);
        if (!item.wanting.isEmpty()) {
          deliver(tx, stored.get(i), item.wanting, item.deliveryIds, item.event.deviceId());
        }
      }
    }

    /** Makes the event of a status item from its message's row; false when there is none. */
    private boolean resolve(Transaction tx, Item item, EventStore.MessageFacts m) {
      if (m == null) {
        return false;
      }
      Optional<Long> license = licenseOf(tx, m.deviceId());
      if (license.isEmpty()) {
        return false;
      }
      item.event =
          new EventStore.NewEvent(
              license.get(), m.deviceId(), MESSAGE_STATUS, json(item.data.apply(m)), item.at);
      List<SubscriptionStore.Row> wanting = new ArrayList<>();
      List<Long> deliveryIds = new ArrayList<>();
      for (SubscriptionStore.Row s : subscriptions(tx, license.get())) {
        if (s.events().contains(MESSAGE_STATUS)) {
          wanting.add(s);
          deliveryIds.add(
              deliveryIds.isEmpty() && item.firstDeliveryId.isPresent()
                  ? item.firstDeliveryId.getAsLong()
                  : ids.next());
        }
      }
      item.wanting = wanting;
      item.deliveryIds = deliveryIds;
      return true;
    }

    /** Stores what waits now, and reads subscriptions again from here on. */
    void subscriptionsChanging(Transaction tx) {
      flush(tx);
      subscriptions.clear();
    }
  }

  /**
   * Call in a transaction that is about to add or remove a subscription, before it does: the events
   * appended before it in the transaction are stored now, with the deliveries they had when
   * appended (a removal then ends them, as it ends any other), and the later ones see the change.
   */
  static void subscriptionsChanging(Transaction tx) {
    Appended appended = WriteQueue.perTransaction(tx, Appended.class, () -> null);
    if (appended != null) {
      appended.subscriptionsChanging(tx);
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
