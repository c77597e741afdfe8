package io.kurir.bot;

import io.kurir.store.Database;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import org.jdbi.v3.core.statement.StatementContext;

/** The SQL of keyword rules. */
final class BotStore {
  private final Database db;

  BotStore(Database db) {
    this.db = db;
  }

  void insert(BotRule r) {
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "INSERT INTO bot_rule (id, license_id, keyword, match_key, match_type,"
                            + " response, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
                    .bind(0, r.id())
                    .bind(1, r.licenseId())
                    .bind(2, r.keyword())
                    .bind(3, r.matchKey())
                    .bind(4, r.matchType().wireName())
                    .bind(5, r.response())
                    .bind(6, r.createdAt().toEpochMilli())
                    .bind(7, r.createdAt().toEpochMilli())
                    .execute());
  }

  void updateResponse(long id, String response, long at) {
    db.writes()
        .write(
            h ->
                h.createUpdate("UPDATE bot_rule SET response = ?, updated_at = ? WHERE id = ?")
                    .bind(0, response)
                    .bind(1, at)
                    .bind(2, id)
                    .execute());
  }

  /**
   * What changes whenever a license's rules do (a rule added, deleted or changed): a matcher built
   * from rules with the same signature is current.
   */
  String signature(long licenseId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT COUNT(*) || '/' || COALESCE(MAX(id), 0) || '/'"
                            + " || COALESCE(MAX(updated_at), 0) FROM bot_rule WHERE license_id = ?")
                    .bind(0, licenseId)
                    .mapTo(String.class)
                    .one());
  }

  /** The characters of all of a license's keywords: what its matcher's size grows with. */
  long keywordCharacters(long licenseId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT COALESCE(SUM(LENGTH(match_key)), 0) FROM bot_rule"
                            + " WHERE license_id = ?")
                    .bind(0, licenseId)
                    .mapTo(Long.class)
                    .one());
  }

  /** A license's rules, oldest first. */
  List<BotRule> rules(long licenseId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM bot_rule WHERE license_id = ? ORDER BY id")
                    .bind(0, licenseId)
                    .map(BotStore::rule)
                    .list());
  }

  int count(long licenseId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT COUNT(*) FROM bot_rule WHERE license_id = ?")
                    .bind(0, licenseId)
                    .mapTo(Integer.class)
                    .one());
  }

  /** Deletes a rule of the license; true when there was one. */
  boolean delete(long licenseId, long id) {
    return db.writes()
            .write(
                h ->
                    h.createUpdate("DELETE FROM bot_rule WHERE id = ? AND license_id = ?")
                        .bind(0, id)
                        .bind(1, licenseId)
                        .execute())
        == 1;
  }

  private static BotRule rule(ResultSet rs, StatementContext ctx) throws SQLException {
    return new BotRule(
        rs.getLong("id"),
        rs.getLong("license_id"),
        rs.getString("keyword"),
        rs.getString("match_key"),
        MatchType.ofWireName(rs.getString("match_type")).orElseThrow(),
        rs.getString("response"),
        Instant.ofEpochMilli(rs.getLong("created_at")));
  }
}
