package io.kurir.store;

import java.util.Map;

/**
 * The one place where SQLite and PostgreSQL differ. Migrations and stores write portable SQL and
 * ask the dialect for the few pieces that cannot be portable.
 */
public interface Dialect {

  String name();

  /** Flyway placeholders used by migrations, such as {@code ${id_pk}}. */
  Map<String, String> migrationPlaceholders();

  /** Statements run on every new connection (pragmas, session settings). */
  String connectionInitSql();

  /**
   * Whether several connections may write at once. SQLite allows one writer, so all writes go
   * through the single {@link WriteQueue} connection.
   */
  boolean singleWriter();

  static Dialect forUrl(String jdbcUrl) {
    if (jdbcUrl.startsWith("jdbc:sqlite:")) {
      return new SqliteDialect();
    }
    throw new IllegalArgumentException("no dialect for " + jdbcUrl);
  }
}
