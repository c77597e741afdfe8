package io.kurir.api.admin;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.kurir.api.ApiException;
import io.kurir.api.ErrorStyle;
import io.kurir.api.Guards;
import io.kurir.api.RequestFields;
import io.kurir.api.RouteTable;
import io.kurir.tenant.TenantException;
import io.kurir.tenant.TenantViews;
import io.kurir.tenant.Tenants;
import io.kurir.tenant.Tenants.Credential;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Kurir's own Admin API ({@code /admin/}, JSON, {@code Authorization: Bearer <admin.token>}):
 * partners, licenses and devices. {@code ./kurir admin} does the same from the command line.
 */
public final class AdminRoutes implements RouteTable {
  private final Tenants tenants;
  private final TenantViews views;
  private final Optional<String> adminToken;

  public AdminRoutes(Tenants tenants, TenantViews views, Optional<String> adminToken) {
    this.tenants = tenants;
    this.views = views;
    this.adminToken = adminToken;
  }

  @Override
  public String pathPrefix() {
    return "/admin/";
  }

  @Override
  public ErrorStyle errorStyle() {
    return ErrorStyle.KURIR_JSON;
  }

  @Override
  public void addTo(RoutesConfig r) {
    r.get(
        "/admin/partners",
        admin(ctx -> ctx.json(tenants.partners().stream().map(views::of).toList())));
    r.post("/admin/partners", admin(this::createPartner));
    r.post("/admin/partners/{id}/disable", admin(ctx -> tenants.setPartnerDisabled(id(ctx), true)));
    r.post("/admin/partners/{id}/enable", admin(ctx -> tenants.setPartnerDisabled(id(ctx), false)));
    r.post(
        "/admin/partners/{id}/rotate-secret",
        admin(ctx -> ctx.json(views.of(tenants.rotatePartnerSecret(id(ctx))))));

    r.get(
        "/admin/licenses",
        admin(ctx -> ctx.json(tenants.licenses().stream().map(views::of).toList())));
    r.post("/admin/licenses", admin(this::createLicense));
    r.post("/admin/licenses/{id}/disable", admin(ctx -> tenants.setLicenseDisabled(id(ctx), true)));
    r.post("/admin/licenses/{id}/enable", admin(ctx -> tenants.setLicenseDisabled(id(ctx), false)));

    r.get(
        "/admin/devices",
        admin(ctx -> ctx.json(tenants.devices().stream().map(views::of).toList())));
    r.post("/admin/devices", admin(this::createDevice));
    r.post("/admin/devices/{id}/disable", admin(ctx -> tenants.setDeviceDisabled(id(ctx), true)));
    r.post("/admin/devices/{id}/enable", admin(ctx -> tenants.setDeviceDisabled(id(ctx), false)));
    r.post("/admin/devices/{id}/rotate", admin(this::rotate));
  }

  private void createPartner(Context ctx) {
    RequestFields f = RequestFields.of(ctx);
    ctx.status(201)
        .json(views.of(tenants.createPartner(f.required("name"), f.text("email").orElse(""))));
  }

  private void createLicense(Context ctx) {
    RequestFields f = RequestFields.of(ctx);
    long partner = parseId(f.required("partner"), "partner");
    LocalDate expires = f.text("expires").map(AdminRoutes::date).orElse(null);
    List<String> allowed =
        f.textOf("allowed", "allow").map(a -> Arrays.asList(a.split(","))).orElse(List.of());
    ctx.status(201)
        .json(
            views.of(
                tenants.createLicense(
                    partner, f.required("name"), f.text("email").orElse(""), expires, allowed)));
  }

  private void createDevice(Context ctx) {
    RequestFields f = RequestFields.of(ctx);
    long license = parseId(f.required("license"), "license");
    ctx.status(201)
        .json(
            views.of(
                tenants.createDevice(
                    license, f.required("number"), f.text("driver").orElse("sandbox"))));
  }

  private void rotate(Context ctx) {
    RequestFields f = RequestFields.of(ctx);
    Credential credential = Credential.parse(f.text("credential").orElse("key"));
    ctx.json(views.of(tenants.rotate(id(ctx), credential)));
  }

  /** Guard: the bearer token is the configured admin token. */
  private Handler admin(Handler handler) {
    return ctx -> {
      if (adminToken.isEmpty()) {
        throw new ApiException(403, "admin_disabled", "set admin.token to use the Admin API");
      }
      Guards.requireBearer(ctx, adminToken.get());
      try {
        handler.handle(ctx);
        if (ctx.result() == null && ctx.resultInputStream() == null) {
          ctx.json(Map.of("status", "ok")); // one field: its order cannot vary
        }
      } catch (TenantException e) {
        throw toApi(e);
      }
    };
  }

  static ApiException toApi(TenantException e) {
    return switch (e.reason()) {
      case NOT_FOUND -> new ApiException(404, "not_found", e.getMessage());
      case INVALID -> new ApiException(400, "invalid", e.getMessage());
      case CONFLICT -> new ApiException(409, "conflict", e.getMessage());
      case DISABLED, EXPIRED -> new ApiException(403, "forbidden", e.getMessage());
    };
  }

  private static long id(Context ctx) {
    return parseId(ctx.pathParam("id"), "id");
  }

  private static long parseId(String raw, String field) {
    try {
      return Long.parseLong(raw.strip());
    } catch (NumberFormatException e) {
      throw ApiException.fieldNotValid(field, field + " must be an id (digits)");
    }
  }

  private static LocalDate date(String raw) {
    try {
      return LocalDate.parse(raw.strip());
    } catch (DateTimeParseException e) {
      throw ApiException.fieldNotValid("expires", "expires must be a date YYYY-MM-DD");
    }
  }
}
