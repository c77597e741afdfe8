package io.kurir.tenant;

import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.tenant.TenantException.Reason;
import java.time.Clock;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A license's API keys for Kurir's own API: created (the key answered once), listed, revoked, and
 * the bearer token of a request turned into its {@link ApiCaller}. A device's Eco key is a bearer
 * token too, for that device alone.
 *
 * <p>Thread-safe.
 */
public final class ApiKeys {
  /** What every API key starts with, so that it is told from a device's Eco key at a glance. */
  public static final String PREFIX = "kurir_";

  /** Random characters after {@link #PREFIX}: 40 characters is about 238 bits. */
  private static final int RANDOM_LENGTH = 40;

  private static final int MAX_NAME = 100;

  private final ApiKeyStore store;
  private final IdGenerator ids;
  private final Clock clock;
  private final Tenants tenants;
  // Each request authenticates: the key, its license and partner are read once per key and kept
  // like a device's Eco key ({@link Tenants#ACCESS_CACHE_TTL}); a revoke or a change through this
  // process clears them at once, another node's within the TTL.
  private final AccessCache<KeyAccess> byKey = new AccessCache<>(Tenants.ACCESS_CACHE_TTL);

  private record KeyAccess(ApiKey key, License license, Partner partner) {}

  ApiKeys(Database db, IdGenerator ids, Clock clock, Tenants tenants) {
    this.store = new ApiKeyStore(db);
    this.ids = ids;
    this.clock = clock;
    this.tenants = tenants;
  }

  /**
   * A new key of license {@code licenseId} named {@code name} with {@code scopes}; the record
   * answered carries the key, the only time it is readable.
   *
   * @throws TenantException {@code NOT_FOUND} (no such license) or {@code INVALID} (no name)
   */
  public ApiKey create(long licenseId, String name, Set<ApiScope> scopes) {
    tenants.license(licenseId);
    String n = name == null ? "" : name.strip();
    if (n.isEmpty() || n.length() > MAX_NAME) {
      throw new TenantException(Reason.INVALID, "name a key in 1 to " + MAX_NAME + " characters");
    }
    if (scopes.isEmpty()) {
      throw new TenantException(Reason.INVALID, "name at least one scope");
    }
    String key = PREFIX + Secrets.random(RANDOM_LENGTH);
    ApiKey made =
        new ApiKey(
            ids.next(), licenseId, n, scopes, clock.instant(), Optional.empty(), Optional.of(key));
    store.insert(made, key);
    return made;
  }

  /**
   * The license's keys that are not revoked, oldest first, without the keys themselves.
   *
   * @throws TenantException {@code NOT_FOUND} (no such license)
   */
  public List<ApiKey> of(long licenseId) {
    tenants.license(licenseId);
    return store.activeOf(licenseId);
  }

  /**
   * Revokes key {@code keyId} of license {@code licenseId}: it stops working at once.
   *
   * @throws TenantException {@code NOT_FOUND} when the license has no such key not yet revoked
   */
  public void revoke(long licenseId, long keyId) {
    tenants.license(licenseId);
    boolean revoked = store.revoke(licenseId, keyId, clock.instant());
    forgetAccess();
    if (!revoked) {
      throw new TenantException(
          Reason.NOT_FOUND, "license " + licenseId + " has no API key " + keyId);
    }
  }

  /** Keys are read again at their next use (a change to a key, license or partner). */
  void forgetAccess() {
    byKey.clear();
  }

  /**
   * Who {@code bearer} is: a license's key that is not revoked, with its scopes, or a device's Eco
   * key, with every scope for that device. Its license and partner must be switched on; whether an
   * expired license may still do what it asks is the caller's ({@link Tenants#requireNotExpired}):
   * as in the Eco API, an expired license may still read its history.
   *
   * @throws TenantException {@code NOT_FOUND} for a key nobody has (or had, before revoking it),
   *     {@code DISABLED} for a switched-off device, license or partner
   */
  public ApiCaller caller(String bearer) {
    if (bearer == null || bearer.isBlank()) {
      throw new TenantException(Reason.NOT_FOUND, "no key");
    }
    if (bearer.startsWith(PREFIX)) {
      KeyAccess access = byKey.get(bearer, this::loadKeyAccess);
      if (access.license().disabled() || access.partner().disabled()) {
        throw new TenantException(Reason.DISABLED, "the license is switched off");
      }
      return new ApiCaller(
          access.license(),
          Optional.empty(),
          access.key().scopes(),
          Optional.of(access.key().id()));
    }
    Device device = tenants.deviceForEcoKeyToRead(bearer);
    return new ApiCaller(
        tenants.license(device.licenseId()),
        Optional.of(device),
        EnumSet.allOf(ApiScope.class),
        Optional.empty());
  }

  private KeyAccess loadKeyAccess(String bearer) {
    ApiKey key =
        store
            .activeByKey(bearer)
            .orElseThrow(() -> new TenantException(Reason.NOT_FOUND, "unknown key"));
    License license = tenants.license(key.licenseId());
    return new KeyAccess(key, license, tenants.partner(license.partnerId()));
  }
}
