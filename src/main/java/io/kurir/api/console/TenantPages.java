package io.kurir.api.console;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.tenant.Tenants;
import io.kurir.tenant.Tenants.Credential;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Partners, licenses and devices: lists with a search box, creation (every credential shown once,
 * on the page that answers the creation), switching off and on, rotating credentials, renewing a
 * license. Each change is one call of {@link Tenants}, the same the Admin API makes.
 */
final class TenantPages {
  private final ConsoleDeps deps;
  private final Tenants tenants;

  TenantPages(ConsoleDeps deps) {
    this.deps = deps;
    this.tenants = deps.tenants();
  }

  // ---- partners

  void partners(Context ctx, ConsoleRoutes.Viewer v) {
    Optional<String> q = Pages.query(ctx, "q");
    List<List<String>> rows = new ArrayList<>();
    for (Partner p : tenants.partners()) {
      if (q.isPresent() && !matches(q.get(), p.name(), p.email(), p.basicUser(), "" + p.id())) {
        continue;
      }
      String base = "/console/partners/" + p.id() + "/";
      rows.add(
          List.of(
              Html.esc(p.id()),
              Html.esc(p.name()),
              Html.esc(p.email()),
              Html.esc(p.basicUser()),
              Html.badge(p.disabled() ? "disabled" : "on"),
              Html.post(
                      base + (p.disabled() ? "enable" : "disable"),
                      v.csrf(),
                      onOff(p.disabled()),
                      "secondary")
                  + Html.post(base + "rotate-secret", v.csrf(), "New secret", "secondary")));
    }
    String body =
        search("/console/partners", q)
            + Html.table(
                List.of("Id", "Name", "Email", "Basic user", "State", ""),
                rows,
                "No partner" + (q.isPresent() ? " matches." : " yet."))
            + "<h2>New partner</h2><form method=\"post\" action=\"/console/partners\" class=\"row\">"
            + Html.csrfField(v.csrf())
            + Html.input("Name", "name", "", "required")
            + Html.input("Email", "email", "", "type=\"email\"")
            + "<button type=\"submit\">Create partner</button></form>";
    Pages.operator(ctx, v, "Partners", body);
  }

  void createPartner(Context ctx, ConsoleRoutes.Viewer v) {
    Partner p =
        tenants.createPartner(
            Pages.required(ctx, "name", "the name"), Pages.field(ctx, "email").orElse(""));
    shownOnce(ctx, v, "Partner created", credentials(p), "/console/partners");
  }

  void partnerAction(Context ctx, ConsoleRoutes.Viewer v) {
    long id = Pages.id(ctx);
    switch (ctx.pathParam("action")) {
      case "disable" -> tenants.setPartnerDisabled(id, true);
      case "enable" -> tenants.setPartnerDisabled(id, false);
      case "rotate-secret" -> {
        Partner p = tenants.rotatePartnerSecret(id);
        shownOnce(ctx, v, "New partner secret", credentials(p), "/console/partners");
        return;
      }
      default -> throw new ApiException(404, "not_found", "No such action.");
    }
    Pages.seeOther(ctx, "/console/partners");
  }

  // ---- licenses

