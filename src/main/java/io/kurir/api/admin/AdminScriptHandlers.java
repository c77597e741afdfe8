package io.kurir.api.admin;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.api.RequestFields;
import io.kurir.clients.ScriptGenerator;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.MobileCs;
import io.kurir.tenant.Tenants;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code GET /admin/devices/{id}/script}: a spreadsheet script for a device, ready to paste, with
 * its credentials, the number's column and the template filled in.
 */
final class AdminScriptHandlers {
  private final Tenants tenants;
  private final MobileCs mobileCs;
  private final String pushAppId;
  private final Optional<String> publicUrl;

  AdminScriptHandlers(
      Tenants tenants, MobileCs mobileCs, String pushAppId, Optional<String> publicUrl) {
    this.tenants = tenants;
    this.mobileCs = mobileCs;
    this.pushAppId = pushAppId;
    this.publicUrl = publicUrl;
  }

  /**
   * Fields: {@code script} ({@code eco-async}, {@code push-v1}, {@code multi-type}), {@code
   * kolom_no_wa}, {@code template}, optional {@code base_url} (default: the {@code public.url}
   * setting; without either the script is refused, naming the setting: the address this request
   * came to, often 127.0.0.1 or an internal name, is not one Google's servers can reach), and for
   * {@code multi-type} its {@code type} ({@code eco}, {@code mobile_v1}, {@code mobile_v2}, {@code
   * crm}). Push scripts send through the device's first mobile CS entry.
   *
   * <p>Push scripts also take the license's {@code push_key}, and a {@code crm} script the device's
   * {@code crm_device_id}: both are stored as hashes, so Kurir cannot fill them in; the one given
   * must be the license's or device's (it was shown when it was made or rotated).
   */
  void script(Context ctx, long deviceId) {
    RequestFields f = RequestFields.of(ctx);
    Device device = tenants.device(deviceId);
    License license = tenants.license(device.licenseId());
    String script = f.required("script").strip().toLowerCase(Locale.ROOT);
    if (!ScriptGenerator.SCRIPTS.contains(script)) {
      throw ApiException.fieldNotValid("script", "script is one of " + ScriptGenerator.SCRIPTS);
    }
    String column = f.required("kolom_no_wa").strip();
    if (!column.matches("[1-9]\\d{0,2}")) {
      throw ApiException.fieldNotValid("kolom_no_wa", "kolom_no_wa is a column number");
    }
    Map<String, Object> settings = new LinkedHashMap<>();
    String baseUrl =
        f.text("base_url")
            .or(() -> publicUrl)
            .orElseThrow(
                () ->
                    new ApiException(
                        409,
                        "public_url_not_set",
                        "set public.url (KURIR_PUBLIC_URL) to the gateway's address as Google's"
                            + " servers reach it over HTTPS, such as https://kurir.example.com;"
                            + " the script sends there"))
            .strip();
    settings.put("base_url", baseUrl);
    settings.put("kolom_no_wa", Integer.parseInt(column));
    settings.put("template", f.required("template"));
    switch (script) {
      case "eco-async" -> settings.put("key", device.ecoKey());
      case "push-v1" -> {
        settings.put("push_key", given(f, "push_key", license.pushKey(), "the license's push key"));
        settings.put("app_id", pushAppId);
        settings.put("include_player_ids", handset(device).playerId());
      }
      default -> {
        String type = f.text("type").orElse("eco").strip().toLowerCase(Locale.ROOT);
        settings.put("type", type);
        settings.put("app_id", pushAppId);
        switch (type) {
          case "eco" -> settings.put("key", device.ecoKey());
          case "crm" ->
              settings.put(
                  "key", given(f, "crm_device_id", device.crmDeviceId(), "the device's CRM id"));
          case "mobile_v1", "mobile_v2" -> {
            MobileCs.Entry cs = handset(device);
            settings.put("key", type.equals("mobile_v1") ? cs.playerId() : cs.handsetId());
            settings.put(
                "push_key", given(f, "push_key", license.pushKey(), "the license's push key"));
          }
          default ->
              throw ApiException.fieldNotValid("type", "type is eco, mobile_v1, mobile_v2 or crm");
        }
      }
    }
    ctx.contentType("application/javascript; charset=utf-8")
        .result(ScriptGenerator.generate(script, settings));
  }

  /** The credential the caller gave in {@code field}, checked against its stored hash. */
  private static String given(RequestFields f, String field, String stored, String what) {
    String value = f.required(field).strip();
    if (!io.kurir.tenant.Credentials.matches(stored, value)) {
      throw ApiException.fieldNotValid(
          field, field + " is not " + what + " (shown when it was made or rotated)");
    }
    return value;
  }

  private MobileCs.Entry handset(Device device) {
    List<MobileCs.Entry> entries =
        mobileCs.of(device.licenseId()).stream().filter(e -> e.deviceId() == device.id()).toList();
    if (entries.isEmpty()) {
      throw new ApiException(
          409,
          "no_mobile_cs",
          "push scripts send through a mobile CS entry of the device: add one");
    }
    return entries.getFirst();
  }
}
