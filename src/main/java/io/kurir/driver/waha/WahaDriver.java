package io.kurir.driver.waha;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
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
import io.kurir.driver.OutgoingMessage;
import io.kurir.driver.ReceivedFiles;
import io.kurir.driver.SendOutcome;
import io.kurir.logging.RepeatingFailure;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver of devices linked through a WAHA engine: one engine session per device. A send posts
 * to {@code /api/sendText|sendImage|sendFile} and answers {@code sent} with the engine's message
 * id; the engine's signed webhooks ({@link WahaWebhookRoutes}) bring the session's status, acks and
 * incoming messages.
 *
 * <p>Thread-safe: what must outlive a call is in the database ({@link WahaSessions}); the engine's
 * reachability is a volatile flag that every call refreshes. An engine that cannot be reached is
 * not called again by anyone but the engine watch ({@link EngineWatch}), which tries it with
 * back-off on the injected clock: one log line when it goes, one when it is back, its devices
 * {@code port_down} in between.
 */
public final class WahaDriver implements Driver {
  private static final Logger log = LoggerFactory.getLogger(WahaDriver.class);

  /** Where the engine posts a device's events; the device's id follows. */
  static final String EVENTS_PATH = "/drivers/waha/events/";

  /**
   * The events a session's webhook subscribes to; {@code message.reaction} brings reactions, which
   * no engine puts in {@code message} (docs how-to/events: NOWEB's moved there too).
   */
  static final List<String> EVENTS =
      List.of("session.status", "message", "message.ack", "message.ack.group", "message.reaction");

  /** The reason stored with a message the engine refused for good. */
  static final String NETWORK_REFUSED = "network_refused";

  private final DriverContext context;
  private final WahaSessions sessions;
  private final WahaApi api;
  static final Duration GROUPS_FRESH = Duration.ofMinutes(5);
  static final Duration GROUPS_RETRY = Duration.ofSeconds(30);
  private final Map<Long, GroupList> groupLists = new java.util.concurrent.ConcurrentHashMap<>();
  private final NumberChecks numberChecks;
  private final AccountLimits limits;

  /**
   * How long a LID lookup that found no phone (or failed) is trusted before the engine is asked
   * again: an unresolvable LID would otherwise cost one {@code GET …/lids/…} per message and per
   * member listing.
   */
  static final Duration LID_MISS_TTL = Duration.ofMinutes(10);

  /** Per {@code deviceId/<lid>@lid}: until when the engine is not asked again for its phone. */
  private final Map<String, java.time.Instant> lidMisses =
      new java.util.concurrent.ConcurrentHashMap<>();

  // The engine's reachability: every call goes through it; it tries the engine again while down.
  private final EngineWatch engine;
  private final WahaActions actions;

  /**
   * The Kurir-side status of a session whose engine cannot be reached ({@code port_down}); the
   * engine's own status is read again once it answers.
   */
  static final String UNREACHABLE = "UNREACHABLE";

  /** The wait before an unreachable engine is tried again ({@link EngineWatch#RETRY_FIRST}). */
  static final Duration RETRY_FIRST = EngineWatch.RETRY_FIRST;

  /**
   * The longest wait between two tries of an unreachable engine ({@link EngineWatch#RETRY_MAX}).
   */
  static final Duration RETRY_MAX = EngineWatch.RETRY_MAX;

  private final String url;

  /** Devices this node attached while the engine could not be reached: attached once it answers. */
  private final Map<Long, DeviceRef> toAttach = new java.util.concurrent.ConcurrentHashMap<>();

  private volatile DriverListener listener;
  private final Duration healthEvery;
  private final Duration probeTimeout;

  /**
   * Devices whose session was found stalled (the engine said {@code WORKING} but the session did
   * not answer) and not yet seen answering again: a {@code WORKING} for them counts only once the
   * cheap call passes. By device, when its session was last restarted for it ({@code nanoTime}).
   */
  private final Map<Long, Long> stalled = new java.util.concurrent.ConcurrentHashMap<>();

  // How many statuses each device was given: a status read before another was given (an attach's,
  // overtaken by the engine's webhook) is older than it and is not applied.
  private final Map<Long, Long> statusesGiven = new java.util.concurrent.ConcurrentHashMap<>();

  private volatile Thread health;
  private volatile Thread recovery;
  private volatile boolean closed;

  /** FAILED sessions being brought back (restart, then log out and start). */
  private final FailedSessions failed = new FailedSessions(this);

  WahaDriver(DriverContext context) {
    this.context = context;
    this.sessions = new WahaSessions(context.sessions());
    var values = context.settings().values();
    this.url = values.getOrDefault(EngineSettings.URL, EngineSettings.DEFAULT_URL);
    this.api =
        new WahaApi(
            url,
            values.getOrDefault(WahaDriverFactory.API_KEY, "").strip(),
            EngineSettings.duration(values, EngineSettings.TIMEOUT, "30s"));
    this.healthEvery =
        EngineSettings.duration(values, EngineSettings.HEALTH_EVERY, EngineSettings.HEALTH_DEFAULT);
    this.probeTimeout =
        EngineSettings.duration(
            values, WahaDriverFactory.PROBE_TIMEOUT, WahaDriverFactory.PROBE_TIMEOUT_DEFAULT);
    this.numberChecks =
        new NumberChecks(
            context.contacts(),
            context.clock(),
            EngineSettings.duration(
                values, EngineSettings.NUMBER_CHECK_FOR, EngineSettings.NUMBER_CHECK_FOR_DEFAULT),
            Integer.parseInt(
                values
                    .getOrDefault(
                        EngineSettings.NUMBER_CHECKS_PER_MINUTE,
                        EngineSettings.NUMBER_CHECKS_PER_MINUTE_DEFAULT)
                    .strip()));
    this.limits = new AccountLimits(context.clock());
    // The health probe has its own loop (probeLoop): the watch runs none.
    this.engine =
        new EngineWatch(
            "the WAHA engine at " + url,
            "sessions",
            context.clock(),
            () -> api.get("/api/sessions"),
            Duration.ZERO,
            log);
    this.actions = new WahaActions(api, engine);
  }

  @Override
  public String name() {
    return WahaDriverFactory.NAME;
  }

  @Override
  public io.kurir.driver.Capabilities capabilities() {
    return WahaContent.CAPABILITIES;
  }

  @Override
  public Optional<String> refusalOf(io.kurir.content.MessageContent content) {
    return WahaContent.refusalOf(content);
  }

  @Override
  public io.kurir.driver.ActionOutcome revoke(
      DeviceRef device, io.kurir.driver.ChatRef chat, String networkId) {
    return whenConnected(device, () -> actions.revoke(sessionName(device), chat, networkId));
  }

  @Override
  public io.kurir.driver.ActionOutcome edit(
      DeviceRef device, io.kurir.driver.ChatRef chat, String networkId, String text) {
    return whenConnected(device, () -> actions.edit(sessionName(device), chat, networkId, text));
  }

