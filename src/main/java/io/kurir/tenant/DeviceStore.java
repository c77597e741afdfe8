package io.kurir.tenant;

import io.kurir.store.Database;
import io.kurir.store.SecretBox;
import io.kurir.store.Transaction;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The SQL of devices: the one class that writes the {@code device} table (its creation, deletion,
 * credentials, switch, state and webhook URLs) and its driver configuration ({@code
 * device_config}). Credentials that are only compared are written as their {@link SecretBox#hash}
 * and looked up by it; the Eco key and the driver configuration are written sealed and read back
 * opened.
 *
 * <p>Thread-safe.
 */
public final class DeviceStore {
  private final Database db;
  private final SecretBox box;

  public DeviceStore(Database db) {
    this.db = db;
    this.box = db.secrets();
  }

  private static String hash(String credential) {
    return SecretBox.hash(credential);
  }

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
                      "device_hold",
                      "device_signal")) {
                h.createUpdate("DELETE FROM " + table + " WHERE device_id = ?")
                    .bind(0, id)
                    .execute();
              }
              return true;
            });
  }

  /** Devices that were not deleted: every lookup of a device reads only these. */
  private static final String LIVE = "deleted_at IS NULL";

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

  /** Sets {@code disabled} of a live device; true when it exists. */
  boolean setDisabled(long id, boolean disabled) {
    return db.writes()
            .write(
                h ->
                    h.createUpdate("UPDATE device SET disabled = ? WHERE id = ? AND " + LIVE)
                        .bind(0, disabled ? 1 : 0)
                        .bind(1, id)
                        .execute())
        > 0;
  }

  // --- state (device/DeviceStates keeps its history)

  /** A device's stored state, number and status webhook URL, in the caller's transaction. */
  public record StateRow(String state, String number, Optional<String> statusWebhookUrl) {}

  /** See {@link StateRow}; empty when there is no such device. */
  public static Optional<StateRow> stateRow(Transaction tx, long deviceId) {
    return tx.handle()
        .createQuery("SELECT state, number, status_webhook_url FROM device WHERE id = ?")
        .bind(0, deviceId)
        .mapToMap()
        .findOne()
        .map(
            row ->
                new StateRow(
                    (String) row.get("state"),
                    String.valueOf(row.get("number")),
                    Optional.ofNullable(row.get("status_webhook_url")).map(Object::toString)));
  }

  /** Stores a device's state, in the caller's transaction. */
  public static void setState(Transaction tx, long deviceId, String state) {
    tx.handle()
        .createUpdate("UPDATE device SET state = ? WHERE id = ?")
        .bind(0, state)
        .bind(1, deviceId)
        .execute();
  }

  /** A device's stored state, if the device exists. */
  public Optional<String> state(long deviceId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT state FROM device WHERE id = ?")
                    .bind(0, deviceId)
                    .mapTo(String.class)
                    .findOne());
  }

  /** The stored state of every device, deleted ones included, in one read. */
  public Map<Long, String> states() {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT id, state FROM device")
                    .reduceRows(
                        new java.util.HashMap<Long, String>(),
                        (map, row) -> {
                          map.put(
                              row.getColumn("id", Long.class),
                              row.getColumn("state", String.class));
                          return map;
                        }));
  }

  // --- webhook URLs

  /** The device's webhook URL columns; each names one URL a device may register. */
  public enum WebhookUrl {
    INCOMING("incoming_webhook_url"),
    OUTGOING("outgoing_webhook_url"),
    STATUS("status_webhook_url");

    private final String column;

    WebhookUrl(String column) {
      this.column = column;
    }
  }

  /** A device's incoming and outgoing webhook URLs, in that order. */
  public List<Optional<String>> messageWebhookUrls(long deviceId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT incoming_webhook_url, outgoing_webhook_url FROM device"
                            + " WHERE id = ?")
                    .bind(0, deviceId)
                    .map(
                        (rs, ctx) ->
                            List.of(
                                Optional.ofNullable(rs.getString(1)),
                                Optional.ofNullable(rs.getString(2))))
                    .one());
  }

  /** A device's status webhook URL, if one is registered. */
  public Optional<String> statusWebhookUrl(long deviceId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT status_webhook_url FROM device WHERE id = ?")
                    .bind(0, deviceId)
                    .mapTo(String.class)
                    .findOne());
  }

  /** A device's incoming webhook URL, if one is registered, in the caller's transaction. */
  public static Optional<String> incomingWebhookUrl(Transaction tx, long deviceId) {
    return tx.handle()
        .createQuery("SELECT incoming_webhook_url FROM device WHERE id = ?")
        .bind(0, deviceId)
        .mapTo(String.class)
        .findOne();
  }

  /** Whether any device has an outgoing webhook URL, in the caller's transaction. */
  public static boolean anyOutgoingWebhookUrl(Transaction tx) {
    return tx.handle()
        .createQuery("SELECT 1 FROM device WHERE outgoing_webhook_url IS NOT NULL LIMIT 1")
        .mapTo(Integer.class)
        .findOne()
        .isPresent();
  }

  /** Registers (or, with empty, removes) one of a device's URLs, in the caller's transaction. */
  public static void setWebhookUrl(
      Transaction tx, long deviceId, WebhookUrl which, Optional<String> url) {
    tx.handle()
        .createUpdate("UPDATE device SET " + which.column + " = ? WHERE id = ?")
        .bind(0, url.orElse(null))
        .bind(1, deviceId)
        .execute();
  }
}
