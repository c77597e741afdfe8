package io.kurir.driver.gowa;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.driver.ContactId;
import io.kurir.driver.DeviceConfig;
import io.kurir.driver.DeviceRef;
import io.kurir.driver.DeviceState;
import io.kurir.driver.Driver;
import io.kurir.driver.DriverContext;
import io.kurir.driver.DriverListener;
import io.kurir.driver.EngineSettings;
import io.kurir.driver.EngineWatch;
import io.kurir.driver.GroupMembers;
import io.kurir.driver.IncomingMessage;
import io.kurir.driver.NumberCheck;
import io.kurir.driver.NumberCheckPolicy;
import io.kurir.driver.OutgoingMessage;
import io.kurir.driver.ReceivedFiles;
import io.kurir.driver.SendOutcome;
import io.kurir.logging.LogIds;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver of devices linked through a GOWA server (go-whatsapp-web-multidevice, v8 and later):
 * one GOWA device ("slot") per Kurir device, picked on every scoped call by {@code X-Device-Id}. A
 * send posts to {@code /send/message|image|file} (media uploaded as multipart, never as a link) and
 * answers {@code sent} with WhatsApp's message id; GOWA's signed webhook ({@link
 * GowaWebhookRoutes}) brings receipts and incoming messages. GOWA announces logins and logouts on
 * its websocket only, so a device's state is read from {@code GET /devices/{id}}: when asked, and
 * by the health probe every {@code drivers.gowa.health-every} on the injected clock.
 *
 * <p>Thread-safe: what must outlive a call is in the database ({@link GowaSlots}); GOWA's
 * reachability is a volatile flag that every call refreshes. A GOWA that cannot be reached is not
 * called again by anyone but the engine watch ({@link EngineWatch}), which tries it with back-off
 * on the injected clock: one log line when it goes, one when it is back, its devices {@code
 * port_down} in between, their messages waiting.
 */
public final class GowaDriver implements Driver {
  private static final Logger log = LoggerFactory.getLogger(GowaDriver.class);

  /** The reason stored with a message GOWA refused for good. */
  static final String NETWORK_REFUSED = "network_refused";

  /** The wait before an unreachable GOWA is tried again ({@link EngineWatch#RETRY_FIRST}). */
  static final Duration RETRY_FIRST = EngineWatch.RETRY_FIRST;

  /** The longest wait between two tries of an unreachable GOWA ({@link EngineWatch#RETRY_MAX}). */
  static final Duration RETRY_MAX = EngineWatch.RETRY_MAX;

  /**
   * How long a send waits after GOWA answered {@code WA_REACHOUT_TIMELOCK} (WhatsApp's error 463:
   * the number may not start new chats for a while). Kurir does not hammer it: the device's queue
   * waits, and is tried again after this.
   */
  static final Duration REACHOUT_WAIT = Duration.ofMinutes(15);

  static final Duration GROUPS_FRESH = Duration.ofMinutes(5);
  static final Duration GROUPS_RETRY = Duration.ofSeconds(30);

  /** The largest incoming file Kurir keeps, and the largest QR picture it reads. */
  static final long MAX_INCOMING_MEDIA_BYTES = 64L * 1024 * 1024;

  private static final long MAX_QR_BYTES = 2L * 1024 * 1024;

  private final DriverContext context;
  private final GowaSlots slots;
  private final GowaApi api;
  private final String url;
  // The number check before a first send; known contacts are asked of the contact directory.
  private final NumberCheckPolicy numberChecks;
  // By device, until when WhatsApp's reach-out time lock holds its sends to new contacts.
  private final Map<Long, Instant> reachOutUntil = new ConcurrentHashMap<>();
  // By device, the recipients refused with the lock during it (though taken for known).
  private final Map<Long, Set<String>> refusedDuringLock = new ConcurrentHashMap<>();
  private final Duration healthEvery;
  private final Map<Long, GroupList> groupLists = new ConcurrentHashMap<>();
  private final Object[] checkLocks = newLocks(64);
  private final Map<Long, Qr> qrs = new ConcurrentHashMap<>();
  // Slot id -> device id, as this node attached or found them (the webhook names the slot).
  private final Map<String, Long> deviceBySlot = new ConcurrentHashMap<>();

  // GOWA's reachability: every call goes through it; it tries GOWA again while it is down.
  private final EngineWatch engine;
  private final GowaActions actions;

  /** Devices this node attached while GOWA could not be reached: attached once it answers. */
  private final Map<Long, DeviceRef> toAttach = new ConcurrentHashMap<>();

  private volatile DriverListener listener;

  GowaDriver(DriverContext context) {
    this.context = context;
    this.slots = new GowaSlots(context.sessions());
    var values = context.settings().values();
    this.url = values.getOrDefault(EngineSettings.URL, EngineSettings.DEFAULT_URL);
    this.api =
        new GowaApi(
            url,
            values.getOrDefault(GowaDriverFactory.BASIC_AUTH, "").strip(),
            EngineSettings.duration(
                values, EngineSettings.TIMEOUT, GowaDriverFactory.TIMEOUT_DEFAULT));
    this.healthEvery =
        EngineSettings.duration(values, EngineSettings.HEALTH_EVERY, EngineSettings.HEALTH_DEFAULT);
    this.engine =
        new EngineWatch(
            "the GOWA server at " + url,
            "devices",
            context.clock(),
            () -> api.get("/devices"),
            healthEvery,
            log);
    this.actions = new GowaActions(api, engine);
    this.numberChecks =
        new NumberCheckPolicy(
            context.contacts(),
            context.clock(),
            EngineSettings.duration(
                values, EngineSettings.NUMBER_CHECK_FOR, EngineSettings.NUMBER_CHECK_FOR_DEFAULT),
            EngineSettings.duration(
                values,
                GowaDriverFactory.NUMBER_CHECK_NO_FOR,
                GowaDriverFactory.NUMBER_CHECK_NO_FOR_DEFAULT),
            Integer.parseInt(
                values.getOrDefault(
                    EngineSettings.NUMBER_CHECKS_PER_MINUTE,
                    EngineSettings.NUMBER_CHECKS_PER_MINUTE_DEFAULT)),
            "drivers.gowa." + EngineSettings.NUMBER_CHECKS_PER_MINUTE);
  }

