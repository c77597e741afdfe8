package io.kurir.api.eco;

import io.javalin.config.RoutesConfig;
import io.kurir.api.ApiException;
import io.kurir.api.ErrorStyle;
import io.kurir.api.RequestFields;
import io.kurir.api.RouteTable;
import io.kurir.tenant.Device;
import io.kurir.tenant.TenantException;
import io.kurir.tenant.Tenants;

/**
 * The Eco API ({@code /api/}): every endpoint on one screen. Each call names its device with the
 * {@code key} field; {@link #requireKey} is the guard.
 */
public final class EcoRoutes implements RouteTable {
  private final Tenants tenants;
  private final EcoMessageHandlers messages;

  public EcoRoutes(Tenants tenants, EcoMessageHandlers messages) {
    this.tenants = tenants;
    this.messages = messages;
  }

  @Override
  public String pathPrefix() {
    return "/api/";
  }

  @Override
  public ErrorStyle errorStyle() {
    return ErrorStyle.PLAIN_TOKEN;
  }

  @Override
  public void addTo(RoutesConfig routes) {
    routes.post("/api/send_message", ctx -> messages.sendMessage(ctx, request(ctx)));
    routes.post("/api/async_send_message", ctx -> messages.asyncSendMessage(ctx, request(ctx)));
    routes.post("/api/status_msg_id", ctx -> messages.statusMsgId(ctx, request(ctx)));
    routes.post("/api/check_number", ctx -> messages.checkNumber(ctx, request(ctx)));
    routes.post(
        "/api/check_delivery_status", ctx -> messages.checkDeliveryStatus(ctx, request(ctx)));
  }

  /** The request's fields and the device its key names. */
  private EcoRequest request(io.javalin.http.Context ctx) {
    RequestFields fields = RequestFields.of(ctx);
    return new EcoRequest(fields, requireKey(fields));
  }

  /** Guard: the {@code key} field names a device that may be used today. */
  private Device requireKey(RequestFields fields) {
    String key = fields.required("key").strip();
    try {
      return tenants.deviceForEcoKey(key);
    } catch (TenantException e) {
      throw switch (e.reason()) {
        case DISABLED -> new ApiException(403, "key_disabled", e.getMessage());
        case EXPIRED -> new ApiException(403, "license_expired", e.getMessage());
        default -> new ApiException(401, "invalid_key", "no device has this key");
      };
    }
  }

  /** A parsed Eco request: its fields and the device of its key. */
  record EcoRequest(RequestFields fields, Device device) {}
}
