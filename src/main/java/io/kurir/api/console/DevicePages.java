package io.kurir.api.console;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.device.DeviceEvent;
import io.kurir.device.DeviceState;
import io.kurir.device.Sessions;
import io.kurir.message.GroupIds;
import io.kurir.message.Message;
import io.kurir.message.MessageSearch;
import io.kurir.message.Recipient;
import io.kurir.message.SendRefused;
import io.kurir.message.SendRequest;
import io.kurir.schedule.ApiType;
import io.kurir.schedule.ScheduleRefused;
import io.kurir.schedule.ScheduleRequest;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.webhook.MessageWebhooks.Direction;
import io.kurir.webhook.MessageWebhooks.Urls;
import io.kurir.webhook.WebhookDeliveries;
import java.time.Duration;
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

  void operatorPage(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = deps.tenants().device(Pages.id(ctx));
    String base = "/console/devices/" + d.id();
    StringBuilder b = new StringBuilder();
    b.append(summary(d));
    b.append(pairingSection(d, base, v, true));
    b.append(sendForms(ctx, base, v));
    b.append(recentMessages(d, "/console/messages/"));
    b.append(webhooksSection(ctx, d, base, v));
    b.append(failedDeliveries(d, v));
    b.append(history(d));
    b.append("<section><h2>Switches</h2>")
        .append(Html.onOff(base + "/", v.csrf(), d.disabled(), "device " + d.number()))
        .append("<form method=\"post\" class=\"inline\" action=\"")
        .append(base)
        .append("/rotate\"")
        .append(
            Html.confirm(
                "Make a new credential for this device? The current one stops working at once."))
        .append(">")
        .append(Html.csrfField(v.csrf()))
        .append(
            Html.select(
                "New",
                "credential",
                Map.of("key", "key", "device-key", "device key", "crm-id", "CRM device id"),
                "key"))
        .append("<button type=\"submit\" class=\"secondary\">Rotate</button></form>")
        .append("<form method=\"post\" class=\"inline\" action=\"")
        .append(base)
        .append("/delete\"")
        .append(
            Html.confirm(
                "Delete device "
                    + d.number()
                    + "? Its keys stop working at once and what it still has queued fails."
                    + " Its history stays. There is no undo."))
        .append(">")
        .append(Html.csrfField(v.csrf()))
        .append("<button type=\"submit\" class=\"danger\">Delete</button></form>")
        .append("</section>");
    b.append(Pages.zoneNote(deps));
    Pages.operator(ctx, v, "Device " + d.number(), b.toString());
  }

  /** Deletes the device (docs/decisions.md, "Deleting a device") and goes back to the list. */
  void delete(Context ctx, ConsoleRoutes.Viewer v) {
    deps.tenants().deleteDevice(Pages.id(ctx));
    Pages.seeOther(ctx, "/console/devices");
  }

  void operatorPairing(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = deps.tenants().device(Pages.id(ctx));
    ctx.html(pairing(d, "/console/devices/" + d.id(), v, true));
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
      throw new ApiException(503, "driver_down", "The device's driver is not running.");
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
    try {
      deps.schedules()
          .schedule(d, new ScheduleRequest(type, to, text, url, due, SCHEDULES_PER_MINUTE));
    } catch (ScheduleRefused e) {
      throw new ApiException(
          400, e.reason().name().toLowerCase(Locale.ROOT), scheduleRefusal(e.reason()));
    }
    Pages.seeOther(ctx, "/console/schedules");
  }

  /** The Eco scheduler's limit, which the console's schedules share: 3 per device and minute. */
  private static final int SCHEDULES_PER_MINUTE = 3;

  private static String scheduleRefusal(ScheduleRefused.Reason reason) {
    return switch (reason) {
      case DUE_IN_PAST -> "That time has passed.";
      case TOO_MANY_IN_MINUTE ->
          "This device has " + SCHEDULES_PER_MINUTE + " schedules in that minute already.";
      case FILE_TOO_LARGE -> "The file at that URL is larger than the limit.";
      case IMAGE_NOT_FOUND -> "There is no image at that URL.";
      case URL_NOT_VALID -> "Kurir may not fetch that URL.";
      case TEXT_TOO_LONG -> "The text is too long.";
    };
  }

  /**
   * Accepts one message from the form, through the same core call as the APIs; an image or file is
   * fetched from its URL when the message's turn comes, as the Eco API's async sends do.
   */
  private Message send(Context ctx, Device d, Recipient to) {
    String kind = kind(ctx);
    Optional<String> url = mediaUrl(ctx, kind);
    String text = text(ctx, kind);
    try {
      return deps.messages()
          .accept(
              d,
              new SendRequest(
                      List.of(to),
                      kind,
                      text,
                      "console",
                      false,
                      false,
                      Duration.ZERO,
                      Optional.empty())
                  .withMediaUrl(url))
          .getFirst();
    } catch (SendRefused e) {
      throw ApiException.ofRefusal(e, "text");
    }
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

  /** The forms that send from the device: to a number, to a group, and later (a schedule). */
  private String sendForms(Context ctx, String base, ConsoleRoutes.Viewer v) {
    String send = base + "/send";
    String group = base + "/send-group";
    String schedule = base + "/schedule";
    String zone = deps.timestamps().zone().getId();
    return "<section><h2>Send a message</h2>"
        + "<form method=\"post\" action=\""
        + Html.esc(send)
        + "\" class=\"stack\" data-testid=\"send-form\">"
        + Html.csrfField(v.csrf())
        + Html.input("To", "to", Pages.typed(ctx, send, "to", ""), "required placeholder=\"0812…\"")
        + messageFields(ctx, send, "Hello from Kurir")
        + "<button type=\"submit\">Send</button></form></section>"
        + "<section><h2>Send to a group</h2>"
        + "<form method=\"post\" action=\""
        + Html.esc(group)
        + "\" class=\"stack\" data-testid=\"group-form\">"
        + Html.csrfField(v.csrf())
        + Html.input(
            "Group id",
            "group",
            Pages.typed(ctx, group, "group", ""),
            "required placeholder=\"62812…-1612…\"")
        + messageFields(ctx, group, "")
        + "<button type=\"submit\">Send to the group</button></form></section>"
        + "<section><h2>Schedule a message</h2>"
        + "<form method=\"post\" action=\""
        + Html.esc(schedule)
        + "\" class=\"stack\" data-testid=\"schedule-form\">"
        + Html.csrfField(v.csrf())
        + Html.input(
            "To", "to", Pages.typed(ctx, schedule, "to", ""), "required placeholder=\"0812…\"")
        + Html.input(
            "When (" + zone + ")",
            "at",
            Pages.typed(ctx, schedule, "at", ""),
            "required placeholder=\"YYYY-MM-DD HH:MM\"")
        + messageFields(ctx, schedule, "")
        + "<button type=\"submit\">Schedule</button></form></section>";
  }

  /** A message's kind, its image's or file's URL, and its text (the caption of an image). */
  private static String messageFields(Context ctx, String action, String text) {
    return Html.select("Kind", "kind", KINDS, Pages.typed(ctx, action, "kind", "text"))
        + Html.input(
            "Image or file URL",
            "url",
            Pages.typed(ctx, action, "url", ""),
            "placeholder=\"https://… (for an image or a file)\"")
        + "<label>Text <textarea name=\"text\">"
        + Html.esc(Pages.typed(ctx, action, "text", text))
        + "</textarea></label>";
  }

  // ---- parts, shared with the customers' page

  String summary(Device d) {
    String state = Pages.stateOf(deps, d);
    return "<section><p>"
        + Html.badge(state)
        + " &nbsp; "
        + Html.esc(d.number())
        + " · license "
        + Html.esc(deps.tenants().license(d.licenseId()).name())
        + " · driver "
        + Html.esc(d.driver())
        + "</p></section>";
  }

  String pairingSection(Device d, String base, ConsoleRoutes.Viewer v, boolean operator) {
    return "<section><h2>Link</h2><div class=\"qr\" data-poll=\""
        + Html.esc(base + "/pairing")
        + "\" data-testid=\"pairing\">"
        + pairing(d, base, v, operator)
        + "</div></section>";
  }

  /**
   * The linking part of the page, polled by the script: the QR code while the device is not linked
   * (it changes as the driver rotates it), "linked" once it is.
   */
  String pairing(Device d, String base, ConsoleRoutes.Viewer v, boolean operator) {
    // The driver's own state: the recorded one (device_event) may follow a moment later.
    Optional<DeviceState> state = deps.sessions().state(d);
    if (state.isPresent()
        && (state.get() == DeviceState.ONLINE || state.get() == DeviceState.OFFLINE)) {
      return linked(base, v, Optional.of(state.get().wireName()));
    }
    Optional<String> obstacle = deps.sessions().pairingObstacle(d);
    if (obstacle.isPresent()) {
      return "<p class=\"muted\">" + Html.esc(obstacle.get()) + "</p>";
    }
    return switch (deps.sessions().pairing(d)) {
      case Sessions.Pairing.Code code ->
          "<p>On the phone: WhatsApp → Linked devices → Link a device, then scan. The code changes"
              + " by itself.</p><img alt=\"QR code to link "
              + Html.esc(d.number())
              + "\" data-testid=\"qr\" src=\""
              + code.pngDataUrl()
              + "\">"
              + (operator && scannable(d)
                  ? Html.post(
                      base + "/scan",
                      v.csrf(),
                      "Scan with the " + d.driver() + " phone",
                      "secondary")
                  : "");
      case Sessions.Pairing.AlreadyPaired a -> linked(base, v, Optional.empty());
      case Sessions.Pairing.DriverDown down ->
          "<p class=\"muted\">The device's driver ("
              + Html.esc(d.driver())
              + ") is not running.</p>";
      case Sessions.Pairing.Unavailable u ->
          "<p class=\"muted\">Driver "
              + Html.esc(d.driver())
              + " gives no QR code for this device.</p>";
    };
  }

  /** A linked device: says so, with its state when known, and offers to log it out. */
  private static String linked(String base, ConsoleRoutes.Viewer v, Optional<String> state) {
    return "<p data-final><span class=\"badge s-linked\" data-testid=\"linked\">linked</span> "
        + state.map(Html::badge).orElse("")
        + "</p>"
        + "<form method=\"post\" action=\""
        + Html.esc(base + "/logout")
        + "\" data-confirm=\"Log the device out? Its phone must scan a new QR code.\">"
        + Html.csrfField(v.csrf())
        + "<button type=\"submit\" class=\"danger\">Log out</button></form>";
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
  String recentMessages(Device d, String messageLink) {
    record Row(Instant at, List<String> cells) {}
    List<Row> rows = new ArrayList<>();
    for (Message m :
        deps.search()
            .find(
                MessageSearch.Criteria.any()
                    .withDevices(Set.of(d.id()))
                    .withLimit(SHOWN_MESSAGES))) {
      String text = m.body().length() > 80 ? m.body().substring(0, 80) + "…" : m.body();
      rows.add(
          new Row(
              m.createdAt(),
              List.of(
                  "<span class=\"badge s-out\" data-testid=\"message-out\">out</span>",
                  Html.link(messageLink + m.id(), m.id()),
                  Html.esc(m.recipient()) + (m.toGroup() ? " (group)" : ""),
                  Html.badge(m.state().wireName())
                      + m.reason()
                          .map(r -> " <span class=\"muted\">" + Html.esc(r) + "</span>")
                          .orElse(""),
                  (m.kind().equals("text") ? "" : "[" + Html.esc(m.kind()) + "] ") + Html.esc(text),
                  Html.esc(deps.timestamps().reply(m.createdAt())))));
    }
    for (MessageSearch.Received r : deps.search().received(d.id(), SHOWN_MESSAGES)) {
      String text = r.body().length() > 80 ? r.body().substring(0, 80) + "…" : r.body();
      rows.add(
          new Row(
              r.receivedAt(),
              List.of(
                  "<span class=\"badge s-in\" data-testid=\"message-in\">in</span>",
                  Html.esc(r.id()),
                  Html.esc(r.sender())
                      + r.groupId().map(g -> " in group " + Html.esc(g)).orElse(""),
                  Html.badge("received")
                      + r.keyword()
                          .map(k -> " <span class=\"muted\">keyword " + Html.esc(k) + "</span>")
                          .orElse(""),
                  r.mediaType().map(t -> "[" + Html.esc(t) + "] ").orElse("") + Html.esc(text),
                  Html.esc(deps.timestamps().reply(r.receivedAt())))));
    }
    List<List<String>> newest =
        rows.stream()
            .sorted(Comparator.comparing(Row::at).reversed())
            .limit(SHOWN_MESSAGES)
            .map(Row::cells)
            .toList();
    return "<section><h2>Messages in and out</h2>"
        + Html.table(
            List.of("Way", "Id", "Number", "State", "Text", "When"), newest, "No message yet.")
        + "</section>";
  }

  String webhooksSection(Context ctx, Device d, String base, ConsoleRoutes.Viewer v) {
    Urls urls = deps.messageWebhooks().urls(d.id());
    License license = deps.tenants().license(d.licenseId());
    Optional<String> status = deps.sessions().states().statusWebhook(d.id());
    String action = base + "/webhooks";
    return "<section><h2>Webhooks</h2><form method=\"post\" action=\""
        + Html.esc(base + "/webhooks")
        + "\" class=\"stack\">"
        + Html.csrfField(v.csrf())
        + Html.input(
            "Incoming messages",
            "incoming",
            Pages.typed(ctx, action, "incoming", urls.incoming().orElse("")),
            "placeholder=\"https://…\"")
        + Html.input(
            "Message states",
            "outgoing",
            Pages.typed(ctx, action, "outgoing", urls.outgoing().orElse("")),
            "placeholder=\"https://…\"")
        + Html.input(
            "Device state",
            "status",
            Pages.typed(ctx, action, "status", status.orElse("")),
            "placeholder=\"https://…\"")
        + "<p class=\"muted\">Leave a field empty to stop that webhook. Each call is signed with"
        + " the license's webhook secret: X-Kurir-Signature is sha256= and the hex HMAC-SHA256 of"
        + " the X-Kurir-Timestamp header, a dot and the body.</p>"
        + Html.secret("Webhook secret", license.webhookSecret())
        + "<button type=\"submit\">Save webhooks</button></form></section>";
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

  private String failedDeliveries(Device d, ConsoleRoutes.Viewer v) {
    List<WebhookDeliveries.Delivery> failed =
        Stream.concat(
                deps.deliveries().list("failed").stream(), deps.deliveries().list("dead").stream())
            .filter(x -> x.deviceId() == d.id())
            .limit(20)
            .toList();
    return "<section><h2>Failed webhook deliveries</h2>"
        + WebhookPages.table(failed, v, deps)
        + "</section>";
  }

  private String history(Device d) {
    List<List<String>> rows = new ArrayList<>();
    List<DeviceEvent> events = deps.sessions().states().history(d.id());
    for (DeviceEvent e : events.reversed().stream().limit(30).toList()) {
      rows.add(
          List.of(
              Html.esc(deps.timestamps().reply(e.at())),
              Html.badge(Pages.stateLabel(e.from())) + " → " + Html.badge(Pages.stateLabel(e.to())),
              Html.esc(e.reason().orElse(""))));
    }
    return "<section><h2>History</h2>"
        + Html.table(List.of("When", "Change", "Why"), rows, "No change recorded yet.")
        + "</section>";
  }
}
