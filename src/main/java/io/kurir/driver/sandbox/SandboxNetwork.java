package io.kurir.driver.sandbox;

import io.kurir.device.DeviceState;
import io.kurir.driver.DriverListener;
import io.kurir.driver.GroupMembers;
import io.kurir.driver.IncomingMessage;
import io.kurir.driver.NumberCheck;
import io.kurir.driver.OutgoingMessage;
import io.kurir.driver.Receipt;
import io.kurir.driver.SendOutcome;
import io.kurir.time.Wakeable;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A simulated phone network living in the gateway's process: the embedded default driver's world,
 * how people try Kurir and how the tests run.
 *
 * <p>Every valid number has a phone on the network unless marked unregistered. Phones receive
 * messages into an inbox and progress them {@code sent → delivered → read} after configurable times
 * of the injected clock (delivery waits while a phone is offline). Devices are paired to the
 * network and can go offline. Groups have members. Incoming messages and send failures can be
 * injected.
 *
 * <p>The network can outlive a gateway (tests restart the gateway against the same network), so it
 * is created outside the driver and re-attached to each new listener. Thread-safe.
 */
public final class SandboxNetwork implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SandboxNetwork.class);

  /**
   * What a recipient phone holds for one received message: {@code messageId} is Kurir's id (the
   * sandbox can see it, a real network cannot), {@code networkId} the network's own.
   */
  public record InboxEntry(
      long messageId,
      String networkId,
      String from,
      String to,
      String group,
      String kind,
      String text,
      Instant receivedAt,
      String status,
      String mediaName,
      String mediaType,
      long mediaBytes) {

    InboxEntry withStatus(String newStatus) {
      return new InboxEntry(
          messageId,
          networkId,
          from,
          to,
          group,
          kind,
          text,
          receivedAt,
          newStatus,
          mediaName,
          mediaType,
          mediaBytes);
    }
  }

  /** A group on the network. */
  public record Group(String id, String name, List<String> members) {}

  /** A paired device session. */
  public record Session(long deviceId, String number, boolean online) {}

  /** What an injected failure does to the sends it matches. */
  public enum FailureKind {
    /** The send fails with a driver error (a transient failure). */
    FAIL,
    /** The recipient is reported as not on the network. */
    NOT_FOUND,
    /** The device is reported offline for this send. */
    OFFLINE
  }

  private static final class Phone {
    volatile boolean registered = true;
    volatile boolean online = true;
    // Appends and status changes are O(1): a benchmark sends hundreds of thousands to one phone.
    final List<InboxEntry> inbox = Collections.synchronizedList(new ArrayList<>());
    final Map<Long, String> statuses = new ConcurrentHashMap<>();
  }

  private static final class FailureRule {
    final String target;
    final FailureKind kind;
    int remaining;

    FailureRule(String target, FailureKind kind, int remaining) {
      this.target = target;
      this.kind = kind;
      this.remaining = remaining;
    }
  }

  private record PendingReceipt(
      Instant due,
      long deviceId,
      String networkId,
      long messageId,
      String recipient,
      Receipt.Status receipt,
      String group) {}

  private final Clock clock;
  private final Duration deliveryAfter;
  private final Duration readAfter;
  private final boolean deduplicates;
  private final java.util.concurrent.atomic.AtomicLong networkIds =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * Makes this network's ids unlike those of any network before it: the gateway's database keeps
   * the ids of earlier runs (a network made again after a restart would otherwise hand out the same
   * ones, and a new incoming message would be dropped as a redelivery).
   */
  private final String run = java.util.UUID.randomUUID().toString().substring(0, 8);

  private final Map<String, Phone> phones = new ConcurrentHashMap<>();
  private final Map<String, Group> groups = new ConcurrentHashMap<>();
  private final Map<Long, Session> sessions = new ConcurrentHashMap<>();
  private final Set<Long> received = ConcurrentHashMap.newKeySet();
  private final Map<Long, String> networkIdOf = new ConcurrentHashMap<>();
  private final Set<Long> singleDevice = ConcurrentHashMap.newKeySet();
  private final Set<Long> takenOver = ConcurrentHashMap.newKeySet();
  private final Map<Long, PairingCode> pairingCodes = new ConcurrentHashMap<>();
  private final List<FailureRule> failures = new ArrayList<>();
  private final PriorityQueue<PendingReceipt> receipts =
      new PriorityQueue<>(Comparator.comparing(PendingReceipt::due));
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final Thread ticker;
  private volatile DriverListener listener;
  private volatile boolean closed;

  /**
   * @param deduplicates whether a second send of the same Kurir message id is taken as the first
   *     (as a network that de-duplicates would); off, every send reaches the phone again, as on a
   *     network that does not
   */
  public SandboxNetwork(
      Clock clock, Duration deliveryAfter, Duration readAfter, boolean deduplicates) {
    this.clock = clock;
    this.deliveryAfter = deliveryAfter;
    this.readAfter = readAfter;
    this.deduplicates = deduplicates;
    Wakeable.wakeOnClockChange(clock, this::wake);
    this.ticker = Thread.ofVirtual().name("sandbox-receipts").start(this::tickLoop);
  }

  void attach(DriverListener newListener) {
    this.listener = newListener;
    wake(); // receipts held while nobody listened can go now
  }

  /** Stops reporting to {@code oldListener}; receipts wait for the next listener. */
  void detach(DriverListener oldListener) {
    if (listener == oldListener) {
      listener = null;
    }
  }

  // --- the control surface (sandbox API, tests, demo)

  /** Marks a number as having (or not having) an account on the network. */
  public void setRegistered(String e164, boolean registered) {
    phone(e164).registered = registered;
  }

  public boolean isRegistered(String e164) {
    Phone p = phones.get(e164);
    return p == null || p.registered;
  }

  public boolean isPhoneOnline(String e164) {
    Phone p = phones.get(e164);
    return p == null || p.online;
  }

  /** Turns a recipient phone off or on; delivery receipts wait while it is off. */
  public void setPhoneOnline(String e164, boolean online) {
    phone(e164).online = online;
    wake();
  }

  /** Pairs a device with the network: from now on it can send. */
  public void pair(long deviceId, String number) {
    takenOver.remove(deviceId);
    sessions.put(deviceId, new Session(deviceId, number, true));
    notifyConnection(deviceId, true);
    notifyState(deviceId, DeviceState.ONLINE, "paired");
  }

  public void unpair(long deviceId) {
    if (sessions.remove(deviceId) != null) {
      notifyConnection(deviceId, false);
      notifyState(deviceId, DeviceState.NONE, "unpaired");
    }
  }

  /** The device logs out: its session ends as if never paired. False when it had none. */
  boolean logout(long deviceId) {
    if (sessions.remove(deviceId) == null) {
      return false;
    }
    notifyConnection(deviceId, false);
    notifyState(deviceId, DeviceState.NONE, "logged out");
    return true;
  }

  /** A pairing code shown to a phone, valid until {@code expires}. */
  private record PairingCode(String code, String number, Instant expires) {}

  /** How long a pairing code can be scanned; a new one is made after that. */
  public static final Duration PAIRING_CODE_LIFETIME = Duration.ofSeconds(20);

  /** The device's current pairing code, or a new one when there is none or it expired. */
  String pairingCode(long deviceId, String number) {
    Instant now = clock.instant();
    return pairingCodes
        .compute(
            deviceId,
            (id, current) ->
                current != null && current.expires().isAfter(now)
                    ? current
                    : new PairingCode(
                        "kurir-sandbox:" + id + ":" + java.util.UUID.randomUUID(),
                        number,
                        now.plus(PAIRING_CODE_LIFETIME)))
        .code();
  }

  /**
   * The phone scans a QR code: the device is paired only if {@code code} is its current, unexpired
   * pairing code. Returns the device paired, if any.
   */
  public Optional<Long> scan(String code) {
    Instant now = clock.instant();
    for (var e : pairingCodes.entrySet()) {
      PairingCode p = e.getValue();
      if (p.code().equals(code) && p.expires().isAfter(now)) {
        pairingCodes.remove(e.getKey(), p); // a code pairs once
        pair(e.getKey(), p.number());
        return Optional.of(e.getKey());
      }
    }
    return Optional.empty();
  }

  /** The current pairing code of an unpaired device, for a demo to show; empty when paired. */
  public Optional<String> pairingCodeOf(io.kurir.tenant.Device device) {
    return sessions.containsKey(device.id())
        ? Optional.empty()
        : Optional.of(pairingCode(device.id(), device.number()));
  }

  /** The device's session state now. */
  DeviceState state(long deviceId) {
    Session s = sessions.get(deviceId);
    if (s != null) {
      return s.online() ? DeviceState.ONLINE : DeviceState.OFFLINE;
    }
    return takenOver.contains(deviceId) ? DeviceState.REFRESH_IT : DeviceState.NONE;
  }

  /** Another session takes the device's number over: this one ends ({@code refresh_it}). */
  public boolean takeOver(long deviceId) {
    if (sessions.remove(deviceId) == null) {
      return false;
    }
    takenOver.add(deviceId);
    notifyConnection(deviceId, false);
    notifyState(deviceId, DeviceState.REFRESH_IT, "the number was taken over by another session");
    return true;
  }

  /** Takes a paired device's phone off the network, or back. */
  public boolean setDeviceOnline(long deviceId, boolean online) {
    Session updated =
        sessions.computeIfPresent(deviceId, (id, s) -> new Session(id, s.number(), online));
    if (updated == null) {
      return false;
    }
    notifyConnection(deviceId, online);
    notifyState(
        deviceId,
        online ? DeviceState.ONLINE : DeviceState.OFFLINE,
        online ? "phone back online" : "phone unreachable");
    return true;
  }

  public Optional<Session> session(long deviceId) {
    return Optional.ofNullable(sessions.get(deviceId));
  }

  public Group createGroup(String id, String name, List<String> members) {
    Group group = new Group(id, name, List.copyOf(members));
    groups.put(id, group);
    return group;
  }

  /** Marks a device's account as not multi-device: it cannot list group members. */
  public void setMultiDevice(long deviceId, boolean multiDevice) {
    if (multiDevice) {
      singleDevice.remove(deviceId);
    } else {
      singleDevice.add(deviceId);
    }
  }

  Optional<String> groupIdByName(long deviceId, String name) {
    Session s = sessions.get(deviceId);
    if (s == null) {
      return Optional.empty();
    }
    return groups.values().stream()
        .filter(g -> g.name().equalsIgnoreCase(name.strip()) && g.members().contains(s.number()))
        .map(Group::id)
        .sorted()
        .findFirst();
  }

  GroupMembers groupMembers(long deviceId, String groupId) {
    Session s = sessions.get(deviceId);
    if (s == null || !s.online()) {
      return new GroupMembers.Unknown();
    }
    if (singleDevice.contains(deviceId)) {
      return new GroupMembers.NotSupported();
    }
    Group g = groups.get(groupId);
    if (g == null || !g.members().contains(s.number())) {
      return new GroupMembers.NotFound();
    }
    return new GroupMembers.Members(g.members());
  }

  public Collection<Group> groups() {
    return groups.values();
  }

  /** Delivers a message from {@code senderE164} to a paired device, as if typed on a phone. */
  public boolean injectIncoming(long deviceId, String senderE164, String text) {
    return injectIncoming(
        deviceId, senderE164, text, "SBXIN-" + run + "-" + networkIds.incrementAndGet());
  }

  /**
   * Delivers a message with the network id {@code networkId}: the same id again is a redelivery, as
   * a network sends when it did not see its first delivery acknowledged.
   */
  public boolean injectIncoming(long deviceId, String senderE164, String text, String networkId) {
    DriverListener l = listener;
    if (!sessions.containsKey(deviceId) || l == null) {
      return false;
    }
    l.incoming(IncomingMessage.text(deviceId, networkId, senderE164, text, clock.instant()));
    return true;
  }

  /** Whether this network takes a second send of the same Kurir message id as the first. */
  boolean deduplicates() {
    return deduplicates;
  }

  /**
   * Makes the next {@code count} sends to or from {@code target} (a number, a group id, or {@code
   * *} for every send) fail in the given way.
   */
  public void injectFailure(String target, FailureKind kind, int count) {
    if (count < 1) {
      throw new IllegalArgumentException("count must be at least 1");
    }
    synchronized (failures) {
      failures.add(new FailureRule(target, kind, count));
    }
  }

  /** Removes every injected failure that has not happened yet. */
  public void clearFailures() {
    synchronized (failures) {
      failures.clear();
    }
  }

  /** Messages the phone with number {@code e164} received, oldest first. */
  public List<InboxEntry> inbox(String e164) {
    Phone p = phones.get(e164);
    if (p == null) {
      return List.of();
    }
    List<InboxEntry> entries;
    synchronized (p.inbox) {
      entries = new ArrayList<>(p.inbox);
    }
    entries.replaceAll(e -> e.withStatus(p.statuses.getOrDefault(e.messageId(), e.status())));
    return entries;
  }

  // --- the driver side

  boolean isConnected(long deviceId) {
    Session s = sessions.get(deviceId);
    return s != null && s.online();
  }

  SendOutcome send(long deviceId, OutgoingMessage message) {
    Session session = sessions.get(deviceId);
    if (session == null || !session.online()) {
      return new SendOutcome.DeviceUnavailable();
    }
    Optional<FailureKind> injected = takeFailure(session.number(), message.recipient());
    if (injected.isPresent()) {
      return switch (injected.get()) {
        case FAIL -> new SendOutcome.Failed("injected failure");
        case NOT_FOUND -> new SendOutcome.NotFound();
        case OFFLINE -> new SendOutcome.DeviceUnavailable();
      };
    }
    Instant now = clock.instant();
    List<String> recipients;
    String group = null;
    if (message.toGroup()) {
      Group g = groups.get(message.recipient());
      if (g == null || !g.members().contains(session.number())) {
        return new SendOutcome.NotFound(); // a device can only write to groups it is in
      }
      group = g.id();
      recipients = g.members().stream().filter(n -> !n.equals(session.number())).toList();
    } else {
      if (!isRegistered(message.recipient())) {
        return new SendOutcome.NotFound();
      }
      recipients = List.of(message.recipient());
    }
    String mediaName = null;
    String mediaType = null;
    long mediaBytes = 0;
    if (message.media().isPresent()) {
      OutgoingMessage.Attachment a = message.media().get();
      try {
        mediaBytes = Files.size(a.path()); // the phone receives the bytes the gateway kept
      } catch (IOException e) {
        return new SendOutcome.Failed("media file unreadable: " + e.getMessage());
      }
      mediaName = a.name();
      mediaType = a.mimeType();
    }
    // With de-duplication, Kurir's message id is the idempotency key: a resend after a crash is
    // not a second message. Without it, the phone gets it again, as on most real networks.
    if (deduplicates && !received.add(message.id())) {
      return SendOutcome.Sent.of(networkIdOf.get(message.id()), now);
    }
    String networkId = "SBX" + run + "-" + networkIds.incrementAndGet();
    if (deduplicates) {
      networkIdOf.put(message.id(), networkId);
    }
    for (String to : recipients) {
      phone(to)
          .inbox
          .add(
              new InboxEntry(
                  message.id(),
                  networkId,
                  session.number(),
                  to,
                  group,
                  message.kind(),
                  message.text(),
                  now,
                  "sent",
                  mediaName,
                  mediaType,
                  mediaBytes));
    }
    String receiptTarget = recipients.isEmpty() ? session.number() : recipients.getFirst();
    lock.lock();
    try {
      receipts.add(
          new PendingReceipt(
              now.plus(deliveryAfter),
              deviceId,
              networkId,
              message.id(),
              receiptTarget,
              Receipt.Status.DELIVERED,
              group));
      receipts.add(
          new PendingReceipt(
              now.plus(readAfter),
              deviceId,
              networkId,
              message.id(),
              receiptTarget,
              Receipt.Status.READ,
              group));
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    return SendOutcome.Sent.of(networkId, now);
  }

  NumberCheck checkNumber(long deviceId, String e164) {
    if (!isConnected(deviceId)) {
      return NumberCheck.UNKNOWN;
    }
    return isRegistered(e164) ? NumberCheck.EXISTS : NumberCheck.NOT_EXISTS;
  }

  private Optional<FailureKind> takeFailure(String deviceNumber, String recipient) {
    synchronized (failures) {
      for (var it = failures.iterator(); it.hasNext(); ) {
        FailureRule rule = it.next();
        if (rule.target.equals("*")
            || rule.target.equals(recipient)
            || rule.target.equals(deviceNumber)) {
          if (--rule.remaining <= 0) {
            it.remove();
          }
          return Optional.of(rule.kind);
        }
      }
    }
    return Optional.empty();
  }

  private Phone phone(String e164) {
    return phones.computeIfAbsent(e164, n -> new Phone());
  }

  private void notifyState(long deviceId, DeviceState state, String reason) {
    DriverListener l = listener;
    if (l != null) {
      l.stateChanged(deviceId, state, reason);
    }
  }

  private void notifyConnection(long deviceId, boolean connected) {
    DriverListener l = listener;
    if (l != null) {
      l.connectionChanged(deviceId, connected);
    }
  }

  // --- receipts, on the injected clock

  private void wake() {
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void tickLoop() {
    while (!closed) {
      try {
        List<PendingReceipt> due = new ArrayList<>();
        lock.lock();
        try {
          PendingReceipt head = receipts.peek();
          Instant now = clock.instant();
          if (head == null) {
            changed.await(1, TimeUnit.SECONDS);
            continue;
          }
          if (head.due().isAfter(now)) {
            long wait = Math.min(Duration.between(now, head.due()).toMillis(), 1000);
            changed.await(Math.max(wait, 1), TimeUnit.MILLISECONDS);
            continue;
          }
          while (!receipts.isEmpty() && !receipts.peek().due().isAfter(now)) {
            due.add(receipts.poll());
          }
        } finally {
          lock.unlock();
        }
        deliver(due);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        log.warn("sandbox receipt loop: {}", e.toString());
      }
    }
  }

  private void deliver(List<PendingReceipt> due) {
    List<PendingReceipt> postponed = new ArrayList<>();
    for (PendingReceipt r : due) {
      Phone phone = phone(r.recipient());
      if (!phone.online) {
        postponed.add(r);
        continue;
      }
      DriverListener l = listener;
      if (l == null) {
        postponed.add(r); // no gateway attached right now (it is restarting): keep the receipt
        continue;
      }
      String status = r.receipt() == Receipt.Status.DELIVERED ? "delivered" : "read";
      phone.statuses.merge(r.messageId(), status, (old, now) -> "read".equals(old) ? old : now);
      try {
        // Keyed by the network's id, as a real network reports: the core maps it to its own.
        l.receipt(
            Receipt.ofNetworkId(
                r.deviceId(), r.networkId(), r.receipt(), Optional.empty(), clock.instant()));
      } catch (RuntimeException e) {
        log.warn("receipt of message {} not taken: {}", r.messageId(), e.toString());
      }
    }
    if (!postponed.isEmpty()) {
      // An offline phone gets its receipts a second after it is looked at again.
      lock.lock();
      try {
        Instant later = clock.instant().plusSeconds(1);
        postponed.forEach(
            r ->
                receipts.add(
                    new PendingReceipt(
                        later,
                        r.deviceId(),
                        r.networkId(),
                        r.messageId(),
                        r.recipient(),
                        r.receipt(),
                        r.group())));
      } finally {
        lock.unlock();
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    ticker.interrupt();
  }
}
