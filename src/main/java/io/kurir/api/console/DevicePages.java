package io.kurir.api.console;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.api.ErrorCatalogue;
import io.kurir.device.DeviceEvent;
import io.kurir.device.DeviceState;
import io.kurir.device.Sessions;
import io.kurir.message.GroupIds;
import io.kurir.message.Message;
import io.kurir.message.MessageSearch;
import io.kurir.message.Recipient;
import io.kurir.message.SendCommand;
import io.kurir.schedule.ApiType;
import io.kurir.schedule.ScheduleRefused;
import io.kurir.schedule.ScheduleRequest;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.webhook.MessageWebhooks.Direction;
import io.kurir.webhook.MessageWebhooks.Urls;
import io.kurir.webhook.WebhookDeliveries;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A device's page: its state and history, the live QR code that turns into "linked" once the phone
 * scans it, its webhooks, its recent messages; for operators also a test send, its failed webhook
 * deliveries and its switches. Customers see the same page under {@code /console/my} (see {@link
 * CustomerPages}) without the operators' parts.
 */
final class DevicePages {
  /** At most this many webhook URL characters, as the APIs that set them. */
  private static final int MAX_URL = 2048;

  private final ConsoleDeps deps;

  DevicePages(ConsoleDeps deps) {
    this.deps = deps;
  }

  /** The parts every device page shows, to operators and customers alike. */
  record Common(
      String base,
      String csrf,
      Summary summary,
      Pairing pairing,
      List<MessageRow> messages,
      Webhooks webhooks,
      Optional<String> held) {}

  /** The operator's page of a device: the common parts, the forms and the operators' parts. */
  record OperatorView(
      Common common,
      String number,
      boolean disabled,
      SendForms forms,
      WebhookPages.Table failed,
      List<HistoryRow> history,
      Map<String, String> credentials,
      Pages.Zone zone) {}

  void operatorPage(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = deps.tenants().device(Pages.id(ctx));
    String base = "/console/devices/" + d.id();
    OperatorView view =
        new OperatorView(
            common(ctx, d, base, v, true, "/console/messages/"),
            d.number(),
            d.disabled(),
            sendForms(ctx, base),
            failedDeliveries(d, v),
            history(d),
            CREDENTIALS,
            Pages.zone(deps));
    Pages.operator(ctx, v, "Device " + d.number(), "device.jte", view);
  }

  private static final Map<String, String> CREDENTIALS =
      Map.of("key", "key", "device-key", "device key", "crm-id", "CRM device id");

  /** The parts shared with the customers' page; {@code messageLink} + id leads to a message. */
  Common common(
      Context ctx,
      Device d,
      String base,
      ConsoleRoutes.Viewer v,
      boolean operator,
      String messageLink) {
    return new Common(
        base,
        v.csrf(),
        summary(d),
        pairing(d, base, v, operator),
        recentMessages(d, messageLink),
        webhooks(ctx, d, base),
        // Why the device's queue is held (its network refused the account), for an operator's
        // Retry button.
        operator ? deps.sessions().heldBecause(d) : Optional.empty());
  }

  /** An operator's retry of a device whose queue is held; back to its page. */
  void retry(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = deps.tenants().device(Pages.id(ctx));
    deps.sessions().retry(d);
    Pages.seeOther(ctx, "/console/devices/" + d.id());
  }

  /** Deletes the device (docs/decisions.md, "Deleting a device") and goes back to the list. */
  void delete(Context ctx, ConsoleRoutes.Viewer v) {
    deps.tenants().deleteDevice(Pages.id(ctx));
    Pages.seeOther(ctx, "/console/devices");
  }

  void operatorPairing(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = deps.tenants().device(Pages.id(ctx));
    Pages.fragment(ctx, "pairing.jte", pairing(d, "/console/devices/" + d.id(), v, true));
  }

  /** A simulated network's phone scans the device's current QR code (demo, tests). */
  void simulatedScan(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = deps.tenants().device(Pages.id(ctx));
    if (!scannable(d) || !deps.simulatedPhone().orElseThrow().scan().test(d)) {
      throw new ApiException(409, "not_scanned", "There is no QR code of this device to scan now.");
    }
    Pages.seeOther(ctx, "/console/devices/" + d.id());
  }

  void logout(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = deps.tenants().device(Pages.id(ctx));
    logout(d);
    Pages.seeOther(ctx, "/console/devices/" + d.id());
  }

  /** Unlinks the device from its phone (operators and the device's customer). */
  void logout(Device d) {
    if (deps.sessions().logout(d) == Sessions.Logout.DRIVER_DOWN) {
      throw new ApiException(503, "driver_down", deps.sessions().downReason(d) + ".");
    }
  }