  private static Object[] newLocks(int n) {
    Object[] locks = new Object[n];
    for (int i = 0; i < n; i++) {
      locks[i] = new Object();
    }
    return locks;
  }

  @Override
  public String name() {
    return GowaDriverFactory.NAME;
  }

  @Override
  public io.kurir.driver.Capabilities capabilities() {
    return GowaContent.CAPABILITIES;
  }

  @Override
  public Optional<String> refusalOf(io.kurir.content.MessageContent content) {
    return GowaContent.refusalOf(content);
  }

  /**
   * No: GOWA would fetch a caller's {@code *_url} from inside the operator's network, so Kurir
   * fetches media links itself and uploads the files (docs/decisions.md).
   */
  @Override
  public boolean takesMediaLinks() {
    return false;
  }

  /**
   * The types GOWA takes for a video, an audio or a sticker ({@link GowaContent#PART_TYPES}); any
   * for the seed families' images and files, which go as before (an image GOWA cannot show as one
   * as a file).
   */
  @Override
  public Set<String> mediaTypes(String kind) {
    return GowaContent.PART_TYPES.getOrDefault(kind, Set.of());
  }

  @Override
  public io.kurir.driver.ActionOutcome revoke(
      DeviceRef device, io.kurir.driver.ChatRef chat, String networkId) {
    return whenConnected(device, () -> actions.revoke(slotId(device), chat, networkId));
  }

  @Override
  public io.kurir.driver.ActionOutcome edit(
      DeviceRef device, io.kurir.driver.ChatRef chat, String networkId, String text) {
    return whenConnected(device, () -> actions.edit(slotId(device), chat, networkId, text));
  }

  @Override
  public io.kurir.driver.ActionOutcome markRead(
      DeviceRef device, io.kurir.driver.ChatRef chat, Optional<String> networkId) {
    return whenConnected(device, () -> actions.markRead(slotId(device), chat, networkId));
  }

  @Override
  public io.kurir.driver.ActionOutcome typing(
      DeviceRef device,
      io.kurir.driver.ChatRef chat,
      boolean typing,
      Optional<String> latestReceived) {
    return whenConnected(device, () -> actions.typing(slotId(device), chat, typing));
  }

  private io.kurir.driver.ActionOutcome whenConnected(
      DeviceRef device, java.util.function.Supplier<io.kurir.driver.ActionOutcome> action) {
    return isConnected(device)
        ? action.get()
        : new io.kurir.driver.ActionOutcome.Unavailable("the device is not logged in on GOWA");
  }

  @Override
  public void start(DriverListener newListener) {
    this.listener = newListener;
    io.kurir.time.Wakeable.wakeOnClockChange(context.clock(), engine::wake);
    engine.start(
        "gowa-engine-watch",
        "the GOWA engine watch",
        new EngineWatch.Steps() {
          @Override
          public void lost(String why) {
            for (long id : slots.known()) {
              statusChanged(id, GowaStatus.UNREACHABLE, why);
            }
          }

          @Override
          public void back() {
            recover();
          }

          @Override
          public void probe() {
            GowaDriver.this.probe();
          }
        });
  }

  // --- slots and states

  /**
   * Makes sure the device's slot exists on GOWA ({@code POST /devices {device_id}} when {@code GET
   * /devices/{id}} does not find it) and reads its state; a slot paired but not connected is asked
   * to reconnect. Idempotent: an existing slot is adopted as it is. GOWA's webhook is the
   * operator's {@code --webhook} for every slot, so nothing of it is set here.
   */
  @Override
  public void attach(DeviceRef device) {
    String slot = slotId(device);
    deviceBySlot.put(slot, device.id());
    long read = slots.nextRead(); // before GOWA is asked: what it answers is as of now
    try {
      GowaApi.Reply found = call(() -> api.get("/devices/" + GowaApi.enc(slot)));
      JsonNode described;
      boolean made = false;
      if (missing(slot, found)) {
        ObjectNode body = GowaApi.JSON.createObjectNode();
        body.put("device_id", slot);
        GowaApi.Reply created = call(() -> api.post(null, "/devices", body));
        if (!created.ok() && alreadyExists(slot, created)) {
          // Made meanwhile (another node, or a GOWA that answered the look-up wrongly): adopted.
          created = call(() -> api.get("/devices/" + GowaApi.enc(slot)));
        }
        if (!created.ok()) {
          throw refused(device, "did not create device " + slot, created);
        }
        described = created.results();
        made = true;
      } else if (found.ok()) {
        described = found.results();
      } else {
        throw refused(device, "did not answer for device " + slot, found);
      }
      slots.rememberSlot(device.id(), slot);
      noteAccount(device.id(), described);
      if (made && slots.everPaired(device.id())) {
        // Not the phone's doing: GOWA lost the device (a new, empty store), so it was made again.
        statusChanged(
            device.id(),
            GowaStatus.NOT_PAIRED,
            "GOWA had lost its device "
                + slot
                + " (an empty store?); made again, to be linked again");
        return;
      }
      String status = GowaStatus.of(described, slots.everPaired(device.id()));
      statusChanged(device.id(), status, "attached", read);
      if (status.equals(GowaStatus.PAIRED_AWAY)) {
        reconnect(device.id(), slot);
      }
    } catch (IOException e) {
      // Not thrown: the device waits for GOWA (port_down, not connected, so sync callers hear
      // phone_offline at once), and the engine watch attaches it once GOWA answers.
      toAttach.put(device.id(), device);
      statusChanged(device.id(), GowaStatus.UNREACHABLE, engine.unreachable());
      engine.recoverIfUp(); // back meanwhile, and its recovery may have run before this was put
    }
  }

