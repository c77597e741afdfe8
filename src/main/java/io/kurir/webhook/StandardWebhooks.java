package io.kurir.webhook;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signing scheme of the Standard Webhooks specification (standardwebhooks.com, its {@code
 * spec/standard-webhooks.md}), which subscriptions' deliveries use: a secret {@code whsec_<base64
 * of 24 random bytes>}, and {@code webhook-signature: v1,<base64 of HMAC-SHA256 of "<webhook-id>.<
 * webhook-timestamp>.<body>">} keyed with the base64-decoded part after {@code whsec_}.
 *
 * <p>Thread-safe (stateless).
 */
final class StandardWebhooks {
  static final String SECRET_PREFIX = "whsec_";

  /** 24 bytes: the spec asks for between 24 and 64. */
  private static final int SECRET_BYTES = 24;

  private static final SecureRandom RANDOM = new SecureRandom();

  private StandardWebhooks() {}

  /** A new secret, {@code whsec_} and the base64 of fresh random bytes. */
  static String newSecret() {
    byte[] key = new byte[SECRET_BYTES];
    RANDOM.nextBytes(key);
    return SECRET_PREFIX + Base64.getEncoder().encodeToString(key);
  }

  /** The {@code webhook-signature} header's value: {@code v1,} and the base64 HMAC. */
  static String signature(String secret, String id, String timestamp, String body) {
    byte[] key = Base64.getDecoder().decode(secret.substring(SECRET_PREFIX.length()));
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      byte[] signed =
          mac.doFinal((id + "." + timestamp + "." + body).getBytes(StandardCharsets.UTF_8));
      return "v1," + Base64.getEncoder().encodeToString(signed);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
