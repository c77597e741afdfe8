package io.kurir.message;

import io.kurir.device.NetworkLookups;
import io.kurir.driver.Drivers;
import io.kurir.driver.GroupMembers;
import io.kurir.driver.NumberCheck;
import io.kurir.driver.Receipt;
import io.kurir.driver.SendOutcome;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.store.NodeSignals;
import io.kurir.store.Transaction;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The message pipeline: accepting messages durably into the queue (the {@code message} table),
 * waking each device's {@link DeviceSender}, waiting for outcomes on behalf of sync callers, and
 * recording what drivers report afterwards. A sync send is an async send whose caller waits
 * (bounded) for the first outcome. Every change of a queued message (its claim by a sender, a sync
 * timeout's withdrawal, a cancel) is a guarded update in the database, so it holds whichever node's
 * sender has the message.
 *
 * <p>Thread-safe.
 */
public final class Messages implements AutoCloseable {
  /** Recipients of one request: a campaign is many requests, not one unbounded transaction. */
  public static final int MAX_RECIPIENTS = 1000;

  /** Recipients of one sync request: all of them must go out within one HTTP call. */
  public static final int MAX_SYNC_RECIPIENTS = 100;

  /** Characters of one text, as on the messaging network. */
  public static final int MAX_TEXT_LENGTH = 65_536;

  /** How long an accept waits for its commit: past the 15 s every client gives up anyway. */
  static final Duration ACCEPT_TIMEOUT = Duration.ofSeconds(14);

  private final MessageStores stores;
  private final IdGenerator ids;
  private final Clock clock;
  private final Drivers drivers;
  private final Outcomes outcomes = new Outcomes();
  private final Attempts attempts;
  private final IdempotentSends idempotent;
  private final SenderRegistry senders;
  private final AcceptCommits commits;
  private final SyncBusy busy;
  private final SyncWaits waits;
  private final NetworkLookups lookups;
  private final DriverReports reports;
  private final SendObserver observer;

  /**
   * What the pipeline is given besides its stores and drivers, fixed at construction: who observes
   * it (the gateway's metrics), who is told of a sender's trouble (the device states), what it
   * knows of each device's contacts, which devices' queues are held, and the sync callers' timeout.
   */
  public record Wiring(
      SendObserver observer,
      SenderTrouble trouble,
      io.kurir.driver.ContactDirectory contacts,
      java.util.function.LongPredicate held,
      Duration syncTimeout) {
    /** Nothing observed or told, no contacts known, nothing held, a 10 s sync timeout (tests). */
    public static final Wiring NONE =
        new Wiring(
            SendObserver.NONE,
            SenderTrouble.NONE,
            new io.kurir.driver.MemoryContactDirectory(),
            id -> false,
            Duration.ofSeconds(10));
  }

  public Messages(
      Database db,
      IdGenerator ids,
      Clock clock,
      Drivers drivers,
      Tenants tenants,
      RetryPolicy retries,
      StatusHook statusHook,
      MediaFetch media,
      String nodeName,
      Wiring wiring) {
    this.observer = wiring.observer();
    this.stores = MessageStores.open(db, statusHook);
    this.idempotent = new IdempotentSends(new IdempotencyKeys(db, clock), stores);
    this.ids = ids;
    this.clock = clock;
    this.drivers = drivers;
    this.attempts = new Attempts(stores, outcomes, clock, retries);
    Leases leases = new Leases(db, nodeName, DeviceOwnership.LEASE_TTL);
    this.senders =
        new SenderRegistry(
            db, stores, clock, drivers, tenants, outcomes, attempts, media, leases, wiring);
    this.commits = new AcceptCommits(stores, leases, outcomes, clock);
    this.busy = new SyncBusy(stores, wiring.syncTimeout());
    this.waits = new SyncWaits(stores, outcomes, idempotent, clock, senders.all());
    this.lookups = new NetworkLookups(drivers, wiring.contacts());
    this.reports = new DriverReports(stores, attempts, senders, clock, () -> this.observer);
    NodeSignals signals = db.signals();
    outcomes.tellElsewhere(id -> signals.publish(NodeSignals.Topic.OUTCOME, id));
    ids.continueAfter(stores.reads().maxId());
    io.kurir.time.Wakeable.wakeOnClockChange(
        clock, () -> senders.all().values().forEach(DeviceSender::wake));
  }

  /**
   * Starts a sender for every device with messages still to send, or cut off mid-send by the last
   * stop (each applies the crash rule when it takes its lease), first, then for every other device
   * that is switched on (its driver attaches it), and the loop that renews leases.
   */
  public void resume() {
    senders.resume();
  }

  /**
   * How long an accept waits for its commit before the caller is refused ({@code busy}) or the
   * scheduler holds the device back: 14 s unless set, as clients give up at 15 s. Only tests set
   * it, to see a stalled commit run out without waiting 14 s.
   */
  public void commitWithin(Duration timeout) {
    commits.commitWithin(timeout);
  }

  /**
   * Stores one message per recipient in one commit and queues them; returns them in recipient order
   * once committed. Nothing is queued unless everything was stored.
   *
   * <p>A request with an idempotency key that the device's first request with that key already
   * stored stores nothing: it returns the first request's messages, as they are now (see {@link
   * IdempotencyKeys}).
   *
   * @throws IdempotencyKeyReused when the key was used for a different request
   */
  public List<Message> accept(Device device, SendRequest request) {
    if (senders.closed()) {
      throw new SendRefused(SendRefused.Reason.STOPPING, "the gateway is stopping");
    }
    int limit = request.sync() ? MAX_SYNC_RECIPIENTS : MAX_RECIPIENTS;
    if (request.recipients().size() > limit) {
      throw new SendRefused(
          SendRefused.Reason.TOO_MANY_RECIPIENTS, "at most " + limit + " recipients per request");
    }
    if (request.body().length() > MAX_TEXT_LENGTH) {
      throw new SendRefused(
          SendRefused.Reason.TEXT_TOO_LONG, "at most " + MAX_TEXT_LENGTH + " characters");
    }
    if (request.media().isPresent()
        && drivers.names().contains(device.driver())
        && !carries(drivers.of(device.ref()), request.kind(), request.media().get().mimeType())) {
      throw new SendRefused(
          SendRefused.Reason.MEDIA_TYPE_NOT_SUPPORTED,
          "the device's network does not take "
              + request.kind()
              + "s of type "
              + request.media().get().mimeType()
              + "; it takes "
              + String.join(
                  ", ",
                  new java.util.TreeSet<>(drivers.of(device.ref()).mediaTypes(request.kind()))));
    }
    if (drivers.names().contains(device.driver())) {
      CarriedKinds.refuseWhatIsNotCarried(drivers.of(device.ref()), request);
    }
    Optional<IdempotencyKeys.Claim> claim = idempotent.claimOf(device, request);
    Optional<List<Message>> first = claim.flatMap(c -> idempotent.firstOf(c, request));
    if (first.isPresent()) {
      return first.get(); // a repeat: nothing is stored or sent again
    }
    // After the idempotency check, whose fingerprint is of the request as the caller wrote it.
    List<Message> messages =
        build(
            device,
            fetchedLinks(
                device,
                QuotedMessages.byNetworkId(
                    request, id -> stores.reads().networkIdOf(device.id(), id))),
            clock.instant());
    // The sender first: a gateway that is stopping refuses before anything is stored, so a
    // caller told "stopping" never finds the message sent after the next start.
    DeviceSender sender = senders.senderFor(device);
    if (request.sync() && request.delay().isZero()) {
      busy.refuseIfBusy(device, sender, messages.size());
    }
    for (Message m : messages) {
      if (m.sync()) {
        outcomes.expect(m.id()); // before the sender can report it
      }
    }
    if (claim.isEmpty() && sender.reserveHandOver(messages)) {
      List<Message> handedOver = commits.acceptHandedOver(sender, messages);
      observer.accepted(device.driver(), handedOver.size());
      return handedOver;
    }
    boolean stored;
    try {
      // The sender looks once committed, even if that is after this caller stopped waiting.
      stored =
          commits.awaitCommit(
              stores
                  .queue()
                  .insert(messages, claim.map(c -> idempotent.firstWithKey(c, messages)))
                  .thenApply(
                      done -> {
                        if (done) {
                          senders.wakeSender(sender, request.sync());
                        }
                        return done;
                      }),
              messages,
              true);
    } catch (RuntimeException e) {
      messages.forEach(m -> outcomes.forget(m.id()));
      throw e;
    }
    if (!stored) { // a concurrent request with the same key was stored first
      messages.forEach(m -> outcomes.forget(m.id()));
      return idempotent
          .firstOf(claim.orElseThrow(), request)
          .orElseThrow(() -> new IllegalStateException("the idempotency key vanished"));
    }
    observer.accepted(device.driver(), messages.size());
    return messages;
  }

  /** {@code request} with its media link to fetch, when its device's driver needs the file. */
  private SendRequest fetchedLinks(Device device, SendRequest request) {
    return drivers.names().contains(device.driver())
        ? MediaLinks.toFetch(drivers.of(device.ref()), request)
        : request;
  }

  private List<Message> build(Device device, SendRequest request, Instant now) {
    Instant notBefore = now.plus(request.delay());
    List<Message> messages = new ArrayList<>(request.recipients().size());
    for (Recipient r : request.recipients()) {
      messages.add(
          new Message(
              ids.next(),
              device.id(),
              r.address(),
              r.group(),
              request.kind(),
              request.body(),
              request.api(),
              request.sync(),
              request.retry(),
              0,
              MessageState.PENDING,
              Optional.empty(),
              notBefore,
              now,
              Optional.empty(),
              now,
              request.media(),
              request.mediaUrl(),
              request.linkPreview(),
              request.content()));
    }
    return messages;
  }

  /**
   * A condition checked in the transaction that would store a message, with the message's id: the
   * scheduler moves its schedule to "handed" here, so that a schedule and its message are committed
   * together or not at all.
   */
  @FunctionalInterface
  public interface Guard {
    boolean holds(Transaction tx, long messageId) throws SQLException;
  }

  /** One async send to one recipient, stored only if its guard holds. */
  public record GuardedSend(Device device, SendRequest request, Guard guard) {
    public GuardedSend {
      if (request.recipients().size() != 1 || request.sync()) {
        throw new IllegalArgumentException("a guarded send is async, to one recipient");
      }
    }
  }

  /**
   * Stores, in one transaction, every send whose guard holds, and queues them; per send, the
   * message, or empty when its guard did not hold (nothing was stored for it).
   */
  public List<Optional<Message>> acceptGuarded(List<GuardedSend> sends) {
    if (senders.closed()) {
      throw new SendRefused(SendRefused.Reason.STOPPING, "the gateway is stopping");
    }
    Instant now = clock.instant();
    List<Message> messages = new ArrayList<>(sends.size());
    List<Guard> guards = new ArrayList<>(sends.size());
    Map<Long, DeviceSender> sendersOf = new java.util.HashMap<>();
    for (GuardedSend send : sends) {
      if (send.request().body().length() > MAX_TEXT_LENGTH) {
        throw new SendRefused(
            SendRefused.Reason.TEXT_TOO_LONG, "at most " + MAX_TEXT_LENGTH + " characters");
      }
      messages.add(build(send.device(), send.request(), now).getFirst());
      guards.add(send.guard());
      sendersOf.computeIfAbsent(send.device().id(), id -> senders.senderFor(send.device()));
    }
    // Queued when committed, even if that is after this caller stopped waiting: a message that is
    // stored is sent, whoever waits for it.
    boolean[] stored =
        commits.awaitCommit(
            stores
                .queue()
                .insertGuarded(messages, guards)
                .thenApply(
                    done -> {
                      sendersOf.values().forEach(s -> senders.wakeSender(s, true));
                      return done;
                    }),
            messages,
            false);
    List<Optional<Message>> accepted = new ArrayList<>(sends.size());
    for (int i = 0; i < messages.size(); i++) {
      accepted.add(stored[i] ? Optional.of(messages.get(i)) : Optional.empty());
      if (stored[i]) {
        observer.accepted(sends.get(i).device().driver(), 1);
      }
    }
    return accepted;
  }

  /**
   * Fails a message that no sender has claimed yet with {@code reason}, with {@code also} in the
   * same transaction; false when it is already in a driver's hands or done (or {@code also} does
   * not hold: then it stays queued). A guarded update: it holds whichever node's sender has the
   * device.
   */
  public boolean cancelQueued(long deviceId, long messageId, String reason, Guard also) {
    return stores.reads().find(messageId).filter(m -> m.deviceId() == deviceId).isPresent()
        && stores.outcomes().cancel(messageId, reason, clock.instant(), also);
  }

  /** {@link #awaitAll} for one message. */
  public SendResult awaitFirstOutcome(Message message, Instant deadline, Instant callerStarted) {
    return awaitAll(List.of(message), deadline, callerStarted).getFirst();
  }

  /**
   * Waits until {@code deadline} for the first outcome of each sync message, in order. When time
   * runs out, every message the driver has not got yet is withdrawn at once and recorded as failed,
   * so a caller who is told a message failed never sees it sent later; {@code flag_retry=on}
   * messages stay queued instead. A message the driver already has is given a little longer (its
   * send is under way), never past 14 s from {@code callerStarted}.
   *
   * @return one result per message, in the same order
   */
  public List<SendResult> awaitAll(
      List<Message> messages, Instant deadline, Instant callerStarted) {
    return waits.awaitAll(messages, deadline, callerStarted);
  }

  /**
   * When a sync send to {@code device} may find room again, in whole seconds (at least 1): what a
   * caller told {@link SendResult#DEVICE_BUSY} is given as {@code Retry-After}.
   */
  public long busyForSeconds(Device device) {
    return busy.busyForSeconds(device, senders.get(device.id()));
  }

  /** Any message by id, with the states it went through (for operators). */
  public Optional<MessageHistory> history(long id) {
    return stores.reads().find(id).map(m -> new MessageHistory(m, stores.reads().events(id)));
  }

  /** The messages with these ids that belong to one of {@code deviceIds}. */
  public List<Message> findAll(java.util.Collection<Long> ids, java.util.Set<Long> deviceIds) {
    return stores.reads().findAll(ids).stream()
        .filter(m -> deviceIds.contains(m.deviceId()))
        .toList();
  }

  /** The message with this id if it belongs to {@code device}. */
  public Optional<Message> find(Device device, long id) {
    return stores.reads().find(id).filter(m -> m.deviceId() == device.id());
  }

  /**
   * What the devices' networks say (numbers, connection, groups): asked of the driver, not the
   * queue. The four methods below are kept for the families that call them here.
   */
  public NetworkLookups lookups() {
    return lookups;
  }

  /** {@link NetworkLookups#checkNumber}. */
  public NumberCheck checkNumber(Device device, String address) {
    return lookups.checkNumber(device, address);
  }

  /** {@link NetworkLookups#isConnected}. */
  public boolean isConnected(Device device) {
    return lookups.isConnected(device);
  }

  /** {@link NetworkLookups#groupIdByName}. */
  public Optional<String> groupIdByName(Device device, String name) {
    return lookups.groupIdByName(device, name);
  }

  /** {@link NetworkLookups#groupMembers}. */
  public GroupMembers groupMembers(Device device, String groupId) {
    return lookups.groupMembers(device, groupId);
  }

  /** Whether the device's sender is idle, with nothing pending (tests wait on it). */
  boolean senderIdle(long deviceId) {
    DeviceSender s = senders.get(deviceId);
    return s != null && s.idleForHandOver();
  }

  /** Whether an accepted message is being handed to the device's sender (tests wait on it). */
  boolean handOverInFlight(long deviceId) {
    DeviceSender s = senders.get(deviceId);
    return s != null && s.handOvers().inFlight();
  }

  /** Messages waiting in a device's queue (pending), for tests and operators. */
  public int queued(long deviceId) {
    return stores.queue().pendingCount(deviceId);
  }

  // --- what drivers report

  /**
   * A message that went out was delivered, read, or failed after all. Keyed by the network's id, it
   * moves the message that carries that id, or waits for the send's outcome that brings it.
   */
  public void receipt(Receipt receipt) {
    reports.receipt(receipt);
  }

  /**
   * The outcome of a send a driver had answered "accepted", reported now. One that puts the message
   * back in the queue (not sent after all, a retry) wakes the device's sender once recorded: it may
   * be idle, its queue empty when it last looked.
   */
  public void outcome(long deviceId, long messageId, SendOutcome outcome) {
    reports.outcome(deviceId, messageId, outcome);
  }

  /** Whether {@code driver}'s network takes a {@code kind} message whose media is {@code mime}. */
  static boolean carries(io.kurir.driver.Driver driver, String kind, String mime) {
    java.util.Set<String> types = driver.mediaTypes(kind);
    return types.isEmpty() || types.contains(mime);
  }

  /**
   * Adds {@code note} to the history of message {@code messageId} of {@code deviceId}, beside its
   * current state, which it does not change (a network's status that is not a failure, a resend in
   * another form). Not waited for.
   */
  public void note(long deviceId, long messageId, String note) {
    stores.outcomes().noteLater(deviceId, messageId, note, clock.instant());
  }

  /**
   * A device was switched off or on: its sender detaches it, or takes it up again; the other nodes
   * are told.
   */
  public void deviceChanged(Device device) {
    senders.deviceChanged(device);
  }

  /**
   * A device was deleted: its sender here stops at once (after the send in progress) and detaches
   * it from its driver, its queue ends, and the other nodes are told to do the same.
   */
  public void deviceDeleted(Device device) {
    senders.deviceDeleted(device);
  }

  /** A device became able, or unable, to send. */
  public void connectionChanged(long deviceId, boolean connected) {
    senders.connectionChanged(deviceId, connected);
  }

  /**
   * Stops every sender after its send in progress, all at once and within one deadline, so that a
   * hung driver cannot hold shutdown up device by device; queued messages stay stored as pending.
   */
  @Override
  public void close() {
    senders.close();
  }
}
