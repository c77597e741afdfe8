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

  /**
   * Incoming message {@code id}'s file as its row holds it: its type (empty for a message that came
   * with none) and its path (empty once the sweep released it).
   */
  record Row(
      long id, long deviceId, Optional<String> mimeType, Optional<Path> path, Instant receivedAt) {}

  Optional<Row> byId(long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT id, device_id, media_type, media_path, received_at"
                            + " FROM inbound_message WHERE id = ?")
                    .bind(0, id)
                    .map(
                        (rs, ctx) ->
                            new Row(
                                rs.getLong("id"),
                                rs.getLong("device_id"),
                                Optional.ofNullable(rs.getString("media_type")),
                                Optional.ofNullable(rs.getString("media_path")).map(Path::of),
                                Instant.ofEpochMilli(rs.getLong("received_at"))))
                    .findOne());
  }
}
