package io.kurir.driver.cloud;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.driver.DeviceConfig;
import io.kurir.driver.DeviceRef;
import io.kurir.driver.DeviceState;
import io.kurir.driver.Driver;
import io.kurir.driver.DriverContext;
import io.kurir.driver.DriverListener;
import io.kurir.driver.GroupMembers;
import io.kurir.driver.NumberCheck;
import io.kurir.driver.OutgoingMessage;
import io.kurir.driver.SendOutcome;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver of devices on Meta's WhatsApp Business Cloud API: one phone number id and access token
 * per device. A send uploads its media, posts the message and answers "accepted" with the network's
 * id; the outcome comes by the signed webhook ({@link CloudWebhookRoutes}): {@code sent}, {@code
 * delivered}, {@code read}, or {@code failed} with an error code that ends the message as a failure
 * in the reply would have.
 *
 * <p>Thread-safe: what must outlive a call is in the database ({@link CloudSessions}); the back-off
 * counters in memory only lengthen waits.
 */
public final class CloudDriver implements Driver {
  private static final Logger log = LoggerFactory.getLogger(CloudDriver.class);

  /** The reason stored with a free-form message refused outside the 24-hour window. */
  public static final String WINDOW_CLOSED = "window_closed";

  /** The reason stored with a message the network refused for good (a bad parameter, media). */
  public static final String NETWORK_REFUSED = "network_refused";

  private static final Duration MAX_PAIR_WAIT = Duration.ofMinutes(15);
  private static final Duration MAX_RATE_WAIT = Duration.ofMinutes(1);

  private final DriverContext context;
  private final LongFunction<DeviceConfig> configOf;
  private final CloudSessions sessions;
  private final GraphApi graph;
  private final Optional<String> driverVerifyToken;
  private final Map<Long, Integer> rateHits = new ConcurrentHashMap<>();
  private final Map<String, Integer> pairHits = new ConcurrentHashMap<>();
  private volatile DriverListener listener;
  private final String graphUrl;
  // Whether the last call reached the Graph API: an outage is logged when it begins and ends, not
  // per message (a campaign would be a line per send).
  private final java.util.concurrent.atomic.AtomicBoolean graphReached =
      new java.util.concurrent.atomic.AtomicBoolean(true);

  CloudDriver(DriverContext context) {
    this.context = context;
    this.configOf = context.configOf();
    this.sessions = new CloudSessions(context.sessions());
    this.graphUrl = context.settings().text("graph-url");
    this.graph =
        new GraphApi(
            context.settings().text("graph-url"),
            context.settings().text("graph-version"),
            context.settings().duration("timeout"));
    this.driverVerifyToken =
        Optional.of(context.settings().text("verify-token")).filter(t -> !t.isBlank());
  }

  @Override
  public String name() {
    return CloudDriverFactory.NAME;
  }

  @Override
  public void start(DriverListener newListener) {
    this.listener = newListener;
  }

  /**
   * Nothing to set up at the network (the number is linked at Meta); the device's stored state is
   * brought in line with what its configuration says now (a device just created is online).
   */
  @Override
  public void attach(DeviceRef device) {
    DeviceState now = state(device);
    tell(l -> l.stateChanged(device.id(), now, "attached"));
  }

  @Override
  public boolean isConnected(DeviceRef device) {
    return state(device) == DeviceState.ONLINE;
  }

  /** Meta takes no idempotency key: a second post of one message is a second message. */
  @Override
  public boolean deduplicates() {
    return false;
  }

  @Override
  public DeviceState state(DeviceRef device) {
    return stateOf(device.id(), configOf.apply(device.id()));
  }

  private DeviceState stateOf(long deviceId, DeviceConfig config) {
    if (sessions.loggedOut(deviceId)) {
      return DeviceState.NONE;
    }
    Optional<String> token = config.get(CloudDriverFactory.ACCESS_TOKEN);
    if (token.isEmpty() || config.get(CloudDriverFactory.PHONE_NUMBER_ID).isEmpty()) {
      return DeviceState.NONE;
    }
    if (sessions.refusal(deviceId, token.get()).isPresent()) {
      return DeviceState.FAILED;
    }
    if (sessions.anyRefusal(deviceId)) {
      // The operator set another token since the network refused the last one.
      sessions.clearRefusal(deviceId);
      tell(l -> l.stateChanged(deviceId, DeviceState.ONLINE, "a new access token was set"));
      tell(l -> l.connectionChanged(deviceId, true));
    }
    return DeviceState.ONLINE;
  }

