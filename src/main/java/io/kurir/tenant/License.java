package io.kurir.tenant;

import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;

/**
 * A customer of a partner. Its devices stop working after {@code expiresOn} (inclusive last day)
 * and, for device operations, answer only the listed source addresses when the list is not empty.
 *
 * <p>{@code code} and {@code pushKey} are stored as hashes: a license read back carries {@code
 * sha256:…} there, and only the license answered by creation or rotation carries them readable
 * ({@link Credentials#shown}). {@code webhookSecret} is kept encrypted and always readable.
 */
public record License(
    long id,
    long partnerId,
    String code,
    String name,
    String email,
    Optional<LocalDate> expiresOn,
    List<String> allowedAddresses,
    boolean disabled,
    Instant createdAt,
    String webhookSecret,
    String pushKey) {

  public boolean expiredOn(LocalDate today) {
    return expiresOn.map(last -> today.isAfter(last)).orElse(false);
  }
}
