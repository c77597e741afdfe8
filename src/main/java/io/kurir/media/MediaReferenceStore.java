package io.kurir.media;

import io.kurir.store.Database;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * The SQL of which kept files rows still refer to: messages (sent or waiting), uploads and incoming
 * messages. By file name, which is the content's hash: a path stored under another spelling of the
 * data folder (relative then absolute) still names the same file.
 *
 * <p>Thread-safe.
 */
final class MediaReferenceStore {
  private final Database db;

  MediaReferenceStore(Database db) {
    this.db = db;
  }

  /** Rows let go of per write: the writer is shared with every send. */
  private static final int RELEASE_CHUNK = 1_000;

  /**
   * Lets go of the files of messages that ended and of incoming messages, last changed before
   * {@code before}: their rows keep the file's name and type, not its path. Returns how many rows
   * let go; in chunks, so that a first sweep over a large history does not hold the writer.
   */
  int releaseOlderThan(java.time.Instant before) {
    int released = 0;
    for (String sql :
        java.util.List.of(
            "UPDATE message SET media_path = NULL WHERE id IN (SELECT id FROM message"
                + " WHERE media_path IS NOT NULL AND status_at < ?"
                + " AND state NOT IN ('pending', 'sending') LIMIT "
                + RELEASE_CHUNK
                + ")",
            "UPDATE inbound_message SET media_path = NULL WHERE id IN (SELECT id FROM"
                + " inbound_message WHERE media_path IS NOT NULL AND received_at < ? LIMIT "
                + RELEASE_CHUNK
                + ")",
            // Files uploaded through the Cloud API's door last as long (Meta keeps them 30 days).
            "DELETE FROM upload WHERE id IN (SELECT id FROM upload WHERE name LIKE '"
                + UploadedMedia.NAME_PREFIX
                + "%' AND created_at < ? LIMIT "
                + RELEASE_CHUNK
                + ")")) {
      int done;
      do {
        done = db.writes().write(h -> h.createUpdate(sql).bind(0, before.toEpochMilli()).execute());
        released += done;
      } while (done == RELEASE_CHUNK);
    }
    return released;
  }

  /** The names of every kept file a row refers to now. */
  Set<String> namesInUse() {
    Set<String> names = new HashSet<>();
    db.jdbi()
        .useHandle(
            h ->
                h.createQuery(
                        "SELECT media_path FROM message WHERE media_path IS NOT NULL"
                            + " UNION SELECT path FROM upload"
                            + " UNION SELECT media_path FROM inbound_message"
                            + " WHERE media_path IS NOT NULL")
                    .mapTo(String.class)
                    .forEach(p -> names.add(Path.of(p).getFileName().toString())));
    return names;
  }
}
