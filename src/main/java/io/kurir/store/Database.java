package io.kurir.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Jdbi;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The database of one gateway: a connection pool for reads, the single {@link WriteQueue} for
 * writes, and the schema brought up to date by Flyway before anything else touches it.
 */
public final class Database implements AutoCloseable {
  private final HikariDataSource pool;
  private final Jdbi jdbi;
  private final Dialect dialect;
  private final WriteQueue writes;

  private Database(HikariDataSource pool, Dialect dialect) {
    this.pool = pool;
    this.dialect = dialect;
    this.jdbi = Jdbi.create(pool);
    this.writes = new WriteQueue(jdbi);
  }

  /** Opens the database at {@code jdbcUrl}, creating the file and its folder when needed. */
  public static Database open(String jdbcUrl) {
    Dialect dialect = Dialect.forUrl(jdbcUrl);
    HikariConfig config = new HikariConfig();
    config.setPoolName("kurir-db");
    config.setMaximumPoolSize(8);
    config.setConnectionInitSql(dialect.connectionInitSql());
    if (dialect instanceof SqliteDialect) {
      createParentFolder(jdbcUrl.substring("jdbc:sqlite:".length()));
      SQLiteConfig sqlite = new SQLiteConfig();
      sqlite.setJournalMode(SQLiteConfig.JournalMode.WAL);
      sqlite.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
      sqlite.setBusyTimeout(10_000);
      sqlite.enforceForeignKeys(true);
      // Ids come from IdGenerator: the driver's own look-up of the last rowid after every
      // insert (a query prepared anew each time) is work nobody reads.
      sqlite.setGetGeneratedKeys(false);
      SQLiteDataSource source = new SQLiteDataSource(sqlite);
      source.setUrl(jdbcUrl);
      // Every connection keeps its prepared statements (see CachedStatements).
      config.setDataSource(CachedStatements.wrap(source));
    } else {
      config.setJdbcUrl(jdbcUrl);
    }
    HikariDataSource pool = new HikariDataSource(config);
    try {
      Flyway.configure()
          .dataSource(pool)
          .locations("classpath:db/migration")
          .placeholders(dialect.migrationPlaceholders())
          .load()
          .migrate();
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
    return new Database(pool, dialect);
  }

  private static void createParentFolder(String file) {
    if (file.isBlank() || file.startsWith(":memory:") || file.startsWith("file:")) {
      return;
    }
    Path parent = Path.of(file).toAbsolutePath().getParent();
    try {
      Files.createDirectories(parent);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the database folder " + parent, e);
    }
  }

  /** For reads; each call takes a pooled connection. */
  public Jdbi jdbi() {
    return jdbi;
  }

  /** For every write: commits are shared between concurrent callers. */
  public WriteQueue writes() {
    return writes;
  }

  public Dialect dialect() {
    return dialect;
  }

  @Override
  public void close() {
    writes.close();
    pool.close();
  }
}