  void setWebhooks(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = deps.tenants().device(Pages.id(ctx));
    saveWebhooks(ctx, d);
    Pages.seeOther(ctx, "/console/devices/" + d.id());
  }

  /** The kinds of message the console sends, with each one's label in the forms. */
  private static final Map<String, String> KINDS = new LinkedHashMap<>();

  static {
    KINDS.put("text", "Text");
    KINDS.put("image", "Image (by URL)");
    KINDS.put("file", "File (by URL)");
  }

  /** Sends a message to a number: text, or an image or file by URL with the text as caption. */
  void sendTest(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = deps.tenants().usableDevice(Pages.id(ctx));
    Message m = send(ctx, d, Recipient.number(number(ctx)));
    Pages.seeOther(ctx, "/console/messages/" + m.id());
  }

  /** Sends a message to a group of the device, by the group's id. */
  void sendToGroup(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = deps.tenants().usableDevice(Pages.id(ctx));
    String group =
        GroupIds.normalize(Pages.required(ctx, "group", "the group id"))
            .orElseThrow(
                () ->
                    new ApiException(
                        400, "group_not_valid", "That is not a group id (62812…-1612…)."));
    Message m = send(ctx, d, new Recipient(group, true));
    Pages.seeOther(ctx, "/console/messages/" + m.id());
  }

  /**
   * Schedules a message to a number, through the scheduler the Eco API's {@code /api/scheduler}
   * uses, with its limit per minute: the console is one more way in, not a way around it.
   */
  void schedule(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = deps.tenants().usableDevice(Pages.id(ctx));
    String to = number(ctx);
    String kind = kind(ctx);
    Optional<String> url = mediaUrl(ctx, kind);
    String text = text(ctx, kind);
    Instant due =
        deps.timestamps()
            .parseLocal(Pages.required(ctx, "at", "the time"))
            .orElseThrow(
                () -> new ApiException(400, "at_not_valid", "Give the time as YYYY-MM-DD HH:MM."));
    ApiType type =
        switch (kind) {
          case "image" -> text.isEmpty() ? ApiType.IMAGE : ApiType.IMAGE_TEXT;
          case "file" -> ApiType.FILE;
          default -> ApiType.TEXT;
        };
    deps.schedules()
        .schedule(d, new ScheduleRequest(type, to, text, url, due, SCHEDULES_PER_MINUTE));
    Pages.seeOther(ctx, "/console/schedules");
  }

  /** The Eco scheduler's limit, which the console's schedules share: 3 per device and minute. */
  private static final int SCHEDULES_PER_MINUTE = 3;

  /**
   * A refused schedule as the console shows it: 400, the reason's name in lower case, and a
   * sentence for people.
   */
  static ErrorCatalogue.Builder refusals(ErrorCatalogue.Builder catalogue) {
    Map<ScheduleRefused.Reason, String> sentences =
        Map.of(
            ScheduleRefused.Reason.DUE_IN_PAST, "That time has passed.",
            ScheduleRefused.Reason.TOO_MANY_IN_MINUTE,
                "This device has " + SCHEDULES_PER_MINUTE + " schedules in that minute already.",
            ScheduleRefused.Reason.FILE_TOO_LARGE, "The file at that URL is larger than the limit.",
            ScheduleRefused.Reason.IMAGE_NOT_FOUND, "There is no image at that URL.",
            ScheduleRefused.Reason.URL_NOT_VALID, "Kurir may not fetch that URL.",
            ScheduleRefused.Reason.TEXT_TOO_LONG, "The text is too long.");
    sentences.forEach(
        (reason, sentence) ->
            catalogue.add(reason, 400, reason.name().toLowerCase(Locale.ROOT), sentence));
    return catalogue;
  }

  /**
   * Accepts one message from the form, through the same core call as the APIs; an image or file is
   * fetched from its URL when the message's turn comes, as the Eco API's async sends do.
   */
  private Message send(Context ctx, Device d, Recipient to) {
    String kind = kind(ctx);
    Optional<String> url = mediaUrl(ctx, kind);
    String text = text(ctx, kind);
    return deps.sends()
        .send(d, SendCommand.builder("console").to(to).kind(kind).body(text).mediaUrl(url).build())
        .first();
  }

  private String number(Context ctx) {
    return deps.phones()
        .normalize(Pages.required(ctx, "to", "the number"))
        .orElseThrow(() -> new ApiException(400, "to_not_valid", "That is not a phone number."));
  }

  private static String kind(Context ctx) {
    String kind = Pages.field(ctx, "kind").orElse("text");
    if (!KINDS.containsKey(kind)) {
      throw new ApiException(400, "kind_not_valid", "Choose a kind from the list.");
    }
    return kind;
  }

