package io.kurir.driver;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** How drivers check the signatures of their networks' webhooks: one way for every driver. */
public final class Signatures {
  private Signatures() {}

  /** The lower-case hex HMAC of {@code body} with {@code key}, {@code algorithm} as HmacSHA256. */
  public static String hmacHex(String algorithm, String key, byte[] body) {
    try {
      Mac mac = Mac.getInstance(algorithm);
      mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), algorithm));
      return HexFormat.of().formatHex(mac.doFinal(body));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Whether two secrets or signatures are equal, in time that does not tell where they differ. */
  public static boolean same(String a, String b) {
    return MessageDigest.isEqual(
        a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }
}