  /**
   * Whether GOWA has no device {@code slot}, by its answer to {@code GET /devices/{slot}}. GOWA v9
   * answers an unknown id with a 500 {@code INTERNAL_SERVER_ERROR} "device … not found" (a plain
   * error through its recovery middleware), not a 404: so any refusal but Fiber's Basic-auth one is
   * checked against its list, {@code GET /devices}, which names every device it has.
   */
  private boolean missing(String slot, GowaApi.Reply found) throws IOException {
    if (found.ok() || (found.status() == 401 && found.code().isEmpty())) {
      return false;
    }
    if (found.status() == 404) {
      return true; // an older GOWA, or a proxy in front of it
    }
    GowaApi.Reply all = call(() -> api.get("/devices"));
    if (!all.ok() || !all.results().isArray()) {
      return false; // it cannot say: the refusal stands
    }
    for (JsonNode d : all.results()) {
      if (slot.equals(d.path("id").asText(d.path("device").asText("")))) {
        return false;
      }
    }
    return true;
  }

  /** GOWA's answer to a {@code POST /devices} of an id it has: 500 "device … already exists". */
  private static boolean alreadyExists(String slot, GowaApi.Reply r) {
    return r.body().path("message").asText("").equals("device " + slot + " already exists");
  }

  private IllegalStateException refused(DeviceRef device, String what, GowaApi.Reply r) {
    if (r.status() == 401 && r.code().isEmpty()) {
      statusChanged(device.id(), GowaStatus.AUTH_REFUSED, r.describe());
    }
    return new IllegalStateException("GOWA " + what + ": " + r.describe());
  }

  @Override
  public void detach(DeviceRef device) {
    toAttach.remove(device.id());
  }

  /** The slot of {@code device}: configured, else the one attached before, else its own. */
  String slotId(DeviceRef device) {
    DeviceConfig config = context.configOf().apply(device.id());
    return config
        .get(GowaDriverFactory.DEVICE_ID)
        .or(() -> slots.slot(device.id()))
        .orElse(GowaSlots.defaultId(device.id()));
  }

  /** The device whose slot is {@code slot}, as this node knows it. */
  Optional<Long> deviceOfSlot(String slot) {
    return Optional.ofNullable(deviceBySlot.get(slot));
  }

  /** Remembers that {@code slot} is {@code deviceId}'s (found by the webhook's lookup). */
  void knowSlot(String slot, long deviceId) {
    deviceBySlot.put(slot, deviceId);
  }

  /** Reads the slot's state from GOWA and records it; the status read. */
  private String refresh(long deviceId, String slot, String why) throws IOException {
    long read = slots.nextRead(); // before GOWA is asked: what it answers is as of now
    GowaApi.Reply r = call(() -> api.get("/devices/" + GowaApi.enc(slot)));
    String status;
    if (r.ok()) {
      noteAccount(deviceId, r.results());
      status = GowaStatus.of(r.results(), slots.everPaired(deviceId));
    } else if (missing(slot, r)) {
      status = GowaStatus.NO_SLOT;
    } else if (r.status() == 401 && r.code().isEmpty()) {
      status = GowaStatus.AUTH_REFUSED;
    } else {
      return slots.status(deviceId).orElse(GowaStatus.NOT_PAIRED);
    }
    statusChanged(deviceId, status, why, read);
    return status;
  }

  /** Keeps the account paired on the slot, as GOWA described it (its {@code jid}), if any. */
  private void noteAccount(long deviceId, JsonNode described) {
    accountDigits(described.path("jid").asText(""))
        .ifPresent(d -> slots.rememberAccount(deviceId, d));
  }

  /**
   * The phone digits of an account's JID: {@code 628123@s.whatsapp.net}, or with whatsmeow's device
   * suffix {@code 628123:12@s.whatsapp.net}.
   */
  static Optional<String> accountDigits(String jid) {
    if (!jid.endsWith("@s.whatsapp.net")) {
      return Optional.empty();
    }
    String user = jid.substring(0, jid.indexOf('@'));
    int colon = user.indexOf(':');
    return phoneDigits(colon > 0 ? user.substring(0, colon) : user);
  }

  /** Asks GOWA to connect a paired slot again (a lost connection it did not mend itself). */
  private void reconnect(long deviceId, String slot) {
    try {
      GowaApi.Reply r =
          call(() -> api.post(null, "/devices/" + GowaApi.enc(slot) + "/reconnect", Map.of()));
      try (var ids = LogIds.device(deviceId)) {
        log.info("device {}: asked GOWA to reconnect {}: {}", deviceId, slot, r.describe());
      }
    } catch (IOException e) {
      // the engine watch takes it from here
    }
  }

  /**
   * Records a status, and tells the core when it changed: its state with the reason (device
   * history, device-status webhook) and whether it can send.
   */
  void statusChanged(long deviceId, String status, String why) {
    statusChanged(deviceId, status, why, slots.nextRead());
  }

  /**
   * As {@link #statusChanged(long, String, String)}, for a status read from GOWA by the read
   * numbered {@code read} ({@link GowaSlots#nextRead}): dropped when a later read set it already.
   */
  private void statusChanged(long deviceId, String status, String why, long read) {
    if (!slots.setStatus(deviceId, status, read)) {
      return;
    }
    qrs.remove(deviceId); // a code shown before a change of state is not the one to scan now
    DeviceState state = GowaStatus.stateOf(status);
    String reason =
        status.equals(GowaStatus.UNREACHABLE) ? why : GowaStatus.why(status) + " (" + why + ")";
    try (var ids = LogIds.device(deviceId)) {
      log.info("device {}: {}", deviceId, reason);
    }
    if (status.equals(GowaStatus.AUTH_REFUSED)) {
      // An account-level refusal (docs/decisions.md): failed with the reason, its queue held until
      // the operator retries it (after fixing drivers.gowa.basic-auth and restarting).
      tell(l -> l.hold(deviceId, reason));
    } else {
      tell(l -> l.stateChanged(deviceId, state, reason));
    }
    tell(l -> l.connectionChanged(deviceId, state == DeviceState.ONLINE));
  }

