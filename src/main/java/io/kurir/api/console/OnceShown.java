package io.kurir.api.console;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import io.javalin.http.Cookie;
import io.javalin.http.SameSite;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Credentials a creation or a rotation made, carried across its redirect (Post/Redirect/Get) and
 * shown once: reloading the page that shows them repeats nothing and shows them no more.
 *
 * <p>They travel in a short-lived HttpOnly cookie, encrypted (AES-GCM) with a key derived from the
 * console session, never in a URL. The session lives in the database, so the node that answers the
 * redirect need not be the one that made the credentials; another session cannot read them.
 */
final class OnceShown {
  static final String COOKIE = "kurir_once";
  static final String PATH = "/console/shown";

  /** Long enough for the redirect; a cookie left behind dies by itself. */
  private static final int MAX_AGE_SECONDS = 300;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SecureRandom RANDOM = new SecureRandom();

  /** A credential: its label ("Key") and its value. */
  record Secret(String label, String value) {}

  /**
   * What the page shows: a title, the credentials, a note under them, an optional link onwards
   * ({@code nextHref} empty for none) and where "Done" goes.
   */
  record Shown(
      String title,
      List<Secret> secrets,
      String note,
      String nextHref,
      String nextText,
      String back) {}

  private OnceShown() {}

  /** Keeps {@code shown} for the next page of this session and redirects to it. */
  static void keep(Context ctx, ConsoleRoutes.Viewer v, Shown shown, boolean secure) {
    try {
      byte[] iv = new byte[12];
      RANDOM.nextBytes(iv);
      Cipher cipher = cipher(Cipher.ENCRYPT_MODE, v, iv);
      byte[] sealed = cipher.doFinal(JSON.writeValueAsBytes(shown));
      byte[] value = new byte[iv.length + sealed.length];
      System.arraycopy(iv, 0, value, 0, iv.length);
      System.arraycopy(sealed, 0, value, iv.length, sealed.length);
      Cookie cookie =
          new Cookie(COOKIE, Base64.getUrlEncoder().withoutPadding().encodeToString(value));
      cookie.setPath("/console");
      cookie.setHttpOnly(true);
      cookie.setSameSite(SameSite.STRICT);
      cookie.setSecure(secure);
      cookie.setMaxAge(MAX_AGE_SECONDS);
      ctx.cookie(cookie);
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new IllegalStateException("cannot seal the credentials to show", e);
    }
    Pages.seeOther(ctx, PATH);
  }

  /** What was kept for this session, once: the cookie is removed as it is read. */
  static Optional<Shown> take(Context ctx, ConsoleRoutes.Viewer v) {
    String raw = ctx.cookie(COOKIE);
    if (raw == null || raw.isBlank()) {
      return Optional.empty();
    }
    ctx.removeCookie(COOKIE, "/console");
    try {
      byte[] value = Base64.getUrlDecoder().decode(raw);
      if (value.length <= 12) {
        return Optional.empty();
      }
      Cipher cipher = cipher(Cipher.DECRYPT_MODE, v, java.util.Arrays.copyOf(value, 12));
      byte[] plain = cipher.doFinal(value, 12, value.length - 12);
      return Optional.of(JSON.readValue(plain, Shown.class));
    } catch (GeneralSecurityException | IllegalArgumentException | java.io.IOException e) {
      return Optional.empty(); // another session's, tampered with, or from an older build
    }
  }

  private static Cipher cipher(int mode, ConsoleRoutes.Viewer v, byte[] iv)
      throws GeneralSecurityException {
    byte[] key =
        MessageDigest.getInstance("SHA-256")
            .digest(
                ("kurir console once-shown\n" + v.session().tokenHash() + "\n" + v.session().csrf())
                    .getBytes(StandardCharsets.UTF_8));
    Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
    cipher.init(mode, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, iv));
    return cipher;
  }
}
