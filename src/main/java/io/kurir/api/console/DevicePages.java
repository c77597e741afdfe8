package io.kurir.api.console;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.device.DeviceEvent;
import io.kurir.device.DeviceState;
import io.kurir.device.Sessions;
import io.kurir.message.Message;
import io.kurir.message.MessageSearch;
import io.kurir.message.Recipient;
import io.kurir.message.SendRefused;
import io.kurir.message.SendRequest;
import io.kurir.tenant.Device;
import io.kurir.webhook.MessageWebhooks.Direction;
import io.kurir.webhook.MessageWebhooks.Urls;
import io.kurir.webhook.WebhookDeliveries;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
    b.append("<section><h2>Send a test message</h2>")
        .append("<form method=\"post\" action=\"")
        .append(base)
        .append("/send\" class=\"stack\">")
        .append(Html.csrfField(v.csrf()))
        .append(
            Html.input(
                "To",
                "to",
                Pages.typed(ctx, base + "/send", "to", ""),
                "required placeholder=\"0812…\""))
        .append("<label>Text <textarea name=\"text\" required>")
        .append(Html.esc(Pages.typed(ctx, base + "/send", "text", "Hello from Kurir")))
        .append("</textarea></label>")
        .append("<button type=\"submit\">Send</button></form></section>");
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
      throw new ApiException(503, "driver_down", deps.sessions().downReason(d) + ".");
    }
  }

  void setWebhooks(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = deps.tenants().device(Pages.id(ctx));
    saveWebhooks(ctx, d);
    Pages.seeOther(ctx, "/console/devices/" + d.id());
  }

  void sendTest(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = deps.tenants().usableDevice(Pages.id(ctx));
    String to =
        deps.phones()
            .normalize(Pages.required(ctx, "to", "the number"))
            .orElseThrow(
                () -> new ApiException(400, "to_not_valid", "That is not a phone number."));
    Message m;
    try {
      m =
          deps.messages()
              .accept(
                  d,
                  new SendRequest(
                      List.of(Recipient.number(to)),
                      "text",
                      Pages.required(ctx, "text", "the text"),
                      "console",
                      false,
                      false,
                      Duration.ZERO))
              .getFirst();
    } catch (SendRefused e) {
      throw ApiException.ofRefusal(e, "text");
    }
    Pages.seeOther(ctx, "/console/messages/" + m.id());
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
          "<p class=\"muted\">" + Html.esc(deps.sessions().downReason(d)) + ".</p>";
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

  String recentMessages(Device d, String messageLink) {
    List<List<String>> rows = new ArrayList<>();
    for (Message m :
        deps.search()
            .find(MessageSearch.Criteria.any().withDevices(Set.of(d.id())).withLimit(20))) {
      rows.add(MessagePages.row(m, messageLink, deps));
    }
    return "<section><h2>Recent messages</h2>"
        + Html.table(MessagePages.HEADERS, rows, "No message yet.")
        + "</section>";
  }

  String webhooksSection(Context ctx, Device d, String base, ConsoleRoutes.Viewer v) {
    Urls urls = deps.messageWebhooks().urls(d.id());
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
        + "<p class=\"muted\">Leave a field empty to stop that webhook. Calls are signed with the"
        + " license's webhook secret (X-Kurir-Signature).</p>"
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
