package io.kurir.tenant;

import io.kurir.store.Database;
import io.kurir.store.SecretBox;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The SQL of API keys ({@code api_key}). A key is written as its {@link SecretBox#hash} and looked
 * up by it, as a license's code and push key are: rows read back carry no key.
 */
final class ApiKeyStore {
  private final Database db;

  ApiKeyStore(Database db) {
    this.db = db;
  }

  void insert(ApiKey k, String key) {
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "INSERT INTO api_key (id, license_id, name, key_hash, scopes, created_at)"
                            + " VALUES (?, ?, ?, ?, ?, ?)")
                    .bind(0, k.id())
                    .bind(1, k.licenseId())
                    .bind(2, k.name())
                    .bind(3, SecretBox.hash(key))
                    .bind(4, scopes(k))
                    .bind(5, k.createdAt().toEpochMilli())
                    .execute());
  }

  /** The license's keys not revoked, oldest first. */
  List<ApiKey> activeOf(long licenseId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT * FROM api_key WHERE license_id = ? AND revoked_at IS NULL"
                            + " ORDER BY id")
                    .bind(0, licenseId)
                    .map((rs, ctx) -> row(rs))
                    .list());
  }

  /** The key that is not revoked whose hash is that of {@code key}. */
  Optional<ApiKey> activeByKey(String key) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM api_key WHERE key_hash = ? AND revoked_at IS NULL")
                    .bind(0, SecretBox.hash(key))
                    .map((rs, ctx) -> row(rs))
                    .findOne());
  }

  /** Revokes the license's key {@code id}; false when it has no such key not yet revoked. */
  boolean revoke(long licenseId, long id, Instant at) {
    return db.writes()
            .write(
                h ->
                    h.createUpdate(
                            "UPDATE api_key SET revoked_at = ? WHERE id = ? AND license_id = ?"
                                + " AND revoked_at IS NULL")
                        .bind(0, at.toEpochMilli())
                        .bind(1, id)
                        .bind(2, licenseId)
                        .execute())
        > 0;
  }

  private static String scopes(ApiKey k) {
    return k.scopes().stream().sorted().map(ApiScope::wireName).collect(Collectors.joining(","));
  }

  private static ApiKey row(ResultSet rs) throws SQLException {
    long revoked = rs.getLong("revoked_at");
    boolean notRevoked = rs.wasNull();
    return new ApiKey(
        rs.getLong("id"),
        rs.getLong("license_id"),
        rs.getString("name"),
        Arrays.stream(rs.getString("scopes").split(","))
            .map(ApiScope::parse)
            .flatMap(java.util.Set::stream)
            .collect(Collectors.toSet()),
        Instant.ofEpochMilli(rs.getLong("created_at")),
        notRevoked ? Optional.empty() : Optional.of(Instant.ofEpochMilli(revoked)),
        Optional.empty());
  }
}