  @Override
  public SendOutcome send(DeviceRef device, OutgoingMessage message) {
    DeviceConfig config = configOf.apply(device.id());
    if (stateOf(device.id(), config) != DeviceState.ONLINE) {
      return new SendOutcome.DeviceUnavailable();
    }
    if (message.toGroup()) {
      return new SendOutcome.NotFound(); // Kurir does not manage Cloud API groups (yet)
    }
    String phoneNumberId = config.require(CloudDriverFactory.PHONE_NUMBER_ID);
    String token = config.require(CloudDriverFactory.ACCESS_TOKEN);
    String e164 = message.recipient();
    try {
      ObjectNode body;
      if (windowClosed(device.id(), e164)) {
        Optional<CloudTemplate> template =
            config.get(CloudDriverFactory.TEMPLATE).flatMap(CloudTemplate::parse);
        if (template.isEmpty() || !message.kind().equals("text")) {
          return new SendOutcome.Permanent(
              WINDOW_CLOSED,
              "more than 24 hours since "
                  + e164
                  + " last wrote"
                  + (template.isEmpty() ? " and no template is configured" : "")
                  + "; a free-form "
                  + message.kind()
                  + " message cannot be sent");
        }
        body = CloudMessages.template(e164, template.get(), message.text());
      } else if (message.media().isPresent()) {
        OutgoingMessage.Attachment a = message.media().get();
        GraphApi.Reply upload =
            graph.uploadMedia(phoneNumberId, token, a.path(), a.mimeType(), a.name());
        graphAnswered();
        if (!upload.ok()) {
          return outcomeOf(upload.error(), upload.retryAfter(), device.id(), e164, token);
        }
        String mediaId = upload.body().path("id").asText("");
        if (mediaId.isBlank()) {
          return new SendOutcome.Failed("the media upload answered no id");
        }
        body = CloudMessages.media(e164, message.kind(), mediaId, message.text(), a.name());
      } else {
        body = CloudMessages.text(e164, message.text(), linkPreview(config, message));
      }
      // Echoed in every status of the message: the webhook names Kurir's id with it.
      body.put("biz_opaque_callback_data", Long.toString(message.id()));
      GraphApi.Reply reply = graph.postJson(phoneNumberId + "/messages", token, body);
      graphAnswered();
      if (!reply.ok()) {
        return outcomeOf(reply.error(), reply.retryAfter(), device.id(), e164, token);
      }
      rateHits.remove(device.id());
      pairHits.remove(device.id() + " " + e164);
      String networkId = reply.body().path("messages").path(0).path("id").asText("");
      return new SendOutcome.Accepted(Optional.of(networkId).filter(id -> !id.isBlank()));
    } catch (IOException e) {
      graphNotReached(device.id(), message.id(), e);
      return new SendOutcome.Failed("Graph API not reachable: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new SendOutcome.Failed("interrupted while calling the Graph API");
    }
  }

  /**
   * A send that did not reach the Graph API (refused, timed out, no route): the message's history
   * has the reason; the log says it once per outage, with where Kurir tried, since that is the
   * operator's to fix (a firewall, a proxy, {@code drivers.cloud.graph-url}).
   */
  private void graphNotReached(long deviceId, long messageId, IOException e) {
    try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
      if (graphReached.compareAndSet(true, false)) {
        log.warn(
            "the Graph API at {} cannot be reached ({}): Cloud API sends fail (flag_retry ones are"
                + " tried again) until it answers; first seen sending message {} of device {}",
            graphUrl,
            e.toString(),
            messageId,
            deviceId);
      } else {
        log.debug(
            "device {}: message {} not sent, the Graph API still cannot be reached ({})",
            deviceId,
            messageId,
            e.toString());
      }
    }
  }

  private void graphAnswered() {
    if (!graphReached.get() && graphReached.compareAndSet(false, true)) {
      log.info("the Graph API at {} answers again", graphUrl);
    }
  }

  /**
   * Whether the window is known to be closed: only then is a send refused before trying (a window
   * that is not known, a customer who never wrote here, is left for the network to judge).
   */
  private boolean windowClosed(long deviceId, String e164) {
    Instant now = context.clock().instant();
    return sessions
        .lastInbound(deviceId, e164)
        .map(last -> !last.plus(CloudSessions.WINDOW).isAfter(now))
        .orElse(false);
  }

  /**
   * Whether a text goes with a preview of its first link: the caller's {@code skip_link} turns it
   * off for one message, the device's {@code link-preview=false} for all of them.
   */
  private static boolean linkPreview(DeviceConfig config, OutgoingMessage message) {
    boolean allowed =
        config
            .get(CloudDriverFactory.LINK_PREVIEW)
            .flatMap(io.kurir.driver.Values::bool)
            .orElse(true);
    String text = message.text();
    return allowed
        && message.linkPreview()
        && (text.contains("http://") || text.contains("https://"));
  }

