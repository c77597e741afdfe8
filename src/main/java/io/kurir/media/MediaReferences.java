package io.kurir.media;

import io.kurir.store.Database;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * Which kept files rows still refer to: messages (sent or waiting), uploads and incoming messages.
 * By file name, which is the content's hash: a path stored under another spelling of the data
 * folder (relative then absolute) still names the same file.
 *
 * <p>Thread-safe.
 */
final class MediaReferences {
  private final Database db;

  MediaReferences(Database db) {
    this.db = db;
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