  /** The operator retries a held device: its slot is read again (and made, if it is missing). */
  @Override
  public void resume(DeviceRef device) {
    slots.setStatus(device.id(), GowaStatus.NOT_PAIRED); // forgets the refusal; read again now
    attachQuietly(device);
  }

  @Override
  public boolean isConnected(DeviceRef device) {
    return engine.up()
        && slots.status(device.id()).filter(GowaStatus.LOGGED_IN::equals).isPresent();
  }

  /** GOWA takes no idempotency key: a second post of one message is a second message. */
  @Override
  public boolean deduplicates() {
    return false;
  }

  /**
   * Whether GOWA answers: the outcome of the last call, asked again (a cheap {@code GET /devices})
   * when that is older than {@link EngineWatch#PROBE_EVERY} on the injected clock, so a stopped
   * GOWA shows as {@code port_down} and one that is back shows as running without waiting for a
   * send.
   */
  @Override
  public boolean isRunning() {
    return engine.isRunning();
  }

  @Override
  public String downReason() {
    return "the GOWA server at "
        + url
        + " cannot be reached ("
        + engine.downWhy()
        + "): start it, or set drivers.gowa.url to where it runs; Kurir tries it again on its"
        + " own, at most every "
        + RETRY_MAX.toSeconds()
        + " s";
  }

  @Override
  public DeviceState state(DeviceRef device) {
    try {
      refresh(device.id(), slotId(device), "asked");
    } catch (IOException e) {
      return DeviceState.PORT_DOWN; // the last status known is read again once it answers
    }
    return GowaStatus.stateOf(slots.status(device.id()).orElse(GowaStatus.NOT_PAIRED));
  }

  /**
   * One health probe: every slot of this node's devices read again. GOWA sends no webhook when a
   * phone logs its device out or a connection drops, so this is how Kurir learns of it; a slot
   * paired but not connected is asked to reconnect.
   */
  void probe() {
    for (long deviceId : slots.known()) {
      Optional<String> slot = slots.slot(deviceId);
      if (slot.isEmpty()) {
        continue;
      }
      try {
        String status = refresh(deviceId, slot.get(), "health probe");
        if (status.equals(GowaStatus.PAIRED_AWAY)) {
          reconnect(deviceId, slot.get());
        }
      } catch (IOException e) {
        return; // the engine watch takes it from here (call told it)
      }
    }
  }

  // --- sending

  @Override
  public SendOutcome send(DeviceRef device, OutgoingMessage message) {
    if (!isConnected(device)) {
      return new SendOutcome.DeviceUnavailable();
    }
    String slot = slotId(device);
    String phone;
    Optional<ContactId> hidden =
        message.toGroup()
            ? Optional.empty()
            : ContactId.parse(message.recipient()).filter(id -> !id.isPhone());
    if (hidden.isPresent() && hidden.get().kind() == ContactId.Kind.BSUID) {
      // The Cloud API's id of a user: WhatsApp Web has no account by it, and its digits are no
      // phone number (read as one, they would be checked, or reach a stranger).
      return new SendOutcome.NotFound();
    }
    // A group or a LID (someone who wrote in) is no new chat; a number is one until the device has
    // talked with it.
    boolean newContact =
        !message.toGroup()
            && hidden.isEmpty()
            && !context
                .contacts()
                .hasTalkedTo(device.id(), "+" + message.recipient().replaceAll("\\D", ""));
    Optional<Instant> held = heldByLock(device.id(), message.recipient(), newContact);
    if (held.isPresent()) {
      try (var ids = LogIds.device(device.id())) {
        log.debug(
            "device {}: message {} to a new contact held: WhatsApp's reach-out time lock lasts"
                + " until {}",
            device.id(),
            message.id(),
            held.get());
      }
      // This message alone waits, in the queue: the device's messages to known contacts go on.
      return new SendOutcome.Deferred(
          held.get(), "WhatsApp's reach-out time lock lasts until " + held.get());
    }
    if (message.toGroup()) {
      phone = groupJid(message.recipient());
    } else if (hidden.isPresent()) {
      // A reply to a sender known only by a LID: WhatsApp's own id of an account that exists,
      // sent to as GOWA names it; nothing to check.
      phone = hidden.get().address();
    } else {
      String digits = message.recipient().replaceAll("\\D", "");
      phone = digits + "@s.whatsapp.net";
      NumberCheckPolicy.Route route;
      try {
        // One check of a number at a time per device: sends to it meanwhile wait for its answer
        // rather than look it up again (every look-up is seen by WhatsApp).
        synchronized (
            checkLocks[
                Math.floorMod(
                    Long.hashCode(device.id()) * 31 + digits.hashCode(), checkLocks.length)]) {
          route =
              context.contacts().hasTalkedTo(device.id(), "+" + digits)
                  // a chat proves the number is on WhatsApp, whatever a check said
                  ? new NumberCheckPolicy.Route.Go(Optional.empty())
                  : numberChecks.route(
                      device.id(),
                      "+" + digits,
                      () ->
                          askExists(slot, digits)
                              .map(yes -> new NumberCheckPolicy.Answer(yes, Optional.empty())));
        }
      } catch (java.net.ConnectException e) {
        return new SendOutcome.DeviceUnavailable();
      } catch (IOException e) {
        // a passing failure: the send goes
        route = new NumberCheckPolicy.Route.Go(Optional.empty());
      }
      switch (route) {
        case NumberCheckPolicy.Route.NotOnWhatsApp none -> {
          return new SendOutcome.NotFound();
        }
        case NumberCheckPolicy.Route.Wait wait -> {
          try (var ids = LogIds.device(device.id())) {
            log.debug(
                "device {}: message {} waits {} ms for its number check: {}",
                device.id(),
                message.id(),
                wait.after().toMillis(),
                wait.why());
          }
          // This message alone waits, in the queue: the device's messages to known contacts go on.
          return new SendOutcome.Deferred(context.clock().instant().plus(wait.after()), wait.why());
        }
        case NumberCheckPolicy.Route.Go go -> {}
      }
    }
    Optional<GowaContent.Request> own = Optional.empty();
    if (message.carriesOwnContent()) {
      // Kurir's own API: each kind to its route (GowaContent).
      try {
        own = Optional.of(GowaContent.request(phone, message.content(), message.media()));
      } catch (GowaContent.Unsendable e) {
        return new SendOutcome.Permanent(NETWORK_REFUSED, e.getMessage());
      }
    }
    Optional<GowaContent.Request> request = own;
    GowaApi.Reply r;
    try {
      r = call(() -> request.isPresent() ? post(slot, request.get()) : post(slot, phone, message));
    } catch (java.net.ConnectException e) {
      // Nothing reached GOWA: the message waits for it like for a phone that is away.
      return new SendOutcome.DeviceUnavailable();
    } catch (java.nio.file.NoSuchFileException e) {
      return new SendOutcome.Failed("the message's file could not be read: " + e.getMessage());
    } catch (IOException e) {
      return new SendOutcome.Failed("GOWA did not answer: " + e.getMessage());
    }
    if (r.ok()) {
      String id = r.results().path("message_id").asText("");
      if (!message.toGroup()) {
        // WhatsApp took it: the number is on it, whatever an older check said.
        numberChecks.keep(
            device.id(),
            "+" + phone.substring(0, phone.indexOf('@')),
            new NumberCheckPolicy.Answer(true, Optional.empty()));
      }
      return SendOutcome.Sent.of(id, context.clock().instant());
    }
    // GOWA words a group the account is not in as whatsmeow's error (a 500): its group list says.
    if (message.toGroup() && notInGroup(device, phone).orElse(false)) {
      return new SendOutcome.NotFound();
    }
    return refusal(device, slot, message, r);
  }

