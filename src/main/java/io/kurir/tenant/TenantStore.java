package io.kurir.tenant;

import io.kurir.store.Database;
import io.kurir.store.SecretBox;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * The SQL of partners and licenses (a device's is {@link DeviceStore}'s). Credentials that are only
 * compared (a partner's secret, a license's code and push key, a device's keys) are written as
 * their {@link SecretBox#hash} and looked up by it, so rows read back carry the hash, not the
 * credential; secrets used again (webhook secrets, driver configuration, the Eco key that get_key
 * returns) are written sealed and read back opened.
 */
final class TenantStore {
  private final Database db;
  private final SecretBox box;

  TenantStore(Database db) {
    this.db = db;
    this.box = db.secrets();
  }

  private static String hash(String credential) {
    return SecretBox.hash(credential);
  }

  // --- partners

  void insert(Partner p) {
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "INSERT INTO partner (id, name, email, basic_user, basic_secret, disabled,"
                            + " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
                    .bind(0, p.id())
                    .bind(1, p.name())
                    .bind(2, p.email())
                    .bind(3, p.basicUser())
                    .bind(4, hash(p.basicSecret()))
                    .bind(5, p.disabled() ? 1 : 0)
                    .bind(6, p.createdAt().toEpochMilli())
                    .execute());
  }

  List<Partner> partners() {
    return db.jdbi()
        .withHandle(
            h -> h.createQuery("SELECT * FROM partner ORDER BY id").map(this::partnerRow).list());
  }

  Optional<Partner> partner(long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM partner WHERE id = ?")
                    .bind(0, id)
                    .map(this::partnerRow)
                    .findOne());
  }

  Optional<Partner> partnerByBasicUser(String user) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM partner WHERE basic_user = ?")
                    .bind(0, user)
                    .map(this::partnerRow)
                    .findOne());
  }

  // --- licenses

  void insert(License l) {
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "INSERT INTO license (id, partner_id, code, name, email, expires_on,"
                            + " allowed_addresses, disabled, created_at, webhook_secret, push_key)"
                            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                    .bind(0, l.id())
                    .bind(1, l.partnerId())
                    .bind(2, hash(l.code()))
                    .bind(3, l.name())
                    .bind(4, l.email())
                    .bind(5, l.expiresOn().map(LocalDate::toString).orElse(null))
                    .bind(6, String.join(",", l.allowedAddresses()))
                    .bind(7, l.disabled() ? 1 : 0)
                    .bind(8, l.createdAt().toEpochMilli())
                    .bind(9, box.seal(l.webhookSecret()))
                    .bind(10, hash(l.pushKey()))
                    .execute());
  }

  List<License> licenses() {
    return db.jdbi()
        .withHandle(
            h -> h.createQuery("SELECT * FROM license ORDER BY id").map(this::licenseRow).list());
  }

  Optional<License> license(long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM license WHERE id = ?")
                    .bind(0, id)
                    .map(this::licenseRow)
                    .findOne());
  }

  Optional<License> licenseByCode(String code) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM license WHERE code = ?")
                    .bind(0, hash(code))
                    .map(this::licenseRow)
                    .findOne());
  }

  Optional<License> licenseByPushKey(String key) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM license WHERE push_key = ?")
                    .bind(0, hash(key))
                    .map(this::licenseRow)
                    .findOne());
  }

  /**
   * Sets {@code disabled} of one row of {@code table} ({@code partner} or {@code license}: a
   * device's is {@link DeviceStore#setDisabled}); true when the row exists.
   */
  boolean setDisabled(String table, long id, boolean disabled) {
    return db.writes()
            .write(
                h ->
                    h.createUpdate("UPDATE " + table + " SET disabled = ? WHERE id = ?")
                        .bind(0, disabled ? 1 : 0)
                        .bind(1, id)
                        .execute())
        > 0;
  }

  boolean setLicenseExpiry(long id, LocalDate expiresOn) {
    return db.writes()
            .write(
                h ->
                    h.createUpdate("UPDATE license SET expires_on = ? WHERE id = ?")
                        .bind(0, expiresOn == null ? null : expiresOn.toString())
                        .bind(1, id)
                        .execute())
        > 0;
  }

  void setLicenseCode(long id, String code) {
    db.writes()
        .write(
            h ->
                h.createUpdate("UPDATE license SET code = ? WHERE id = ?")
                    .bind(0, hash(code))
                    .bind(1, id)
                    .execute());
  }

  void setPushKey(long id, String key) {
    db.writes()
        .write(
            h ->
                h.createUpdate("UPDATE license SET push_key = ? WHERE id = ?")
                    .bind(0, hash(key))
                    .bind(1, id)
                    .execute());
  }

  void rotateWebhookSecret(long id, String secret, String previous, Instant previousUntil) {
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "UPDATE license SET webhook_secret = ?, previous_webhook_secret = ?,"
                            + " previous_secret_until = ? WHERE id = ?")
                    .bind(0, box.seal(secret))
                    .bind(1, box.seal(previous))
                    .bind(2, previousUntil.toEpochMilli())
                    .bind(3, id)
                    .execute());
  }

  boolean setPartnerSecret(long id, String secret) {
    return db.writes()
            .write(
                h ->
                    h.createUpdate("UPDATE partner SET basic_secret = ? WHERE id = ?")
                        .bind(0, hash(secret))
                        .bind(1, id)
                        .execute())
        > 0;
  }

  /** The largest id of a partner, license or device; 0 when there is none. */
  long maxId() {
    return db.jdbi().withHandle(TenantStore::maxId);
  }

  private static long maxId(Handle h) {
    return h.createQuery(
            "SELECT MAX(m) FROM (SELECT MAX(id) AS m FROM partner UNION ALL SELECT MAX(id) FROM"
                + " license UNION ALL SELECT MAX(id) FROM device) AS ids")
        .mapTo(Long.class)
        .findOne()
        .orElse(0L);
  }

  private Partner partnerRow(ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx)
      throws SQLException {
    return new Partner(
        rs.getLong("id"),
        rs.getString("name"),
        rs.getString("email"),
        rs.getString("basic_user"),
        rs.getString("basic_secret"),
        rs.getInt("disabled") != 0,
        Instant.ofEpochMilli(rs.getLong("created_at")));
  }

  private License licenseRow(ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx)
      throws SQLException {
    String expires = rs.getString("expires_on");
    String allowed = rs.getString("allowed_addresses");
    return new License(
        rs.getLong("id"),
        rs.getLong("partner_id"),
        rs.getString("code"),
        rs.getString("name"),
        rs.getString("email"),
        Optional.ofNullable(expires).map(LocalDate::parse),
        allowed.isBlank() ? List.of() : Arrays.asList(allowed.split(",")),
        rs.getInt("disabled") != 0,
        Instant.ofEpochMilli(rs.getLong("created_at")),
        box.open(rs.getString("webhook_secret")),
        rs.getString("push_key"));
  }
}