  @Override
  public io.kurir.driver.ActionOutcome markRead(
      DeviceRef device, io.kurir.driver.ChatRef chat, Optional<String> networkId) {
    return whenConnected(device, () -> actions.markRead(sessionName(device), chat, networkId));
  }

  @Override
  public io.kurir.driver.ActionOutcome typing(
      DeviceRef device,
      io.kurir.driver.ChatRef chat,
      boolean typing,
      Optional<String> latestReceived) {
    return whenConnected(device, () -> actions.typing(sessionName(device), chat, typing));
  }

  private io.kurir.driver.ActionOutcome whenConnected(
      DeviceRef device, java.util.function.Supplier<io.kurir.driver.ActionOutcome> action) {
    return isConnected(device)
        ? action.get()
        : new io.kurir.driver.ActionOutcome.Unavailable("the session is not WORKING");
  }

  @Override
  public void start(DriverListener newListener) {
    this.listener = newListener;
    io.kurir.time.Wakeable.wakeOnClockChange(
        context.clock(),
        () -> {
          engine.wake();
          failed.wake();
        });
    engine.start(
        "waha-engine-watch",
        "the WAHA engine watch",
        new EngineWatch.Steps() {
          @Override
          public void lost(String why) {
            for (long id : sessions.known()) {
              statusChanged(id, UNREACHABLE, why);
            }
          }

          @Override
          public void back() {
            recover();
          }
        });
    recovery = Thread.ofVirtual().name("waha-failed-sessions").start(failed::loop);
    if (!healthEvery.isZero()) {
      health = Thread.ofVirtual().name("waha-health").start(this::probeLoop);
    }
  }

  /**
   * Asks the engine on a schedule how every session of this node's devices is: a missed or withheld
   * {@code session.status} webhook (the engine has had silent stalls) shows here, and an engine
   * that stopped answering takes its devices' sends off until it is back. A quiet number is not a
   * broken one: only the engine's answers count, not the absence of events.
   */
  private void probeLoop() {
    RepeatingFailure failures =
        RepeatingFailure.atFixedPace(log, "the WAHA health probe", context.clock(), healthEvery);
    while (!closed) {
      try {
        Thread.sleep(healthEvery);
        probe();
        failures.succeeded();
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        failures.failed(e); // told once while it repeats (docs/decisions.md)
      }
    }
  }

  /**
   * One health probe: the engine's session list against the devices this node attached, and for
   * each session the engine says is {@code WORKING}, a cheap call to the session itself ({@link
   * #answers}): a session that is {@code WORKING} on the engine but does not answer is stalled (the
   * engine has had such silent stalls), reported {@code failed} and restarted.
   */
  void probe() {
    if (sessions.known().isEmpty()) {
      return; // no device of this driver here: the engine is not asked (it may not exist)
    }
    long read = sessions.nextRead();
    WahaApi.Reply r;
    try {
      r = call(() -> api.get("/api/sessions?all=true"));
    } catch (IOException e) {
      return; // the engine watch takes it from here (call tells it)
    }
    if (r.status() == 401) {
      for (long deviceId : sessions.known()) {
        statusChanged(deviceId, UNAUTHORIZED, keyRefused(r));
      }
      return;
    }
    if (!r.ok() || !r.body().isArray()) {
      return;
    }
    attachWaiting(); // devices refused for the API key: the engine takes it now
    Map<String, String> statusByName = new HashMap<>();
    Map<String, JsonNode> sessionByName = new HashMap<>();
    for (JsonNode s : r.body()) {
      statusByName.put(s.path("name").asText(""), s.path("status").asText("STOPPED"));
      sessionByName.put(s.path("name").asText(""), s);
    }
    for (long deviceId : sessions.known()) {
      Optional<String> name = sessions.name(deviceId);
      if (name.isEmpty()) {
        continue;
      }
      String status = statusByName.getOrDefault(name.get(), "STOPPED");
      if (sessionByName.containsKey(name.get())) {
        limitsSeen(deviceId, sessionByName.get(name.get()));
      }
      if (!status.equals("WORKING")) {
        statusChanged(deviceId, status, PROBED, read);
        continue;
      }
      Optional<String> problem = answers(name.get());
      if (problem.isEmpty()) {
        stalled.remove(deviceId);
        statusChanged(deviceId, status, PROBED, read);
      } else {
        stalled(deviceId, name.get(), problem.get());
      }
    }
  }

  /** The reason of a status the health probe read (and checked with a cheap call). */
  private static final String PROBED = "health probe";

  /** The Kurir-side status of a session the engine says is WORKING but that does not answer. */
  static final String STALLED = "STALLED";

  /**
   * Why the session does not answer a cheap call ({@code GET /api/sessions/{name}/me}, the linked
   * account) within {@code drivers.waha.probe-timeout}; empty when it does. Not counted against the
   * engine's reachability: the engine answered the session list.
   */
  private Optional<String> answers(String name) {
    String path = "/api/sessions/" + WahaApi.enc(name) + "/me";
    try {
      WahaApi.Reply r = api.get(path, probeTimeout);
      return r.ok() ? Optional.empty() : Optional.of("GET " + path + " answered " + r.describe());
    } catch (java.net.http.HttpTimeoutException e) {
      return Optional.of("GET " + path + " took more than " + probeTimeout.toMillis() + " ms");
    } catch (IOException e) {
      return Optional.of("GET " + path + " failed: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("interrupted");
    }
  }

  /**
   * A stalled session: reported {@code failed} once (device event, device-status webhook; its
   * messages wait), and restarted on the engine ({@code POST /api/sessions/{name}/restart}, else
   * stop and start) at once, then again while it stays stalled, at most every ten probes.
   */
  private void stalled(long deviceId, String name, String problem) {
    long now = System.nanoTime();
    Long restartedAt = stalled.get(deviceId);
    if (sessions.setStatus(deviceId, STALLED)) {
      try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
        log.warn(
            "device {}: session {} is WORKING on the engine but stalled: {}",
            deviceId,
            name,
            problem);
      }
      tell(
          l ->
              l.stateChanged(
                  deviceId,
                  DeviceState.FAILED,
                  "engine: WORKING but the session does not answer ("
                      + problem
                      + "); restarting it"));
      tell(l -> l.connectionChanged(deviceId, false));
    }
    if (restartedAt != null && now - restartedAt < healthEvery.multipliedBy(10).toNanos()) {
      return;
    }
    stalled.put(deviceId, now);
    restart(deviceId, name);
  }