  /** A text message needs its text; an image's or a file's is its caption, and may be empty. */
  private static String text(Context ctx, String kind) {
    return kind.equals("text")
        ? Pages.required(ctx, "text", "the text")
        : Pages.field(ctx, "text").orElse("");
  }

  /** The URL of an image or file, checked as the APIs check it (and again when it is fetched). */
  private Optional<String> mediaUrl(Context ctx, String kind) {
    if (kind.equals("text")) {
      return Optional.empty();
    }
    String url = Pages.required(ctx, "url", "the URL of the " + kind);
    Optional<String> refusal = deps.webhookTargets().refusalOf(url);
    if (refusal.isPresent()) {
      throw new ApiException(
          400, "url_not_valid", "Kurir may not fetch " + url + ": " + refusal.get());
    }
    return Optional.of(url);
  }

  /** A form's fields as typed when it was just refused (else their defaults). */
  record Typed(String to, String group, String at, String kind, String url, String text) {}

  /** The forms that send from the device: to a number, to a group, and later (a schedule). */
  record SendForms(
      String zone, Map<String, String> kinds, Typed send, Typed group, Typed schedule) {}

  private SendForms sendForms(Context ctx, String base) {
    return new SendForms(
        deps.timestamps().zone().getId(),
        KINDS,
        typed(ctx, base + "/send", "Hello from Kurir"),
        typed(ctx, base + "/send-group", ""),
        typed(ctx, base + "/schedule", ""));
  }

  private static Typed typed(Context ctx, String action, String text) {
    return new Typed(
        Pages.typed(ctx, action, "to", ""),
        Pages.typed(ctx, action, "group", ""),
        Pages.typed(ctx, action, "at", ""),
        Pages.typed(ctx, action, "kind", "text"),
        Pages.typed(ctx, action, "url", ""),
        Pages.typed(ctx, action, "text", text));
  }

  // ---- parts, shared with the customers' page

  /** A device's state, number, license and driver, at the top of its page. */
  record Summary(String state, String number, String license, String driver) {}

  Summary summary(Device d) {
    return new Summary(
        Pages.stateOf(deps, d),
        d.number(),
        deps.tenants().license(d.licenseId()).name(),
        d.driver());
  }

  /**
   * The linking part of the page, polled by the script ({@code pairing.jte}): the QR code while the
   * device is not linked (it changes as the driver rotates it), "linked" once it is.
   */
  sealed interface Pairing {
    String base();

    String csrf();
  }

  /** Linked, with its state when known: a log-out button. */
  record Linked(String base, String csrf, Optional<String> state) implements Pairing {}

  /** Why no code can be shown now. */
  record Muted(String base, String csrf, String text) implements Pairing {}

  /** The QR code to scan; {@code scanWith} names the simulated phone that can scan it here. */
  record Code(String base, String csrf, String number, String png, Optional<String> scanWith)
      implements Pairing {}

  Pairing pairing(Device d, String base, ConsoleRoutes.Viewer v, boolean operator) {
    // The driver's own state: the recorded one (device_event) may follow a moment later.
    Optional<DeviceState> state = deps.sessions().state(d);
    if (state.isPresent()
        && (state.get() == DeviceState.ONLINE || state.get() == DeviceState.OFFLINE)) {
      return new Linked(base, v.csrf(), Optional.of(state.get().wireName()));
    }
    Optional<String> obstacle = deps.sessions().pairingObstacle(d);
    if (obstacle.isPresent()) {
      return new Muted(base, v.csrf(), obstacle.get());
    }
    return switch (deps.sessions().pairing(d)) {
      case Sessions.Pairing.Code code ->
          new Code(
              base,
              v.csrf(),
              d.number(),
              code.pngDataUrl(),
              operator && scannable(d) ? Optional.of(d.driver()) : Optional.empty());
      case Sessions.Pairing.AlreadyPaired a -> new Linked(base, v.csrf(), Optional.empty());
      case Sessions.Pairing.DriverDown down ->
          new Muted(base, v.csrf(), deps.sessions().downReason(d) + ".");
      case Sessions.Pairing.Unavailable u ->
          new Muted(base, v.csrf(), "Driver " + d.driver() + " gives no QR code for this device.");
    };
  }

  private boolean scannable(Device d) {
    return deps.simulatedPhone().filter(phone -> phone.covers(d)).isPresent()
        && deps.sessions().pairingObstacle(d).isEmpty();
  }

  /** How many messages in and out a device's page shows, newest first. */
  private static final int SHOWN_MESSAGES = 30;

