package io.kurir.api.push;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.api.Guards;
import io.kurir.tenant.License;
import io.kurir.tenant.TenantException;
import io.kurir.tenant.Tenants;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The push families' credential: a license's push key, sent as {@code Authorization: Basic <key>}
 * (as OneSignal clients send their REST key), {@code Basic base64(<license code>:<key>)}, {@code
 * Bearer <key>}, or {@code key=<key>} (as FCM legacy clients send theirs). A caller reaches only
 * the handsets of its own license.
 */
final class PushCredentials {
  private final Tenants tenants;

  PushCredentials(Tenants tenants) {
    this.tenants = tenants;
  }

  /** The caller's license, usable today; 401/403 in the family's style otherwise. */
  License license(Context ctx) {
    License license = null;
    TenantException refused = null;
    for (String key : candidateKeys(ctx)) {
      try {
        license = tenants.licenseForPushKey(key);
        break;
      } catch (TenantException e) {
        refused = refused == null || e.reason() == TenantException.Reason.DISABLED ? e : refused;
      }
    }
    if (license == null) {
      throw refused != null && refused.reason() == TenantException.Reason.DISABLED
          ? new ApiException(403, "license_disabled", refused.getMessage())
          : new ApiException(401, "invalid_push_key", "no license has this push key");
    }
    tenants.requireNotExpired(license); // answered by the family's catalogue (PushErrors)
    Guards.countKey(ctx, license);
    return license;
  }

  /** What the header may carry as the key, most likely first. */
  private static List<String> candidateKeys(Context ctx) {
    String header = Optional.ofNullable(ctx.header("Authorization")).orElse("").strip();
    List<String> keys = new ArrayList<>();
    if (header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      keys.add(header.substring(7).strip());
    } else if (header.regionMatches(true, 0, "key=", 0, 4)) {
      keys.add(header.substring(4).strip());
    } else if (header.regionMatches(true, 0, "Basic ", 0, 6)) {
      keys.add(header.substring(6).strip()); // the key itself, as OneSignal clients send theirs
      Guards.basic(ctx).map(Guards.BasicCredentials::secret).ifPresent(keys::add);
    }
    keys.removeIf(String::isEmpty);
    return keys;
  }
}
