package io.kurir.store;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * How secrets lie in the database, so that a copy of it hands over none (docs/decisions.md,
 * "Secrets at rest"):
 *
 * <ul>
 *   <li>credentials that are only compared are stored as {@code sha256:<hex>} of their value
 *       ({@link #hash}) and looked up by it: they are long random tokens, so a plain SHA-256 cannot
 *       be reversed by guessing, and a lookup stays one indexed query;
 *   <li>secrets Kurir must use again (webhook signing secrets, driver tokens, the Eco key that the
 *       Partner API's {@code get_key} hands back) are stored as {@code enc:<key id>:<base64 of
 *       nonce and AES-256-GCM ciphertext>} ({@link #seal}), under a key kept outside the database
 *       ({@code secrets.key-file} or {@code KURIR_SECRETS_KEY}). The key id names the key a value
 *       was sealed with, so a wrong key is named at start-up and rotation can find what is left.
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class SecretBox {
  public static final String HASH_PREFIX = "sha256:";
  public static final String SEALED_PREFIX = "enc:";
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretKeySpec key; // null: no key (seal and open refuse)
  private final String keyId;
  // Set when this key first meets a value sealed with another: SecretsKeyChanged is logged once.
  private final java.util.concurrent.atomic.AtomicBoolean keyChangeSeen =
      new java.util.concurrent.atomic.AtomicBoolean();

  private SecretBox(byte[] key) {
    this.key = key == null ? null : new SecretKeySpec(key, "AES");
    this.keyId = key == null ? "" : keyIdOf(key);
  }

  /** A box that seals and opens with {@code key} (32 bytes). */
  public static SecretBox of(byte[] key) {
    if (key.length != 32) {
      throw new IllegalArgumentException("a secrets key is 32 bytes, not " + key.length);
    }
    return new SecretBox(key.clone());
  }

  /** A box without a key: for code that opens a database to read what is not secret. */
  public static SecretBox none() {
    return new SecretBox(null);
  }

  /** 32 random bytes: a new key. */
  public static byte[] newKey() {
    byte[] key = new byte[32];
    RANDOM.nextBytes(key);
    return key;
  }

  /** The short name of a key: the first 8 hex digits of a SHA-256 of it (not the key). */
  public static String keyIdOf(byte[] key) {
    MessageDigest sha = sha256();
    sha.update("kurir secrets key id\0".getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(sha.digest(key)).substring(0, 8);
  }

  /** The name of this box's key; empty when it has none. */
  public String keyId() {
    return keyId;
  }

  public boolean hasKey() {
    return key != null;
  }

  /** How a compared credential is stored and looked up: {@code sha256:<64 hex digits>}. */
  public static String hash(String credential) {
    return HASH_PREFIX
        + HexFormat.of().formatHex(sha256().digest(credential.getBytes(StandardCharsets.UTF_8)));
  }

  /** Whether {@code stored} is a {@link #hash}, not a credential as written by older versions. */
  public static boolean isHashed(String stored) {
    return stored != null && stored.startsWith(HASH_PREFIX);
  }

  /** Whether {@code stored} is {@link #seal sealed}, not a secret as written by older versions. */
  public static boolean isSealed(String stored) {
    return stored != null && stored.startsWith(SEALED_PREFIX);
  }

  /** The id of the key {@code sealed} was sealed with. */
  public static String keyIdOfSealed(String sealed) {
    int end = sealed.indexOf(':', SEALED_PREFIX.length());
    return end < 0 ? "" : sealed.substring(SEALED_PREFIX.length(), end);
  }

  /** {@code secret} encrypted with a fresh random nonce; null stays null. */
  public String seal(String secret) {
    if (secret == null) {
      return null;
    }
    requireKey();
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
      byte[] text = cipher.doFinal(secret.getBytes(StandardCharsets.UTF_8));
      byte[] out = new byte[nonce.length + text.length];
      System.arraycopy(nonce, 0, out, 0, nonce.length);
      System.arraycopy(text, 0, out, nonce.length, text.length);
      return SEALED_PREFIX
          + keyId
          + ":"
          + Base64.getUrlEncoder().withoutPadding().encodeToString(out);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot encrypt a secret: " + e.getMessage(), e);
    }
  }

  /**
   * The secret in {@code sealed}; null stays null. A value sealed with another key fails with
   * {@link SecretsKeyChanged}, naming both keys' ids.
   */
  public String open(String sealed) {
    if (sealed == null) {
      return null;
    }
    if (!isSealed(sealed)) {
      throw new IllegalStateException("a stored secret is not encrypted; restart the gateway");
    }
    requireKey();
    String id = keyIdOfSealed(sealed);
    if (!id.equals(keyId)) {
      throw new SecretsKeyChanged(
          "a stored secret was encrypted with key "
              + id
              + ", not with this gateway's key "
              + keyId
              + ": the secrets key was rotated while it ran; restart it with the new key"
              + " (docs/operations.md, \"The secrets key\")",
          keyChangeSeen.compareAndSet(false, true));
    }
    byte[] in =
        Base64.getUrlDecoder().decode(sealed.substring(SEALED_PREFIX.length() + id.length() + 1));
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, in, 0, NONCE_BYTES));
      byte[] text = cipher.doFinal(in, NONCE_BYTES, in.length - NONCE_BYTES);
      return new String(text, StandardCharsets.UTF_8);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("a stored secret cannot be decrypted: it was altered", e);
    }
  }

  private void requireKey() {
    if (key == null) {
      throw new IllegalStateException("no secrets key: set secrets.key-file or KURIR_SECRETS_KEY");
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
