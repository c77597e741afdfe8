package io.kurir.tenant;

import io.kurir.store.Database;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * The SQL of mobile CS entries ({@code mobile_cs}); {@link MobileCs} holds their rules.
 *
 * <p>Thread-safe.
 */
final class MobileCsStore {
  private final Database db;

  MobileCsStore(Database db) {
    this.db = db;
  }

  void insert(MobileCs.Entry e) {
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "INSERT INTO mobile_cs (id, license_id, device_id, cs_name, player_id,"
                            + " handset_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
                    .bind(0, e.id())
                    .bind(1, e.licenseId())
                    .bind(2, e.deviceId())
                    .bind(3, e.name())
                    .bind(4, e.playerId())
                    .bind(5, e.handsetId())
                    .bind(6, e.createdAt().toEpochMilli())
                    .execute());
  }

  /** A license's entries, oldest first. */
  List<MobileCs.Entry> ofLicense(long licenseId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM mobile_cs WHERE license_id = ? ORDER BY id")
                    .bind(0, licenseId)
                    .map(MobileCsStore::entry)
                    .list());
  }

  Optional<MobileCs.Entry> find(long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM mobile_cs WHERE id = ?")
                    .bind(0, id)
                    .map(MobileCsStore::entry)
                    .findOne());
  }

  /** The device of the license's entry with this player id or handset id, the oldest first. */
  Optional<Long> deviceOfTarget(long licenseId, String id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT device_id FROM mobile_cs WHERE license_id = ?"
                            + " AND (player_id = ? OR handset_id = ?) ORDER BY id LIMIT 1")
                    .bind(0, licenseId)
                    .bind(1, id)
                    .bind(2, id)
                    .mapTo(Long.class)
                    .findOne());
  }

  /** Removes an entry; false when there was none. */
  boolean remove(long id) {
    return db.writes()
            .write(h -> h.createUpdate("DELETE FROM mobile_cs WHERE id = ?").bind(0, id).execute())
        == 1;
  }

  private static MobileCs.Entry entry(ResultSet rs, StatementContext ctx) throws SQLException {
    return new MobileCs.Entry(
        rs.getLong("id"),
        rs.getLong("license_id"),
        rs.getLong("device_id"),
        rs.getString("cs_name"),
        rs.getString("player_id"),
        rs.getString("handset_id"),
        Instant.ofEpochMilli(rs.getLong("created_at")));
  }
}