  /**
   * What an error means for the message, whether it came in the reply or by webhook. {@code
   * retryAfter} is the reply's header, when it had one.
   */
  SendOutcome outcomeOf(
      GraphError error, Optional<Duration> retryAfter, long deviceId, String e164, String token) {
    String detail = error.describe();
    return switch (error.kind()) {
      case NOT_FOUND -> new SendOutcome.NotFound();
      case WINDOW_CLOSED -> {
        sessions.windowClosed(deviceId, e164, context.clock().instant());
        yield new SendOutcome.Permanent(WINDOW_CLOSED, detail);
      }
      case RATE_LIMIT -> {
        int hits = rateHits.merge(deviceId, 1, Integer::sum);
        Duration wait =
            retryAfter.orElseGet(
                () ->
                    error.code() == 131057 || error.code() == 4 || error.code() == 80007
                        ? MAX_RATE_WAIT
                        : min(Duration.ofSeconds(1L << Math.min(hits - 1, 10)), MAX_RATE_WAIT));
        yield new SendOutcome.RetryAfter(wait, detail);
      }
      case PAIR_RATE_LIMIT -> {
        // Meta's advice: wait 4^n seconds after the n-th hit to one customer; at least the
        // 6 seconds a pair is allowed between messages.
        int hits = pairHits.merge(deviceId + " " + e164, 1, Integer::sum);
        long seconds = Math.max(6, (long) Math.pow(4, Math.min(hits, 6)));
        yield new SendOutcome.RetryAfter(
            retryAfter.orElse(min(Duration.ofSeconds(seconds), MAX_PAIR_WAIT)), detail);
      }
      case TOKEN -> {
        tokenRefused(deviceId, token, detail);
        yield new SendOutcome.DeviceUnavailable();
      }
      case TRANSIENT -> new SendOutcome.Failed(detail);
      case PERMANENT -> new SendOutcome.Permanent(NETWORK_REFUSED, detail);
    };
  }

  /** The network refused the device's token: it fails, and its messages wait for a new one. */
  void tokenRefused(long deviceId, String token, String detail) {
    if (sessions.refusal(deviceId, token).isPresent()) {
      return;
    }
    try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
      log.warn("device {}: the Cloud API refused its access token: {}", deviceId, detail);
    }
    sessions.refuseToken(deviceId, token, detail);
    tell(l -> l.stateChanged(deviceId, DeviceState.FAILED, "access token refused: " + detail));
    tell(l -> l.connectionChanged(deviceId, false));
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /** The Cloud API has no look-up of accounts: a number is known only once a message went. */
  @Override
  public NumberCheck checkNumber(DeviceRef device, String e164) {
    return NumberCheck.UNKNOWN;
  }

  /**
   * A Cloud API number is linked at Meta, not by a QR code: a device that was logged out is linked
   * again here, and there is no code to show.
   */
  @Override
  public Optional<String> pairingCode(DeviceRef device) {
    if (sessions.loggedOut(device.id())) {
      sessions.linkAgain(device.id());
      DeviceState now = state(device);
      tell(l -> l.stateChanged(device.id(), now, "linked again"));
      if (now == DeviceState.ONLINE) {
        tell(l -> l.connectionChanged(device.id(), true));
      }
    }
    return Optional.empty();
  }

  @Override
  public boolean logout(DeviceRef device) {
    if (sessions.loggedOut(device.id())) {
      return false;
    }
    sessions.logOut(device.id());
    tell(l -> l.stateChanged(device.id(), DeviceState.NONE, "logged out"));
    tell(l -> l.connectionChanged(device.id(), false));
    return true;
  }

  @Override
  public Optional<String> groupIdByName(DeviceRef device, String name) {
    return Optional.empty();
  }

  @Override
  public GroupMembers groupMembers(DeviceRef device, String groupId) {
    return new GroupMembers.NotFound();
  }

  @Override
  public void close() {
    graph.close();
  }

  // --- for the webhook

  DriverContext context() {
    return context;
  }

  CloudSessions sessions() {
    return sessions;
  }

  GraphApi graph() {
    return graph;
  }

  Optional<String> driverVerifyToken() {
    return driverVerifyToken;
  }

  /** Tells the listener, once the driver has started. */
  void tell(java.util.function.Consumer<DriverListener> event) {
    DriverListener l = listener;
    if (l != null) {
      event.accept(l);
    }
  }

  DriverListener listener() {
    DriverListener l = listener;
    if (l == null) {
      throw new IllegalStateException("the cloud driver has not started");
    }
    return l;
  }
}
