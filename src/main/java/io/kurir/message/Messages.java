package io.kurir.message;

import io.kurir.driver.Drivers;
import io.kurir.driver.GroupMembers;
import io.kurir.driver.NumberCheck;
import io.kurir.driver.Receipt;
import io.kurir.driver.SendOutcome;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.store.NodeSignals;
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
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

  private static final Logger log = LoggerFactory.getLogger(Messages.class);

  /**
   * Extra wait for a send the driver already has, after the sync timeout ran out, so long as the
   * caller's total stays under 14 s (clients give up at 15 s).
   */
  private static final Duration IN_FLIGHT_GRACE = Duration.ofSeconds(3);

  private static final Duration CALLER_PATIENCE = Duration.ofSeconds(14);

  /** How long an accept waits for its commit: past the 15 s every client gives up anyway. */
  private static final Duration ACCEPT_TIMEOUT = Duration.ofSeconds(14);

  /** How long a stop waits for its leases' release before it tells the other nodes anyway. */
  private static final Duration RELEASE_GRACE = Duration.ofSeconds(5);

  /** How long a stop waits for sends in progress. */
  private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(15);

  private final MessageStores stores;
  private final IdGenerator ids;
  private final Clock clock;
  private final Drivers drivers;
  private final Tenants tenants;
  private final Outcomes outcomes = new Outcomes();
  private final Attempts attempts;
  private final MediaFetch media;
  private final Leases leases;
  private final IdempotentSends idempotent;
  private final Map<Long, DeviceSender> senders = new ConcurrentHashMap<>();
  private final DeviceOwnership ownership;
  private final NodeSignals signals;
  private volatile boolean closed;
  private volatile SendObserver observer = SendObserver.NONE;
  private volatile SenderTrouble trouble = SenderTrouble.NONE;
  private volatile Duration syncTimeout = Duration.ofSeconds(10);
  // What the gateway knows of each device's contacts (its ContactIdentities); an empty directory
  // for tests of the core that never set one.
  private volatile io.kurir.driver.ContactDirectory contacts =
      new io.kurir.driver.MemoryContactDirectory();

  /** Receipts for network ids no message took are kept this long. */
  private static final Duration KEEP_EARLY_RECEIPTS = Duration.ofDays(1);

  /** While a sync caller waits, the database is looked at this often (another node may send). */
  private static final Duration OUTCOME_RECHECK = Duration.ofSeconds(1);

  public Messages(
      Database db,
      IdGenerator ids,
      Clock clock,
      Drivers drivers,
      Tenants tenants,
      RetryPolicy retries,
      StatusHook statusHook,
      MediaFetch media,
      String nodeName) {
    this.stores = MessageStores.open(db, statusHook);
    this.idempotent = new IdempotentSends(new IdempotencyKeys(db, clock), stores);
    this.ids = ids;
    this.clock = clock;
    this.drivers = drivers;
    this.tenants = tenants;
    this.attempts = new Attempts(stores, outcomes, clock, retries);
    this.media = media;
    this.leases = new Leases(db, nodeName, DeviceOwnership.LEASE_TTL);
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
    outcomes.tellElsewhere(id -> signals.publish(NodeSignals.Topic.OUTCOME, id));
    ids.continueAfter(stores.reads().maxId());
    io.kurir.time.Wakeable.wakeOnClockChange(
        clock, () -> senders.values().forEach(DeviceSender::wake));
  }

  /** Tells {@code to} when a device's sender keeps failing and when it works again. */
  public void reportTroubleTo(SenderTrouble to) {
    this.trouble = to;
  }

  /**
   * Tells {@code observer} what the pipeline does from now on (the gateway's metrics); set before
   * the first device is used, so that every sender reports to it.
   */
  public void observeWith(SendObserver observer) {
    this.observer = observer;
  }

  /**
   * Starts a sender for every device with messages still to send, or cut off mid-send by the last
   * stop (each applies the crash rule when it takes its lease), first, then for every other device
   * that is switched on (its driver attaches it), and the loop that renews leases.
   */
  public void resume() {
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
                .flatMap(Messages::finalResult)
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
  private void wakeSender(DeviceSender sender, boolean sync) {
    if (sender.holdsLease() || !signals.shared()) {
      sender.wake(sync);
    } else {
      signals.publish(NodeSignals.Topic.WORK, sender.deviceId());
    }
  }

  /**
   * The sync timeout ({@code send.sync-timeout}) the families give their callers: a sync send that
   * could not go out within it on an online device is refused at once ({@link
   * SendRefused.Reason#DEVICE_BUSY}).
   */
  public void answerSyncWithin(Duration timeout) {
    this.syncTimeout = timeout;
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
    if (closed) {
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
    Optional<IdempotencyKeys.Claim> claim = idempotent.claimOf(device, request);
    Optional<List<Message>> first = claim.flatMap(c -> idempotent.firstOf(c, request));
    if (first.isPresent()) {
      return first.get(); // a repeat: nothing is stored or sent again
    }
    List<Message> messages = build(device, request, clock.instant());
    // The sender first: a gateway that is stopping refuses before anything is stored, so a
    // caller told "stopping" never finds the message sent after the next start.
    DeviceSender sender = senderFor(device);
    if (request.sync() && request.delay().isZero()) {
      refuseIfBusy(device, sender, messages.size());
    }
    for (Message m : messages) {
      if (m.sync()) {
        outcomes.expect(m.id()); // before the sender can report it
      }
    }
    if (claim.isEmpty() && sender.reserveHandOver(messages)) {
      List<Message> handedOver = acceptHandedOver(sender, messages);
      observer.accepted(device.driver(), handedOver.size());
      return handedOver;
    }
    boolean stored;
    try {
      // The sender looks once committed, even if that is after this caller stopped waiting.
      stored =
          awaitCommit(
              stores
                  .queue()
                  .insert(messages, claim.map(c -> idempotent.firstWithKey(c, messages)))
                  .thenApply(
                      done -> {
                        if (done) {
                          wakeSender(sender, request.sync());
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

  /**
   * Stores messages claimed for their idle sender in the same commit, and hands them over: a send
   * to a device with nothing queued costs one commit before the driver, not two.
   */
  private List<Message> acceptHandedOver(DeviceSender sender, List<Message> messages) {
    Instant now = clock.instant();
    // Whichever comes first decides: the commit (handed over, the caller learns the ids) or the
    // caller's deadline (refused "busy", and then nothing of it may go out).
    java.util.concurrent.atomic.AtomicBoolean decided =
        new java.util.concurrent.atomic.AtomicBoolean();
    CompletableFuture<Set<Long>> commit =
        stores.queue().insertClaimed(messages, leases.owner(), now);
    // The caller waits for the hand-over itself, not only the commit: answered earlier, it could
    // send its next message, which a sender could then read from the queue and send ahead of
    // this one.
    CompletableFuture<Set<Long>> handedOver =
        commit.whenComplete(
            (claimedIds, error) -> {
              boolean refused = !decided.compareAndSet(false, true);
              List<Message> handed = new ArrayList<>();
              for (Message m : messages) {
                if (claimedIds != null && claimedIds.contains(m.id())) {
                  if (refused) { // the caller was told "busy": it must not go out
                    stores
                        .outcomes()
                        .moveLater(
                            m.id(),
                            MessageState.FAILED,
                            Set.of(MessageState.SENDING),
                            clock.instant(),
                            FailureReason.TIMEOUT,
                            true);
                  } else {
                    handed.add(m.withAttempts(1));
                  }
                }
              }
              sender.handOver(handed);
              if (handed.size() < messages.size()) {
                Set<Long> handedIds = new java.util.HashSet<>();
                handed.forEach(m -> handedIds.add(m.id()));
                sender.handOverDropped(
                    messages.stream().filter(m -> !handedIds.contains(m.id())).toList());
              }
              if (claimedIds != null && handed.size() < messages.size()) {
                sender.wake(); // stored, not claimed (the lease moved): they wait like any other
              }
            });
    try {
      handedOver.get(ACCEPT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      if (!decided.compareAndSet(false, true)) {
        return messages; // committed and handed over just now: the caller learns the ids
      }
      messages.forEach(m -> outcomes.forget(m.id()));
      // Queued behind the insert: withdraws them if they were stored but not claimed.
      stores
          .outcomes()
          .withdrawLater(
              messages.stream().map(Message::id).toList(), FailureReason.TIMEOUT, clock.instant());
      throw new SendRefused(
          SendRefused.Reason.BUSY,
          "the database did not commit within " + ACCEPT_TIMEOUT + "; nothing was sent");
    } catch (ExecutionException e) {
      messages.forEach(m -> outcomes.forget(m.id()));
      throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      messages.forEach(m -> outcomes.forget(m.id()));
      throw new IllegalStateException("interrupted while accepting", e);
    }
    return messages;
  }

  /**
   * Refuses a sync send to an online device when the sync messages already waiting on it (those
   * this node's sender holds claimed and has not started, and those queued in the database) could
   * not all go out, with this request's, before the caller's timeout at the device's sync pace.
   * Nothing is stored, so a caller told to retry never finds this request sent as well.
   */
  private void refuseIfBusy(Device device, DeviceSender sender, int adding) {
    if (!sender.deviceConnected()) {
      return; // an offline device answers phone_offline, as before
    }
    long perSend = sender.syncSendNanos();
    int ahead = sender.syncHandOversOutstanding();
    if ((long) (ahead + adding) * perSend <= syncTimeout.toNanos()) {
      // Only when the hand-overs alone fit; a count at most PENDING_SYNC_RECHECK old will do.
      ahead += sender.pendingSyncCount(() -> stores.queue().pendingSyncCount(device.id()));
    }
    if ((long) (ahead + adding) * perSend > syncTimeout.toNanos()) {
      long seconds = retryAfterSeconds(ahead, perSend);
      throw new SendRefused(
          SendRefused.Reason.DEVICE_BUSY,
          ahead
              + " sync sends are waiting on this device, more than it can send within "
              + syncTimeout.toMillis()
              + " ms; nothing was sent, retry after "
              + seconds
              + " s",
          seconds);
    }
  }

  private static long retryAfterSeconds(int ahead, long perSendNanos) {
    return Math.max(1, (long) Math.ceil(ahead * (double) perSendNanos / 1_000_000_000d));
  }

  /**
   * When a sync send to {@code device} may find room again, in whole seconds (at least 1): what a
   * caller told {@link SendResult#DEVICE_BUSY} is given as {@code Retry-After}.
   */
  public long busyForSeconds(Device device) {
    DeviceSender sender = senders.get(device.id());
    if (sender == null) {
      return 1;
    }
    int ahead =
        sender.syncHandOversOutstanding()
            + sender.pendingSyncCount(() -> stores.queue().pendingSyncCount(device.id()));
    return retryAfterSeconds(ahead, sender.syncSendNanos());
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
              request.linkPreview()));
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
    boolean holds(Handle handle, long messageId) throws SQLException;
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
    if (closed) {
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
      sendersOf.computeIfAbsent(send.device().id(), id -> senderFor(send.device()));
    }
    // Queued when committed, even if that is after this caller stopped waiting: a message that is
    // stored is sent, whoever waits for it.
    boolean[] stored =
        awaitCommit(
            stores
                .queue()
                .insertGuarded(messages, guards)
                .thenApply(
                    done -> {
                      sendersOf.values().forEach(s -> wakeSender(s, true));
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
   * Waits for the commit that stores {@code messages}. When it does not come in time and {@code
   * withdraw} is set (an HTTP caller is refused), the messages are withdrawn by a write queued
   * behind it, so the refusal is the truth: whatever the first write does later, nothing of this
   * request goes out. Without it (the scheduler, auto-replies: no caller to tell), what commits
   * later is sent: its sender looks once it is committed.
   */
  private <T> T awaitCommit(CompletableFuture<T> commit, List<Message> messages, boolean withdraw) {
    try {
      return commit.get(ACCEPT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e);
    } catch (TimeoutException e) {
      if (!withdraw) {
        throw new IllegalStateException("the database did not commit within " + ACCEPT_TIMEOUT);
      }
      stores
          .outcomes()
          .withdrawLater(
              messages.stream().map(Message::id).toList(), FailureReason.TIMEOUT, clock.instant());
      throw new SendRefused(
          SendRefused.Reason.BUSY,
          "the database did not commit within " + ACCEPT_TIMEOUT + "; nothing was sent");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while accepting", e);
    }
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
    if (idempotent.isRepeat(messages)) { // the first request's messages: their caller waits
      return idempotent.awaitStored(messages, deadline);
    }
    SendResult[] results = new SendResult[messages.size()];
    try {
      int next = 0;
      for (; next < messages.size(); next++) {
        SendResult r = poll(messages.get(next), deadline);
        if (r == null) {
          break;
        }
        results[next] = r;
      }
      if (next < messages.size()) {
        expire(messages.subList(next, messages.size()), results, next, callerStarted);
      }
      return List.of(results);
    } finally {
      messages.forEach(m -> outcomes.forget(m.id()));
    }
  }

  /**
   * The outcome if it comes before {@code until}, else null. This node's sender tells at once; a
   * message sent by another node's sender is found in the database, looked at every second.
   */
  private SendResult poll(Message message, Instant until) {
    CompletableFuture<SendResult> told = outcomes.of(message.id());
    while (true) {
      long left = millisUntil(until);
      try {
        return told.get(Math.min(left, OUTCOME_RECHECK.toMillis()), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        Optional<SendResult> stored =
            stores.reads().find(message.id()).flatMap(Messages::finalResult);
        if (stored.isPresent()) {
          return stored.get();
        }
        if (left <= OUTCOME_RECHECK.toMillis()) {
          return null;
        }
      } catch (ExecutionException e) {
        return SendResult.FAILED;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }

  /** What a stored message's state tells a sync caller, once it is final for the first attempt. */
  private static Optional<SendResult> finalResult(Message m) {
    if (m.state().wentOut()) {
      return Optional.of(SendResult.SENT);
    }
    if (m.state() != MessageState.FAILED) {
      return Optional.empty();
    }
    String reason = m.reason().orElse("");
    return Optional.of(
        switch (reason) {
          case FailureReason.NUMBER_NOT_FOUND -> SendResult.NUMBER_NOT_FOUND;
          case FailureReason.PHONE_OFFLINE -> SendResult.PHONE_OFFLINE;
          case FailureReason.TIMEOUT -> SendResult.TIMEOUT;
          default -> SendResult.FAILED;
        });
  }

  private void expire(List<Message> late, SendResult[] results, int offset, Instant callerStarted) {
    List<Long> withdrawable = new ArrayList<>();
    for (Message m : late) {
      if (!m.retry() && !outcomes.of(m.id()).isDone()) {
        withdrawable.add(m.id());
      }
    }
    // Guarded: only what no sender has claimed is withdrawn; a claimed one is in a driver's hands.
    Instant now = clock.instant();
    java.util.Set<Long> withdrawn =
        new java.util.HashSet<>(
            stores.outcomes().withdraw(withdrawable, FailureReason.TIMEOUT, now));
    DeviceSender sender = late.isEmpty() ? null : senders.get(late.getFirst().deviceId());
    if (sender != null) {
      for (long id : withdrawable) {
        // One this node's sender holds claimed but has not started: its memory decides, then the
        // database says so (it was claimed, "sending", without ever reaching the driver).
        if (!withdrawn.contains(id) && sender.withdrawUnsent(id)) {
          stores
              .outcomes()
              .moveTo(
                  id,
                  MessageState.FAILED,
                  Set.of(MessageState.SENDING, MessageState.PENDING),
                  now,
                  FailureReason.TIMEOUT);
          withdrawn.add(id);
        }
      }
    }
    // Withdrawn while its turn had come on a device that is online: the device is busy, not
    // offline (a caller told phone_offline would look for a phone problem that is not there).
    boolean online = sender != null && !withdrawn.isEmpty() && sender.deviceConnected();
    Instant graceEnd = Instant.now().plus(IN_FLIGHT_GRACE);
    Instant patienceEnd = callerStarted.plus(CALLER_PATIENCE);
    Instant until = graceEnd.isBefore(patienceEnd) ? graceEnd : patienceEnd;
    for (int i = 0; i < late.size(); i++) {
      Message m = late.get(i);
      SendResult r;
      if (withdrawn.contains(m.id())) {
        r = online && !m.notBefore().isAfter(now) ? SendResult.DEVICE_BUSY : SendResult.TIMEOUT;
      } else if (m.retry()) {
        r = outcomes.of(m.id()).getNow(SendResult.TIMEOUT); // flag_retry: it stays queued
      } else {
        r = poll(m, until); // in the driver's hands: its outcome is near
      }
      results[offset + i] = r == null ? SendResult.TIMEOUT : r;
    }
  }

  private long millisUntil(Instant deadline) {
    // Deadlines of sync calls are in real time: the caller's HTTP client does not read our clock.
    return Math.max(1, Duration.between(Instant.now(), deadline).toMillis());
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

  /** Where {@link #checkNumber} learns which network ids a device has met. */
  public void knowContactsFrom(io.kurir.driver.ContactDirectory contacts) {
    this.contacts = contacts;
  }

  /**
   * Whether {@code address} has an account on {@code device}'s network: a phone number (E.164) is
   * asked of the driver; a network id (a LID, a BSUID) exists when the device has met it, since the
   * network gave it to this device, and is unknown to the network otherwise ({@code NOT_EXISTS}, as
   * a send to it is refused): drivers check phone numbers only.
   */
  public NumberCheck checkNumber(Device device, String address) {
    Optional<io.kurir.driver.ContactId> id =
        io.kurir.driver.ContactId.parse(address).filter(i -> !i.isPhone());
    if (id.isPresent()) {
      return contacts.knows(device.id(), id.get()) ? NumberCheck.EXISTS : NumberCheck.NOT_EXISTS;
    }
    return drivers.of(device.ref()).checkNumber(device.ref(), address);
  }

  /** Whether {@code device} can send right now. */
  public boolean isConnected(Device device) {
    return drivers.of(device.ref()).isConnected(device.ref());
  }

  /** The id of the group {@code device} is in that is called {@code name}, if any. */
  public Optional<String> groupIdByName(Device device, String name) {
    return drivers.of(device.ref()).groupIdByName(device.ref(), name);
  }

  public GroupMembers groupMembers(Device device, String groupId) {
    return drivers.of(device.ref()).groupMembers(device.ref(), groupId);
  }

  /** Whether the device's sender is idle, with nothing pending (tests wait on it). */
  boolean senderIdle(long deviceId) {
    DeviceSender s = senders.get(deviceId);
    return s != null && s.idleForHandOver();
  }

  /** Whether an accepted message is being handed to the device's sender (tests wait on it). */
  boolean handOverInFlight(long deviceId) {
    DeviceSender s = senders.get(deviceId);
    return s != null && s.handOverInFlight();
  }

  /** Messages waiting in a device's queue (pending), for tests and operators. */
  public int queued(long deviceId) {
    return stores.queue().pendingCount(deviceId);
  }

  private DeviceSender senderFor(Device device) {
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
                    new SenderTrouble() { // read when told: set after the senders may start
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

  // --- what drivers report

  /**
   * A message that went out was delivered, read, or failed after all. Keyed by the network's id, it
   * moves the message that carries that id, or waits for the send's outcome that brings it.
   */
  public void receipt(Receipt receipt) {
    MessageState state =
        switch (receipt.status()) {
          case DELIVERED -> MessageState.DELIVERY;
          case READ -> MessageState.READ;
          case FAILED -> MessageState.FAILED;
        };
    String reason =
        state == MessageState.FAILED ? receipt.reason().orElse(FailureReason.DRIVER_ERROR) : null;
    DeviceSender sender = senders.get(receipt.deviceId());
    if (sender != null) { // every device that sent has one, on the node that holds it
      observer.receipt(sender.driverName(), receipt.status());
    }
    // Not waited for: the driver's receipt thread must not stall on a commit per receipt.
    if (receipt.messageId().isPresent()) {
      stores
          .outcomes()
          .moveLater(
              receipt.messageId().get(),
              state,
              ReceiptStore.receiptFrom(state),
              receipt.at(),
              reason,
              false);
    } else {
      stores
          .receipts()
          .receiptByNetworkId(
              receipt.deviceId(),
              receipt.networkId().orElseThrow(),
              state,
              reason,
              receipt.at(),
              clock.instant());
    }
  }

  /**
   * The outcome of a send a driver had answered "accepted", reported now. One that puts the message
   * back in the queue (not sent after all, a retry) wakes the device's sender once recorded: it may
   * be idle, its queue empty when it last looked.
   */
  public void outcome(long deviceId, long messageId, SendOutcome outcome) {
    stores
        .reads()
        .find(messageId)
        .filter(m -> m.deviceId() == deviceId && m.state() == MessageState.SENDING)
        .ifPresentOrElse(
            m ->
                attempts
                    .record(m, outcome)
                    .whenComplete(
                        (done, error) -> {
                          DeviceSender s = senders.get(deviceId);
                          if (s != null) {
                            s.wake();
                          }
                        }),
            () -> {
              try (var ids = io.kurir.logging.LogIds.message(deviceId, messageId)) {
                log.info(
                    "device {}: outcome of message {} ignored: not sending", deviceId, messageId);
              }
            });
  }

  /**
   * A device was switched off or on: its sender detaches it, or takes it up again; the other nodes
   * are told.
   */
  public void deviceChanged(Device device) {
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
  public void deviceDeleted(Device device) {
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
   * Whether a device's sender may send now, besides its driver's word: false while its queue is
   * held ({@link #holdWith}).
   */
  private volatile java.util.function.LongPredicate held = id -> false;

  /** Tells senders which devices' queues are held; set before the first device is used. */
  public void holdWith(java.util.function.LongPredicate held) {
    this.held = held;
  }

  /** A device became able, or unable, to send. */
  public void connectionChanged(long deviceId, boolean connected) {
    DeviceSender s = senders.get(deviceId);
    if (s != null && connected) {
      s.connectionRestored();
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
