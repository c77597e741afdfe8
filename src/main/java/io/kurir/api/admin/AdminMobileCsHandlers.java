package io.kurir.api.admin;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.api.RequestFields;
import io.kurir.tenant.MobileCs;
import io.kurir.time.Timestamps;
import java.util.LinkedHashMap;
import java.util.Map;

/** Mobile CS entries of a license: list, add, remove. */
final class AdminMobileCsHandlers {
  private final MobileCs mobileCs;
  private final Timestamps timestamps;
  private final io.kurir.tenant.Tenants tenants;

  AdminMobileCsHandlers(MobileCs mobileCs, io.kurir.tenant.Tenants tenants, Timestamps timestamps) {
    this.mobileCs = mobileCs;
    this.tenants = tenants;
    this.timestamps = timestamps;
  }

  void list(Context ctx, long licenseId) {
    tenants.license(licenseId); // 404 for a license that does not exist
    ctx.json(mobileCs.of(licenseId).stream().map(this::view).toList());
  }

  /** {@code {device, name, playerId, handsetId}}: the device must be one of the license's. */
  void add(Context ctx, long licenseId) {
    RequestFields f = RequestFields.of(ctx);
    String device = f.required("device").strip();
    if (!device.matches("\\d{1,18}")) {
      throw ApiException.fieldNotValid("device", "device is a device id");
    }
    MobileCs.Entry e =
        mobileCs.add(
            licenseId,
            Long.parseLong(device),
            f.required("name"),
            f.required("playerId"),
            f.required("handsetId"));
    ctx.status(201).json(view(e));
  }

  void remove(Context ctx, long id) {
    if (!mobileCs.remove(id)) {
      throw ApiException.notFound("no mobile CS entry " + id);
    }
    ctx.status(204);
  }

  private Map<String, Object> view(MobileCs.Entry e) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("id", Long.toString(e.id()));
    v.put("license", Long.toString(e.licenseId()));
    v.put("device", Long.toString(e.deviceId()));
    v.put("name", e.name());
    v.put("playerId", e.playerId());
    v.put("handsetId", e.handsetId());
    v.put("createdAt", timestamps.reply(e.createdAt()));
    return v;
  }
}
