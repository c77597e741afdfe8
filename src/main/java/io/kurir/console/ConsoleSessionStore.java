package io.kurir.console;

import io.kurir.store.Database;
import java.time.Instant;
import java.util.Optional;

/** The SQL of console sign-ins ({@code console_session}). */
final class ConsoleSessionStore {
  private final Database db;

  ConsoleSessionStore(Database db) {
    this.db = db;
  }

  void insert(ConsoleSessions.Session s, Instant createdAt) {
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "INSERT INTO console_session (token_hash, license_id, csrf, created_at,"
                            + " expires_at) VALUES (?, ?, ?, ?, ?)")
                    .bind(0, s.tokenHash())
                    .bind(1, s.licenseId().orElse(null))
                    .bind(2, s.csrf())
                    .bind(3, createdAt.toEpochMilli())
                    .bind(4, s.expiresAt().toEpochMilli())
                    .execute());
  }

  Optional<ConsoleSessions.Session> find(String tokenHash, Instant now) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT token_hash, license_id, csrf, expires_at FROM console_session"
                            + " WHERE token_hash = ? AND expires_at > ?")
                    .bind(0, tokenHash)
                    .bind(1, now.toEpochMilli())
                    .map(
                        (rs, c) -> {
                          // getObject: a null column is no license (getLong would say 0)
                          Object license = rs.getObject("license_id");
                          return new ConsoleSessions.Session(
                              rs.getString("token_hash"),
                              license == null
                                  ? Optional.empty()
                                  : Optional.of(((Number) license).longValue()),
                              rs.getString("csrf"),
                              Instant.ofEpochMilli(rs.getLong("expires_at")));
                        })
                    .findOne());
  }

  void delete(String tokenHash) {
    db.writes()
        .write(
            h ->
                h.createUpdate("DELETE FROM console_session WHERE token_hash = ?")
                    .bind(0, tokenHash)
                    .execute());
  }

  void deleteExpired(Instant now) {
    db.writes()
        .write(
            h ->
                h.createUpdate("DELETE FROM console_session WHERE expires_at <= ?")
                    .bind(0, now.toEpochMilli())
                    .execute());
  }
}