  void licenses(Context ctx, ConsoleRoutes.Viewer v) {
    Optional<String> q = Pages.query(ctx, "q");
    Map<Long, String> partnerNames = new java.util.HashMap<>();
    tenants.partners().forEach(p -> partnerNames.put(p.id(), p.name()));
    List<List<String>> rows = new ArrayList<>();
    for (License l : tenants.licenses()) {
      if (rows.size() == Pages.MAX_ROWS) {
        break;
      }
      if (q.isPresent() && !matches(q.get(), l.name(), l.email(), l.code(), "" + l.id())) {
        continue;
      }
      String base = "/console/licenses/" + l.id() + "/";
      String state = l.disabled() ? "disabled" : tenants.isExpired(l) ? "expired" : "on";
      rows.add(
          List.of(
              Html.esc(l.id()),
              Html.esc(l.name()),
              Html.esc(partnerNames.get(l.partnerId())),
              Html.esc(l.expiresOn().map(Object::toString).orElse("never")),
              Html.badge(state),
              Html.link("/console/devices?license=" + l.id(), "Devices")
                  + " · "
                  + Html.link(base + "auto-replies", "Auto-replies"),
              Html.post(
                      base + (l.disabled() ? "enable" : "disable"),
                      v.csrf(),
                      onOff(l.disabled()),
                      "secondary")
                  + "<form method=\"post\" class=\"inline\" action=\""
                  + base
                  + "expires\">"
                  + Html.csrfField(v.csrf())
                  + "<input type=\"date\" name=\"expires\" aria-label=\"New expiry\" value=\""
                  + Html.esc(l.expiresOn().map(Object::toString).orElse(""))
                  + "\"><button type=\"submit\" class=\"secondary\">Renew</button></form>"
                  + Html.post(
                      base + "rotate-webhook-secret",
                      v.csrf(),
                      "New webhook secret",
                      "secondary")));
    }
    Map<String, String> partners = new LinkedHashMap<>();
    tenants.partners().forEach(p -> partners.put(Long.toString(p.id()), p.name()));
    String body =
        search("/console/licenses", q)
            + Html.table(
                List.of("Id", "Name", "Partner", "Expires", "State", "", ""),
                rows,
                "No license" + (q.isPresent() ? " matches." : " yet."))
            + "<h2>New license</h2>"
            + (partners.isEmpty()
                ? "<p>Create a " + Html.link("/console/partners", "partner") + " first.</p>"
                : "<form method=\"post\" action=\"/console/licenses\" class=\"row\">"
                    + Html.csrfField(v.csrf())
                    + Html.select("Partner", "partner", partners, "")
                    + Html.input("Name", "name", "", "required")
                    + Html.input("Email", "email", "", "type=\"email\"")
                    + Html.input("Expires", "expires", "", "type=\"date\"")
                    + Html.input("Allowed addresses", "allowed", "", "placeholder=\"any\"")
                    + "<button type=\"submit\">Create license</button></form>");
    Pages.operator(ctx, v, "Licenses", body);
  }

  void createLicense(Context ctx, ConsoleRoutes.Viewer v) {
    long partner = parseId(Pages.required(ctx, "partner", "the partner"));
    List<String> allowed =
        Pages.field(ctx, "allowed").map(a -> Arrays.asList(a.split(","))).orElse(List.of());
    License l =
        tenants.createLicense(
            partner,
            Pages.required(ctx, "name", "the name"),
            Pages.field(ctx, "email").orElse(""),
            Pages.field(ctx, "expires").map(TenantPages::date).orElse(null),
            allowed);
    shownOnce(
        ctx,
        v,
        "License created",
        Html.secret("License code", l.code())
            + Html.secret("Webhook secret", l.webhookSecret())
            + Html.secret("Push key", l.pushKey())
            + "<p>"
            + Html.link("/console/devices?license=" + l.id(), "Add a device to it")
            + "</p>",
        "/console/licenses");
  }

  void licenseAction(Context ctx, ConsoleRoutes.Viewer v) {
    long id = Pages.id(ctx);
    switch (ctx.pathParam("action")) {
      case "disable" -> tenants.setLicenseDisabled(id, true);
      case "enable" -> tenants.setLicenseDisabled(id, false);
      case "expires" ->
          tenants.setLicenseExpiry(
              id, Pages.field(ctx, "expires").map(TenantPages::date).orElse(null));
      case "rotate-webhook-secret" -> {
        License l = tenants.rotateWebhookSecret(id, deps.webhookSecretOverlap());
        shownOnce(
            ctx,
            v,
            "New webhook secret",
            Html.secret("Webhook secret", l.webhookSecret())
                + "<p class=\"muted\">The old secret still signs for "
                + deps.webhookSecretOverlap().toHours()
                + " h, so receivers can switch.</p>",
            "/console/licenses");
        return;
      }
      default -> throw new ApiException(404, "not_found", "No such action.");
    }
    Pages.seeOther(ctx, "/console/licenses");
  }

  // ---- devices

