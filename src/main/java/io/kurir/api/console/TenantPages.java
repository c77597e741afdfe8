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

  /** The partners page: the search, the partners that match, the creation form's fields. */
  record PartnersView(
      String q, List<Partner> partners, String empty, String name, String email, String csrf) {}

  void partners(Context ctx, ConsoleRoutes.Viewer v) {
    Optional<String> q = Pages.query(ctx, "q");
    List<Partner> shown = new ArrayList<>();
    for (Partner p : tenants.partners()) {
      if (q.isEmpty() || matches(q.get(), p.name(), p.email(), p.basicUser(), "" + p.id())) {
        shown.add(p);
      }
    }
    Pages.operator(
        ctx,
        v,
        "Partners",
        "partners.jte",
        new PartnersView(
            q.orElse(""),
            shown,
            "No partner" + (q.isPresent() ? " matches." : " yet."),
            Pages.typed(ctx, "/console/partners", "name", ""),
            Pages.typed(ctx, "/console/partners", "email", ""),
            v.csrf()));
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
      default -> throw ApiException.notFound("No such action.");
    }
    Pages.seeOther(ctx, "/console/partners");
  }

  // ---- licenses

  /** A license in the list: its partner's name and its state (on, expired or disabled). */
  record LicenseRow(License license, String partner, String expires, String state) {}

  /** The licenses page: the search, the licenses that match, the creation form. */
  record LicensesView(
      String q,
      List<LicenseRow> licenses,
      String empty,
      Map<String, String> partners,
      Map<String, String> typed,
      String csrf) {}

  void licenses(Context ctx, ConsoleRoutes.Viewer v) {
    Optional<String> q = Pages.query(ctx, "q");
    Map<Long, String> partnerNames = new java.util.HashMap<>();
    tenants.partners().forEach(p -> partnerNames.put(p.id(), p.name()));
    List<LicenseRow> rows = new ArrayList<>();
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
      String state = l.disabled() ? "disabled" : tenants.isExpired(l) ? "expired" : "on";
      rows.add(
          new LicenseRow(
              l,
              partnerNames.getOrDefault(l.partnerId(), ""),
              l.expiresOn().map(Object::toString).orElse("never"),
              state));
    }
    Map<String, String> partners = new LinkedHashMap<>();
    tenants.partners().forEach(p -> partners.put(Long.toString(p.id()), p.name()));
    Map<String, String> typed = new java.util.HashMap<>();
    for (String field : List.of("partner", "name", "email", "expires", "allowed")) {
      typed.put(field, typedLicense(ctx, field, ""));
    }
    Pages.operator(
        ctx,
        v,
        "Licenses",
        "licenses.jte",
        new LicensesView(
            q.orElse(""),
            rows,
            "No license" + (q.isPresent() ? " matches." : " yet."),
            partners,
            typed,
            v.csrf()));
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
      case "rotate-code" -> {
        License l = tenants.rotateLicenseCode(id);
        shownOnce(
            ctx,
            v,
            "New license code",
            List.of(new OnceShown.Secret("License code", l.code())),
            "The old code stopped working. Give this one to the customer: it is not shown again.",
            "",
            "",
            "/console/licenses");
        return;
      }
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
      default -> throw ApiException.notFound("No such action.");
    }
    Pages.seeOther(ctx, "/console/licenses");
  }

  // ---- devices

  /** A device in the list: its license's name and its recorded state. */
  record DeviceRow(Device device, String license, String state) {}

  /** The devices page: the search, the devices that match, the creation form. */
  record DevicesView(
      String q,
      List<DeviceRow> devices,
      String empty,
      Map<String, String> licenses,
      Map<String, String> drivers,
      String license,
      String number,
      String driver,
      String csrf) {}

  void devices(Context ctx, ConsoleRoutes.Viewer v) {
    Optional<String> q = Pages.query(ctx, "q");
    Optional<Long> license = Pages.query(ctx, "license").map(TenantPages::parseId);
    Map<Long, String> licenseNames = Pages.licenseNames(deps);
    java.util.function.Function<Device, String> stateOf = Pages.listedStates(deps);
    List<DeviceRow> rows = new ArrayList<>();
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
      rows.add(new DeviceRow(d, licenseNames.getOrDefault(d.licenseId(), ""), stateOf.apply(d)));
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
    Pages.operator(
        ctx,
        v,
        "Devices",
        "devices.jte",
        new DevicesView(
            q.orElse(""),
            rows,
            "No device" + (q.isPresent() || license.isPresent() ? " matches." : " yet."),
            licenses,
            drivers,
            Pages.typed(
                ctx, "/console/devices", "license", license.map(String::valueOf).orElse("")),
            Pages.typed(ctx, "/console/devices", "number", ""),
            Pages.typed(ctx, "/console/devices", "driver", ""),
            v.csrf()));
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
    Optional<OnceShown.Shown> shown = OnceShown.take(ctx, v);
    Pages.operator(
        ctx, v, shown.map(OnceShown.Shown::title).orElse("Nothing to show"), "shown.jte", shown);
  }

  private static String typedLicense(Context ctx, String name, String fallback) {
    return Pages.typed(ctx, "/console/licenses", name, fallback);
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
