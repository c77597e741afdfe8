package io.kurir.campaign;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.contactbook.ContactBook;
import io.kurir.contactbook.ContactList;
import io.kurir.content.ContentRefused;
import io.kurir.content.MessageKind;
import io.kurir.driver.Drivers;
import io.kurir.logging.RepeatingFailure;
import io.kurir.message.Message;
import io.kurir.message.Messages;
import io.kurir.message.Messages.GuardedSend;
import io.kurir.message.SendRefused;
import io.kurir.store.Database;
import io.kurir.tenant.Device;
import io.kurir.tenant.TenantException;
import io.kurir.tenant.Tenants;
import io.kurir.time.Wakeable;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends campaigns: on a virtual thread, it starts scheduled campaigns at their time, expands a
 * running campaign's audience a page at a time, and feeds its recipients to the message queue in
 * small windows per device of its pool, outside its quiet hours; a campaign whose every recipient
 * is settled is done.
 *
 * <p>Bounded: the audience is read from the contact book (or the campaign's uploaded list) a page
 * at a time, by phone, the cursor moved in the commit that inserts the page's recipients, so
 * neither the audience nor the list of recipients is ever held whole; at most {@link #WINDOW} of a
 * campaign's messages wait in a device's queue, so that a pause takes back little and quiet hours
 * hold.
 *
 * <p>Exactly once: a recipient is marked handed, with its message's id, in the commit that stores
 * the message ({@link Messages#acceptGuarded}), guarded in SQL (still waiting, the campaign still
 * running, the contact not unsubscribed). However many nodes run campaigns on the database and
 * whatever crashes in between, a recipient is either still waiting or handed with its one message.
 *
 * <p>Paced by the safe-sending policy ({@link SafeSending}, through {@link SendAllowance}): a
 * device takes a recipient only when its slot comes (its random gap after its last campaign send),
 * while it has some of its day's warm-up cap left and is not holding for the share of its messages
 * nobody answered. Rotation across the pool is weighted by each device's remaining daily cap
 * ({@link WeightedRotation}); a device at its cap takes none, and when every device of the pool is
 * at its cap the campaign waits, still running, for the next day.
 *
 * <p>Thread-safe; one runner per gateway.
 */
public final class CampaignRunner implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CampaignRunner.class);

  /** A campaign's messages that may wait in one device's queue at once. */
  static final int WINDOW = 5;

  /** Contacts taken from the book per commit of an expansion. */
  static final int EXPANSION_PAGE = 500;

  /**
   * How often a running campaign with messages in flight looks whether their windows have room (in
   * real time: the queue's pace, not a business time).
   */
  private static final Duration POLL = Duration.ofMillis(200);

  /** The longest sleep: campaigns started on another node do not wake this one. */
  private static final Duration MAX_SLEEP = Duration.ofSeconds(30);

  private final CampaignStore store;
  private final Messages messages;
  private final Tenants tenants;
  private final ContactBook book;
  private final Drivers drivers;
  private final Clock clock;
  private final ZoneId zone;
  private final CampaignStops stops;
  private final SecureRandom random = new SecureRandom();

  /** Per campaign, where the weighted rotation over its pool goes on; runner thread only. */
  private final Map<Long, WeightedRotation> rotation = new HashMap<>();

  /** The safe-sending policy's view of each device; runner thread only. */
  private final SendAllowance allowance;

  private final RepeatingFailure failures;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition woken = lock.newCondition();
  private boolean wakeRequested;
  private volatile boolean stopping;
  private Thread thread;

  /**
   * @param zone the time zone of quiet hours and of the safe-sending policy's days: the operator's
   *     ({@code time.zone}, Asia/Jakarta by default), as licenses have none of their own
   * @param safeSending the policy that paces each device's campaign sends
   * @param stops safe sending's automatic stop, asked on each look at a running campaign
   */
  public CampaignRunner(
      Database db,
      Messages messages,
      Tenants tenants,
      ContactBook book,
      Drivers drivers,
      Clock clock,
      ZoneId zone,
      SafeSending safeSending,
      CampaignStops stops) {
    this.store = new CampaignStore(db);
    this.allowance = new SendAllowance(safeSending, drivers, db, zone, random);
    this.stops = stops;
    this.messages = messages;
    this.tenants = tenants;
    this.book = book;
    this.drivers = drivers;
    this.clock = clock;
    this.zone = zone;
    this.failures = new RepeatingFailure(log, "the campaign runner's pass", clock);
    Wakeable.wakeOnClockChange(clock, this::wake);
  }

  /** Starts running campaigns: first those an earlier run left running. */
  public void start() {
    thread = Thread.ofVirtual().name("kurir-campaigns").start(this::run);
  }

  /** Makes the runner look again now: a campaign started or resumed, or the clock moved. */
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
    while (!stopping) {
      Instant started = clock.instant();
      Duration wait;
      try {
        wait = pass();
        failures.succeeded();
      } catch (SendRefused e) {
        wait = MAX_SLEEP; // the gateway is stopping
      } catch (RuntimeException e) {
        if (stopping) {
          break;
        }
        Duration after = failures.failed(e);
        wait = Duration.between(clock.instant(), started.plus(after));
      }
      if (!wait.isZero() && !wait.isNegative()) {
        sleep(wait);
      }
    }
  }

  /** One look at every active campaign; how long to wait before the next. */
  Duration pass() {
    Instant now = clock.instant();
    Duration wait = MAX_SLEEP;
    for (Campaign c : store.active()) {
      if (stopping) {
        break;
      }
      wait = min(wait, step(c, now));
    }
    return wait;
  }

  private Duration step(Campaign c, Instant now) {
    if (c.status() == CampaignStatus.SCHEDULED) {
      Instant at = c.startAt().orElse(now);
      if (at.isAfter(now)) {
        return Duration.between(now, at);
      }
      store.move(
          c.id(),
          EnumSet.of(CampaignStatus.SCHEDULED),
          CampaignStatus.RUNNING,
          Optional.empty(),
          now);
      return Duration.ZERO;
    }
    if (!c.expanded()) {
      expandPage(c);
      return Duration.ZERO;
    }
    if (c.quietHours().isPresent() && c.quietHours().get().isQuiet(now, zone)) {
      Instant end = c.quietHours().get().endAfter(now, zone);
      waiting(c, Optional.of(new Campaign.Waiting("quiet_hours", end)));
      return Duration.between(now, end);
    }
    return feed(c);
  }

  /** Takes the next page of the audience into the campaign's recipients. */
  private void expandPage(Campaign c) {
    // A list campaign reads its uploaded list (a listed contact who unsubscribed in the book is
    // taken, and recorded opted_out by the hand-over's guard); any other the book by tags.
    List<ContactList.Entry> page =
        c.list()
            ? c.listUpload()
                .map(u -> store.listPage(c.id(), u, c.cursor(), EXPANSION_PAGE))
                .orElse(List.of())
            : book
                .audiencePage(
                    c.licenseId(), new LinkedHashSet<>(c.tags()), c.cursor(), EXPANSION_PAGE)
                .stream()
                .map(b -> new ContactList.Entry(b.phone(), b.name(), b.attributes()))
                .toList();
    List<CampaignRecipient> recipients = new ArrayList<>(page.size());
    int options = 1 + c.variants().size();
    for (ContactList.Entry contact : page) {
      recipients.add(
          new CampaignRecipient(
              c.id(),
              contact.phone(),
              contact.name(),
              contact.variables(),
              options == 1 ? 0 : random.nextInt(options),
              "waiting",
              Optional.empty(),
              Optional.empty(),
              Optional.empty(),
              Optional.empty(),
              Optional.empty(),
              Optional.empty(),
              Optional.empty()));
    }
    boolean last = page.size() < EXPANSION_PAGE;
    String cursor = page.isEmpty() ? c.cursor() : page.getLast().phone();
    store.expand(c.id(), c.cursor(), cursor, last, recipients);
  }

  /**
   * Hands the next recipients to the devices of the pool with room in their window; marks the
   * campaign done when nobody waits and nothing is in flight, paused when no device can send.
   */
  private Duration feed(Campaign c) {
    // Safe sending's automatic stop: a ban signal stops the campaign; a device that cannot send
    // leaves its pool (CampaignStops).
    if (stops.stoppedBySignal(c, poolIds(c))) {
      rotation.remove(c.id());
      return Duration.ZERO;
    }
    List<Device> looked = usablePool(c);
    Set<Long> leaving = stops.leaving(looked);
    if (!looked.isEmpty()
        && leaving.size() == looked.size()
        && stops.stoppedBySignal(c, poolIds(c))) {
      // The signal came after the first look, with its device's fall: a held account is failed
      // just after its hold is stored, so a hold whose failure was seen is seen too. Read before
      // the device's queue is taken back, which would hide that the device was sending.
      rotation.remove(c.id());
      return Duration.ZERO;
    }
    List<Device> pool = stops.usable(c, looked, leaving);
    if (pool.isEmpty()) {
      store.move(
          c.id(),
          EnumSet.of(CampaignStatus.RUNNING),
          CampaignStatus.PAUSED,
          Optional.of("no_usable_device"),
          clock.instant());
      log.warn("campaign {} paused: no device of its pool can send", c.id());
      return MAX_SLEEP;
    }
    Map<Long, Integer> inFlight = store.inFlight(c.id());
    Instant now = clock.instant();
    // The safe-sending policy's hook: what each device may take now (its slot, its day's cap).
    Map<Long, SendAllowance.Slot> slots = new HashMap<>();
    Map<Long, Integer> room = new HashMap<>();
    int total = 0;
    for (SendAllowance.Slot slot : allowance.slots(pool, now)) {
      long id = slot.device().id();
      int r = Math.max(0, WINDOW - inFlight.getOrDefault(id, 0));
      r = !slot.due(now) ? 0 : Math.min(r, slot.oneOnly() ? 1 : slot.remaining());
      slots.put(id, slot);
      room.put(id, r);
      total += r;
    }
    List<CampaignRecipient> next = total == 0 ? List.of() : store.waiting(c.id(), total);
    if (next.isEmpty()) {
      boolean held = total == 0 && store.anyWaiting(c.id());
      if (!held && inFlight.isEmpty()) {
        store.move(
            c.id(),
            EnumSet.of(CampaignStatus.RUNNING),
            CampaignStatus.DONE,
            Optional.empty(),
            clock.instant());
        rotation.remove(c.id());
        stops.forget(c.id());
        return Duration.ZERO;
      }
      if (held) {
        return holdFor(c, slots.values(), inFlight, now);
      }
      waiting(c, Optional.empty());
      return POLL;
    }
    waiting(c, Optional.empty());
    List<GuardedSend> sends = new ArrayList<>();
    List<CampaignRecipient> sent = new ArrayList<>();
    WeightedRotation turn = rotation.computeIfAbsent(c.id(), k -> new WeightedRotation());
    for (CampaignRecipient r : next) {
      List<WeightedRotation.Candidate> candidates = new ArrayList<>();
      for (Device d : pool) {
        if (room.get(d.id()) > 0) {
          int left = slots.get(d.id()).remaining();
          candidates.add(new WeightedRotation.Candidate(d.id(), Math.min(left, 1_000_000)));
        }
      }
      if (candidates.isEmpty()) {
        break;
      }
      SendAllowance.Slot slot = slots.get(turn.pick(candidates));
      Device device = slot.device();
      ObjectNode message =
          CampaignMessages.personalise(
              c.messageFor(CampaignDevices.templatesOnly(drivers, device), r.variant()),
              r.variables());
      try {
        long deviceId = device.id();
        Instant planned = allowance.planned(slot, now);
        sends.add(
            new GuardedSend(
                device,
                CampaignMessages.request(message, r.phone()),
                (tx, messageId) ->
                    CampaignStore.hand(
                        tx, c.id(), c.licenseId(), r.phone(), deviceId, messageId, now, planned)));
        sent.add(r);
        room.merge(device.id(), -1, Integer::sum);
      } catch (ContentRefused e) {
        store.fail(c.id(), r.phone(), e.getMessage(), now);
      }
    }
    if (sends.isEmpty()) {
      return Duration.ZERO;
    }
    List<Optional<Message>> stored = messages.acceptGuarded(sends);
    for (int i = 0; i < stored.size(); i++) {
      if (stored.get(i).isEmpty()) {
        // Not handed: its contact opted out since the campaign took it, or the campaign was
        // paused meanwhile (then it waits for the resume).
        store.optOutIfUnsubscribed(c.id(), c.licenseId(), sent.get(i).phone(), now);
      } else {
        allowance.released(sends.get(i).device().id());
      }
    }
    // Look again at once rather than after POLL: the next look finds when the earliest slot comes
    // and sleeps until then, so a device's next send is released at its planned time, not up to
    // 200 ms after it (what the lateness benchmark measured).
    return Duration.ZERO;
  }

  /**
   * How long a campaign with recipients waiting but no device to take one waits, and why when it is
   * the policy's doing: every device at its day's cap (until the next day), or every device at its
   * cap or holding for unanswered messages (until the first hold ends). Otherwise the devices wait
   * for their slots, or for room in their window.
   */
  private Duration holdFor(
      Campaign c,
      java.util.Collection<SendAllowance.Slot> slots,
      Map<Long, Integer> inFlight,
      Instant now) {
    boolean allCapped = true;
    boolean allHeld = true;
    Instant first = null;
    for (SendAllowance.Slot s : slots) {
      allCapped &= s.remaining() == 0;
      allHeld &= s.held().isPresent();
      if (s.remaining() > 0 && s.dueAt().isAfter(now)) {
        first = first == null || s.dueAt().isBefore(first) ? s.dueAt() : first;
      }
    }
    if (allCapped) {
      Instant tomorrow = allowance.nextDay(now);
      waiting(c, Optional.of(new Campaign.Waiting(SendAllowance.DAILY_CAP, tomorrow)));
      return Duration.between(now, tomorrow);
    }
    if (allHeld && first != null) {
      waiting(c, Optional.of(new Campaign.Waiting(SendAllowance.UNANSWERED, first)));
      return Duration.between(now, first);
    }
    waiting(c, Optional.empty());
    boolean windowFull =
        slots.stream().anyMatch(s -> s.due(now) && inFlight.getOrDefault(s.device().id(), 0) > 0);
    return first == null || windowFull ? POLL : Duration.between(now, first);
  }

  /** Records why the campaign sends nothing now, when that changed. */
  private void waiting(Campaign c, Optional<Campaign.Waiting> why) {
    if (!c.waiting().equals(why)) {
      store.setWaiting(c.id(), why);
    }
  }

  /**
   * The devices of the campaign's pool that may send now and carry its messages (a device added to
   * the license since the campaign was made may not), in the pool's order.
   */
  private List<Device> usablePool(Campaign c) {
    List<Device> pool = new ArrayList<>();
    if (c.devices().isEmpty()) {
      for (Device d : tenants.devicesOf(tenants.license(c.licenseId()))) {
        if (!d.disabled()) {
          usable(d.id()).ifPresent(pool::add);
        }
      }
    } else {
      c.devices().forEach(id -> usable(id).ifPresent(pool::add));
    }
    // A device that needs a template the campaign has not (a Cloud API number enabled since the
    // campaign was made) takes no share: free-form, it would fail most of it (window_closed).
    Set<MessageKind> kinds = CampaignDevices.kinds(c.message(), c.variants());
    pool.removeIf(d -> CampaignDevices.lacksTemplate(drivers, d, c.template().isPresent(), kinds));
    pool.removeIf(
        d ->
            CampaignDevices.notCarried(
                    drivers,
                    d,
                    CampaignDevices.kindsFor(
                        drivers, d, c.message(), c.variants(), c.template().isPresent()))
                .isPresent());
    return pool;
  }

  /** The ids of the campaign's pool: those it names, else every device of its license. */
  private List<Long> poolIds(Campaign c) {
    if (!c.devices().isEmpty()) {
      return c.devices();
    }
    return tenants.devicesOf(tenants.license(c.licenseId())).stream().map(Device::id).toList();
  }

  private Optional<Device> usable(long deviceId) {
    try {
      Device d = tenants.usableDevice(deviceId);
      return tenants.driverLoaded(d) ? Optional.of(d) : Optional.empty();
    } catch (TenantException e) {
      return Optional.empty(); // disabled, deleted, or its license switched off or expired
    }
  }

  private void sleep(Duration wait) {
    lock.lock();
    try {
      long nanos = min(wait, MAX_SLEEP).toNanos();
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

  /** Stops after the step in progress; what it handed over is in the queue. */
  @Override
  public void close() {
    stopping = true;
    wake();
    try {
      if (thread != null) {
        thread.join(Duration.ofSeconds(15));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
