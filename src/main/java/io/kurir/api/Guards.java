package io.kurir.api;

import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/** Guards shared by Kurir's own APIs. */
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
}
