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
import java.util.Optional;

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

  /** A device in the customer's list: its page and its state. */
  record DeviceRow(long id, String number, String state) {}

  /** The customer's home: the license, and its devices. */
  record Home(String license, String expires, boolean disabled, List<DeviceRow> devices) {}

  void home(Context ctx, ConsoleRoutes.Viewer v) {
    License l = deps.tenants().license(v.licenseId());
    java.util.function.Function<Device, String> stateOf = Pages.listedStates(deps);
    List<DeviceRow> rows = new ArrayList<>();
    for (Device d : deps.tenants().devicesOf(l)) {
      rows.add(new DeviceRow(d.id(), d.number(), stateOf.apply(d)));
    }
    Home home =
        new Home(l.name(), l.expiresOn().map(Object::toString).orElse("never"), l.disabled(), rows);
    Pages.customer(ctx, v, "My devices", "myDevices.jte", home);
  }

  /** A customer's page of a device: the common parts and the spreadsheet script's form. */
  record DeviceView(DevicePages.Common common, String column, String template, Pages.Zone zone) {}

  void device(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = own(ctx, v);
    String base = "/console/my/devices/" + d.id();
    DeviceView view =
        new DeviceView(
            devices.common(ctx, d, base, v, false, "#m"),
            Pages.typed(ctx, base + "/script", "column", "2"),
            Pages.typed(ctx, base + "/script", "template", "Halo [kolom2], terima kasih!"),
            Pages.zone(deps));
    Pages.customer(ctx, v, "Device " + d.number(), "myDevice.jte", view);
  }

  void pairing(Context ctx, ConsoleRoutes.Viewer v) {
    Device d = own(ctx, v);
    Pages.fragment(
        ctx, "pairing.jte", devices.pairing(d, "/console/my/devices/" + d.id(), v, false));
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
    Pages.customer(
        ctx,
        v,
        "Script for " + d.number(),
        "myScript.jte",
        new Script(
            deps.publicUrl().isEmpty() ? Optional.of(baseUrl) : Optional.empty(),
            script,
            "/console/my/devices/" + d.id()));
  }

  /**
   * The filled-in script; {@code guessedUrl} is the address it sends to when {@code public.url} is
   * not set (the page asks to check it).
   */
  record Script(Optional<String> guessedUrl, String script, String back) {}

  /** The device in the path, if it is one of the customer's license; else "not found". */
  Device own(Context ctx, ConsoleRoutes.Viewer v) {
    long id = Pages.id(ctx);
    return deps.tenants().devices().stream()
        .filter(d -> d.id() == id && d.licenseId() == v.licenseId())
        .findFirst()
        .orElseThrow(() -> ApiException.notFound("No such device."));
  }
}