  /**
   * The device's newest messages, sent and received, in one list newest first; each is marked
   * {@code in} or {@code out}. Sent ones link to {@code messageLink + id}.
   */
  /**
   * A message in or out ({@code in} true: received): for a sent one {@code href} leads to its
   * history; {@code note} is a failure's reason or the keyword a received one matched.
   */
  record MessageRow(
      boolean in,
      String id,
      Optional<String> href,
      String number,
      String state,
      Optional<String> note,
      Optional<String> kind,
      String text,
      String when) {}

  List<MessageRow> recentMessages(Device d, String messageLink) {
    record Row(Instant at, MessageRow row) {}
    List<Row> rows = new ArrayList<>();
    for (Message m :
        deps.search()
            .find(
                MessageSearch.Criteria.any()
                    .withDevices(Set.of(d.id()))
                    .withLimit(SHOWN_MESSAGES))) {
      rows.add(
          new Row(
              m.createdAt(),
              new MessageRow(
                  false,
                  Long.toString(m.id()),
                  Optional.of(messageLink + m.id()),
                  m.recipient() + (m.toGroup() ? " (group)" : ""),
                  m.state().wireName(),
                  m.reason(),
                  m.kind().equals("text") ? Optional.empty() : Optional.of(m.kind()),
                  Pages.shortened(m.body()),
                  deps.timestamps().reply(m.createdAt()))));
    }
    for (MessageSearch.Received r : deps.search().received(d.id(), SHOWN_MESSAGES)) {
      rows.add(
          new Row(
              r.receivedAt(),
              new MessageRow(
                  true,
                  Long.toString(r.id()),
                  Optional.empty(),
                  r.sender() + r.groupId().map(g -> " in group " + g).orElse(""),
                  "received",
                  r.keyword().map(k -> "keyword " + k),
                  r.mediaType(),
                  Pages.shortened(r.body()),
                  deps.timestamps().reply(r.receivedAt()))));
    }
    return rows.stream()
        .sorted(Comparator.comparing(Row::at).reversed())
        .limit(SHOWN_MESSAGES)
        .map(Row::row)
        .toList();
  }

  /** The device's webhook URLs as the form shows them, and the license's signing secret. */
  record Webhooks(String action, String incoming, String outgoing, String status, String secret) {}

  Webhooks webhooks(Context ctx, Device d, String base) {
    Urls urls = deps.messageWebhooks().urls(d.id());
    Optional<String> status = deps.sessions().states().statusWebhook(d.id());
    License license = deps.tenants().license(d.licenseId());
    String action = base + "/webhooks";
    return new Webhooks(
        action,
        Pages.typed(ctx, action, "incoming", urls.incoming().orElse("")),
        Pages.typed(ctx, action, "outgoing", urls.outgoing().orElse("")),
        Pages.typed(ctx, action, "status", status.orElse("")),
        license.webhookSecret());
  }

  /** Sets the device's three webhook URLs from the form; an empty field removes one. */
  void saveWebhooks(Context ctx, Device d) {
    Optional<String> incoming = url(ctx, "incoming");
    Optional<String> outgoing = url(ctx, "outgoing");
    Optional<String> status = url(ctx, "status");
    deps.messageWebhooks().set(d.id(), Direction.INCOMING, incoming);
    deps.messageWebhooks().set(d.id(), Direction.OUTGOING, outgoing);
    deps.sessions().states().setStatusWebhook(d.id(), status.orElse(null));
  }

  private Optional<String> url(Context ctx, String field) {
    Optional<String> url = Pages.field(ctx, field);
    if (url.isPresent()) {
      if (url.get().length() > MAX_URL) {
        throw new ApiException(400, field + "_not_valid", "A URL has at most 2048 characters.");
      }
      Optional<String> refusal = deps.webhookTargets().refusalOf(url.get());
      if (refusal.isPresent()) {
        throw new ApiException(
            400, field + "_not_valid", "Kurir may not call " + url.get() + ": " + refusal.get());
      }
    }
    return url;
  }

  private WebhookPages.Table failedDeliveries(Device d, ConsoleRoutes.Viewer v) {
    List<WebhookDeliveries.Delivery> failed =
        Stream.concat(
                deps.deliveries().list("failed").stream(), deps.deliveries().list("dead").stream())
            .filter(x -> x.deviceId() == d.id())
            .limit(20)
            .toList();
    return WebhookPages.table(failed, v, deps);
  }

  /** A change of the device's state: when, from, to, why. */
  record HistoryRow(String when, String from, String to, String why) {}

  private List<HistoryRow> history(Device d) {
    List<DeviceEvent> events = deps.sessions().states().history(d.id());
    return events.reversed().stream()
        .limit(30)
        .map(
            e ->
                new HistoryRow(
                    deps.timestamps().reply(e.at()),
                    Pages.stateLabel(e.from()),
                    Pages.stateLabel(e.to()),
                    e.reason().orElse("")))
        .toList();
  }
}
