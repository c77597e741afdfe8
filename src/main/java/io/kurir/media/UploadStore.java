package io.kurir.media;

import io.kurir.store.Database;
import io.kurir.tenant.Device;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The SQL of uploads ({@code upload}): a device's images by name, and the bytes a license's uploads
 * hold.
 *
 * <p>Thread-safe.
 */
final class UploadStore {
  private final Database db;

  UploadStore(Database db) {
    this.db = db;
  }

  /** An upload as stored: its name, type and file. */
  record Row(String name, String mimeType, Path path) {}

  /**
   * Stores (or replaces) the device's upload {@code name} as {@code id}, unless the license's
   * uploads would then hold more than {@code quotaBytes}; false when refused for the quota.
   */
  boolean put(
      Device device,
      String name,
      long id,
      String type,
      String path,
      int size,
      long now,
      long quotaBytes) {
    return db.writes()
        .write(
            h -> {
              // Checked again in the write: two uploads at once must not pass the quota
              // together.
              long used =
                  h.createQuery(USED_BY_LICENSE)
                      .bind(0, device.licenseId())
                      .bind(1, device.id())
                      .bind(2, name)
                      .mapTo(Long.class)
                      .one();
              if (used + size > quotaBytes) {
                return false;
              }
              int replaced =
                  h.createUpdate(
                          "UPDATE upload SET mime_type = ?, path = ?, size = ?, created_at = ?"
                              + " WHERE device_id = ? AND name = ?")
                      .bind(0, type)
                      .bind(1, path)
                      .bind(2, size)
                      .bind(3, now)
                      .bind(4, device.id())
                      .bind(5, name)
                      .execute();
              if (replaced == 0) {
                h.createUpdate(
                        "INSERT INTO upload (id, device_id, name, mime_type, path, size, created_at)"
                            + " VALUES (?, ?, ?, ?, ?, ?, ?)")
                    .bind(0, id)
                    .bind(1, device.id())
                    .bind(2, name)
                    .bind(3, type)
                    .bind(4, path)
                    .bind(5, size)
                    .bind(6, now)
                    .execute();
              }
              return true;
            });
  }

  // The bytes a license's uploads hold, but for the one a new upload of this name replaces.
  private static final String USED_BY_LICENSE =
      "SELECT COALESCE(SUM(u.size), 0) FROM upload u JOIN device d ON d.id = u.device_id"
          + " WHERE d.license_id = ? AND NOT (u.device_id = ? AND u.name = ?)";

  long usedByLicense(Device device, String name) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(USED_BY_LICENSE)
                    .bind(0, device.licenseId())
                    .bind(1, device.id())
                    .bind(2, name)
                    .mapTo(Long.class)
                    .one());
  }

  /** The device's upload {@code name} (already reduced by {@link Uploads#keyOf}). */
  Optional<Row> find(Device device, String name) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT name, mime_type, path FROM upload WHERE device_id = ? AND name = ?")
                    .bind(0, device.id())
                    .bind(1, name)
                    .map(
                        (rs, ctx) ->
                            new Row(
                                rs.getString("name"),
                                rs.getString("mime_type"),
                                Path.of(rs.getString("path"))))
                    .findOne());
  }

  Optional<Long> idOf(Device device, String name) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT id FROM upload WHERE device_id = ? AND name = ?")
                    .bind(0, device.id())
                    .bind(1, name)
                    .mapTo(Long.class)
                    .findOne());
  }

  /** An upload found by its id, with its device, size and time (epoch milliseconds). */
  record ById(
      long id, long deviceId, String name, String mimeType, Path path, long size, long createdAt) {}

  /** The upload whose id is {@code id}, whatever its device. */
  Optional<ById> byId(long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT id, device_id, name, mime_type, path, size, created_at FROM upload"
                            + " WHERE id = ?")
                    .bind(0, id)
                    .map(
                        (rs, ctx) ->
                            new ById(
                                rs.getLong("id"),
                                rs.getLong("device_id"),
                                rs.getString("name"),
                                rs.getString("mime_type"),
                                Path.of(rs.getString("path")),
                                rs.getLong("size"),
                                rs.getLong("created_at")))
                    .findOne());
  }

  /** Deletes the upload {@code id} of device {@code deviceId}; false when there was none. */
  boolean delete(long id, long deviceId) {
    return db.writes()
            .write(
                h ->
                    h.createUpdate("DELETE FROM upload WHERE id = ? AND device_id = ?")
                        .bind(0, id)
                        .bind(1, deviceId)
                        .execute())
        > 0;
  }
}