  void devices(Context ctx, ConsoleRoutes.Viewer v) {
    Optional<String> q = Pages.query(ctx, "q");
    Optional<Long> license = Pages.query(ctx, "license").map(TenantPages::parseId);
    Map<Long, String> licenseNames = Pages.licenseNames(deps);
    java.util.function.Function<Device, String> stateOf = Pages.listedStates(deps);
    List<List<String>> rows = new ArrayList<>();
    for (Device d : tenants.devices()) {
      if (license.isPresent() && d.licenseId() != license.get()) {
        continue;
      }
      if (q.isPresent() && !matches(q.get(), d.number(), "" + d.id(), d.driver())) {
        continue;
      }
      if (rows.size() == Pages.MAX_ROWS) {
        break;
      }
      String base = "/console/devices/" + d.id() + "/";
      rows.add(
          List.of(
              Html.link("/console/devices/" + d.id(), d.number()),
              Html.esc(licenseNames.get(d.licenseId())),
              Html.esc(d.driver()),
              Html.badge(stateOf.apply(d)),
              Html.post(
                  base + (d.disabled() ? "enable" : "disable"),
                  v.csrf(),
                  onOff(d.disabled()),
                  "secondary")));
    }
    Map<String, String> licenses = new LinkedHashMap<>();
    tenants
        .licenses()
        .forEach(l -> licenses.put(Long.toString(l.id()), l.name() + " (" + l.id() + ")"));
    Map<String, String> drivers = new LinkedHashMap<>();
    drivers.put("", "default");
    for (String name : List.of("sandbox", "cloud", "waha")) {
      drivers.put(name, name);
    }
    String body =
        search("/console/devices", q)
            + Html.table(
                List.of("Number", "License", "Driver", "State", ""),
                rows,
                "No device" + (q.isPresent() || license.isPresent() ? " matches." : " yet."))
            + "<h2>New device</h2>"
            + (licenses.isEmpty()
                ? "<p>Create a " + Html.link("/console/licenses", "license") + " first.</p>"
                : "<form method=\"post\" action=\"/console/devices\" class=\"row\">"
                    + Html.csrfField(v.csrf())
                    + Html.select(
                        "License", "license", licenses, license.map(String::valueOf).orElse(""))
                    + Html.input("Number", "number", "", "required placeholder=\"0812…\"")
                    + Html.select("Driver", "driver", drivers, "")
                    + "<button type=\"submit\">Create device</button></form>");
    Pages.operator(ctx, v, "Devices", body);
  }

  void createDevice(Context ctx, ConsoleRoutes.Viewer v) {
    Device d =
        tenants.createDevice(
            parseId(Pages.required(ctx, "license", "the license")),
            Pages.required(ctx, "number", "the number"),
            Pages.field(ctx, "driver").orElse(null));
    shownOnce(
        ctx,
        v,
        "Device created",
        credentials(d)
            + "<p>"
            + Html.link("/console/devices/" + d.id(), "Open the device and link it by QR code")
            + "</p>",
        "/console/devices");
  }

  void rotateDevice(Context ctx, ConsoleRoutes.Viewer v) {
    Credential credential = Credential.parse(Pages.field(ctx, "credential").orElse("key"));
    Device d = tenants.rotate(Pages.id(ctx), credential);
    shownOnce(
        ctx,
        v,
        "New device credential",
        credentials(d)
            + "<p>"
            + Html.link("/console/devices/" + d.id(), "Back to the device")
            + "</p>",
        "/console/devices");
  }

  void setDisabled(Context ctx, boolean disabled) {
    long id = Pages.id(ctx);
    tenants.setDeviceDisabled(id, disabled);
    Pages.seeOther(ctx, "/console/devices/" + id);
  }

  private static String credentials(Partner p) {
    return Html.secret("Basic user", p.basicUser()) + Html.secret("Basic secret", p.basicSecret());
  }

  private static String credentials(Device d) {
    return Html.secret("Key", d.ecoKey())
        + Html.secret("Device key", d.deviceKey())
        + Html.secret("CRM device id", d.crmDeviceId());
  }

  /** The page that answers a creation or a rotation: the only time its secrets are shown. */
  private static void shownOnce(
      Context ctx, ConsoleRoutes.Viewer v, String title, String secrets, String back) {
    Pages.operator(
        ctx,
        v,
        title,
        "<p class=\"notice\">Copy these now: the console does not show them again.</p>"
            + secrets
            + "<p>"
            + Html.link(back, "Done")
            + "</p>");
  }

  private static String search(String action, Optional<String> q) {
    return "<form method=\"get\" action=\""
        + action
        + "\" class=\"row\"><input name=\"q\" aria-label=\"Search\" placeholder=\"Search\" value=\""
        + Html.esc(q.orElse(""))
        + "\"><button type=\"submit\" class=\"secondary\">Search</button></form>";
  }

  private static boolean matches(String query, String... fields) {
    String q = query.toLowerCase(Locale.ROOT);
    for (String f : fields) {
      if (f != null && f.toLowerCase(Locale.ROOT).contains(q)) {
        return true;
      }
    }
    return false;
  }

  private static String onOff(boolean disabled) {
    return disabled ? "Switch on" : "Switch off";
  }

  static long parseId(String raw) {
    try {
      return Long.parseLong(raw.strip());
    } catch (NumberFormatException e) {
      throw new ApiException(400, "id_not_valid", "Choose one from the list.");
    }
  }

  private static LocalDate date(String raw) {
    try {
      return LocalDate.parse(raw.strip());
    } catch (DateTimeParseException e) {
      throw new ApiException(400, "expires_not_valid", "The expiry is a date, YYYY-MM-DD.");
    }
  }
}
