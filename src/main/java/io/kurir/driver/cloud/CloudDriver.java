package io.kurir.driver.cloud;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.content.MessageKind;
import io.kurir.driver.ActionOutcome;
import io.kurir.driver.Capabilities;
import io.kurir.driver.ChatRef;
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
 * <p>The customer service window decides what goes: free-form only to a customer who wrote to the
 * device in the last 24 hours, the device's template otherwise (once more after a 131047). A token,
 * number id or account that Meta refuses holds the device's queue through {@link
 * io.kurir.driver.DriverListener#hold}; it is checked as the device attaches and when it resumes.
 *
 * <p>Thread-safe: what must outlive a call is in the database ({@link CloudSessions}); the back-off
 * counters in memory only lengthen waits.
 */
public final class CloudDriver implements Driver {
  private static final Logger log = LoggerFactory.getLogger(CloudDriver.class);

  /** The reason stored with a free-form message refused outside the 24-hour window. */
  public static final String WINDOW_CLOSED = "window_closed";

  /** The reason stored with an image of a type the Cloud API does not take. */
  public static final String MEDIA_TYPE = "media_type_not_supported";

  /** The reason stored with a message the network refused for good (a bad parameter, media). */
  public static final String NETWORK_REFUSED = "network_refused";

  /**
   * The reason stored with a message carrying its own template that Meta refused (132000: another
   * number of parameters; 132001: not approved in that language; 132018: a parameter with a new
   * line); Meta's words are the message's note.
   */
  public static final String TEMPLATE_REFUSED = "template_refused";

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
   * brought in line with what its configuration says now (a device just created is online), and its
   * token and phone number id are checked with a look-up of the number ({@link #checkAccount}), so
   * that a bad one is found now rather than at the first send.
   */
  @Override
  public void attach(DeviceRef device) {
    DeviceState now = state(device);
    tell(l -> l.stateChanged(device.id(), now, "attached"));
    if (now == DeviceState.ONLINE) {
      checkAccount(device.id());
    }
  }

  /**
   * The core resumed the device after a hold (a changed configuration, an operator's retry): the
   * refused token is forgotten and the account checked again, which holds it again at once if the
   * cause is still there.
   */
  @Override
  public void resume(DeviceRef device) {
    sessions.clearRefusal(device.id());
    if (stateOf(device.id(), configOf.apply(device.id())) == DeviceState.ONLINE) {
      checkAccount(device.id());
    }
  }

  /** The types Meta takes for an image message: JPEG and PNG (WebP is a sticker, GIF is not). */
  static final java.util.Set<String> IMAGE_TYPES = java.util.Set.of("image/jpeg", "image/png");

  /**
   * The types Meta takes for a document message (a Kurir file): text, PDF, Word, Excel and
   * PowerPoint, old and new formats (Meta's supported media types, "Document"); another type is
   * refused at the upload (131053).
   */
  static final java.util.Set<String> DOCUMENT_TYPES =
      java.util.Set.of(
          "text/plain",
          "application/pdf",
          "application/msword",
          "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
          "application/vnd.ms-excel",
          "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
          "application/vnd.ms-powerpoint",
          "application/vnd.openxmlformats-officedocument.presentationml.presentation");

  /**
   * Every kind of Meta's message object, replies ({@code context.message_id}); no groups (Kurir
   * does not manage Cloud API groups), no mentions (Meta's object has none). Read marks and the
   * typing indicator ({@link #markRead}, {@link #typing}); no edits and no revoke: the Cloud API
   * has neither.
   */
  @Override
  public boolean freeFormOnlyInReplyWindow() {
    return true; // outside the 24-hour window only a template reaches the customer (131047)
  }

  @Override
  public Capabilities capabilities() {
    return CAPABILITIES;
  }

  private static final Capabilities CAPABILITIES =
      new Capabilities(
          java.util.EnumSet.allOf(MessageKind.class), false, true, false, false, false, true, true);

  /**
   * {@code POST /<phone-number-id>/messages} {@code {messaging_product, status: "read",
   * message_id}} (Meta's mark-as-read): Meta marks a received message read, and with it the ones
   * before it in the chat; so a chat is marked up to the message named, or the latest received
   * there.
   */
  @Override
  public ActionOutcome markRead(DeviceRef device, ChatRef chat, Optional<String> networkId) {
    return readMark(device, chat, networkId, false);
  }

  /**
   * Meta's typing indicator: a read mark of the latest message received in the chat with {@code
   * typing_indicator: {type: "text"}}. Meta ends it with the business's reply or after 25 seconds;
   * it has no call to end it sooner, so stopping sends nothing.
   */
  @Override
  public ActionOutcome typing(
      DeviceRef device, ChatRef chat, boolean typing, Optional<String> latestReceived) {
    return typing ? readMark(device, chat, latestReceived, true) : ActionOutcome.DONE;
  }

  private ActionOutcome readMark(
      DeviceRef device, ChatRef chat, Optional<String> networkId, boolean typing) {
    DeviceConfig config = configOf.apply(device.id());
    if (stateOf(device.id(), config) != DeviceState.ONLINE) {
      return new ActionOutcome.Unavailable("the device's number or token is not usable");
    }
    if (chat.group()) {
      return new ActionOutcome.Refused("Kurir does not manage Cloud API groups");
    }
    if (networkId.isEmpty()) {
      return new ActionOutcome.Refused(
          "the Cloud API marks a chat by a message received in it, and none came in " + chat.id());
    }
    ObjectNode body = GraphApi.JSON.createObjectNode();
    body.put("messaging_product", "whatsapp");
    body.put("status", "read");
    body.put("message_id", networkId.get());
    if (typing) {
      body.putObject("typing_indicator").put("type", "text");
    }
    GraphApi.Reply reply;
    try {
      reply =
          graph.postJson(
              config.require(CloudDriverFactory.PHONE_NUMBER_ID) + "/messages",
              config.require(CloudDriverFactory.ACCESS_TOKEN),
              body);
    } catch (IOException e) {
      return new ActionOutcome.Unavailable("the Graph API did not answer: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new ActionOutcome.Unavailable("interrupted");
    }
    if (reply.ok()) {
      return ActionOutcome.DONE;
    }
    GraphError error = reply.error();
    return switch (error.kind()) {
      case TOKEN, ACCOUNT, TRANSIENT, RATE_LIMIT, PAIR_RATE_LIMIT ->
          new ActionOutcome.Unavailable(error.describe());
      default -> new ActionOutcome.Refused(error.describe());
    };
  }

  @Override
  public java.util.Set<String> mediaTypes(String kind) {
    return switch (kind) {
      case "image" -> IMAGE_TYPES;
      case "file" -> DOCUMENT_TYPES;
      default -> java.util.Set.of();
    };
  }

  /**
   * {@code GET /<version>/<phone-number-id>} with the device's token: Meta answers the number's
   * details, or 190 for a bad token, 100 with subcode 33 for a wrong number id, a permission error
   * for a token without the number. A refusal holds the device; a network error changes nothing
   * (the sends find out).
   */
  private void checkAccount(long deviceId) {
    DeviceConfig config = configOf.apply(deviceId);
    Optional<String> token = config.get(CloudDriverFactory.ACCESS_TOKEN);
    Optional<String> numberId = config.get(CloudDriverFactory.PHONE_NUMBER_ID);
    if (token.isEmpty() || numberId.isEmpty()) {
      return;
    }
    try {
      GraphApi.Reply reply = graph.get(numberId.get(), token.get());
      graphAnswered();
      if (reply.ok()) {
        return;
      }
      GraphError error = reply.error();
      DeviceConfig now = configOf.apply(deviceId);
      if (!now.get(CloudDriverFactory.ACCESS_TOKEN).equals(token)
          || !now.get(CloudDriverFactory.PHONE_NUMBER_ID).equals(numberId)) {
        return; // reconfigured while asked: the change's own check decides
      }
      switch (error.kind()) {
        case TOKEN -> tokenRefused(deviceId, config, error.describe());
        case ACCOUNT -> accountRefused(deviceId, config, error);
        default -> {
          try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
            log.warn(
                "device {}: the look-up of phone number id {} answered {}",
                deviceId,
                numberId.get(),
                error.describe());
          }
        }
      }
    } catch (IOException e) {
      graphNotReached(deviceId, "checking the account of device " + deviceId, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The network refused the account or the number: the core holds the device's queue. */
  private void accountRefused(long deviceId, DeviceConfig config, GraphError error) {
    tell(l -> l.hold(deviceId, config, "the Cloud API refused the account: " + error.describe()));
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
    String to = message.recipient();
    Optional<CloudTemplate> template = template(config);
    boolean asTemplate = template.isPresent() && message.kind().equals("text");
    // A message of Kurir's own API whose object the seed's path would not write whole (any kind
    // but a plain text or a fetched file): Meta's object goes as it is, media by link.
    boolean whole = message.carriesOwnContent();
    try {
      ObjectNode body;
      if (whole
          && (message.content().kind() == MessageKind.TEMPLATE || windowOpen(device.id(), to))) {
        // A template goes whatever the window; anything else only inside it.
        body = CloudMessages.of(to, message.content());
        if (message.media().isPresent() && body.path(body.path("type").asText()).isObject()) {
          // A file the gateway keeps (uploaded to Kurir by id): Meta takes it by its own id, so it
          // is uploaded first and the object names Meta's id instead of Kurir's.
          OutgoingMessage.Attachment a = message.media().get();
          GraphApi.Reply upload =
              graph.uploadMedia(phoneNumberId, token, a.path(), a.mimeType(), a.name());
          graphAnswered();
          if (!upload.ok()) {
            return outcomeOf(upload.error(), upload.retryAfter(), device.id(), to, config);
          }
          String mediaId = upload.body().path("id").asText("");
          if (mediaId.isBlank()) {
            return new SendOutcome.Failed("the media upload answered no id");
          }
          ObjectNode file = (ObjectNode) body.get(body.path("type").asText());
          file.remove("link");
          file.put("id", mediaId);
        }
      } else if (!windowOpen(device.id(), to)) {
        // Unknown (never wrote here) or closed: Meta takes only a template (error 131047).
        if (!asTemplate) {
          return new SendOutcome.Permanent(
              WINDOW_CLOSED,
              to
                  + " has not written to this number in the last 24 hours"
                  + (template.isEmpty() ? " and no template is configured" : "")
                  + "; a free-form "
                  + message.kind()
                  + " message cannot be sent");
        }
        body = CloudMessages.template(to, template.get(), message.text());
        tell(
            l ->
                l.note(
                    device.id(),
                    message.id(),
                    "sent as template " + template.get().name() + ": no open 24-hour window"));
      } else if (message.media().isPresent()) {
        OutgoingMessage.Attachment a = message.media().get();
        if (message.kind().equals("image") && !IMAGE_TYPES.contains(a.mimeType())) {
          return new SendOutcome.Permanent(
              MEDIA_TYPE, "the Cloud API takes JPEG and PNG images, not " + a.mimeType());
        }
        if (message.kind().equals("file") && !DOCUMENT_TYPES.contains(a.mimeType())) {
          return new SendOutcome.Permanent(
              MEDIA_TYPE,
              "the Cloud API takes text, PDF, Word, Excel and PowerPoint documents, not "
                  + a.mimeType());
        }
        GraphApi.Reply upload =
            graph.uploadMedia(phoneNumberId, token, a.path(), a.mimeType(), a.name());
        graphAnswered();
        if (!upload.ok()) {
          return outcomeOf(upload.error(), upload.retryAfter(), device.id(), to, config);
        }
        String mediaId = upload.body().path("id").asText("");
        if (mediaId.isBlank()) {
          return new SendOutcome.Failed("the media upload answered no id");
        }
        body = CloudMessages.media(to, message.kind(), mediaId, message.text(), a.name());
      } else {
        body = CloudMessages.text(to, message.text(), linkPreview(config, message));
      }
      GraphApi.Reply reply = post(phoneNumberId, token, body, message.id());
      if (!reply.ok()
          && reply.error().kind() == GraphError.Kind.WINDOW_CLOSED
          && asTemplate
          && !body.path("type").asText().equals("template")) {
        // 131047: not delivered, so the template is no duplicate. Once per message: a template
        // is not refused for the window.
        sessions.windowClosed(device.id(), to, context.clock().instant());
        String why = reply.error().describe();
        tell(
            l ->
                l.note(
                    device.id(),
                    message.id(),
                    "refused outside the 24-hour window ("
                        + why
                        + "): sent again as template "
                        + template.get().name()));
        reply =
            post(
                phoneNumberId,
                token,
                CloudMessages.template(to, template.get(), message.text()),
                message.id());
      }
      if (!reply.ok()
          && reply.error().kind() == GraphError.Kind.TEMPLATE
          && whole
          && message.content().kind() == MessageKind.TEMPLATE) {
        // The caller's own template (a campaign's, or one sent by the API), not the device's:
        // this message fails with Meta's reason, and the device goes on sending.
        String why = reply.error().describe();
        tell(l -> l.note(device.id(), message.id(), "template refused: " + why));
        return new SendOutcome.Permanent(TEMPLATE_REFUSED, why);
      }
      if (!reply.ok()
          && reply.error().kind() == GraphError.Kind.TEMPLATE
          && !template(configOf.apply(device.id())).equals(template)) {
        // The template was changed while this one went: the change resumed the device already,
        // so a hold now would outlive the fix; the message goes again with the new one.
        return new SendOutcome.RetryAfter(Duration.ZERO, reply.error().describe());
      }
      if (!reply.ok()) {
        return outcomeOf(reply.error(), reply.retryAfter(), device.id(), to, config);
      }
      rateHits.remove(device.id());
      pairHits.remove(device.id() + " " + to);
      JsonNode sent = reply.body().path("messages").path(0);
      String status = sent.path("message_status").asText("");
      if (status.equals("paused") || status.equals("held_for_quality_assessment")) {
        tell(l -> l.note(device.id(), message.id(), status));
      }
      String networkId = sent.path("id").asText("");
      return new SendOutcome.Accepted(Optional.of(networkId).filter(id -> !id.isBlank()));
    } catch (IOException e) {
      graphNotReached(
          device.id(), "sending message " + message.id() + " of device " + device.id(), e);
      return new SendOutcome.Failed("Graph API not reachable: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new SendOutcome.Failed("interrupted while calling the Graph API");
    }
  }

  /**
   * Posts one message. Its Kurir id goes in {@code biz_opaque_callback_data}, echoed in every
   * status of it: the webhook names the message by it, and a {@code :t} after it says a template
   * went.
   */
  private GraphApi.Reply post(String phoneNumberId, String token, ObjectNode body, long messageId)
      throws IOException, InterruptedException {
    boolean template = body.path("type").asText().equals("template");
    body.put("biz_opaque_callback_data", messageId + (template ? TEMPLATE_MARK : ""));
    GraphApi.Reply reply = graph.postJson(phoneNumberId + "/messages", token, body);
    graphAnswered();
    return reply;
  }

  /** After a message's id in {@code biz_opaque_callback_data}: the send was a template. */
  static final String TEMPLATE_MARK = ":t";

  /**
   * A send that did not reach the Graph API (refused, timed out, no route): the message's history
   * has the reason; the log says it once per outage, with where Kurir tried, since that is the
   * operator's to fix (a firewall, a proxy, {@code drivers.cloud.graph-url}).
   */
  private void graphNotReached(long deviceId, String doing, IOException e) {
    try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
      if (graphReached.compareAndSet(true, false)) {
        log.warn(
            "the Graph API at {} cannot be reached ({}): Cloud API sends fail (flag_retry ones are"
                + " tried again) until it answers; first seen {}",
            graphUrl,
            e.toString(),
            doing);
      } else {
        log.debug(
            "device {}: {} failed, the Graph API still cannot be reached ({})",
            deviceId,
            doing,
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
   * Whether the customer's 24-hour window is known to be open: they wrote to this device less than
   * 24 hours ago. A customer who never wrote here (or before Kurir kept track) has no open window,
   * as Meta sees it too.
   */
  boolean windowOpen(long deviceId, String address) {
    Instant now = context.clock().instant();
    return sessions
        .lastInbound(deviceId, address)
        .map(last -> last.plus(CloudSessions.WINDOW).isAfter(now))
        .orElse(false);
  }

  /** The device's default template, if it has one. */
  Optional<CloudTemplate> template(DeviceConfig config) {
    return config.get(CloudDriverFactory.TEMPLATE).flatMap(CloudTemplate::parse);
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
      GraphError error,
      Optional<Duration> retryAfter,
      long deviceId,
      String e164,
      DeviceConfig config) {
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
        tokenRefused(deviceId, config, detail);
        yield new SendOutcome.DeviceUnavailable();
      }
      case ACCOUNT -> {
        accountRefused(deviceId, config, error);
        yield new SendOutcome.DeviceUnavailable();
      }
      case TEMPLATE -> {
        templateRefused(deviceId, config, error);
        yield new SendOutcome.DeviceUnavailable();
      }
      case TRANSIENT -> new SendOutcome.Failed(detail);
      case PERMANENT -> new SendOutcome.Permanent(NETWORK_REFUSED, detail);
    };
  }

  /**
   * Meta refused the device's template (132001: not approved in that language; 132000: another
   * number of body parameters than the one Kurir gives): every message outside the window would
   * fail the same way, so the device is held, naming the setting to fix; a changed configuration
   * resumes it.
   */
  private void templateRefused(long deviceId, DeviceConfig config, GraphError error) {
    String setting =
        config.get(CloudDriverFactory.TEMPLATE).map(t -> "template=" + t).orElse("template");
    tell(
        l ->
            l.hold(
                deviceId,
                config,
                "the Cloud API refused the device's template ("
                    + setting
                    + "): "
                    + error.describe()
                    + "; approve it on the account in that language with one body parameter, or"
                    + " set another"));
  }

  /** The network refused the device's token: it fails, and its messages wait for a new one. */
  void tokenRefused(long deviceId, DeviceConfig config, String detail) {
    String token = config.get(CloudDriverFactory.ACCESS_TOKEN).orElse("");
    if (sessions.refusal(deviceId, token).isPresent()) {
      return;
    }
    try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
      log.warn("device {}: the Cloud API refused its access token: {}", deviceId, detail);
    }
    sessions.refuseToken(deviceId, token, detail);
    tell(l -> l.hold(deviceId, config, "access token refused: " + detail));
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
