package io.kurir.api;

import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/** Guards shared by several API families. */
public final class Guards {
  private Guards() {}

  /** The request carries {@code Authorization: Bearer <token>}; compared in constant time. */
  public static void requireBearer(Context ctx, String token) {
    String header = Optional.ofNullable(ctx.header("Authorization")).orElse("");
    String given =
        header.regionMatches(true, 0, "Bearer ", 0, 7) ? header.substring(7).strip() : "";
    if (!MessageDigest.isEqual(
        given.getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8))) {
      throw new ApiException(
          401, "invalid_admin_token", "send Authorization: Bearer <admin.token>");
    }
  }

  /**
   * Guard: one more request by {@code caller} (the device, push license or partner whose credential
   * the request carries) is within the per-key limit; 429 {@code rate_limited} in the family's
   * style otherwise. Requests from exempt addresses are not counted ({@link RequestGate}).
   */
  public static void countKey(Context ctx, String caller) {
    io.kurir.limit.RequestLimits limits = ctx.attribute(RequestGate.LIMITS);
    if (limits != null) {
      limits.admitKey(caller);
    }
  }

  /** {@link #countKey} for a request carrying one of {@code device}'s credentials. */
  public static void countKey(Context ctx, io.kurir.tenant.Device device) {
    countKey(ctx, "device " + device.id());
  }

  /** {@link #countKey} for a request carrying {@code license}'s code or push key. */
  public static void countKey(Context ctx, io.kurir.tenant.License license) {
    countKey(ctx, "license " + license.id());
  }

  /** The user and secret of {@code Authorization: Basic <base64(user:secret)>}, if well formed. */
  public record BasicCredentials(String user, String secret) {}

  public static Optional<BasicCredentials> basic(Context ctx) {
    String header = Optional.ofNullable(ctx.header("Authorization")).orElse("").strip();
    if (!header.regionMatches(true, 0, "Basic ", 0, 6)) {
      return Optional.empty();
    }
    try {
      String decoded =
          new String(
              java.util.Base64.getDecoder().decode(header.substring(6).strip()),
              StandardCharsets.UTF_8);
      int colon = decoded.indexOf(':');
      return colon < 0
          ? Optional.empty()
          : Optional.of(
              new BasicCredentials(decoded.substring(0, colon), decoded.substring(colon + 1)));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /**
   * The partner whose Basic credentials sign the request: 401 {@code invalid_credentials} when
   * there are none or they are wrong, 403 {@code partner_disabled} when it is switched off.
   */
  public static io.kurir.tenant.Partner requirePartner(
      Context ctx, io.kurir.tenant.Tenants tenants) {
    BasicCredentials credentials =
        basic(ctx)
            .orElseThrow(
                () -> new ApiException(401, "invalid_credentials", "send Basic credentials"));
    try {
      io.kurir.tenant.Partner partner =
          tenants.authenticatePartner(credentials.user(), credentials.secret());
      countKey(ctx, "partner " + partner.id());
      return partner;
    } catch (io.kurir.tenant.TenantException e) {
      throw e.reason() == io.kurir.tenant.TenantException.Reason.DISABLED
          ? new ApiException(403, "partner_disabled", e.getMessage())
          : new ApiException(401, "invalid_credentials", e.getMessage());
    }
  }
}