  /**
   * Until when a send from the device to {@code recipient} waits for WhatsApp's reach-out time
   * lock: a new contact's does, and so does one refused with the lock during it (a contact taken
   * for known), so that it is not sent again and again meanwhile. Empty when it goes.
   */
  private Optional<Instant> heldByLock(long deviceId, String recipient, boolean newContact) {
    Instant until = reachOutUntil.get(deviceId);
    if (until == null) {
      return Optional.empty();
    }
    if (!until.isAfter(context.clock().instant())) {
      if (reachOutUntil.remove(deviceId, until)) {
        refusedDuringLock.remove(deviceId);
      }
      return Optional.empty();
    }
    return newContact || refusedDuringLock.getOrDefault(deviceId, Set.of()).contains(recipient)
        ? Optional.of(until)
        : Optional.empty();
  }

  /**
   * GOWA answered {@code WA_REACHOUT_TIMELOCK} (WhatsApp's 463): GOWA does not say when the lock
   * ends, so sends to new contacts wait {@link #REACHOUT_WAIT}, each in the queue; sends to known
   * contacts go on. Told once per lock, as a warning.
   */
  private SendOutcome reachOutRefused(DeviceRef device, OutgoingMessage message, GowaApi.Reply r) {
    Instant until = context.clock().instant().plus(REACHOUT_WAIT);
    Instant before = reachOutUntil.get(device.id());
    boolean already = before != null && before.isAfter(context.clock().instant());
    if (!already) {
      refusedDuringLock.remove(device.id());
      reachOutUntil.put(device.id(), until);
      try (var ids = LogIds.device(device.id())) {
        log.warn(
            "device {}: WhatsApp's reach-out time lock ({}): messages to new contacts wait until"
                + " {}; messages to known contacts go on",
            device.id(),
            r.describe(),
            until);
      }
    } else {
      until = before;
    }
    refusedDuringLock
        .computeIfAbsent(device.id(), id -> ConcurrentHashMap.newKeySet())
        .add(message.recipient());
    return new SendOutcome.Deferred(
        until, "WhatsApp's reach-out time lock (" + r.describe() + ") lasts until " + until);
  }

  /** The send's request: JSON for a text, multipart with the file for an image or a file. */
  private GowaApi.Reply post(String slot, String phone, OutgoingMessage message)
      throws IOException, InterruptedException {
    if (message.media().isEmpty()) {
      ObjectNode body = GowaApi.JSON.createObjectNode();
      body.put("phone", phone);
      body.put("message", message.text());
      return api.post(slot, "/send/message", body);
    }
    OutgoingMessage.Attachment a = message.media().get();
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("phone", phone);
    if (!message.text().isEmpty()) {
      fields.put("caption", message.text());
    }
    // GOWA sends as a picture only JPEG and PNG (it checks the part's type); others go as files.
    String mime = a.mimeType().split(";")[0].strip().toLowerCase(Locale.ROOT);
    boolean picture =
        message.kind().equals("image") && (mime.equals("image/jpeg") || mime.equals("image/png"));
    return picture
        ? api.postMultipart(slot, "/send/image", fields, "image", a.name(), mime, a.path())
        : api.postMultipart(slot, "/send/file", fields, "file", a.name(), mime, a.path());
  }

  /** A request of Kurir's own API: JSON, or multipart with its file. */
  private GowaApi.Reply post(String slot, GowaContent.Request request)
      throws IOException, InterruptedException {
    if (request.upload().isEmpty()) {
      return api.post(slot, request.path(), request.body());
    }
    GowaContent.Upload u = request.upload().get();
    return api.postMultipart(
        slot, request.path(), request.fields(), u.field(), u.fileName(), u.type(), u.path());
  }

