package io.kurir.store;

import java.util.Map;

/** SQLite in WAL mode with {@code synchronous=FULL}: a commit survives power loss. */
final class SqliteDialect implements Dialect {

  @Override
  public String name() {
    return "sqlite";
  }

  @Override
  public Map<String, String> migrationPlaceholders() {
    // INTEGER PRIMARY KEY makes the id the table's rowid: no second index, ordered storage.
    return Map.of(
        "id_pk", "INTEGER PRIMARY KEY",
        // 48 hex characters of randomness, for secrets created by a migration
        "random_secret", "lower(hex(randomblob(24)))");
  }

  @Override
  public String connectionInitSql() {
    return "PRAGMA foreign_keys=ON";
  }

  @Override
  public boolean singleWriter() {
    return true;
  }
}
