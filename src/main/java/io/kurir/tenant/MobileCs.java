package io.kurir.tenant;

import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * Mobile CS entries: customer-service handsets of a license, each tied to one of its devices and
 * known to the push families by its push player id and its handset id. Operators manage them (Admin
 * API); the Account API lists them.
 *
 * <p>Thread-safe.
 */
public final class MobileCs {
  /** One entry. */
  public record Entry(
      long id,
      long licenseId,
      long deviceId,
      String name,
      String playerId,
      String handsetId,
      Instant createdAt) {}

  private final Database db;
  private final IdGenerator ids;
  private final Clock clock;
  private final Tenants tenants;

  public MobileCs(Database db, IdGenerator ids, Clock clock, Tenants tenants) {
    this.db = db;
    this.ids = ids;
    this.clock = clock;
    this.tenants = tenants;
  }

  /** Adds an entry for {@code deviceId}, which must belong to the license. */
  public Entry add(long licenseId, long deviceId, String name, String playerId, String handsetId) {
    Device device = tenants.device(deviceId);
    tenants.license(licenseId);
    if (device.licenseId() != licenseId) {
      throw new TenantException(
          TenantException.Reason.INVALID, "device " + deviceId + " is not of license " + licenseId);
    }
    if (name.isBlank() || playerId.isBlank() || handsetId.isBlank()) {
      throw new TenantException(
          TenantException.Reason.INVALID, "name, playerId and handsetId are required");
    }
    Entry e =
        new Entry(
            ids.next(),
            licenseId,
            deviceId,
            name.strip(),
            playerId.strip(),
            handsetId.strip(),
            clock.instant());
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
    return e;
  }

  /** A license's entries, oldest first. */
  public List<Entry> of(long licenseId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM mobile_cs WHERE license_id = ? ORDER BY id")
                    .bind(0, licenseId)
                    .map(MobileCs::entry)
                    .list());
  }

  public Optional<Entry> find(long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM mobile_cs WHERE id = ?")
                    .bind(0, id)
                    .map(MobileCs::entry)
                    .findOne());
  }

  /**
   * The device (switched on) a push call's target id names within the license: the device of the
   * mobile CS entry with that player id or handset id, or the license's device with that (Kurir)
   * device id.
   */
  public Optional<Device> deviceForTarget(License license, String target) {
    String id = target.strip();
    Optional<Long> deviceId =
        db.jdbi()
            .withHandle(
                h ->
                    h.createQuery(
                            "SELECT device_id FROM mobile_cs WHERE license_id = ?"
                                + " AND (player_id = ? OR handset_id = ?) ORDER BY id LIMIT 1")
                        .bind(0, license.id())
                        .bind(1, id)
                        .bind(2, id)
                        .mapTo(Long.class)
                        .findOne());
    if (deviceId.isEmpty() && id.matches("\\d{1,18}")) {
      deviceId = Optional.of(Long.parseLong(id));
    }
    // A switched-off device names nothing: push callers cannot bypass the operator.
    return deviceId.flatMap(
        d ->
            tenants.devicesOf(license).stream()
                .filter(x -> x.id() == d && !x.disabled())
                .findFirst());
  }

  /** Removes an entry; false when there was none. */
  public boolean remove(long id) {
    return db.writes()
            .write(h -> h.createUpdate("DELETE FROM mobile_cs WHERE id = ?").bind(0, id).execute())
        == 1;
  }

  private static Entry entry(ResultSet rs, StatementContext ctx) throws SQLException {
    return new Entry(
        rs.getLong("id"),
        rs.getLong("license_id"),
        rs.getLong("device_id"),
        rs.getString("cs_name"),
        rs.getString("player_id"),
        rs.getString("handset_id"),
        Instant.ofEpochMilli(rs.getLong("created_at")));
  }
}