  /** What a refused send answers, by GOWA's HTTP status and error code. */
  private SendOutcome refusal(
      DeviceRef device, String slot, OutgoingMessage message, GowaApi.Reply r) {
    String code = r.code();
    if (r.status() == 401 && code.isEmpty()) {
      // Fiber's Basic-auth refusal (plain text), not GOWA's JSON: Kurir's credentials are wrong.
      statusChanged(device.id(), GowaStatus.AUTH_REFUSED, r.describe());
      return new SendOutcome.DeviceUnavailable();
    }
    switch (code) {
      case "INVALID_JID" -> {
        return new SendOutcome.NotFound();
      }
      case "AUTHENTICATION_ERROR", "DEVICE_MANAGER_UNAVAILABLE" -> {
        // Not logged in, or not connected: the message waits; the slot's state says why.
        try {
          String status = refresh(device.id(), slot, "GOWA refused a send: " + r.describe());
          if (status.equals(GowaStatus.LOGGED_IN)) {
            statusChanged(device.id(), GowaStatus.PAIRED_AWAY, r.describe());
          }
        } catch (IOException e) {
          // the engine watch takes it from here
        }
        return new SendOutcome.DeviceUnavailable();
      }
      case "DEVICE_NOT_FOUND" -> {
        statusChanged(device.id(), GowaStatus.NO_SLOT, r.describe());
        attachQuietly(device); // made again, to be linked again
        return new SendOutcome.DeviceUnavailable();
      }
      case "WA_REACHOUT_TIMELOCK" -> {
        return reachOutRefused(device, message, r);
      }
      default -> {}
    }
    if (r.status() == 400) {
      return new SendOutcome.Permanent(NETWORK_REFUSED, r.describe());
    }
    if (r.status() == 429 || r.status() == 503) {
      return new SendOutcome.RetryAfter(Duration.ofSeconds(30), r.describe());
    }
    return new SendOutcome.Failed(r.describe());
  }

  private void attachQuietly(DeviceRef device) {
    try {
      attach(device);
    } catch (RuntimeException e) {
      try (var ids = LogIds.device(device.id())) {
        log.warn("device {}: could not set its GOWA device up: {}", device.id(), e.getMessage());
      }
    }
  }

  /** A group id as GOWA's JID, {@code <id>@g.us}. */
  static String groupJid(String id) {
    return id.contains("@") ? id : id + "@g.us";
  }

  /** GOWA's answer to {@code GET /user/check}; empty when it gave none. */
  private Optional<Boolean> askExists(String slot, String digits) throws IOException {
    GowaApi.Reply r = call(() -> api.get(slot, "/user/check?phone=" + GowaApi.enc(digits)));
    JsonNode answer = r.results().path("is_on_whatsapp");
    return r.ok() && answer.isBoolean() ? Optional.of(answer.asBoolean()) : Optional.empty();
  }

  /**
   * Whether {@code e164} is on WhatsApp. GOWA answers only yes or no (a failed look-up is a no on
   * its side too), and a 401 when the device is not logged in: then it is unknown.
   */
  @Override
  public NumberCheck checkNumber(DeviceRef device, String e164) {
    if (!isConnected(device)) {
      return NumberCheck.UNKNOWN;
    }
    String digits = e164.replaceAll("\\D", "");
    try {
      numberChecks.counted(device.id());
      Optional<Boolean> answer = askExists(slotId(device), digits);
      if (answer.isEmpty()) {
        return NumberCheck.UNKNOWN;
      }
      numberChecks.keep(
          device.id(), "+" + digits, new NumberCheckPolicy.Answer(answer.get(), Optional.empty()));
      return answer.get() ? NumberCheck.EXISTS : NumberCheck.NOT_EXISTS;
    } catch (IOException e) {
      return NumberCheck.UNKNOWN;
    }
  }

  // --- linking

  /** A QR payload read from GOWA's picture, good until {@code until} on the injected clock. */
  private record Qr(String payload, Instant until) {}

