package io.kurir.driver.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.content.CloudMessageJson;
import io.kurir.content.MessageContent;
import io.kurir.driver.ActionOutcome;
import io.kurir.driver.ChatRef;
import io.kurir.driver.ContactId;
import io.kurir.driver.DeviceRef;
import io.kurir.driver.DeviceState;
import io.kurir.driver.DriverListener;
import io.kurir.driver.GroupMembers;
import io.kurir.driver.IncomingMessage;
import io.kurir.driver.NumberCheck;
import io.kurir.driver.OutgoingMessage;
import io.kurir.driver.Receipt;
import io.kurir.driver.SendOutcome;
import io.kurir.time.Wakeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
 * <p>A real network does not die with the gateway, and neither does this one: made with {@link
 * #journaled}, it keeps what a real network would keep (phones, pairings, groups, inboxes with
 * their receipts, the message ids it has received) in a journal file ({@link SandboxJournal}),
 * written before a send returns, and reads it back when a new gateway starts. Receipts that were
 * due but not yet reported when the gateway died are reported after it. Each phone keeps its last
 * {@value #HISTORY_PER_PHONE} messages; injected failures and pairing codes are not kept. Made with
 * the constructor, the network lives in memory only (unit tests, benchmarks); tests that restart a
 * gateway in the same process may also hand the same network to each new gateway.
 *
 * <p>Thread-safe. Every change that the journal keeps happens under one lock, written first and
 * applied second, so that the journal and the memory tell the same story.
 */
public final class SandboxNetwork implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SandboxNetwork.class);

  /** The messages a phone keeps: older ones leave its inbox (and the journal) as new ones come. */
  public static final int HISTORY_PER_PHONE = 1_000;

  /**
   * The phones whose inboxes are kept, and the messages kept over all inboxes: past either, the
   * inbox of the phone that received least recently is emptied (and a phone with nothing else to
   * remember, registered and online, is forgotten). A long-running {@code serve} that sends to ever
   * new numbers grew by each one; now the memory and the journal's rewrite stay bounded (about 60
   * MB of messages at most).
   */
  public static final int PHONES_WITH_HISTORY = 10_000;

  public static final int MESSAGES_KEPT = 100_000;

  /**
   * How many message ids the network remembers for de-duplication (the latest). A message resent
   * after a crash was sent moments before it (a device claims about a second of sends at a time),
   * so the last 100,000 ids cover every gateway's in-flight window many times over.
   */
  static final int DEDUP_MEMORY = 100_000;

  /** Network ids are reserved in the journal in blocks, so that none is issued twice. */
  private static final long ID_BLOCK = 10_000;

  /**
   * What a recipient phone holds for one received message: {@code messageId} is Kurir's id (the
   * sandbox can see it, a real network cannot), {@code networkId} the network's own; {@code
   * linkPreview} whether the sender let the phone show a preview of a link ({@code skip_link});
   * {@code content} the message object it received ({@code type}, the kind's object, {@code
   * context}, {@code mentions}) when it says more than a seed family's text, image or file, else
   * null; {@code revoked} whether its sender deleted it for everyone since, {@code edited} whether
   * its sender edited it since ({@code text} is then the new text).
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
      long mediaBytes,
      boolean linkPreview,
      com.fasterxml.jackson.databind.JsonNode content,
      boolean revoked,
      boolean edited) {

    /** As the phone shows it now: its status, and what its sender revoked or edited since. */
    InboxEntry shown(String newStatus, boolean isRevoked, String editedText) {
      return new InboxEntry(
          messageId,
          networkId,
          from,
          to,
          group,
          kind,
          isRevoked ? null : editedText == null ? text : editedText,
          receivedAt,
          newStatus,
          mediaName,
          mediaType,
          mediaBytes,
          linkPreview,
          isRevoked ? null : content,
          isRevoked,
          !isRevoked && editedText != null);
    }

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
          mediaBytes,
          linkPreview,
          content,
          revoked,
          edited);
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
    OFFLINE,
    /**
     * The network asks to be called again later (its rate limit): the device's queue waits {@link
     * #RATE_LIMIT_WAIT}; not an attempt.
     */
    RATE_LIMITED,
    /** The network refuses the message itself: it fails for good, never retried. */
    REFUSED
  }

  /** How long a send that met an injected rate limit asks the device's queue to wait. */
  public static final Duration RATE_LIMIT_WAIT = Duration.ofSeconds(30);

  /** The reason stored with a message the network refused ({@link FailureKind#REFUSED}). */
  public static final String REFUSED_REASON = "network_refused";

  /**
   * One message in a phone's inbox, with what the network needs to report its receipts: the sending
   * device, and whether this copy carries them (a group message's receipts come from its first
   * recipient).
   */
  private record Received(InboxEntry entry, long deviceId, boolean reportsReceipts) {}

  private static final class Phone {
    volatile boolean registered = true;
    volatile boolean online = true;
    // Appends and status changes are O(1): a benchmark sends hundreds of thousands to one phone.
    final Deque<Received> inbox = new ArrayDeque<>(); // guarded by itself
    final Map<String, String> statuses = new ConcurrentHashMap<>(); // by network id
    // What senders did to received messages since (by network id): deleted for everyone, edited.
    final Set<String> revoked = ConcurrentHashMap.newKeySet();
    final Map<String, String> edits = new ConcurrentHashMap<>();
    // What the devices this phone chats with show it (by the device's number): read marks (the
    // network id read up to, or "" for the whole chat) and typing; presence, so not journaled.
    final Map<String, ReadMark> readBy = new ConcurrentHashMap<>();
    final Set<String> typing = ConcurrentHashMap.newKeySet();

    boolean isDefault() {
      return registered && online;
    }
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
  private final AtomicLong networkIds = new AtomicLong();
  private long idsReservedUpTo; // guarded by changes

  /**
   * Makes this network's ids unlike those of any network before it that kept no journal: the
   * gateway's database keeps the ids of earlier runs (a network made again after a restart would
   * otherwise hand out the same ones, and a new incoming message would be dropped as a redelivery).
   * A journaled network also reserves its counter in the journal.
   */
  private final String run = java.util.UUID.randomUUID().toString().substring(0, 8);

  private final Map<String, Phone> phones = new ConcurrentHashMap<>();
  private final Map<String, Group> groups = new ConcurrentHashMap<>();
  private final Map<Long, Session> sessions = new ConcurrentHashMap<>();
  // Kurir message id -> the network id it was given, oldest first; guarded by changes.
  private final LinkedHashMap<Long, String> remembered =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, String> eldest) {
          return size() > DEDUP_MEMORY;
        }
      };
  private final Set<Long> singleDevice = ConcurrentHashMap.newKeySet();
  private final Set<Long> takenOver = ConcurrentHashMap.newKeySet();
  private final Map<Long, PairingCode> pairingCodes = new ConcurrentHashMap<>();
  private final List<FailureRule> failures = new ArrayList<>();
  // Phones with a kept inbox, least recently received first, and the messages of all inboxes;
  // both guarded by changes (receive runs under it, live and on replay).
  private final LinkedHashMap<String, Boolean> recentRecipients =
      new LinkedHashMap<>(16, 0.75f, true);
  private int messagesKept;
  private final PriorityQueue<PendingReceipt> receipts =
      new PriorityQueue<>(Comparator.comparing(PendingReceipt::due));
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  // Every journaled change: written to the journal, then applied, as one step.
  private final ReentrantLock changes = new ReentrantLock();
  private final SandboxJournal journal; // null: in memory only
  private final Thread ticker; // null: a read-only copy reports nothing
  private volatile DriverListener listener;
  private volatile boolean closed;

  /**
   * A network in memory only: gone when the process ends.
   *
   * @param deduplicates whether a second send of the same Kurir message id is taken as the first
   *     (as a network that de-duplicates would); off, every send reaches the phone again, as on a
   *     network that does not
   */
  public SandboxNetwork(
      Clock clock, Duration deliveryAfter, Duration readAfter, boolean deduplicates) {
    this(clock, deliveryAfter, readAfter, deduplicates, null, true);
  }

  private SandboxNetwork(
      Clock clock,
      Duration deliveryAfter,
      Duration readAfter,
      boolean deduplicates,
      SandboxJournal journal,
      boolean reports) {
    this.clock = clock;
    this.deliveryAfter = deliveryAfter;
    this.readAfter = readAfter;
    this.deduplicates = deduplicates;
    this.journal = journal;
    if (journal != null) {
      replayJournal();
    }
    if (reports) {
      Wakeable.wakeOnClockChange(clock, this::wake);
      this.ticker = Thread.ofVirtual().name("sandbox-receipts").start(this::tickLoop);
    } else {
      this.ticker = null;
    }
  }

  /**
   * A network whose state lives in {@code journalFile} (created if missing): what an earlier
   * network on that file did is read back, and the receipts it still owed are reported to the next
   * gateway that attaches. The file is rewritten from that state at once, and again whenever it has
   * grown well past it. One network per file: the gateway's database lock keeps a second gateway
   * (and so a second network) off the same data folder.
   */
  public static SandboxNetwork journaled(
      Clock clock,
      Duration deliveryAfter,
      Duration readAfter,
      boolean deduplicates,
      Path journalFile) {
    return journaled(
        clock, deliveryAfter, readAfter, deduplicates, journalFile, SandboxJournal.MIN_GROWTH);
  }

  /** As {@link #journaled(Clock, Duration, Duration, boolean, Path)}, rewritten sooner (tests). */
  static SandboxNetwork journaled(
      Clock clock,
      Duration deliveryAfter,
      Duration readAfter,
      boolean deduplicates,
      Path journalFile,
      long rewriteAfterLines) {
    SandboxJournal journal;
    try {
      journal = SandboxJournal.open(journalFile, rewriteAfterLines);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the sandbox journal " + journalFile, e);
    }
    SandboxNetwork network =
        new SandboxNetwork(clock, deliveryAfter, readAfter, deduplicates, journal, true);
    network.changes.lock();
    try {
      network.rewriteJournal(); // a clean file: no line cut off at its end, no history past bound
    } finally {
      network.changes.unlock();
    }
    network.scheduleOwedReceipts();
    return network;
  }

  /**
   * The state recorded in {@code journalFile}, read once, for looking at (a test reading what the
   * network of a gateway in another process did). It writes nothing and reports nothing; a change
   * through it fails.
   */
  public static SandboxNetwork readJournal(Path journalFile) {
    return new SandboxNetwork(
        Clock.systemUTC(),
        Duration.ZERO,
        Duration.ZERO,
        false,
        SandboxJournal.readOnly(journalFile),
        false);
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
    changes.lock();
    try {
      change(phoneRecord(e164, registered, isPhoneOnline(e164)));
    } finally {
      changes.unlock();
    }
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
    changes.lock();
    try {
      change(phoneRecord(e164, isRegistered(e164), online));
    } finally {
      changes.unlock();
    }
    wake();
  }

  /** Pairs a device with the network: from now on it can send. */
  public void pair(long deviceId, String number) {
    change(
        SandboxJournal.record("pair")
            .put("dev", deviceId)
            .put("number", number)
            .put("online", true));
    notifyConnection(deviceId, true);
    notifyState(deviceId, DeviceState.ONLINE, "paired");
  }

  public void unpair(long deviceId) {
    if (endSession(deviceId, false)) {
      notifyConnection(deviceId, false);
      notifyState(deviceId, DeviceState.NONE, "unpaired");
    }
  }

  /** The device logs out: its session ends as if never paired. False when it had none. */
  boolean logout(long deviceId) {
    if (!endSession(deviceId, false)) {
      return false;
    }
    notifyConnection(deviceId, false);
    notifyState(deviceId, DeviceState.NONE, "logged out");
    return true;
  }

  /** Ends the device's session, if it has one; {@code takenOver} marks it {@code refresh_it}. */
  private boolean endSession(long deviceId, boolean takenOver) {
    changes.lock();
    try {
      if (!sessions.containsKey(deviceId)) {
        return false;
      }
      change(SandboxJournal.record("end").put("dev", deviceId).put("takenOver", takenOver));
      return true;
    } finally {
      changes.unlock();
    }
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
  public Optional<String> pairingCodeOf(DeviceRef device) {
    return sessions.containsKey(device.id())
        ? Optional.empty()
        : Optional.of(pairingCode(device.id(), device.number()));
  }

  /**
   * The phone of an unpaired device scans the QR code shown for it now (the console's button): true
   * when that paired it.
   */
  public boolean scanCurrentCode(DeviceRef device) {
    return pairingCodeOf(device).flatMap(this::scan).isPresent();
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
    if (!endSession(deviceId, true)) {
      return false;
    }
    notifyConnection(deviceId, false);
    notifyState(deviceId, DeviceState.REFRESH_IT, "the number was taken over by another session");
    return true;
  }

  /** Takes a paired device's phone off the network, or back. */
  public boolean setDeviceOnline(long deviceId, boolean online) {
    changes.lock();
    try {
      Session s = sessions.get(deviceId);
      if (s == null) {
        return false;
      }
      change(
          SandboxJournal.record("pair")
              .put("dev", deviceId)
              .put("number", s.number())
              .put("online", online));
    } finally {
      changes.unlock();
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
    ArrayNode list = SandboxJournal.array();
    members.forEach(list::add);
    ObjectNode r = SandboxJournal.record("group").put("id", id).put("name", name);
    r.set("members", list);
    change(r);
    return groups.get(id);
  }

  /** Marks a device's account as not multi-device: it cannot list group members. */
  public void setMultiDevice(long deviceId, boolean multiDevice) {
    change(SandboxJournal.record("multi").put("dev", deviceId).put("on", multiDevice));
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
    return injectIncoming(deviceId, senderE164, text, "SBXIN-" + run + "-" + nextNetworkId());
  }

  /**
   * Delivers a message with the network id {@code networkId}: the same id again is a redelivery, as
   * a network sends when it did not see its first delivery acknowledged.
   */
  public boolean injectIncoming(long deviceId, String senderE164, String text, String networkId) {
    return deliver(IncomingMessage.text(deviceId, networkId, senderE164, text, clock.instant()));
  }

  /**
   * {@link #injectIncoming(long, String, String)} from a phone whose owner named the account {@code
   * senderName}: the name a network sends with the message (Meta's profile name).
   */
  public boolean injectNamedIncoming(
      long deviceId, String senderE164, String senderName, String text) {
    return deliver(
        IncomingMessage.text(
                deviceId, "SBXIN-" + run + "-" + nextNetworkId(), senderE164, text, clock.instant())
            .withContactName(senderName));
  }

  /**
   * Delivers {@code content} from the phone {@code senderE164} (named {@code senderName} when not
   * empty), as if written on it: any kind of the Cloud API message object. A media kind's file is
   * named by the content's {@code link} or {@code id}; the simulated phone sends no bytes.
   */
  public boolean injectIncoming(
      long deviceId, String senderE164, Optional<String> senderName, MessageContent content) {
    return deliver(
        IncomingMessage.text(
                deviceId,
                "SBXIN-" + run + "-" + nextNetworkId(),
                senderE164,
                content.incomingText(),
                clock.instant())
            .withContactName(senderName.orElse(null))
            .withContent(content));
  }

  /**
   * Delivers {@code message} as the network would: any kind (a group's, one whose image or file the
   * caller kept under the gateway's data folder), with its own network id. False when its device is
   * not paired or no gateway listens.
   */
  public boolean injectIncoming(IncomingMessage message) {
    return deliver(message);
  }

  /**
   * The LID the network gives the phone {@code e164}, as WhatsApp names a person who hides their
   * number from a linked device (WAHA, GOWA): {@code 9} and the number's digits, {@code @lid}. The
   * sandbox's ids are made from the number so that it needs to keep nothing; the gateway never
   * reads a phone out of them, it learns it as from a real network.
   */
  public static ContactId lidOf(String e164) {
    return ContactId.lid("9" + digits(e164));
  }

  /** The BSUID the network gives the phone {@code e164}, as Meta names a username user. */
  public static ContactId bsuidOf(String e164) {
    return ContactId.bsuid("SB.U" + digits(e164));
  }

  /** The phone behind one of this network's LIDs or BSUIDs; empty for anything else. */
  public static Optional<String> phoneBehind(String address) {
    Optional<ContactId> id = ContactId.parse(address).filter(i -> !i.isPhone());
    if (id.isEmpty()) {
      return Optional.empty();
    }
    String value = id.get().value();
    String digits =
        switch (id.get().kind()) {
          case LID -> value.startsWith("9") ? value.substring(1) : "";
          case BSUID -> value.startsWith("SB.U") ? value.substring(4) : "";
          case PHONE -> "";
        };
    return digits.matches("[0-9]{5,20}") ? Optional.of("+" + digits) : Optional.empty();
  }

  private static String digits(String e164) {
    return e164.startsWith("+") ? e164.substring(1) : e164;
  }

  /**
   * The phones that wrote hidden, and how: a send to one of their numbers is answered with the id
   * (as a WhatsApp Web engine names the chat by its LID). Kept in memory only: after a restart a
   * phone hides again when it next writes hidden.
   */
  private final Map<String, HiddenAs> hiding = new ConcurrentHashMap<>();

  /** The id the phone {@code e164} hides behind, if it wrote hidden; empty for anything else. */
  public Optional<ContactId> hiddenIdOf(String e164) {
    HiddenAs as = hiding.get(e164);
    if (as == null) {
      return Optional.empty();
    }
    return Optional.of(as == HiddenAs.LID ? lidOf(e164) : bsuidOf(e164));
  }

  /** How a hidden sender is named by the network. */
  public enum HiddenAs {
    /** By its LID ({@link #lidOf}), as WAHA and GOWA report such a sender. */
    LID,
    /** By its BSUID ({@link #bsuidOf}), as the Cloud API reports a username user. */
    BSUID
  }

  /**
   * Delivers a message from the phone {@code senderE164} that the network names by its LID or BSUID
   * only; with {@code reveal} it gives the number beside the id (WAHA's {@code senderPn}, Meta's
   * {@code wa_id} beside {@code user_id}), which is how a gateway learns whose id it is.
   */
  public boolean injectHiddenIncoming(
      long deviceId, String senderE164, HiddenAs as, boolean reveal, String text) {
    hiding.put(senderE164, as);
    ContactId id = as == HiddenAs.LID ? lidOf(senderE164) : bsuidOf(senderE164);
    return deliver(
        new IncomingMessage(
            deviceId,
            Optional.of("SBXIN-" + run + "-" + nextNetworkId()),
            reveal ? senderE164 : "",
            Optional.empty(),
            text,
            Optional.empty(),
            clock.instant(),
            Optional.empty(),
            Optional.of(id)));
  }

  private boolean deliver(IncomingMessage message) {
    DriverListener l = listener;
    if (!sessions.containsKey(message.deviceId()) || l == null) {
      return false;
    }
    l.incoming(message);
    return true;
  }

  /**
   * Where the gateways that share a database record which message ids the network has received:
   * with several nodes, a message sent again by the node that took a device over is still
   * recognised.
   */
  public interface FirstSends {
    /**
     * Records {@code networkId} for {@code messageId} unless one is recorded; returns the one kept.
     */
    String firstNetworkId(long deviceId, long messageId, String networkId);
  }

  private volatile FirstSends firstSends; // null: this network's own memory only

  /** De-duplicates across every gateway that records its sends in {@code firstSends}. */
  public void shareDeduplication(FirstSends firstSends) {
    this.firstSends = firstSends;
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

  /**
   * Messages the phone with number {@code e164} received, oldest first: its last {@value
   * #HISTORY_PER_PHONE}.
   */
  public List<InboxEntry> inbox(String e164) {
    Phone p = phones.get(e164);
    if (p == null) {
      return List.of();
    }
    List<InboxEntry> entries = new ArrayList<>();
    synchronized (p.inbox) {
      for (Received r : p.inbox) {
        InboxEntry e = r.entry();
        entries.add(
            e.shown(
                p.statuses.getOrDefault(e.networkId(), e.status()),
                p.revoked.contains(e.networkId()),
                p.edits.get(e.networkId())));
      }
    }
    return entries;
  }

  /** The numbers of every phone the network knows: those that received or were changed. */
  public List<String> phones() {
    return phones.keySet().stream().sorted().toList();
  }

  /** Lines in the journal file now (0 in memory). */
  long journalLines() {
    changes.lock();
    try {
      return journal == null ? 0 : journal.lines();
    } finally {
      changes.unlock();
    }
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
    // A send addressed to a LID or a BSUID reaches the phone behind it, as on a real network.
    String to =
        message.toGroup()
            ? message.recipient()
            : phoneBehind(message.recipient()).orElse(message.recipient());
    Optional<FailureKind> injected = takeFailure(session.number(), to);
    if (injected.isPresent()) {
      return switch (injected.get()) {
        case FAIL -> new SendOutcome.Failed("injected failure");
        case NOT_FOUND -> new SendOutcome.NotFound();
        case OFFLINE -> new SendOutcome.DeviceUnavailable();
        case RATE_LIMITED -> new SendOutcome.RetryAfter(RATE_LIMIT_WAIT, "injected rate limit");
        case REFUSED -> new SendOutcome.Permanent(REFUSED_REASON, "injected refusal");
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
      if (!isRegistered(to)) {
        return new SendOutcome.NotFound();
      }
      recipients = List.of(to);
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
    String networkId = null;
    FirstSends shared = firstSends;
    if (deduplicates && shared != null) {
      // Several gateways, one network: the first node to send a message id decides its network
      // id, in the database they share; a node taking over a device sends nothing twice.
      String mine = "SBX" + run + "-m" + message.id();
      String first;
      try {
        first = shared.firstNetworkId(deviceId, message.id(), mine);
      } catch (RuntimeException e) {
        return new SendOutcome.Failed("the sandbox network could not record the message: " + e);
      }
      if (!first.equals(mine)) {
        return SendOutcome.Sent.of(first, now);
      }
      networkId = mine;
    }
    changes.lock();
    try {
      // With de-duplication, Kurir's message id is the idempotency key: a resend after a crash is
      // not a second message. Without it, the phone gets it again, as on most real networks.
      if (deduplicates && remembered.containsKey(message.id())) {
        return SendOutcome.Sent.of(remembered.get(message.id()), now);
      }
      if (networkId == null) {
        networkId = "SBX" + run + "-" + nextNetworkId();
      }
      List<ObjectNode> records = new ArrayList<>();
      for (int i = 0; i < recipients.size(); i++) {
        ObjectNode r =
            SandboxJournal.record("in")
                .put("id", message.id())
                .put("net", networkId)
                .put("dev", deviceId)
                .put("from", session.number())
                .put("to", recipients.get(i))
                .put("group", group)
                .put("kind", message.kind())
                .put("text", message.text())
                .put("at", now.toEpochMilli())
                .put("receipts", i == 0);
        if (!message.linkPreview()) {
          r.put("noPreview", true); // absent in the usual case, and in journals written before
        }
        if (mediaName != null) {
          r.put("mediaName", mediaName).put("mediaType", mediaType).put("mediaBytes", mediaBytes);
        }
        if (message.carriesOwnContent()) { // absent for a seed family's message, as before
          r.set("content", CloudMessageJson.write(message.content()));
        }
        records.add(r);
      }
      if (recipients.isEmpty()) { // a group of the sender alone: nobody's inbox, still received
        records.add(SandboxJournal.record("sent").put("id", message.id()).put("net", networkId));
      }
      change(records);
    } catch (UncheckedIOException e) {
      // Not recorded, so not sent: the network could not take it.
      return new SendOutcome.Failed("the sandbox network could not record the message: " + e);
    } finally {
      changes.unlock();
    }
    String receiptTarget = recipients.isEmpty() ? session.number() : recipients.getFirst();
    scheduleReceipts(
        List.of(
            new PendingReceipt(
                now.plus(deliveryAfter),
                deviceId,
                networkId,
                message.id(),
                receiptTarget,
                Receipt.Status.DELIVERED,
                group),
            new PendingReceipt(
                now.plus(readAfter),
                deviceId,
                networkId,
                message.id(),
                receiptTarget,
                Receipt.Status.READ,
                group)));
    return SendOutcome.Sent.of(networkId, now);
  }

  NumberCheck checkNumber(long deviceId, String e164) {
    if (!isConnected(deviceId)) {
      return NumberCheck.UNKNOWN;
    }
    return isRegistered(e164) ? NumberCheck.EXISTS : NumberCheck.NOT_EXISTS;
  }

  // --- actions on sent messages and chats, with WhatsApp's limits: a message is edited within
  // 15 minutes of its send, and deleted for everyone within about 2 days (60 hours).

  /** How long after its send a text can be edited, as on WhatsApp. */
  public static final Duration EDIT_WINDOW = Duration.ofMinutes(15);

  /** How long after its send a message can be deleted for everyone, as on WhatsApp. */
  public static final Duration REVOKE_WINDOW = Duration.ofHours(60);

  /** A read mark a device left in a phone's chat: up to {@code networkId} ("" for all), when. */
  public record ReadMark(String networkId, Instant at) {}

  ActionOutcome revoke(long deviceId, ChatRef chat, String networkId) {
    return changeSent(deviceId, chat, networkId, REVOKE_WINDOW, null);
  }

  ActionOutcome edit(long deviceId, ChatRef chat, String networkId, String text) {
    return changeSent(deviceId, chat, networkId, EDIT_WINDOW, text);
  }

  /**
   * Deletes ({@code newText} null) or edits the message {@code networkId} the device sent to {@code
   * chat}, in every recipient's inbox; refused for a message the device did not send there, one
   * already deleted, one past {@code window}, and an edit of anything but a text.
   */
  private ActionOutcome changeSent(
      long deviceId, ChatRef chat, String networkId, Duration window, String newText) {
    Session session = sessions.get(deviceId);
    if (session == null || !session.online()) {
      return new ActionOutcome.Unavailable("the device is not connected");
    }
    List<String> holders = new ArrayList<>();
    InboxEntry sent = null;
    for (String to : chatPhones(session, chat)) {
      Phone p = phones.get(to);
      if (p == null) {
        continue;
      }
      synchronized (p.inbox) {
        for (Received r : p.inbox) {
          InboxEntry e = r.entry();
          if (e.networkId().equals(networkId) && e.from().equals(session.number())) {
            holders.add(to);
            sent = e;
            if (p.revoked.contains(networkId)) {
              return new ActionOutcome.Refused("message " + networkId + " was deleted already");
            }
          }
        }
      }
    }
    if (sent == null) {
      return new ActionOutcome.Refused(
          "no message " + networkId + " sent by this device in chat " + chat.id());
    }
    if (clock.instant().isAfter(sent.receivedAt().plus(window))) {
      return new ActionOutcome.Refused(
          "message " + networkId + " is older than " + window.toMinutes() + " minutes");
    }
    if (newText != null && !"text".equals(sent.kind())) {
      return new ActionOutcome.Refused("only a text can be edited, not a " + sent.kind());
    }
    ObjectNode r = actionRecord(newText == null ? "revoke" : "edit", networkId, holders);
    if (newText != null) {
      r.put("text", newText);
    }
    try {
      change(r);
    } catch (UncheckedIOException e) {
      return new ActionOutcome.Unavailable("the sandbox network could not record it: " + e);
    }
    return ActionOutcome.DONE;
  }

  ActionOutcome markRead(long deviceId, ChatRef chat, Optional<String> networkId) {
    return presence(
        deviceId,
        chat,
        p -> p.readBy.put(deviceNumber(deviceId), new ReadMark(networkId.orElse(""), now())));
  }

  ActionOutcome typing(long deviceId, ChatRef chat, boolean typing) {
    return presence(
        deviceId,
        chat,
        p -> {
          if (typing) {
            p.typing.add(deviceNumber(deviceId));
          } else {
            p.typing.remove(deviceNumber(deviceId));
          }
        });
  }

  private ActionOutcome presence(
      long deviceId, ChatRef chat, java.util.function.Consumer<Phone> shown) {
    Session session = sessions.get(deviceId);
    if (session == null || !session.online()) {
      return new ActionOutcome.Unavailable("the device is not connected");
    }
    if (chat.group() && !groups.containsKey(chat.id())) {
      return new ActionOutcome.Refused("no group " + chat.id());
    }
    chatPhones(session, chat).forEach(n -> shown.accept(phone(n)));
    return ActionOutcome.DONE;
  }

  private String deviceNumber(long deviceId) {
    Session s = sessions.get(deviceId);
    return s == null ? "" : s.number();
  }

  private Instant now() {
    return clock.instant();
  }

  /** The phones of {@code chat} other than the device's own: the number's, or a group's members. */
  private List<String> chatPhones(Session session, ChatRef chat) {
    if (chat.group()) {
      Group g = groups.get(chat.id());
      return g == null
          ? List.of()
          : g.members().stream().filter(n -> !n.equals(session.number())).toList();
    }
    return List.of(phoneBehind(chat.id()).orElse(chat.id()));
  }

  private static ObjectNode actionRecord(String type, String networkId, List<String> phones) {
    ObjectNode r = SandboxJournal.record(type).put("net", networkId);
    ArrayNode to = r.putArray("phones");
    phones.forEach(to::add);
    return r;
  }

  /** The read marks devices left in the chats of phone {@code e164}, by device number. */
  public Map<String, ReadMark> readMarks(String e164) {
    Phone p = phones.get(e164);
    return p == null ? Map.of() : Map.copyOf(p.readBy);
  }

  /** The numbers of the devices shown typing to phone {@code e164} now. */
  public Set<String> typing(String e164) {
    Phone p = phones.get(e164);
    return p == null ? Set.of() : Set.copyOf(p.typing);
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

  // --- the journal: every kept change is a record, written, then applied by apply()

  /** Writes {@code record} to the journal (if any) and applies it. */
  private void change(ObjectNode record) {
    change(List.of(record));
  }

  private void change(List<ObjectNode> records) {
    changes.lock();
    try {
      if (journal != null) {
        try {
          journal.append(records);
        } catch (IOException e) {
          throw new UncheckedIOException("the sandbox journal cannot be written", e);
        }
      }
      records.forEach(this::apply);
      if (journal != null && journal.wantsRewrite()) {
        rewriteJournal();
      }
    } finally {
      changes.unlock();
    }
  }

  /** A new network id, unique across restarts: ids are reserved in the journal in blocks. */
  private long nextNetworkId() {
    changes.lock();
    try {
      long id = networkIds.incrementAndGet();
      if (id > idsReservedUpTo) {
        change(SandboxJournal.record("ids").put("upTo", id + ID_BLOCK));
      }
      return id;
    } finally {
      changes.unlock();
    }
  }

  private ObjectNode phoneRecord(String e164, boolean registered, boolean online) {
    return SandboxJournal.record("phone")
        .put("number", e164)
        .put("registered", registered)
        .put("online", online);
  }

  /** Applies one journal record to the state in memory: the same code when live and on replay. */
  private void apply(JsonNode r) {
    switch (r.path("t").asText()) {
      case "phone" -> {
        Phone p = phone(r.get("number").asText());
        p.registered = r.get("registered").asBoolean();
        p.online = r.get("online").asBoolean();
      }
      case "pair" -> {
        long dev = r.get("dev").asLong();
        takenOver.remove(dev);
        sessions.put(
            dev, new Session(dev, r.get("number").asText(), r.path("online").asBoolean(true)));
      }
      case "end" -> {
        long dev = r.get("dev").asLong();
        sessions.remove(dev);
        if (r.path("takenOver").asBoolean()) {
          takenOver.add(dev);
        } else {
          takenOver.remove(dev);
        }
      }
      case "multi" -> {
        if (r.get("on").asBoolean()) {
          singleDevice.remove(r.get("dev").asLong());
        } else {
          singleDevice.add(r.get("dev").asLong());
        }
      }
      case "group" -> {
        List<String> members = new ArrayList<>();
        r.get("members").forEach(m -> members.add(m.asText()));
        String id = r.get("id").asText();
        groups.put(id, new Group(id, r.get("name").asText(), List.copyOf(members)));
      }
      case "in" -> receive(r);
      case "status" -> {
        Phone p = phones.get(r.get("to").asText());
        if (p != null) { // a receipt of a message the phone no longer keeps changes nothing
          p.statuses.computeIfPresent(
              r.get("net").asText(), (net, old) -> laterStatus(old, r.get("status").asText()));
        }
      }
      case "revoke", "edit" -> {
        for (JsonNode to : r.get("phones")) {
          Phone p = phones.get(to.asText());
          if (p != null && p.statuses.containsKey(r.get("net").asText())) {
            if (r.get("t").asText().equals("revoke")) {
              p.revoked.add(r.get("net").asText());
            } else {
              p.edits.put(r.get("net").asText(), r.get("text").asText());
            }
          }
        }
      }
      case "sent" -> remembered.put(r.get("id").asLong(), r.get("net").asText());
      case "ids" -> idsReservedUpTo = Math.max(idsReservedUpTo, r.get("upTo").asLong());
      default -> log.warn("sandbox journal: unknown record {}", r);
    }
  }

  private void receive(JsonNode r) {
    String mediaName = textOrNull(r, "mediaName");
    InboxEntry entry =
        new InboxEntry(
            r.get("id").asLong(),
            r.get("net").asText(),
            r.get("from").asText(),
            r.get("to").asText(),
            textOrNull(r, "group"),
            textOrNull(r, "kind"),
            textOrNull(r, "text"),
            Instant.ofEpochMilli(r.get("at").asLong()),
            "sent",
            mediaName,
            textOrNull(r, "mediaType"),
            r.path("mediaBytes").asLong(0),
            !r.path("noPreview").asBoolean(false),
            r.hasNonNull("content") ? r.get("content") : null,
            false,
            false);
    Phone p = phone(entry.to());
    synchronized (p.inbox) {
      p.inbox.addLast(new Received(entry, r.get("dev").asLong(), r.path("receipts").asBoolean()));
      p.statuses.put(entry.networkId(), r.path("status").asText("sent"));
      messagesKept++;
      if (p.inbox.size() > HISTORY_PER_PHONE) {
        Received oldest = p.inbox.removeFirst();
        p.statuses.remove(oldest.entry().networkId());
        p.revoked.remove(oldest.entry().networkId());
        p.edits.remove(oldest.entry().networkId());
        messagesKept--;
      }
    }
    remembered.put(entry.messageId(), entry.networkId());
    recentRecipients.put(entry.to(), Boolean.TRUE);
    forgetLeastRecentInboxes();
  }

  /** Empties the inboxes that received least recently until both bounds hold. */
  private void forgetLeastRecentInboxes() {
    while (recentRecipients.size() > PHONES_WITH_HISTORY
        || (messagesKept > MESSAGES_KEPT && recentRecipients.size() > 1)) {
      var eldest = recentRecipients.entrySet().iterator();
      String number = eldest.next().getKey();
      eldest.remove();
      Phone p = phones.get(number);
      if (p == null) {
        continue;
      }
      synchronized (p.inbox) {
        messagesKept -= p.inbox.size();
        p.inbox.clear();
        p.statuses.clear();
        p.revoked.clear();
        p.edits.clear();
      }
      if (p.isDefault()) {
        phones.remove(number, p); // nothing else to remember: a phone is on the network anyway
      }
    }
  }

  private static String textOrNull(JsonNode r, String field) {
    JsonNode v = r.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }

  private static String laterStatus(String old, String next) {
    return "read".equals(old) ? old : next;
  }

  private void replayJournal() {
    try {
      journal.replay(
          r -> {
            try {
              apply(r);
            } catch (RuntimeException e) {
              log.warn("sandbox journal: record {} skipped: {}", r, e.toString());
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the sandbox journal " + journal.file(), e);
    }
    // Ids issued before the restart were all below the last reserve; the next starts above it.
    networkIds.set(idsReservedUpTo);
  }

  /** Rewrites the journal from the state now. Called with {@code changes} held. */
  private void rewriteJournal() {
    try {
      journal.rewrite(this::snapshot);
    } catch (IOException e) {
      // The old file stays whole and keeps being appended to; the next change tries again.
      log.warn("sandbox journal {}: cannot rewrite it: {}", journal.file(), e.toString());
    }
  }

  /** The state now as journal records, in an order that replays to the same state. */
  private void snapshot(java.util.function.Consumer<ObjectNode> out) {
    out.accept(SandboxJournal.record("ids").put("upTo", idsReservedUpTo));
    phones.forEach(
        (number, p) -> {
          if (!p.isDefault()) {
            out.accept(phoneRecord(number, p.registered, p.online));
          }
        });
    groups
        .values()
        .forEach(
            g -> {
              ArrayNode members = SandboxJournal.array();
              g.members().forEach(members::add);
              ObjectNode r = SandboxJournal.record("group").put("id", g.id()).put("name", g.name());
              r.set("members", members);
              out.accept(r);
            });
    sessions
        .values()
        .forEach(
            s ->
                out.accept(
                    SandboxJournal.record("pair")
                        .put("dev", s.deviceId())
                        .put("number", s.number())
                        .put("online", s.online())));
    takenOver.forEach(
        dev -> out.accept(SandboxJournal.record("end").put("dev", dev).put("takenOver", true)));
    singleDevice.forEach(
        dev -> out.accept(SandboxJournal.record("multi").put("dev", dev).put("on", false)));
    Set<String> inInboxes = new HashSet<>();
    phones
        .values()
        .forEach(
            p -> {
              synchronized (p.inbox) {
                p.inbox.forEach(r -> inInboxes.add(r.entry().networkId()));
              }
            });
    // Remembered ids whose messages left every inbox (or never entered one) come first, so that
    // on replay the inboxes' ids are the newest in the memory, as they were.
    remembered.forEach(
        (id, net) -> {
          if (!inInboxes.contains(net)) {
            out.accept(SandboxJournal.record("sent").put("id", id).put("net", net));
          }
        });
    phones.forEach(
        (number, p) -> {
          synchronized (p.inbox) {
            for (Received received : p.inbox) {
              InboxEntry e = received.entry();
              ObjectNode r =
                  SandboxJournal.record("in")
                      .put("id", e.messageId())
                      .put("net", e.networkId())
                      .put("dev", received.deviceId())
                      .put("from", e.from())
                      .put("to", e.to())
                      .put("group", e.group())
                      .put("kind", e.kind())
                      .put("text", e.text())
                      .put("at", e.receivedAt().toEpochMilli())
                      .put("receipts", received.reportsReceipts())
                      .put("status", p.statuses.getOrDefault(e.networkId(), "sent"));
              if (e.mediaName() != null) {
                r.put("mediaName", e.mediaName())
                    .put("mediaType", e.mediaType())
                    .put("mediaBytes", e.mediaBytes());
              }
              out.accept(r);
              if (p.revoked.contains(e.networkId())) {
                out.accept(actionRecord("revoke", e.networkId(), List.of(number)));
              } else if (p.edits.containsKey(e.networkId())) {
                out.accept(
                    actionRecord("edit", e.networkId(), List.of(number))
                        .put("text", p.edits.get(e.networkId())));
              }
            }
          }
        });
  }

  /**
   * After a restart: the receipts of kept messages that were not reported yet (the phone's status
   * says which) are due again from their send, so those already due go at once.
   */
  private void scheduleOwedReceipts() {
    List<PendingReceipt> owed = new ArrayList<>();
    phones.forEach(
        (number, p) -> {
          synchronized (p.inbox) {
            for (Received r : p.inbox) {
              if (!r.reportsReceipts()) {
                continue;
              }
              InboxEntry e = r.entry();
              String status = p.statuses.getOrDefault(e.networkId(), "sent");
              if (status.equals("sent")) {
                owed.add(owed(e, r.deviceId(), Receipt.Status.DELIVERED, deliveryAfter));
              }
              if (!status.equals("read")) {
                owed.add(owed(e, r.deviceId(), Receipt.Status.READ, readAfter));
              }
            }
          }
        });
    scheduleReceipts(owed);
  }

  private static PendingReceipt owed(
      InboxEntry e, long deviceId, Receipt.Status status, Duration after) {
    return new PendingReceipt(
        e.receivedAt().plus(after),
        deviceId,
        e.networkId(),
        e.messageId(),
        e.to(),
        status,
        e.group());
  }

  // --- receipts, on the injected clock

  private void scheduleReceipts(List<PendingReceipt> due) {
    if (due.isEmpty()) {
      return;
    }
    lock.lock();
    try {
      receipts.addAll(due);
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

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
    List<PendingReceipt> reported = new ArrayList<>();
    List<ObjectNode> records = new ArrayList<>();
    DriverListener l = listener;
    for (PendingReceipt r : due) {
      Phone phone = phones.get(r.recipient());
      if ((phone != null && !phone.online) || l == null) {
        // An offline phone reports nothing; nor does anyone while no gateway is attached (it is
        // restarting): the receipt is kept.
        postponed.add(r);
        continue;
      }
      String status = r.receipt() == Receipt.Status.DELIVERED ? "delivered" : "read";
      records.add(
          SandboxJournal.record("status")
              .put("to", r.recipient())
              .put("net", r.networkId())
              .put("status", status));
      reported.add(r);
    }
    if (!records.isEmpty()) {
      try {
        change(records); // the phone's status first: after a crash, what it says is owed is owed
      } catch (UncheckedIOException e) {
        log.warn("sandbox receipts not recorded; reported later: {}", e.toString());
        postponed.addAll(reported);
        reported.clear();
      }
    }
    for (PendingReceipt r : reported) {
      try {
        // Keyed by the network's id, as a real network reports: the core maps it to its own.
        l.receipt(
            Receipt.ofNetworkId(
                r.deviceId(), r.networkId(), r.receipt(), Optional.empty(), clock.instant()));
      } catch (RuntimeException e) {
        try (var ids = io.kurir.logging.LogIds.message(r.deviceId(), r.messageId())) {
          log.warn("receipt of message {} not taken: {}", r.messageId(), e.toString());
        }
      }
    }
    if (!postponed.isEmpty()) {
      // An offline phone gets its receipts a second after it is looked at again.
      Instant later = clock.instant().plusSeconds(1);
      scheduleReceipts(
          postponed.stream()
              .map(
                  r ->
                      new PendingReceipt(
                          later,
                          r.deviceId(),
                          r.networkId(),
                          r.messageId(),
                          r.recipient(),
                          r.receipt(),
                          r.group()))
              .toList());
    }
  }

  @Override
  public void close() {
    closed = true;
    if (ticker != null) {
      ticker.interrupt();
    }
    if (journal != null) {
      changes.lock();
      try {
        journal.close();
      } finally {
        changes.unlock();
      }
    }
  }
}
