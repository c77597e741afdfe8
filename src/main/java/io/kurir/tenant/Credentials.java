package io.kurir.tenant;

import io.kurir.store.SecretBox;
import java.util.Optional;

/** What people may be shown of a stored credential. */
public final class Credentials {
  private Credentials() {}

  /**
   * {@code credential} when it is readable (a record answered by creation or rotation), empty when
   * it is the hash a record read back carries: shown once, never again.
   */
  public static Optional<String> shown(String credential) {
    return credential == null || SecretBox.isHashed(credential)
        ? Optional.empty()
        : Optional.of(credential);
  }

  /** Whether {@code presented} is the credential whose stored form is {@code stored}. */
  public static boolean matches(String stored, String presented) {
    return stored != null
        && presented != null
        && java.security.MessageDigest.isEqual(
            stored.getBytes(java.nio.charset.StandardCharsets.UTF_8),
            (SecretBox.isHashed(stored) ? SecretBox.hash(presented) : presented)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }
}
