package io.kurir.tenant;

import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * An API key of a license, for Kurir's own API ({@code /v1}).
 *
 * @param key the key itself only in the record answered by creation (shown once); empty in a record
 *     read back, where only its hash is stored
 * @param revokedAt when it was revoked; a revoked key authenticates no more
 */
public record ApiKey(
    long id,
    long licenseId,
    String name,
    Set<ApiScope> scopes,
    Instant createdAt,
    Optional<Instant> revokedAt,
    Optional<String> key) {

  public ApiKey {
    scopes = Set.copyOf(scopes);
  }
}