  /**
   * The payload of the device's login QR code. GOWA answers {@code GET /devices/{id}/login} with a
   * link to a PNG it deletes after {@code qr_duration} seconds, and asking again restarts the
   * pairing: so the picture is fetched at once, its payload read out of it (it has no other form),
   * and kept for {@code qr_duration}; only then is GOWA asked for a new one.
   */
  @Override
  public Optional<String> pairingCode(DeviceRef device) {
    if (!attachedOnce(device)) {
      return Optional.empty();
    }
    Instant now = context.clock().instant();
    Qr kept = qrs.get(device.id());
    if (kept != null && now.isBefore(kept.until())) {
      return Optional.of(kept.payload());
    }
    String slot = slotId(device);
    try {
      GowaApi.Reply r = call(() -> api.get("/devices/" + GowaApi.enc(slot) + "/login"));
      if (!r.ok()) {
        if (r.code().equals("ALREADY_LOGGED_IN")) {
          refresh(device.id(), slot, "GOWA: already logged in");
        } else {
          try (var ids = LogIds.device(device.id())) {
            log.warn("device {}: GOWA gave no QR code: {}", device.id(), r.describe());
          }
        }
        return Optional.empty();
      }
      String link = r.results().path("qr_link").asText("");
      long seconds = r.results().path("qr_duration").asLong(20);
      if (link.isBlank()) {
        return Optional.empty();
      }
      byte[] png;
      try {
        png = api.download(link, MAX_QR_BYTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
      Optional<String> payload = GowaQr.payload(png);
      if (payload.isEmpty()) {
        try (var ids = LogIds.device(device.id())) {
          log.warn("device {}: GOWA's QR picture {} holds no readable code", device.id(), link);
        }
        return Optional.empty();
      }
      qrs.put(device.id(), new Qr(payload.get(), now.plusSeconds(Math.max(1, seconds))));
      return payload;
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** GOWA's pairing code for the device's own number ({@code POST /devices/{id}/login/code}). */
  @Override
  public Optional<String> linkCode(DeviceRef device) {
    if (!attachedOnce(device)) {
      return Optional.empty();
    }
    String slot = slotId(device);
    String digits = device.number().replaceAll("\\D", "");
    try {
      GowaApi.Reply r =
          call(
              () ->
                  api.post(
                      null,
                      "/devices/" + GowaApi.enc(slot) + "/login/code?phone=" + GowaApi.enc(digits),
                      Map.of()));
      String code = r.ok() ? r.results().path("pair_code").asText("") : "";
      if (code.isBlank()) {
        try (var ids = LogIds.device(device.id())) {
          log.warn("device {}: GOWA gave no pairing code: {}", device.id(), r.describe());
        }
        return Optional.empty();
      }
      return Optional.of(code);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * Whether the device's slot was set up on GOWA, setting it up now if not: a device created by
   * {@code ./kurir admin} while the gateway runs has no sender yet, and is paired before its first
   * message.
   */
  private boolean attachedOnce(DeviceRef device) {
    if (slots.slot(device.id()).isPresent()) {
      return true;
    }
    attachQuietly(device);
    return slots.slot(device.id()).isPresent();
  }

  /** Logs the slot out of WhatsApp; GOWA keeps the slot, to be linked again. */
  @Override
  public boolean logout(DeviceRef device) {
    if (!engine.up() || slots.slot(device.id()).isEmpty()) {
      return false;
    }
    String slot = slotId(device);
    try {
      GowaApi.Reply r =
          call(() -> api.post(null, "/devices/" + GowaApi.enc(slot) + "/logout", Map.of()));
      if (!r.ok()) {
        try (var ids = LogIds.device(device.id())) {
          log.warn("device {}: GOWA did not log {} out: {}", device.id(), slot, r.describe());
        }
        return false;
      }
      statusChanged(device.id(), GowaStatus.LOGGED_OUT, "logged out by Kurir");
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  // --- groups

  /** A device's groups by name and id, as GOWA listed them at {@code fetchedAt}. */
  private record GroupList(Instant fetchedAt, Map<String, String> idByName, Set<String> ids) {}

  /**
   * The device's groups ({@code GET /user/my/groups}, whatsmeow's {@code GroupInfo} in PascalCase),
   * kept for {@link #GROUPS_FRESH}, asked again sooner when {@code looking} is not in them (a group
   * just joined), at most every {@link #GROUPS_RETRY}. Empty when GOWA could not say.
   */
  private Optional<GroupList> groups(DeviceRef device, java.util.function.Predicate<GroupList> has)
      throws IOException {
    Instant now = context.clock().instant();
    GroupList cached = groupLists.get(device.id());
    if (cached != null && now.isBefore(cached.fetchedAt().plus(GROUPS_FRESH))) {
      if (has.test(cached) || now.isBefore(cached.fetchedAt().plus(GROUPS_RETRY))) {
        return Optional.of(cached);
      }
    }
    GowaApi.Reply r = call(() -> api.get(slotId(device), "/user/my/groups"));
    if (!r.ok()) {
      return Optional.empty();
    }
    Map<String, String> idByName = new HashMap<>();
    Set<String> ids = new java.util.HashSet<>();
    for (JsonNode g : r.results().path("data")) {
      String id = g.path("JID").asText("");
      String name = g.path("Name").asText("");
      if (!id.isBlank()) {
        ids.add(id);
        if (!name.isBlank()) {
          idByName.putIfAbsent(name, id);
        }
      }
    }
    GroupList list = new GroupList(now, Map.copyOf(idByName), Set.copyOf(ids));
    groupLists.put(device.id(), list);
    return Optional.of(list);
  }

  /**
   * Whether the device is not in group {@code jid}, by its group list (asked again unless it was
   * just now); empty when GOWA could not say.
   */
  private Optional<Boolean> notInGroup(DeviceRef device, String jid) {
    try {
      return groups(device, g -> g.ids().contains(jid)).map(g -> !g.ids().contains(jid));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  @Override
  public Optional<String> groupIdByName(DeviceRef device, String groupName) {
    if (!isConnected(device)) {
      return Optional.empty();
    }
    try {
      return groups(device, g -> g.idByName().containsKey(groupName))
          .flatMap(g -> Optional.ofNullable(g.idByName().get(groupName)));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * The group's members ({@code GET /group/participants}): each by its phone when GOWA knows it (it
   * answers the digits), else by the phone Kurir learned for its LID, else by the LID.
   */
  @Override
  public GroupMembers groupMembers(DeviceRef device, String groupId) {
    if (!isConnected(device)) {
      return new GroupMembers.Unknown();
    }
    String jid = groupJid(groupId);
    try {
      GowaApi.Reply r =
          call(() -> api.get(slotId(device), "/group/participants?group_id=" + GowaApi.enc(jid)));
      if (!r.ok() || !r.results().path("participants").isArray()) {
        // GOWA words a group the account is not in as whatsmeow's error: its group list says.
        return notInGroup(device, jid).orElse(false)
            ? new GroupMembers.NotFound()
            : new GroupMembers.Unknown();
      }
      List<String> numbers = new ArrayList<>();
      for (JsonNode p : r.results().path("participants")) {
        Optional<String> phone =
            phoneDigits(p.path("phone_number").asText(""))
                .or(() -> phoneDigits(p.path("jid").asText("")));
        Optional<ContactId> lid =
            lid(p.path("lid").asText("")).or(() -> lid(p.path("jid").asText("")));
        if (phone.isPresent()) {
          String e164 = "+" + phone.get();
          lid.ifPresent(l -> context.contacts().learn(device.id(), e164, l));
          numbers.add(e164);
        } else if (lid.isPresent()) {
          numbers.add(
              context
                  .contacts()
                  .phoneOf(device.id(), lid.get())
                  .map(p2 -> "+" + p2.replaceAll("\\D", ""))
                  .orElse(lid.get().address()));
        }
      }
      return new GroupMembers.Members(numbers);
    } catch (IOException e) {
      return new GroupMembers.Unknown();
    }
  }

  /** The digits of a phone: {@code 628123}, {@code +628123} or {@code 628123@s.whatsapp.net}. */
  static Optional<String> phoneDigits(String value) {
    String v = value.strip();
    if (v.endsWith("@s.whatsapp.net")) {
      v = v.substring(0, v.indexOf('@'));
    }
    if (v.startsWith("+")) {
      v = v.substring(1);
    }
    return v.matches("\\d{6,15}") ? Optional.of(v) : Optional.empty();
  }

  /** {@code 1234567890@lid} as a LID. */
  static Optional<ContactId> lid(String jid) {
    int colon = jid.indexOf(':'); // a device suffix, 123:4@lid
    String bare = colon > 0 && jid.endsWith("@lid") ? jid.substring(0, colon) + "@lid" : jid;
    return ContactId.parse(bare).filter(id -> id.kind() == ContactId.Kind.LID);
  }

  // --- incoming media

  /** The media fields of GOWA's {@code message} payload, in the order they are looked for. */
  private static final List<String> MEDIA_FIELDS =
      List.of("image", "document", "video", "audio", "sticker", "video_note");

  /** What an incoming message's media gave. */
  sealed interface IncomingFile {
    /** No media. */
    record None() implements IncomingFile {}

    /** Kept under the driver's folder. */
    record Kept(IncomingMessage.Media media) implements IncomingFile {}

    /** There was a file, but GOWA did not keep it (auto-download off, or deleted): what it was. */
    record Lost(String what, String why) implements IncomingFile {}
  }

  /**
   * The media of an incoming message, fetched from GOWA ({@code statics/media/…}, the path GOWA
   * gives when it downloads media, its default) and kept under the driver's folder by the message's
   * id. A media object with only a WhatsApp URL ({@code WHATSAPP_AUTO_DOWNLOAD_MEDIA=false}) is not
   * fetched: the file there is encrypted, and Kurir fetches nothing from anywhere but GOWA.
   *
   * @throws IOException when GOWA could not be asked now (the webhook is then answered 503, and
   *     GOWA delivers it again)
   */
  IncomingFile incomingMedia(long deviceId, String networkId, JsonNode payload) throws IOException {
    for (String field : MEDIA_FIELDS) {
      JsonNode m = payload.path(field);
      if (m.isMissingNode() || m.isNull()) {
        continue;
      }
      String path = m.isTextual() ? m.asText() : m.path("path").asText("");
      String what = field.equals("image") || field.equals("sticker") ? "image" : "file";
      // The kind the file is kept as: what asContent reads it as (a video note is a video).
      String kind =
          switch (field) {
            case "image", "video", "audio", "sticker" -> field;
            case "video_note" -> "video";
            default -> "file";
          };
      if (path.isBlank()) {
        return new IncomingFile.Lost(what, "GOWA did not download it (auto-download off?)");
      }
      String fileName = path.substring(path.lastIndexOf('/') + 1);
      String mime = mimeOf(fileName, field);
      Path file =
          context
              .dataDir()
              .resolve("media")
              .resolve(Long.toString(deviceId))
              .resolve(ReceivedFiles.safeName(networkId) + ReceivedFiles.extension(mime, fileName));
      if (!engine.up()) {
        throw new java.net.ConnectException(engine.unreachable());
      }
      byte[] bytes;
      try {
        // Not through call(): a file GOWA no longer has says nothing of whether it can be reached.
        bytes = api.download(path, MAX_INCOMING_MEDIA_BYTES);
      } catch (GowaApi.FileGone e) {
        return new IncomingFile.Lost(what, e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while fetching the media", e);
      }
      Files.createDirectories(file.getParent());
      Path part = file.resolveSibling(file.getFileName() + ".part");
      Files.write(part, bytes);
      Files.move(part, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return new IncomingFile.Kept(new IncomingMessage.Media(kind, mime, file));
    }
    return new IncomingFile.None();
  }

  /** A file's type by its extension (GOWA names media by what WhatsApp said it was). */
  static String mimeOf(String fileName, String field) {
    String ext =
        fileName.contains(".")
            ? fileName.substring(fileName.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT)
            : "";
    return switch (ext) {
      case "jpg", "jpeg" -> "image/jpeg";
      case "png" -> "image/png";
      case "webp" -> "image/webp";
      case "gif" -> "image/gif";
      case "pdf" -> "application/pdf";
      case "mp4" -> "video/mp4";
      case "ogg", "oga" -> "audio/ogg";
      case "mp3" -> "audio/mpeg";
      case "m4a" -> "audio/mp4";
      case "txt" -> "text/plain";
      case "csv" -> "text/csv";
      case "zip" -> "application/zip";
      case "docx" -> "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
      case "xlsx" -> "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
      default -> field.equals("image") ? "image/jpeg" : "application/octet-stream";
    };
  }

  /** The phone Kurir knows behind {@code lid} for the device, as {@code +digits}. */
  Optional<String> phoneOfLid(long deviceId, ContactId lid) {
    return context.contacts().phoneOf(deviceId, lid).map(p -> "+" + p.replaceAll("\\D", ""));
  }

  // --- GOWA's reachability

  @Override
  public void close() {
    engine.close();
    api.close();
  }

  /**
   * One call to GOWA; its reachability follows the outcome. While GOWA cannot be reached nothing is
   * sent to it: the call fails at once, and only the engine watch tries it, with back-off.
   */
  private GowaApi.Reply call(EngineWatch.Call<GowaApi.Reply> call) throws IOException {
    return engine.call(call);
  }

  /** GOWA is back: the devices that waited are attached, every slot is read again. */
  private void recover() {
    for (DeviceRef device : List.copyOf(toAttach.values())) {
      toAttach.remove(device.id());
      attachQuietly(device); // puts it back when GOWA went again
    }
    probe();
  }

  // --- for the webhook

  DriverContext context() {
    return context;
  }

  GowaSlots slots() {
    return slots;
  }

  /** Tells the listener, once the driver has started. */
  void tell(Consumer<DriverListener> event) {
    DriverListener l = listener;
    if (l != null) {
      event.accept(l);
    }
  }

  DriverListener listener() {
    DriverListener l = listener;
    if (l == null) {
      throw new IllegalStateException("the gowa driver has not started");
    }
    return l;
  }
}
