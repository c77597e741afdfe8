package io.kurir.api.eco;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.kurir.api.ClientAddress;
import io.kurir.api.ErrorCatalogue;
import io.kurir.api.ErrorStyle;
import io.kurir.api.Guards;
import io.kurir.api.RequestFields;
import io.kurir.api.RouteTable;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import java.util.List;

/**
 * The Eco API ({@code /api/}): every endpoint on one screen. Each call names its device with the
 * {@code key} field; {@link #requireKey} is the guard.
 */
public final class EcoRoutes implements RouteTable {
  private final Tenants tenants;
  private final EcoMessageHandlers messages;
  private final EcoMediaHandlers media;
  private final EcoUploadHandlers uploads;
  private final EcoGroupHandlers groups;
  private final EcoReportHandlers reports;
  private final EcoDeviceHandlers devices;
  private final EcoScheduleHandlers schedules;
  private final List<String> trustedProxies;
  private final ErrorCatalogue errors;

  public EcoRoutes(
      Tenants tenants,
      EcoMessageHandlers messages,
      EcoMediaHandlers media,
      EcoUploadHandlers uploads,
      EcoGroupHandlers groups,
      EcoReportHandlers reports,
      EcoDeviceHandlers devices,
      EcoScheduleHandlers schedules,
      List<String> trustedProxies) {
    this.tenants = tenants;
    this.messages = messages;
    this.media = media;
    this.uploads = uploads;
    this.groups = groups;
    this.reports = reports;
    this.devices = devices;
    this.schedules = schedules;
    this.trustedProxies = trustedProxies;
    this.errors = EcoErrors.catalogue(schedules.maxKb());
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
  public ErrorCatalogue errors() {
    return errors;
  }

  @Override
  public void addTo(RoutesConfig routes) {
    routes.post("/api/send_message", requireKey(messages::sendMessage));
    routes.post("/api/async_send_message", requireKey(messages::asyncSendMessage));
    routes.post("/api/status_msg_id", requireKeyToRead(messages::statusMsgId));
    routes.post("/api/check_number", requireKey(messages::checkNumber));
    routes.post("/api/check_delivery_status", requireKeyToRead(messages::checkDeliveryStatus));
    routes.post("/api/upload/{key}", requireKeyInPath(uploads::uploadByPath));
    routes.post("/api/upload", requireKey(uploads::upload));
    routes.post("/api/send_image", requireKey(uploads::sendImage));
    routes.post("/api/send_image_url", requireKey(media::sendImageUrl));
    routes.post("/api/async_send_image_url", requireKey(media::asyncSendImageUrl));
    routes.post("/api/send_file_url", requireKey(media::sendFileUrl));
    routes.post("/api/async_send_file_url", requireKey(media::asyncSendFileUrl));
    routes.post("/api/send_image_url_group_id", requireKey(media::sendImageUrlGroupId));
    routes.post("/api/async_send_image_url_group_id", requireKey(media::asyncSendImageUrlGroupId));
    routes.post("/api/send_file_url_group_id", requireKey(media::sendFileUrlGroupId));
    routes.post("/api/async_send_file_url_group_id", requireKey(media::asyncSendFileUrlGroupId));
    routes.post("/api/send_group", requireKey(groups::sendGroup));
    routes.post("/api/async_send_group", requireKey(groups::asyncSendGroup));
    routes.post("/api/send_message_group_id", requireKey(groups::sendMessageGroupId));
    routes.post("/api/async_send_message_group_id", requireKey(groups::asyncSendMessageGroupId));
    routes.post("/api/getGroupMember", requireKey(groups::getGroupMember));
    routes.post("/api/report_json", requireKeyToRead(reports::reportJson));
    routes.post("/api/scheduler", requireKey(schedules::scheduler));
    routes.post("/api/sch_check", requireKeyToRead(schedules::schCheck));
    routes.post("/api/sch_remove", requireKeyToRead(schedules::schRemove));
    routes.post("/api/info", requireKey(fromAllowedAddress(devices::info)));
    routes.post("/api/qr_status", requireKey(fromAllowedAddress(devices::qrStatus)));
    routes.post("/api/logout", requireKey(fromAllowedAddress(devices::logout)));
    routes.post("/api/generate_qr", requireKey(fromAllowedAddress(devices::generateQr)));
    routes.post("/api/webhook_status", requireKey(fromAllowedAddress(devices::webhookStatus)));
  }

  /** An Eco handler: it gets the request's fields and the device its key names. */
  @FunctionalInterface
  interface EcoHandler {
    void handle(Context ctx, EcoRequest request) throws Exception;
  }

  /** Guard: the {@code key} field names a device that may be used today. */
  private Handler requireKey(EcoHandler handler) {
    return ctx -> {
      RequestFields fields = RequestFields.of(ctx);
      Device device = deviceOf(fields);
      Guards.countKey(ctx, device);
      handler.handle(ctx, new EcoRequest(fields, device));
    };
  }

  /**
   * Guard for reading (and cancelling schedules): as {@link #requireKey}, but a device whose
   * license expired passes, so that customers keep their history and reports.
   */
  private Handler requireKeyToRead(EcoHandler handler) {
    return ctx -> {
      RequestFields fields = RequestFields.of(ctx);
      String key = fields.required("key").strip();
      Device device = tenants.deviceForEcoKeyToRead(key);
      Guards.countKey(ctx, device);
      handler.handle(ctx, new EcoRequest(fields, device));
    };
  }

  /**
   * Guard for device operations: the caller's address is allowed by the device's license, else the
   * contract's {@code not_valid_ip}. The caller's address is the connection's, or, behind one of
   * {@code http.trusted-proxies}, the one it forwarded ({@link ClientAddress}).
   */
  private EcoHandler fromAllowedAddress(EcoHandler handler) {
    return (ctx, req) -> {
      if (!tenants.isAllowedFrom(req.device(), ClientAddress.of(ctx, trustedProxies))) {
        EcoMessageHandlers.plain(ctx, "not_valid_ip");
        return;
      }
      handler.handle(ctx, req);
    };
  }

  /** Guard: the {@code {key}} path segment names a device that may be used today. */
  private Handler requireKeyInPath(EcoHandler handler) {
    return ctx -> {
      Device device = deviceOfKey(ctx.pathParam("key").strip());
      Guards.countKey(ctx, device);
      handler.handle(ctx, new EcoRequest(RequestFields.of(ctx), device));
    };
  }

  private Device deviceOf(RequestFields fields) {
    return deviceOfKey(fields.required("key").strip());
  }

  private Device deviceOfKey(String key) {
    return tenants.deviceForEcoKey(key);
  }

  /** A parsed Eco request: its fields and the device of its key. */
  record EcoRequest(RequestFields fields, Device device) {}
}
