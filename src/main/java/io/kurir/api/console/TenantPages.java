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
              Html.onOff(base, v.csrf(), p.disabled(), "partner " + p.name())
                  + Html.post(
                      base + "rotate-secret",
                      v.csrf(),
                      "New secret",
                      "secondary",
                      "Make a new Basic secret for "
                          + p.name()
                          + "? The current one stops working at once.")));
    }
    String body =
        search("/console/partners", q)
            + Html.table(
                List.of("Id", "Name", "Email", "Basic user", "State", ""),
                rows,
                "No partner" + (q.isPresent() ? " matches." : " yet."))
            + "<h2>New partner</h2><form method=\"post\" action=\"/console/partners\" class=\"row\">"
            + Html.csrfField(v.csrf())
            + Html.input(
                "Name", "name", Pages.typed(ctx, "/console/partners", "name", ""), "required")
            + Html.input(
                "Email",
                "email",
                Pages.typed(ctx, "/console/partners", "email", ""),
                "type=\"email\"")
            + "<button type=\"submit\">Create partner</button></form>";
    Pages.operator(ctx, v, "Partners", body);
  }

  void createPartner(Context ctx, ConsoleRoutes.Viewer v) {
    Partner p =
        tenants.createPartner(
            Pages.required(ctx, "name", "the name"), Pages.field(ctx, "email").orElse(""));
    shownOnce(ctx, v, "Partner created", credentials(p), "", "", "", "/console/partners");
  }

  void partnerAction(Context ctx, ConsoleRoutes.Viewer v) {
    long id = Pages.id(ctx);
    switch (ctx.pathParam("action")) {
      case "disable" -> tenants.setPartnerDisabled(id, true);
      case "enable" -> tenants.setPartnerDisabled(id, false);
      case "rotate-secret" -> {
        Partner p = tenants.rotatePartnerSecret(id);
        shownOnce(ctx, v, "New partner secret", credentials(p), "", "", "", "/console/partners");
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
      // A license code is stored as its hash: the whole code finds its license, a part does not.
      if (q.isPresent()
          && !matches(q.get(), l.name(), l.email(), "" + l.id())
          && !io.kurir.tenant.Credentials.matches(l.code(), q.get().strip())) {
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
              Html.onOff(base, v.csrf(), l.disabled(), "license " + l.name())
                  + "<form method=\"post\" class=\"inline\" action=\""
                  + base
                  + "expires\">"
                  + Html.csrfField(v.csrf())
                  + "<input type=\"date\" name=\"expires\" aria-label=\"New expiry\" value=\""
                  + Html.esc(l.expiresOn().map(Object::toString).orElse(""))
                  + "\"><button type=\"submit\" class=\"secondary\">Renew</button></form>"
                  + (l.expiresOn().isPresent()
                      ? Html.post(
                          base + "no-expiry",
                          v.csrf(),
                          "Never expires",
                          "secondary",
                          "Let " + l.name() + " run without an expiry date?")
                      : "")
                  + Html.post(
                      base + "rotate-webhook-secret",
                      v.csrf(),
                      "New webhook secret",
                      "secondary",
                      "Make a new webhook secret for "
                          + l.name()
                          + "? Receivers must switch to it before the old one stops signing.")));
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
                    + Html.select("Partner", "partner", partners, typedLicense(ctx, "partner", ""))
                    + Html.input("Name", "name", typedLicense(ctx, "name", ""), "required")
                    + Html.input("Email", "email", typedLicense(ctx, "email", ""), "type=\"email\"")
                    + Html.input(
                        "Expires", "expires", typedLicense(ctx, "expires", ""), "type=\"date\"")
                    + Html.input(
                        "Allowed addresses",
                        "allowed",
                        typedLicense(ctx, "allowed", ""),
                        "placeholder=\"any\"")
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
        List.of(
            new OnceShown.Secret("License code", l.code()),
            new OnceShown.Secret("Webhook secret", l.webhookSecret()),
            new OnceShown.Secret("Push key", l.pushKey())),
        "",
        "/console/devices?license=" + l.id(),
        "Add a device to it",
        "/console/licenses");
  }

  void licenseAction(Context ctx, ConsoleRoutes.Viewer v) {
    long id = Pages.id(ctx);
    switch (ctx.pathParam("action")) {
      case "disable" -> tenants.setLicenseDisabled(id, true);
      case "enable" -> tenants.setLicenseDisabled(id, false);
      case "expires" ->
          tenants.setLicenseExpiry(
              id,
              date(
                  Pages.field(ctx, "expires")
                      .orElseThrow(
                          () ->
                              new ApiException(
                                  400,
                                  "expires_empty",
                                  "Choose the new expiry date, then press Renew."))));
      case "no-expiry" -> tenants.setLicenseExpiry(id, null);
      case "rotate-webhook-secret" -> {
        License l = tenants.rotateWebhookSecret(id, deps.webhookSecretOverlap());
        shownOnce(
            ctx,
            v,
            "New webhook secret",
            List.of(new OnceShown.Secret("Webhook secret", l.webhookSecret())),
            "The old secret still signs for "
                + deps.webhookSecretOverlap().toHours()
                + " h, so receivers can switch.",
            "",
            "",
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
              Html.onOff(base, v.csrf(), d.disabled(), "device " + d.number())));
    }
    Map<String, String> licenses = new LinkedHashMap<>();
    tenants
        .licenses()
        .forEach(l -> licenses.put(Long.toString(l.id()), l.name() + " (" + l.id() + ")"));
    Map<String, String> drivers = new LinkedHashMap<>();
    drivers.put("", "default");
    for (String name : tenants.driverNames()) {
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
                        "License",
                        "license",
                        licenses,
                        Pages.typed(
                            ctx,
                            "/console/devices",
                            "license",
                            license.map(String::valueOf).orElse("")))
                    + Html.input(
                        "Number",
                        "number",
                        Pages.typed(ctx, "/console/devices", "number", ""),
                        "required placeholder=\"0812…\"")
                    + Html.select(
                        "Driver",
                        "driver",
                        drivers,
                        Pages.typed(ctx, "/console/devices", "driver", ""))
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
        credentials(d),
        "",
        "/console/devices/" + d.id(),
        "Open the device and link it by QR code",
        "/console/devices");
  }

  void rotateDevice(Context ctx, ConsoleRoutes.Viewer v) {
    Credential credential = Credential.parse(Pages.field(ctx, "credential").orElse("key"));
    Device d = tenants.rotate(Pages.id(ctx), credential);
    shownOnce(
        ctx,
        v,
        "New device credential",
        credentials(d),
        "",
        "/console/devices/" + d.id(),
        "Back to the device",
        "/console/devices");
  }

  void setDisabled(Context ctx, boolean disabled) {
    long id = Pages.id(ctx);
    tenants.setDeviceDisabled(id, disabled);
    Pages.seeOther(ctx, "/console/devices/" + id);
  }

  private static List<OnceShown.Secret> credentials(Partner p) {
    return List.of(
        new OnceShown.Secret("Basic user", p.basicUser()),
        new OnceShown.Secret("Basic secret", p.basicSecret()));
  }

  /**
   * The device's credentials that are readable: all three when it was just made, the rotated one
   * and the Eco key after a rotation (the others are stored as hashes and cannot be shown again).
   */
  private static List<OnceShown.Secret> credentials(Device d) {
    List<OnceShown.Secret> shown = new java.util.ArrayList<>();
    shown.add(new OnceShown.Secret("Key", d.ecoKey()));
    io.kurir.tenant.Credentials.shown(d.deviceKey())
        .ifPresent(k -> shown.add(new OnceShown.Secret("Device key", k)));
    io.kurir.tenant.Credentials.shown(d.crmDeviceId())
        .ifPresent(k -> shown.add(new OnceShown.Secret("CRM device id", k)));
    return shown;
  }

  /**
   * After a creation or a rotation: its secrets are kept for the page the browser is sent to, the
   * only time they are shown (a reload of that page repeats nothing).
   */
  private void shownOnce(
      Context ctx,
      ConsoleRoutes.Viewer v,
      String title,
      List<OnceShown.Secret> secrets,
      String note,
      String nextHref,
      String nextText,
      String back) {
    OnceShown.keep(
        ctx,
        v,
        new OnceShown.Shown(title, secrets, note, nextHref, nextText, back),
        ConsoleRoutes.overHttps(ctx, deps));
  }

  /** The page the browser is sent to after a creation or a rotation: its secrets, once. */
  void shown(Context ctx, ConsoleRoutes.Viewer v) {
    java.util.Optional<OnceShown.Shown> shown = OnceShown.take(ctx, v);
    if (shown.isEmpty()) {
      Pages.operator(
          ctx,
          v,
          "Nothing to show",
          "<p class=\"notice\" data-testid=\"shown-already\">New credentials are shown once,"
              + " on the page that follows their creation; this one has been shown already."
              + " Nothing was changed again.</p><p>"
              + Html.link("/console", "Dashboard")
              + "</p>");
      return;
    }
    OnceShown.Shown s = shown.get();
    StringBuilder b =
        new StringBuilder(
            "<p class=\"notice\">Copy these now: the console does not show them again.</p>");
    s.secrets().forEach(x -> b.append(Html.secret(x.label(), x.value())));
    if (!s.note().isEmpty()) {
      b.append("<p class=\"muted\">").append(Html.esc(s.note())).append("</p>");
    }
    if (!s.nextHref().isEmpty()) {
      b.append("<p>").append(Html.link(s.nextHref(), s.nextText())).append("</p>");
    }
    b.append("<p>").append(Html.link(s.back(), "Done")).append("</p>");
    Pages.operator(ctx, v, s.title(), b.toString());
  }

  private static String typedLicense(Context ctx, String name, String fallback) {
    return Pages.typed(ctx, "/console/licenses", name, fallback);
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