  private void restart(long deviceId, String name) {
    String at = "/api/sessions/" + WahaApi.enc(name);
    try {
      WahaApi.Reply r = call(() -> api.post(at + "/restart", Map0.EMPTY));
      if (!r.ok()) {
        // An engine without restart: stop, then start.
        call(() -> api.post(at + "/stop", Map0.EMPTY));
        r = call(() -> api.post(at + "/start", Map0.EMPTY));
      }
      try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
        // The status only: a session's reply carries its configuration, webhook keys included.
        log.info("device {}: session {} restarted on the engine: {}", deviceId, name, brief(r));
      }
    } catch (IOException e) {
      try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
        log.warn("device {}: could not restart session {}: {}", deviceId, name, e.toString());
      }
    }
  }

  /**
   * Makes sure the device's session exists on the engine, with a webhook to this gateway signed
   * with the device's key, and is started: created when missing (named after the device, or as
   * {@code session} says), adopted when present. Idempotent: a session already set up is left as it
   * is, so attaching again does not restart it.
   */
  @Override
  public void attach(DeviceRef device) {
    String base =
        context
            .callbackUrl()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "neither public.callback-url nor public.url is set: the WAHA engine could not call"
                            + " the gateway back"
                            + " for device "
                            + device.id()));
    String name = sessionName(device);
    attachedHere.add(device.id());
    ObjectNode webhook = webhook(base, device.id());
    long givenBefore = statusesGiven.getOrDefault(device.id(), 0L);
    long read = sessions.nextRead();
    try {
      WahaApi.Reply found = call(() -> api.get("/api/sessions/" + WahaApi.enc(name)));
      JsonNode session;
      if (found.status() == 401) {
        // Not thrown (no attach retried again and again): the device shows why, and the health
        // probe attaches it once the engine takes the key.
        toAttach.put(device.id(), device);
        statusChanged(device.id(), UNAUTHORIZED, keyRefused(found));
        return;
      }
      if (found.status() != 404 && !found.ok()) {
        throw new IllegalStateException(
            "the engine did not answer for session " + name + ": " + found.describe());
      }
      // Remembered before the session is created or adopted: the engine posts its session.status
      // webhooks before it answers that call, and a FAILED among them is restarted at once by this
      // name (FailedSessions). Remembered only after the answer, that restart found no session
      // and was put off a whole back-off.
      sessions.rememberName(device.id(), name);
      if (found.status() == 404) {
        ObjectNode body = WahaApi.JSON.createObjectNode();
        body.put("name", name);
        body.put("start", true);
        body.putObject("config").putArray("webhooks").add(webhook);
        WahaApi.Reply created = call(() -> api.post("/api/sessions", body));
        if (!created.ok()) {
          throw new IllegalStateException(
              "the engine did not create session " + name + ": " + created.describe());
        }
        session = created.body();
      } else {
        session = adopt(name, found.body(), webhook, base);
      }
      String status = session.path("status").asText("STOPPED");
      if (status.equals("STOPPED")) {
        WahaApi.Reply started =
            call(() -> api.post("/api/sessions/" + WahaApi.enc(name) + "/start", Map0.EMPTY));
        status = started.body().path("status").asText("STARTING");
      }
      if (statusesGiven.getOrDefault(device.id(), 0L) == givenBefore) {
        statusChanged(device.id(), status, "attached", read);
      } else {
        try (var ids = io.kurir.logging.LogIds.device(device.id())) {
          log.debug(
              "device {}: attach read {}, but a newer status came meanwhile", device.id(), status);
        }
      }
    } catch (IOException e) {
      // Not thrown: the device waits for its engine (port_down, not connected, so sync callers
      // hear phone_offline at once), and the engine watch attaches it once the engine answers.
      toAttach.put(device.id(), device);
      statusChanged(device.id(), UNREACHABLE, engine.unreachable());
      engine.recoverIfUp(); // back meanwhile, and its recovery may have run before this was put
    }
  }

  @Override
  public void detach(DeviceRef device) {
    toAttach.remove(device.id());
    attachedHere.remove(device.id());
    failed.forget(device.id());
  }

  /**
   * The devices this node attached (their senders run here): only these are restarted when FAILED,
   * though any node may receive their webhooks, so that two nodes do not both restart a session.
   */
  private final java.util.Set<Long> attachedHere =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** An empty JSON body. */
  private static final class Map0 {
    static final ObjectNode EMPTY = WahaApi.JSON.createObjectNode();
  }

  /**
   * An existing session, with this gateway's webhook put in (in place of an older one to this
   * gateway, or to this device at an earlier callback address) and its other configuration kept.
   * Only changed when the webhook is not there yet.
   */
  private JsonNode adopt(String name, JsonNode session, ObjectNode webhook, String base)
      throws IOException {
    JsonNode config = session.path("config");
    ObjectNode next =
        config.isObject() ? ((ObjectNode) config).deepCopy() : WahaApi.JSON.createObjectNode();
    ArrayNode hooks = WahaApi.JSON.createArrayNode();
    boolean present = false;
    // A hook to this device's events path at another address is this gateway's from before
    // public.callback-url changed (say, from a 127.0.0.1 the engine's container never reached):
    // replaced, not left for the engine to retry forever.
    String ours = webhook.path("url").asText().substring(base.length());
    for (JsonNode h : config.path("webhooks")) {
      if (h.path("url").asText("").equals(webhook.path("url").asText())
          && h.path("hmac").path("key").asText("").equals(webhook.path("hmac").path("key").asText())
          && h.path("events").equals(webhook.path("events"))) {
        present = true;
      }
      String url = h.path("url").asText("");
      if (!url.startsWith(base + EVENTS_PATH) && !url.endsWith(ours)) {
        hooks.add(h);
      }
    }
    if (present) {
      return session;
    }
    hooks.add(webhook);
    next.set("webhooks", hooks);
    ObjectNode body = WahaApi.JSON.createObjectNode();
    body.set("config", next);
    WahaApi.Reply updated = call(() -> api.put("/api/sessions/" + WahaApi.enc(name), body));
    if (!updated.ok()) {
      throw new IllegalStateException(
          "the engine did not update session " + name + ": " + updated.describe());
    }
    return updated.body().has("status") ? updated.body() : session;
  }

  private ObjectNode webhook(String base, long deviceId) {
    ObjectNode h = WahaApi.JSON.createObjectNode();
    h.put("url", base + EVENTS_PATH + deviceId);
    ArrayNode events = h.putArray("events");
    EVENTS.forEach(events::add);
    h.putObject("hmac").put("key", sessions.hmacKey(deviceId));
    // The engine retries a failed delivery; Kurir answers 503 when it could not store a message.
    ObjectNode retries = h.putObject("retries");
    retries.put("policy", "exponential");
    retries.put("delaySeconds", 2);
    retries.put("attempts", 10);
    return h;
  }

  /** The session of {@code device}: configured, else the one attached before, else its own. */
  String sessionName(DeviceRef device) {
    DeviceConfig config = context.configOf().apply(device.id());
    return config
        .get(WahaDriverFactory.SESSION)
        .or(() -> sessions.name(device.id()))
        .orElse(WahaSessions.defaultName(device.id()));
  }

  @Override
  public String downReason() {
    return "the WAHA engine at "
        + url
        + " cannot be reached ("
        + engine.downWhy()
        + "): start it, or set drivers.waha.url to where it runs; Kurir tries it again on its"
        + " own, at most every "
        + RETRY_MAX.toSeconds()
        + " s";
  }

  @Override
  public boolean isConnected(DeviceRef device) {
    return engine.up() && sessions.status(device.id()).filter("WORKING"::equals).isPresent();
  }

  /** The engine takes no idempotency key: a second post of one message is a second message. */
  @Override
  public boolean deduplicates() {
    return false;
  }

  /**
   * Whether the engine answers: the outcome of the last call, asked again (a cheap session list)
   * when that is older than {@link EngineWatch#PROBE_EVERY}, so a stopped engine shows as {@code
   * port_down} and one that is back shows as running without waiting for a send.
   */
  @Override
  public boolean isRunning() {
    return engine.isRunning();
  }

  @Override
  public DeviceState state(DeviceRef device) {
    String name = sessionName(device);
    long read = sessions.nextRead();
    try {
      WahaApi.Reply r = call(() -> api.get("/api/sessions/" + WahaApi.enc(name)));
      if (r.ok()) {
        limitsSeen(device.id(), r.body());
        statusChanged(device.id(), r.body().path("status").asText("STOPPED"), "asked", read);
      } else if (r.status() == 401) {
        statusChanged(device.id(), UNAUTHORIZED, keyRefused(r));
      } else if (r.status() == 404) {
        statusChanged(device.id(), "STOPPED", "no session on the engine");
      }
    } catch (IOException e) {
      return DeviceState.PORT_DOWN; // the last status known is read again once it answers
    }
    return stateOf(sessions.status(device.id()).orElse("STOPPED"));
  }

  /**
   * The contract's {@code qr_status} of an engine status (docs/drivers/waha.md has the table). A
   * stopped session is {@code none}: attaching starts it, and a session the engine stopped shows a
   * QR code again.
   */
  static DeviceState stateOf(String status) {
    return switch (status) {
      case "WORKING" -> DeviceState.ONLINE;
      case "FAILED", STALLED, UNAUTHORIZED -> DeviceState.FAILED;
      case UNREACHABLE -> DeviceState.PORT_DOWN;
      default -> DeviceState.NONE; // STOPPED, STARTING, SCAN_QR_CODE, PASSKEY_*
    };
  }

  /**
   * A {@code session.status} webhook. The engine posts its webhooks concurrently and delivers them
   * again when an answer was lost, so one can arrive after a later one: a {@code SCAN_QR_CODE}
   * posted before the phone scanned, received after the {@code WORKING} the scan caused, would
   * unlink a linked device. The webhook says the status changed; the engine's session, read now,
   * says what it is, and wins. Only when the engine does not answer the read does the webhook's
   * word stand. One read per status change: they are rare.
   */
  void statusReported(DeviceRef device, String reported) {
    String name = sessionName(device);
    long read = sessions.nextRead();
    try {
      WahaApi.Reply r = call(() -> api.get("/api/sessions/" + WahaApi.enc(name)));
      if (r.ok() && r.body().path("status").isTextual()) {
        limitsSeen(device.id(), r.body());
        statusChanged(device.id(), r.body().path("status").asText(), "session.status", read);
        return;
      }
    } catch (IOException e) {
      // the engine was lost after it posted; its webhook is the last word there is
    }
    statusChanged(device.id(), reported, "session.status", read);
  }

  /**
   * Records a session status the engine reported, and tells the core when it changed. A {@code
   * WORKING} of a session found stalled (and restarted since) counts only once the session answers
   * a cheap call: until then the device stays {@code failed}.
   */
  void statusChanged(long deviceId, String status, String why) {
    statusChanged(deviceId, status, why, sessions.nextRead());
  }

  /**
   * {@link #statusChanged(long, String, String)} for a status that read {@code read} of the engine
   * found: dropped when a later read has recorded the device's status already (reads overlap, and
   * the one that answers last is not the one that asked last).
   */
  void statusChanged(long deviceId, String status, String why, long read) {
    if (sessions.overtaken(deviceId, read)) {
      try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
        log.debug("device {}: {} ({}) read before a later status; dropped", deviceId, status, why);
      }
      return;
    }
    statusesGiven.merge(deviceId, 1L, Long::sum);
    if (status.equals("WORKING")
        && !why.equals(PROBED)
        && (stalled.containsKey(deviceId)
            || sessions.status(deviceId).filter(STALLED::equals).isPresent())) {
      Optional<String> problem = sessions.name(deviceId).flatMap(this::answers);
      if (problem.isPresent()) {
        try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
          log.info(
              "device {}: {} ({}) but still stalled: {}", deviceId, status, why, problem.get());
        }
        return;
      }
      stalled.remove(deviceId);
    }
    if (!status.equals("FAILED") && !status.equals("STOPPED") && !status.equals("STARTING")) {
      failed.ended(deviceId); // a restart passes through STOPPED and STARTING on its way
    }
    if (!sessions.setStatus(deviceId, status, read)) {
      return;
    }
    DeviceState state = stateOf(status);
    String reason =
        switch (status) {
          case UNREACHABLE, UNAUTHORIZED -> why;
          case "PASSKEY_REQUIRED" ->
              "engine: PASSKEY_REQUIRED ("
                  + why
                  + "): WhatsApp asks for the passkey of the linked phone's account; confirm on"
                  + " the phone, messages wait";
          case "PASSKEY_CONFIRMATION_REQUIRED" ->
              "engine: PASSKEY_CONFIRMATION_REQUIRED ("
                  + why
                  + "): confirm the passkey prompt on the linked phone, messages wait";
          case "FAILED" -> "engine: FAILED (" + why + "); Kurir restarts the session";
          default -> "engine: " + status + " (" + why + ")";
        };
    if (status.startsWith("PASSKEY_")) {
      // Recorded though the device stays "none": the operator must act on the phone.
      tell(l -> l.stateStep(deviceId, state, reason));
    } else {
      tell(l -> l.stateChanged(deviceId, state, reason));
    }
    tell(l -> l.connectionChanged(deviceId, state == DeviceState.ONLINE));
    if (status.equals("FAILED") && attachedHere.contains(deviceId)) {
      failed.failed(deviceId);
    }
  }

  /** The Kurir-side status of a device whose engine refuses Kurir's API key (HTTP 401). */
  static final String UNAUTHORIZED = "UNAUTHORIZED";

  private volatile boolean keyRefusedTold;

  /** Why the engine answered 401, as a device event's reason; logged once. */
  private String keyRefused(WahaApi.Reply r) {
    String why =
        "the WAHA engine at "
            + url
            + " refused Kurir's API key ("
            + r.describe()
            + "): set drivers.waha.api-key to the engine's WAHA_API_KEY; messages wait";
    if (!keyRefusedTold) {
      keyRefusedTold = true;
      log.warn("{}", why);
    }
    return why;
  }

  /** Attaches the devices that wait for the engine (refused for the API key, say). */
  private void attachWaiting() {
    for (DeviceRef device : List.copyOf(toAttach.values())) {
      toAttach.remove(device.id());
      try {
        attach(device);
      } catch (RuntimeException e) {
        try (var ids = io.kurir.logging.LogIds.device(device.id())) {
          log.warn("device {}: could not set its session up: {}", device.id(), e.getMessage());
        }
      }
    }
  }

  /**
   * One step of bringing back a FAILED session ({@link FailedSessions}): a restart, or (after
   * {@link FailedSessions#RESTARTS} restarts that did not help) a logout and a start, which unlinks
   * the number. Recorded in the device's history and its status webhook.
   */
  void recoveryStep(long deviceId, int restartsBefore) {
    Optional<String> name = sessions.name(deviceId);
    if (name.isEmpty() || !engine.up()) {
      return;
    }
    String at = "/api/sessions/" + WahaApi.enc(name.get());
    if (restartsBefore < FailedSessions.RESTARTS) {
      tell(
          l ->
              l.stateStep(
                  deviceId,
                  DeviceState.FAILED,
                  "engine: FAILED; restart "
                      + (restartsBefore + 1)
                      + " of "
                      + FailedSessions.RESTARTS
                      + " (POST "
                      + at
                      + "/restart)"));
      restart(deviceId, name.get());
      return;
    }
    tell(
        l ->
            l.stateStep(
                deviceId,
                DeviceState.FAILED,
                "engine: FAILED after "
                    + FailedSessions.RESTARTS
                    + " restarts; logged out and started again (POST "
                    + at
                    + "/logout): link the number again by its QR code"));
    try {
      WahaApi.Reply out = call(() -> api.post(at + "/logout", Map0.EMPTY));
      String after = out.body().path("status").asText("STOPPED");
      if (!out.ok() || after.equals("STOPPED") || after.equals("FAILED")) {
        call(() -> api.post(at + "/start", Map0.EMPTY));
      }
      try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
        log.warn(
            "device {}: session {} FAILED after {} restarts; logged out and started: {}",
            deviceId,
            name.get(),
            FailedSessions.RESTARTS,
            brief(out));
      }
    } catch (IOException e) {
      try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
        log.warn("device {}: could not log {} out: {}", deviceId, name.get(), e.toString());
      }
    }
  }

  /**
   * A session reply for a log line: its HTTP status and the session's status, or the engine's
   * error; never the body itself, which holds the session's webhook keys.
   */
  private static String brief(WahaApi.Reply r) {
    if (!r.ok()) {
      return r.describe();
    }
    return "HTTP " + r.status() + ", status " + r.body().path("status").asText("?");
  }

  /** The engine's last reported status of a device's session. */
  Optional<String> statusOf(long deviceId) {
    return sessions.status(deviceId);
  }

  boolean closed() {
    return closed;
  }

  @Override
  public SendOutcome send(DeviceRef device, OutgoingMessage message) {
    if (!isConnected(device)) {
      return new SendOutcome.DeviceUnavailable();
    }
    // A BSUID is the Cloud API's id of a user: WhatsApp Web has no account by it, and its digits
    // are no phone number (read as one, they would be checked, or reach a stranger).
    if (!message.toGroup()
        && ContactId.parse(message.recipient())
            .filter(id -> id.kind() == ContactId.Kind.BSUID)
            .isPresent()) {
      return new SendOutcome.NotFound();
    }
    String session = sessionName(device);
    String chatId = chatId(message);
    String digits = message.recipient().replaceAll("\\D", "");
    // A LID comes from a message the contact wrote (a reply to it): a known contact; and a LID
    // is WhatsApp's own id of an account that exists: nothing to check.
    boolean toNumber = !message.toGroup() && !byLid(message);
    Optional<String> knownChat =
        toNumber ? numberChecks.knownChat(device.id(), digits) : Optional.of(chatId);
    boolean newContact = knownChat.isEmpty();
    Optional<SendOutcome> held = heldByLock(device.id(), message, newContact);
    if (held.isPresent()) {
      return held.get();
    }
    if (toNumber && knownChat.isPresent()) {
      chatId = knownChat.get(); // a contact: never checked
    } else if (toNumber) {
      NumberChecks.Route route;
      try {
        route = numberChecks.route(device.id(), digits, () -> askExists(device, digits));
      } catch (java.net.ConnectException e) {
        return new SendOutcome.DeviceUnavailable();
      } catch (IOException e) {
        route = new NumberChecks.Route.Go(chatId); // a passing failure: the send goes
      }
      switch (route) {
        case NumberChecks.Route.NotOnWhatsApp none -> {
          return new SendOutcome.NotFound();
        }
        case NumberChecks.Route.Wait wait -> {
          try (var ids = io.kurir.logging.LogIds.device(device.id())) {
            log.debug(
                "device {}: message {} waits {} ms for its number check: {}",
                device.id(),
                message.id(),
                wait.after().toMillis(),
                wait.why());
          }
          // This message alone waits: the device's messages to known contacts go on.
          return new SendOutcome.Deferred(context.clock().instant().plus(wait.after()), wait.why());
        }
        case NumberChecks.Route.Go go -> chatId = go.chatId();
      }
    }
    ObjectNode body = WahaApi.JSON.createObjectNode();
    body.put("session", session);
    body.put("chatId", chatId);
    String path;
    String method = "POST";
    try {
      if (message.carriesOwnContent()) {
        // Kurir's own API: each kind to its endpoint (WahaContent), a reply by reply_to.
        WahaContent.Request request =
            WahaContent.request(session, chatId, message.content(), message.linkPreview());
        path = request.path();
        method = request.method();
        body.removeAll(); // a reaction names its message, not the chat
        body.setAll(request.body());
      } else if (message.media().isPresent()) {
        OutgoingMessage.Attachment a = message.media().get();
        path = message.kind().equals("image") ? "/api/sendImage" : "/api/sendFile";
        ObjectNode file = body.putObject("file");
        file.put("mimetype", a.mimeType());
        file.put("filename", a.name());
        file.put("data", Base64.getEncoder().encodeToString(Files.readAllBytes(a.path())));
        if (!message.text().isEmpty()) {
          body.put("caption", message.text());
        }
      } else {
        path = "/api/sendText";
        body.put("text", message.text());
        // A preview only of a link there is, and never when the caller asked skip_link.
        body.put("linkPreview", message.linkPreview() && message.text().contains("://"));
      }
    } catch (IOException e) {
      return new SendOutcome.Failed("the message's file could not be read: " + e.getMessage());
    } catch (WahaContent.Unsendable e) {
      return new SendOutcome.Permanent(NETWORK_REFUSED, e.getMessage());
    }
    boolean put = method.equals("PUT");
    WahaApi.Reply r;
    try {
      r = call(() -> put ? api.put(path, body) : api.post(path, body));
    } catch (java.net.ConnectException e) {
      // Nothing reached the engine: the message waits for it like for a phone that is away.
      return new SendOutcome.DeviceUnavailable();
    } catch (IOException e) {
      return new SendOutcome.Failed("WAHA engine did not answer: " + e.getMessage());
    }
    if (r.ok()) {
      if (toNumber) {
        numberChecks.sentTo(device.id(), digits, chatId); // later sends to it ask nothing
      }
      if (message.content().content() instanceof io.kurir.content.Content.Reaction) {
        // WAHA answers a reaction with no message of its own (PUT /api/reaction: 200 {}): no
        // id of its own, and the message it reacts to keeps its.
        return new SendOutcome.Sent(Optional.empty(), context.clock().instant());
      }
      return new SendOutcome.Sent(EngineShapes.sentId(r.body(), chatId), context.clock().instant());
    }
    if (AccountLimits.reachOutLocked(r)) {
      return reachOutRefused(device, message, newContact, r);
    }
    if (message.toGroup() && EngineShapes.notInGroup(r)) {
      return new SendOutcome.NotFound();
    }
    return switch (r.status()) {
      case 401 -> {
        // Kurir's API key is refused: the device shows why and its messages wait; no retries.
        statusChanged(device.id(), UNAUTHORIZED, keyRefused(r));
        yield new SendOutcome.DeviceUnavailable();
      }
      case 422, 404 -> {
        // The session is not WORKING (or gone): the message waits for the device.
        statusChanged(
            device.id(), r.body().path("status").asText("STOPPED"), "the engine refused a send");
        yield new SendOutcome.DeviceUnavailable();
      }
      case 400 -> new SendOutcome.Permanent(NETWORK_REFUSED, r.describe());
      case 429 -> new SendOutcome.RetryAfter(Duration.ofSeconds(30), r.describe());
      default -> new SendOutcome.Failed(r.describe());
    };
  }

  /**
   * A number as {@code <digits>@c.us}, a group as {@code <id>@g.us}, a contact known only by a LID
   * (a reply to a LID sender) as {@code <digits>@lid}.
   */
  static String chatId(OutgoingMessage message) {
    String to = message.recipient();
    if (message.toGroup()) {
      return to.contains("@") ? to : to + "@g.us";
    }
    Optional<ContactId> lid = WahaWebhookRoutes.lid(to);
    if (lid.isPresent()) {
      return lid.get().address();
    }
    return to.replaceAll("\\D", "") + "@c.us";
  }

  /** Whether the message goes to a LID ({@code <digits>@lid}) rather than a phone number. */
  private static boolean byLid(OutgoingMessage message) {
    return !message.toGroup()
        && io.kurir.driver.ContactId.parse(message.recipient())
            .filter(id -> id.kind() == io.kurir.driver.ContactId.Kind.LID)
            .isPresent();
  }

  /**
   * A send to a new contact while WhatsApp's reach-out time lock lasts (or to one the engine
   * refused with 463 during it): deferred in the queue until the lock ends, with no call to the
   * engine. Sends to known contacts go on meanwhile.
   */
  private Optional<SendOutcome> heldByLock(long deviceId, OutgoingMessage message, boolean isNew) {
    return limits
        .holds(deviceId, message.recipient(), isNew)
        .map(
            until -> {
              try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
                log.debug(
                    "device {}: message {} to a new contact held: WhatsApp's reach-out time lock"
                        + " lasts until {}",
                    deviceId,
                    message.id(),
                    until);
              }
              return new SendOutcome.Deferred(
                  until, "WhatsApp's reach-out time lock lasts until " + until);
            });
  }

  /**
   * WhatsApp refused a send with 463, its reach-out time lock: the lock's end is read from the
   * session ({@code me.reachoutTimelock}) and the message waits for it. Not a failure of the
   * message; told once per lock, as a warning.
   */
  private SendOutcome reachOutRefused(
      DeviceRef device, OutgoingMessage message, boolean newContact, WahaApi.Reply r) {
    JsonNode me = WahaApi.JSON.createObjectNode();
    try {
      WahaApi.Reply session =
          call(() -> api.get("/api/sessions/" + WahaApi.enc(sessionName(device))));
      if (session.ok()) {
        me = session.body().path("me");
      }
    } catch (IOException e) {
      // the lock's end stays unknown: the default wait applies
    }
    boolean already = limits.lockedUntil(device.id()).isPresent();
    java.time.Instant until = limits.refused(device.id(), message.recipient(), me);
    if (!already) {
      try (var ids = io.kurir.logging.LogIds.device(device.id())) {
        log.warn(
            "device {}: WhatsApp's reach-out time lock (error 463): messages to new contacts wait"
                + " until {}; messages to known contacts go on",
            device.id(),
            until);
      }
      // A ban signal for a campaign sending from the device (docs/decisions.md, "Safe sending:
      // automatic stop"): told once per lock, like the warning.
      long deviceId = device.id();
      tell(
          l ->
              l.limitReached(
                  deviceId,
                  io.kurir.driver.AccountLimit.REACH_OUT_LOCKED,
                  "WhatsApp's reach-out time lock (error 463): messages to new contacts wait until "
                      + until));
    }
    if (!newContact) {
      // A contact taken for known: the network says otherwise; it waits like a new one (holds).
      try (var ids = io.kurir.logging.LogIds.device(device.id())) {
        log.debug(
            "device {}: message {} to a known contact refused with 463 ({}); it waits for the lock",
            device.id(),
            message.id(),
            r.describe());
      }
    }
    return new SendOutcome.Deferred(
        until, "WhatsApp's reach-out time lock (463) lasts until " + until);
  }

  /** The engine's check-exists of {@code digits}; empty when it gave no definite answer. */
  private Optional<NumberChecks.Answer> askExists(DeviceRef device, String digits)
      throws IOException {
    WahaApi.Reply r =
        call(
            () ->
                api.get(
                    "/api/contacts/check-exists?phone="
                        + WahaApi.enc(digits)
                        + "&session="
                        + WahaApi.enc(sessionName(device))));
    JsonNode b = r.body();
    if (!r.ok() || !b.path("numberExists").isBoolean()) {
      return Optional.empty();
    }
    return Optional.of(
        new NumberChecks.Answer(
            b.path("numberExists").asBoolean(),
            text(b.path("chatId")).map(EngineShapes::chatOf),
            text(b.path("pn"))));
  }

  private static Optional<String> text(JsonNode n) {
    return n.isTextual() && !n.asText().isBlank() ? Optional.of(n.asText()) : Optional.empty();
  }

  @Override
  public NumberCheck checkNumber(DeviceRef device, String e164) {
    if (!isConnected(device)) {
      return NumberCheck.UNKNOWN;
    }
    String digits = e164.replaceAll("\\D", "");
    // A kept answer while fresh: asking again would only spend the device's pace.
    Optional<io.kurir.driver.ContactDirectory.CheckedNumber> kept =
        numberChecks.kept(device.id(), digits);
    if (kept.isPresent()) {
      return kept.get().exists() ? NumberCheck.EXISTS : NumberCheck.NOT_EXISTS;
    }
    if (!numberChecks.mayAsk(device.id())) {
      // The device's checks of this minute are spent (bursts get a number flagged): answered at
      // once as when the engine cannot be asked, rather than holding the caller up to a minute.
      return NumberCheck.UNKNOWN;
    }
    try {
      Optional<NumberChecks.Answer> answer = askExists(device, digits);
      if (answer.isEmpty()) {
        return NumberCheck.UNKNOWN;
      }
      // Kept like a check before a send: the first message to it then needs none.
      numberChecks.keep(device.id(), "+" + digits, answer.get());
      return answer.get().exists() ? NumberCheck.EXISTS : NumberCheck.NOT_EXISTS;
    } catch (IOException e) {
      return NumberCheck.UNKNOWN;
    }
  }

  /**
   * What a session read ({@code GET /api/sessions…}) or a status event says of WhatsApp's limits in
   * its {@code me}: the reach-out lock is taken, a change of the message capping is logged for the
   * operator (a warning unless it is back to {@code NONE}).
   */
  void limitsSeen(long deviceId, JsonNode session) {
    limits
        .seen(deviceId, session.path("me"))
        .ifPresent(
            change -> {
              try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
                if (limits.capping(deviceId).equals("NONE")) {
                  log.info("device {}: {}", deviceId, change);
                } else {
                  log.warn(
                      "device {}: {}; sends to new contacts may soon be refused: slow the device"
                          + " down (pacing)",
                      deviceId,
                      change);
                }
              }
              if (limits.capping(deviceId).equals("CAPPED")) {
                // The quota of new chats is spent: a ban signal for a campaign sending from it.
                tell(
                    l ->
                        l.limitReached(
                            deviceId, io.kurir.driver.AccountLimit.MESSAGE_CAPPED, change));
              }
            });
  }

  /** The engine's current QR value, when the session waits for a scan. */
  @Override
  public Optional<String> pairingCode(DeviceRef device) {
    if (!attachedOnce(device)) {
      return Optional.empty();
    }
    String name = sessionName(device);
    try {
      if (sessions.status(device.id()).filter("STOPPED"::equals).isPresent()) {
        call(() -> api.post("/api/sessions/" + WahaApi.enc(name) + "/start", Map0.EMPTY));
      }
      WahaApi.Reply r = call(() -> api.get("/api/" + WahaApi.enc(name) + "/auth/qr?format=raw"));
      String value = r.ok() ? r.body().path("value").asText("") : "";
      return value.isBlank() ? Optional.empty() : Optional.of(value);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The engine's pairing code for the device's own number ({@code auth/request-code}). */
  @Override
  public Optional<String> linkCode(DeviceRef device) {
    if (!attachedOnce(device)) {
      return Optional.empty();
    }
    String name = sessionName(device);
    ObjectNode body = WahaApi.JSON.createObjectNode();
    body.put("phoneNumber", device.number().replaceAll("\\D", ""));
    try {
      WahaApi.Reply r =
          call(() -> api.post("/api/" + WahaApi.enc(name) + "/auth/request-code", body));
      String code = r.ok() ? r.body().path("code").asText("") : "";
      return code.isBlank() ? Optional.empty() : Optional.of(code);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * Whether the device's session was set up on the engine, setting it up now if not: a device
   * created by {@code ./kurir admin} while the gateway runs has no sender yet, and is paired before
   * its first message.
   */
  private boolean attachedOnce(DeviceRef device) {
    if (sessions.name(device.id()).isPresent()) {
      return true;
    }
    try {
      attach(device);
      return true;
    } catch (RuntimeException e) {
      try (var ids = io.kurir.logging.LogIds.device(device.id())) {
        log.warn("device {}: could not set its session up: {}", device.id(), e.getMessage());
      }
      return false;
    }
  }

  /** Logs the session out: the engine deletes its authentication and shows a new QR code. */
  @Override
  public boolean logout(DeviceRef device) {
    if (state(device) == DeviceState.NONE || !engine.up()) {
      return false;
    }
    String name = sessionName(device);
    try {
      WahaApi.Reply r =
          call(() -> api.post("/api/sessions/" + WahaApi.enc(name) + "/logout", Map0.EMPTY));
      if (!r.ok()) {
        try (var ids = io.kurir.logging.LogIds.device(device.id())) {
          log.warn("device {}: the engine did not log {} out: {}", device.id(), name, r.describe());
        }
        return false;
      }
      statusChanged(device.id(), "STOPPED", "logged out");
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * The group of that subject, from the engine's group list: kept for {@link #GROUPS_FRESH} per
   * device (the list is slow on big accounts), asked again sooner when a name is not in it (a group
   * just joined), at most every {@link #GROUPS_RETRY}.
   */
  @Override
  public Optional<String> groupIdByName(DeviceRef device, String groupName) {
    if (!isConnected(device)) {
      return Optional.empty();
    }
    long now = System.nanoTime();
    GroupList cached = groupLists.get(device.id());
    if (cached != null && now - cached.fetchedNanos() < GROUPS_FRESH.toNanos()) {
      String id = cached.idBySubject().get(groupName);
      if (id != null || now - cached.fetchedNanos() < GROUPS_RETRY.toNanos()) {
        return Optional.ofNullable(id);
      }
    }
    try {
      WahaApi.Reply r =
          call(
              () ->
                  api.get(
                      "/api/" + WahaApi.enc(sessionName(device)) + "/groups?exclude=participants"));
      if (!r.ok()) {
        return Optional.empty();
      }
      Map<String, String> idBySubject = EngineShapes.groupsBySubject(r.body());
      groupLists.put(device.id(), new GroupList(System.nanoTime(), Map.copyOf(idBySubject)));
      return Optional.ofNullable(idBySubject.get(groupName));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** A device's groups by subject, as the engine listed them at {@code fetchedNanos}. */
  private record GroupList(long fetchedNanos, Map<String, String> idBySubject) {}

  @Override
  public GroupMembers groupMembers(DeviceRef device, String groupId) {
    if (!isConnected(device)) {
      return new GroupMembers.Unknown();
    }
    String id = groupId.contains("@") ? groupId : groupId + "@g.us";
    try {
      WahaApi.Reply r =
          call(
              () ->
                  api.get(
                      "/api/"
                          + WahaApi.enc(sessionName(device))
                          + "/groups/"
                          + WahaApi.enc(id)
                          + "/participants/v2"));
      if (r.status() == 404) {
        return new GroupMembers.NotFound();
      }
      if (!r.ok() || !r.body().isArray()) {
        return new GroupMembers.Unknown();
      }
      List<String> numbers = new ArrayList<>();
      for (JsonNode p : r.body()) {
        if (p.path("role").asText("").equals("left")) {
          continue;
        }
        String pn = p.path("pn").asText("");
        String jid = pn.isBlank() ? p.path("id").asText("") : pn;
        Optional<ContactId> lid = WahaWebhookRoutes.lid(p.path("id").asText(""));
        if (jid.endsWith("@c.us") || jid.endsWith("@s.whatsapp.net")) {
          String phone = "+" + jid.substring(0, jid.indexOf('@'));
          numbers.add(phone);
          lid.ifPresent(l -> context.contacts().learn(device.id(), phone, l));
        } else if (lid.isPresent()) {
          // A member known only by LID: its phone when the engine can tell, else the LID itself
          // (kept, not dropped: a message to it reaches it), met by the device so that a caller's
          // send to the id listed here is accepted.
          Optional<String> phone = phoneOfLid(device, lid.get());
          if (phone.isEmpty()) {
            context.contacts().heardFrom(device.id(), lid.get());
          }
          numbers.add(phone.orElse(lid.get().address()));
        }
      }
      return new GroupMembers.Members(numbers);
    } catch (IOException e) {
      return new GroupMembers.Unknown();
    }
  }

  @Override
  public void close() {
    closed = true;
    engine.close();
    for (Thread t : new Thread[] {health, recovery}) {
      if (t != null) {
        t.interrupt();
      }
    }
    api.close();
  }

  /**
   * One call to the engine; its reachability follows the outcome. While the engine cannot be
   * reached nothing is sent to it: the call fails at once, and only the engine watch tries it, with
   * back-off (an outage would otherwise be a connection attempt, and a log line, per send, per
   * sender's loop and per status request).
   */
  private WahaApi.Reply call(EngineWatch.Call<WahaApi.Reply> call) throws IOException {
    return engine.call(call);
  }

  /** The engine is back: the devices that waited are attached, every session is read again. */
  private void recover() {
    for (DeviceRef device : List.copyOf(toAttach.values())) {
      toAttach.remove(device.id());
      try {
        attach(device); // puts it back when the engine went again
      } catch (RuntimeException e) {
        try (var ids = io.kurir.logging.LogIds.device(device.id())) {
          log.warn("device {}: could not set its session up: {}", device.id(), e.getMessage());
        }
      }
    }
    probe();
  }

  /** The largest incoming file Kurir keeps. */
  static final long MAX_INCOMING_MEDIA_BYTES = 64L * 1024 * 1024;

  /**
   * The media of an incoming message, fetched from the engine and kept under the driver's folder by
   * the message's id; empty when the message has none (or the engine did not keep it).
   */
  Optional<IncomingMessage.Media> incomingMedia(long deviceId, String networkId, JsonNode payload)
      throws IOException {
    JsonNode media = payload.path("media");
    String url = media.path("url").asText("");
    if (!payload.path("hasMedia").asBoolean(false) || url.isBlank()) {
      return Optional.empty();
    }
    String mime = media.path("mimetype").asText("application/octet-stream");
    Path file =
        context
            .dataDir()
            .resolve("media")
            .resolve(Long.toString(deviceId))
            .resolve(
                ReceivedFiles.safeName(networkId)
                    + ReceivedFiles.extension(mime, media.path("filename").asText("")));
    if (!engine.up()) {
      throw new java.net.ConnectException(engine.unreachable());
    }
    // Not through call(): a file the engine no longer has (404), one too large or a full disk says
    // nothing of whether the engine can be reached, and must not take every device port_down.
    try {
      api.download(url, file, MAX_INCOMING_MEDIA_BYTES);
    } catch (IllegalArgumentException e) {
      throw new IOException("media url not valid: " + url, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while fetching the media", e);
    }
    String kind = mime.startsWith("image/") ? "image" : "file";
    return Optional.of(new IncomingMessage.Media(kind, mime, file));
  }

  /**
   * The phone behind a LID, as {@code +<digits>}: what the core knows already (learned before),
   * else the engine's answer to {@code GET /api/{session}/lids/<lid>@lid} ({@code {lid, pn}}),
   * learned for next time. Empty when the engine knows none ({@code pn: null}), fails or cannot be
   * reached: the caller keeps the contact by its LID. Such a miss is remembered for {@link
   * #LID_MISS_TTL} on the gateway's clock, so that every message of that contact and every member
   * listing does not ask the engine again; after it, the next one asks (the engine may have learned
   * the phone by then).
   */
  Optional<String> phoneOfLid(DeviceRef device, ContactId lid) {
    Optional<String> known = context.contacts().phoneOf(device.id(), lid);
    if (known.isPresent()) {
      return known.map(p -> "+" + p.replaceAll("\\D", ""));
    }
    String missKey = device.id() + "/" + lid.address();
    java.time.Instant now = context.clock().instant();
    java.time.Instant missedUntil = lidMisses.get(missKey);
    if (missedUntil != null && now.isBefore(missedUntil)) {
      return Optional.empty();
    }
    lidMisses.remove(missKey);
    String path =
        "/api/" + WahaApi.enc(sessionName(device)) + "/lids/" + WahaApi.enc(lid.address());
    try {
      WahaApi.Reply r = call(() -> api.get(path));
      Optional<String> phone =
          r.ok() ? WahaWebhookRoutes.e164(r.body().path("pn").asText("")) : Optional.empty();
      if (phone.isPresent()) {
        context.contacts().learn(device.id(), phone.get(), lid);
      } else {
        lidMisses.put(missKey, now.plus(LID_MISS_TTL));
        try (var ids = io.kurir.logging.LogIds.device(device.id())) {
          log.debug(
              "device {}: the engine knows no phone of {}: {}",
              device.id(),
              lid.address(),
              r.describe());
        }
      }
      return phone;
    } catch (IOException e) {
      lidMisses.put(missKey, now.plus(LID_MISS_TTL));
      return Optional.empty();
    }
  }

  /**
   * The text of an incoming message whose file the engine had deleted before Kurir fetched it: its
   * caption, and a line that says what was lost (so the webhook, reads and reports show it).
   */
  static String mediaLost(String text, JsonNode payload) {
    String mime = payload.path("media").path("mimetype").asText("");
    String what = mime.startsWith("image/") ? "image" : "file";
    String note =
        "["
            + what
            + " not received: the WAHA engine deleted it (WHATSAPP_FILES_LIFETIME) before Kurir"
            + " fetched it]";
    return text.isEmpty() ? note : text + "\n" + note;
  }

  // --- for the webhook

  DriverContext context() {
    return context;
  }

  WahaSessions sessions() {
    return sessions;
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
      throw new IllegalStateException("the waha driver has not started");
    }
    return l;
  }
}
