package io.kurir.api.console;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.clients.ScriptGenerator;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The customer's page ({@code /console/my}): a license holder, signed in with the license code or a
 * device key, sees that license's devices only: links one by QR code, sees its state and recent
 * messages, sets its webhooks and gets the spreadsheet script filled in. A device of another
 * license answers "not found", as one that does not exist.
 */
final class CustomerPages {
  private final ConsoleDeps deps;
  private final DevicePages devices;

  CustomerPages(ConsoleDeps deps, DevicePages devices) {
    this.deps = deps;
    this.devices = devices;
  }

  void home(Context ctx, ConsoleRoutes.Viewer v) {
    License l = deps.tenants().license(v.licenseId());
    java.util.function.Function<Device, String> stateOf = Pages.listedStates(deps);
    List<List<String>> rows = new ArrayList<>();
    for (Device d : deps.tenants().devicesOf(l)) {
      rows.add(
          List.of(
              Html.link("/console/my/devices/" + d.id(), d.number()),
              Html.badge(stateOf.apply(d))));
    }
    String body =
        "<p>"
            + Html.esc(l.name())
            + " · expires "
            + Html.esc(l.expiresOn().map(Object::toString).orElse("never"))
            + (l.disabled() ? " · " + Html.badge("disabled") : "")
            + "</p>"
            + Html.table(List.of("Number", "State"), rows, "No device yet: ask your provider.");
    page(ctx, v, "My devices", body);
  }

  void device(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = own(ctx, v);
    String base = "/console/my/devices/" + d.id();
    String body =
        devices.summary(d)
            + devices.pairingSection(d, base, v, false)
            + devices.recentMessages(d, "#m")
            + devices.webhooksSection(ctx, d, base, v)
            + "<section><h2>Spreadsheet script</h2>"
            + "<p class=\"muted\">A Google Sheets script that sends a message for each new row of"
            + " a form's answers.</p><form method=\"post\" action=\""
            + base
            + "/script\" class=\"stack\">"
            + Html.csrfField(v.csrf())
            + Html.input(
                "Column of the phone number (1 = A)",
                "column",
                Pages.typed(ctx, base + "/script", "column", "2"),
                "inputmode=\"numeric\"")
            + "<label>Message ([kolom2] is column B's answer, [kolom1] the time of the answer)"
            + " <textarea name=\"template\">"
            + Html.esc(
                Pages.typed(ctx, base + "/script", "template", "Halo [kolom2], terima kasih!"))
            + "</textarea></label>"
            + "<button type=\"submit\">Get the script</button></form></section>";
    page(ctx, v, "Device " + d.number(), body + Pages.zoneNote(deps));
  }

  void pairing(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = own(ctx, v);
    ctx.html(devices.pairing(d, "/console/my/devices/" + d.id(), v, false));
  }

  void logout(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = own(ctx, v);
    devices.logout(d);
    Pages.seeOther(ctx, "/console/my/devices/" + d.id());
  }

  void setWebhooks(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = own(ctx, v);
    devices.saveWebhooks(ctx, d);
    Pages.seeOther(ctx, "/console/my/devices/" + d.id());
  }

  /** The eco-async spreadsheet script with the device's key and the gateway's address filled in. */
  void script(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = own(ctx, v);
    String column = Pages.field(ctx, "column").orElse("");
    if (!column.matches("[1-9]\\d{0,2}")) {
      throw new ApiException(400, "column_not_valid", "The column is a number: 1 for A, 2 for B…");
    }
    // Without public.url the address the browser used is the best guess; the page says to check it.
    String baseUrl = deps.publicUrl().orElse(ctx.scheme() + "://" + ctx.host());
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("base_url", baseUrl);
    settings.put("kolom_no_wa", Integer.parseInt(column));
    settings.put("template", Pages.required(ctx, "template", "the message"));
    settings.put("key", d.ecoKey());
    String script = ScriptGenerator.generate("eco-async", settings);
    String body =
        "<p>In the spreadsheet: Extensions → Apps Script, paste this, save, then add a trigger"
            + " “On form submit”.</p>"
            + (deps.publicUrl().isEmpty()
                ? "<p class=\"error\">It sends to "
                    + Html.esc(baseUrl)
                    + ": Google's servers must reach Kurir there over HTTPS.</p>"
                : "")
            + "<pre data-testid=\"script\">"
            + Html.esc(script)
            + "</pre><p>"
            + Html.link("/console/my/devices/" + d.id(), "Back to the device")
            + "</p>";
    page(ctx, v, "Script for " + d.number(), body);
  }

  /** The device in the path, if it is one of the customer's license; else "not found". */
  private Device own(Context ctx, ConsoleRoutes.Viewer v) {
    long id = Pages.id(ctx);
    return deps.tenants().devices().stream()
        .filter(d -> d.id() == id && d.licenseId() == v.licenseId())
        .findFirst()
        .orElseThrow(() -> new ApiException(404, "not_found", "No such device."));
  }

  private static void page(Context ctx, ConsoleRoutes.Viewer v, String title, String body) {
    ctx.html(Html.page(title, Pages.CUSTOMER_NAV, v.csrf(), Pages.problem(ctx) + body));
  }
}
