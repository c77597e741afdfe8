package io.kurir.tenant;

import io.kurir.store.Database;
import io.kurir.store.SecretBox;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * The SQL of partners, licenses and devices. Credentials that are only compared (a partner's
 * secret, a license's code and push key, a device's keys) are written as their {@link
 * SecretBox#hash} and looked up by it, so rows read back carry the hash, not the credential;
 * secrets used again (webhook secrets, driver configuration, the Eco key that get_key returns) are
 * written sealed and read back opened.
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

  // --- devices

  /** Stores a new device with its driver configuration, in one transaction. */
  void insert(Device d, Map<String, String> config) {
    db.writes()
        .write(
            h -> {
              h.createUpdate(
                      "INSERT INTO device (id, license_id, number, eco_key, device_key,"
                          + " crm_device_id, driver, disabled, created_at, eco_key_sealed)"
                          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                  .bind(0, d.id())
                  .bind(1, d.licenseId())
                  .bind(2, d.number())
                  .bind(3, hash(d.ecoKey()))
                  .bind(4, hash(d.deviceKey()))
                  .bind(5, hash(d.crmDeviceId()))
                  .bind(6, d.driver())
                  .bind(7, d.disabled() ? 1 : 0)
                  .bind(8, d.createdAt().toEpochMilli())
                  .bind(9, box.seal(d.ecoKey()))
                  .execute();
              insertConfig(h, d.id(), config);
              return null;
            });
  }

  private void insertConfig(org.jdbi.v3.core.Handle h, long deviceId, Map<String, String> config) {
    for (var e : config.entrySet()) {
      h.createUpdate("INSERT INTO device_config (device_id, key, value) VALUES (?, ?, ?)")
          .bind(0, deviceId)
          .bind(1, e.getKey())
          .bind(2, box.seal(e.getValue()))
          .execute();
    }
  }

  /** A device's driver configuration. */
  Map<String, String> deviceConfig(long deviceId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT key, value FROM device_config WHERE device_id = ?")
                    .bind(0, deviceId)
                    .reduceRows(
                        new java.util.TreeMap<String, String>(),
                        (map, row) -> {
                          map.put(
                              row.getColumn("key", String.class),
                              box.open(row.getColumn("value", String.class)));
                          return map;
                        }));
  }

  /** Replaces a device's driver configuration with {@code config}, in one commit. */
  void replaceDeviceConfig(long deviceId, Map<String, String> config) {
    db.writes()
        .write(
            h -> {
              h.createUpdate("DELETE FROM device_config WHERE device_id = ?")
                  .bind(0, deviceId)
                  .execute();
              insertConfig(h, deviceId, config);
              return null;
            });
  }

  List<Device> devices() {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM device WHERE " + LIVE + " ORDER BY id")
                    .map(this::deviceRow)
                    .list());
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

  /** A license's devices, oldest first. */
  List<Device> devicesOfLicense(long licenseId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT * FROM device WHERE license_id = ? AND " + LIVE + " ORDER BY id")
                    .bind(0, licenseId)
                    .map(this::deviceRow)
                    .list());
  }

  /** The ids of a license's devices, deleted ones included. */
  java.util.Set<Long> deviceIdsOfLicense(long licenseId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT id FROM device WHERE license_id = ?")
                    .bind(0, licenseId)
                    .mapTo(Long.class)
                    .set());
  }

  Optional<Device> device(long id) {
    return deviceWhere("id", id);
  }

  Optional<Device> deviceByEcoKey(String key) {
    return deviceWhere("eco_key", hash(key));
  }

  /**
   * The device whose credential column (one of {@link Tenants.Credential}'s) holds {@code value}.
   */
  Optional<Device> deviceByCredential(String column, String value) {
    return deviceWhere(column, hash(value));
  }

  Optional<Device> deviceByNumber(String e164) {
    return deviceWhere("number", e164);
  }

  private Optional<Device> deviceWhere(String column, Object value) {
    // column is one of a fixed set chosen in this class, never caller input
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM device WHERE " + column + " = ? AND " + LIVE)
                    .bind(0, value)
                    .map(this::deviceRow)
                    .findOne());
  }

  /**
   * Deletes a device, in one commit: its row stays as a tombstone (switched off, new credentials,
   * no webhook URLs, {@code deleted_at} set) that keeps its history's foreign keys; its driver
   * configuration and session state, its idempotency keys, its mobile CS entries, what it learned
   * of its contacts (network ids, number checks) and its queue's hold go. False when there is no
   * live device {@code id}.
   */
  boolean delete(long id, Instant at, List<String> newCredentials) {
    return db.writes()
        .write(
            h -> {
              int rows =
                  h.createUpdate(
                          "UPDATE device SET deleted_at = ?, disabled = 1, eco_key = ?,"
                              + " eco_key_sealed = NULL,"
                              + " device_key = ?, crm_device_id = ?, incoming_webhook_url = NULL,"
                              + " outgoing_webhook_url = NULL, status_webhook_url = NULL"
                              + " WHERE id = ? AND "
                              + LIVE)
                      .bind(0, at.toEpochMilli())
                      .bind(1, hash(newCredentials.get(0)))
                      .bind(2, hash(newCredentials.get(1)))
                      .bind(3, hash(newCredentials.get(2)))
                      .bind(4, id)
                      .execute();
              if (rows == 0) {
                return false;
              }
              // The driver's secrets and session state must not outlive the device; a repeated
              // request with an old idempotency key is refused by the key check anyway; a mobile
              // CS handset relays for this device only. What it learned of its contacts (network
              // ids, number checks) meant something to its account only, and a hold ends with it.
              for (String table :
                  List.of(
                      "device_config",
                      "driver_state",
                      "idempotency_key",
                      "mobile_cs",
                      "contact_identity",
                      "number_check",
                      "device_hold")) {
                h.createUpdate("DELETE FROM " + table + " WHERE device_id = ?")
                    .bind(0, id)
                    .execute();
              }
              return true;
            });
  }

  /** Devices that were not deleted: every lookup of a device reads only these. */
  private static final String LIVE = "deleted_at IS NULL";

  /** Sets {@code disabled} of one row of {@code table}; true when the row exists. */
  boolean setDisabled(String table, long id, boolean disabled) {
    return db.writes()
            .write(
                h ->
                    h.createUpdate(
                            "UPDATE "
                                + table
                                + " SET disabled = ? WHERE id = ?"
                                + (table.equals("device") ? " AND " + LIVE : ""))
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

  /** Replaces one credential column of a device (the Eco key's sealed copy with it). */
  boolean setDeviceCredential(long id, String column, String value) {
    String sealed = column.equals("eco_key") ? ", eco_key_sealed = ?" : "";
    return db.writes()
            .write(
                h -> {
                  var update =
                      h.createUpdate(
                              "UPDATE device SET " + column + " = ?" + sealed + " WHERE id = ?")
                          .bind(0, hash(value));
                  if (sealed.isEmpty()) {
                    update.bind(1, id);
                  } else {
                    update.bind(1, box.seal(value)).bind(2, id);
                  }
                  return update.execute();
                })
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

  static long maxId(Handle h) {
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

  private Device deviceRow(ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx)
      throws SQLException {
    return new Device(
        rs.getLong("id"),
        rs.getLong("license_id"),
        rs.getString("number"),
        // A deleted device's tombstone keeps no Eco key to hand back.
        rs.getString("eco_key_sealed") == null ? null : box.open(rs.getString("eco_key_sealed")),
        rs.getString("device_key"),
        rs.getString("crm_device_id"),
        rs.getString("driver"),
        rs.getInt("disabled") != 0,
        Instant.ofEpochMilli(rs.getLong("created_at")));
  }
}
