package io.kurir.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.testing.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQLite's migrations (db/migration) and PostgreSQL's (db/postgresql) make the same tables with the
 * same columns, nullability and kind of type, and the same migration version: a migration added to
 * one folder and not the other fails here.
 */
@Tag("postgres")
class SchemaParityTest {
  /**
   * Columns only PostgreSQL has: its stand-ins for SQLite's implicit rowid, and message_text, where
   * its keyword searches' trigram index is (V56; SQLite's searches read the message rows).
   */
  private static final Set<String> POSTGRES_ONLY_COLUMNS =
      Set.of("message_event.id", "device_event.id", "message_text.id", "message_text.body");

  @TempDir Path dir;
  private DatabaseLocation postgres;

  @AfterEach
  void drop() {
    if (postgres != null) {
      TestPostgres.drop(postgres);
    }
  }

  @Test
  void bothEnginesHaveTheSameTablesAndColumns() throws SQLException {
    Map<String, String> sqlite;
    Map<String, String> pg;
    try (Database db = Database.open("jdbc:sqlite:" + dir.resolve("k.db"))) {
      sqlite = db.jdbi().withHandle(h -> columns(h.getConnection(), null));
    }
    postgres = TestPostgres.freshDatabase();
    try (Database db = Database.open(postgres)) {
      pg = db.jdbi().withHandle(h -> columns(h.getConnection(), "public"));
    }
    POSTGRES_ONLY_COLUMNS.forEach(pg::remove);
    assertThat(pg).isNotEmpty().containsExactlyInAnyOrderEntriesOf(sqlite);
  }

  @Test
  void bothEnginesAreAtTheSameMigrationVersion() {
    String sqlite;
    String pg;
    try (Database db = Database.open("jdbc:sqlite:" + dir.resolve("k.db"))) {
      sqlite = latestVersion(db);
    }
    postgres = TestPostgres.freshDatabase();
    try (Database db = Database.open(postgres)) {
      pg = latestVersion(db);
    }
    assertThat(pg).isEqualTo(sqlite);
  }

  @Test
  void bothEnginesHaveTheSameNamedIndexes() throws SQLException {
    Set<String> sqlite;
    Set<String> pg;
    try (Database db = Database.open("jdbc:sqlite:" + dir.resolve("k.db"))) {
      sqlite = db.jdbi().withHandle(h -> indexes(h.getConnection(), null));
    }
    postgres = TestPostgres.freshDatabase();
    try (Database db = Database.open(postgres)) {
      pg = db.jdbi().withHandle(h -> indexes(h.getConnection(), "public"));
    }
    pg.removeAll(POSTGRES_ONLY_INDEXES);
    assertThat(pg).isNotEmpty().containsExactlyInAnyOrderElementsOf(sqlite);
  }

  /** Indexes only PostgreSQL has: the trigram index of the keyword searches. */
  private static final Set<String> POSTGRES_ONLY_INDEXES = Set.of("message_text.message_text_trgm");

  /** table.index of the indexes the migrations name (not those of keys and UNIQUE columns). */
  private static Set<String> indexes(Connection c, String schema) throws SQLException {
    Set<String> indexes = new TreeSet<>();
    for (String table : columns(c, schema).keySet()) {
      String name = table.substring(0, table.indexOf('.'));
      try (ResultSet rs = c.getMetaData().getIndexInfo(null, schema, name, false, false)) {
        while (rs.next()) {
          String index = String.valueOf(rs.getString("INDEX_NAME")).toLowerCase(Locale.ROOT);
          if (!index.startsWith("sqlite_autoindex")
              && !index.endsWith("_pkey")
              && !index.endsWith("_key")
              && !index.equals("null")) {
            indexes.add(name + "." + index);
          }
        }
      }
    }
    return indexes;
  }

  private static String latestVersion(Database db) {
    return db.jdbi()
        .withHandle(
            h ->
                h
                    .createQuery("SELECT version FROM flyway_schema_history WHERE success")
                    .mapTo(String.class)
                    .stream()
                    .max(java.util.Comparator.comparingInt(Integer::parseInt))
                    .orElseThrow());
  }

  /** table.column → "text|integer, null|not null", Flyway's own table left out. */
  private static Map<String, String> columns(Connection c, String schema) throws SQLException {
    DatabaseMetaData meta = c.getMetaData();
    Set<String> tables = new TreeSet<>();
    try (ResultSet rs = meta.getTables(null, schema, "%", new String[] {"TABLE"})) {
      while (rs.next()) {
        String name = rs.getString("TABLE_NAME").toLowerCase(Locale.ROOT);
        if (!name.startsWith("flyway_") && !name.startsWith("sqlite_")) {
          tables.add(name);
        }
      }
    }
    Map<String, String> columns = new TreeMap<>();
    for (String table : tables) {
      // SQLite reports a primary key column as nullable; it is not.
      Set<String> key = new TreeSet<>();
      try (ResultSet rs = meta.getPrimaryKeys(null, schema, table)) {
        while (rs.next()) {
          key.add(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
        }
      }
      try (ResultSet rs = meta.getColumns(null, schema, table, "%")) {
        while (rs.next()) {
          String type = rs.getString("TYPE_NAME").toLowerCase(Locale.ROOT);
          String kind = type.contains("char") || type.contains("text") ? "text" : "integer";
          String column = rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT);
          boolean notNull =
              rs.getInt("NULLABLE") == DatabaseMetaData.columnNoNulls || key.contains(column);
          columns.put(table + "." + column, kind + (notNull ? ", not null" : ", null"));
        }
      }
    }
    return columns;
  }
}
