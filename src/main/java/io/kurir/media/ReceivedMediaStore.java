package io.kurir.media;

import io.kurir.store.Database;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * The SQL of the files incoming messages came with, as {@link ReceivedMedia} reads them: {@code
 * inbound_message}'s {@code media_path} and {@code media_type} (empty once the media sweep let go
 * of the file). Plain, portable SQL.
 *
 * <p>Thread-safe.
 */
final class ReceivedMediaStore {
  private final Database db;

  ReceivedMediaStore(Database db) {
    this.db = db;
  }

  /** The file of incoming message {@code id}, while its row keeps it. */
  record Row(long id, long deviceId, String mimeType, Path path, Instant receivedAt) {}

  Optional<Row> byId(long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT id, device_id, media_type, media_path, received_at"
                            + " FROM inbound_message WHERE id = ? AND media_path IS NOT NULL")
                    .bind(0, id)
                    .map(
                        (rs, ctx) ->
                            new Row(
                                rs.getLong("id"),
                                rs.getLong("device_id"),
                                Optional.ofNullable(rs.getString("media_type"))
                                    .orElse("application/octet-stream"),
                                Path.of(rs.getString("media_path")),
                                Instant.ofEpochMilli(rs.getLong("received_at"))))
                    .findOne());
  }
}
