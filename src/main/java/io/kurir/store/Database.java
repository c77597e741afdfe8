package io.kurir.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Jdbi;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The database of one gateway: a connection pool for reads, the single {@link WriteQueue} for
 * writes, and the schema brought up to date by Flyway before anything else touches it.
 */
public final class Database implements AutoCloseable {
  /** How long start-up waits for another process's write lock before it gives up. */
  private static final Duration LOCK_WAIT = Duration.ofSeconds(3);

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
      String file = jdbcUrl.substring("jdbc:sqlite:".length());
      createParentFolder(file);
      refuseEmptyFile(file);
      refuseLocked(jdbcUrl, file);
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

  /**
   * A database file of zero bytes is not a new install: something truncated it (a full disk, a copy
   * that failed), and starting on it would look like an empty gateway whose data is gone.
   */
  private static void refuseEmptyFile(String file) {
    Optional<Path> path = plainFile(file);
    if (path.isEmpty()) {
      return;
    }
    try {
      if (Files.isRegularFile(path.get()) && Files.size(path.get()) == 0) {
        throw new IllegalStateException(
            "the database file "
                + path.get()
                + " is empty (0 bytes): it is not a Kurir database, and Kurir does not start on it"
                + " as a new install. Restore it from a backup; or, for a new install, delete the"
                + " file.");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the database file " + path.get(), e);
    }
  }

  /**
   * Fails within seconds when another process holds the database's write lock (an open {@code
   * sqlite3} shell in a transaction, a backup tool), instead of serving requests that each wait for
   * it and fail.
   */
  private static void refuseLocked(String jdbcUrl, String file) {
    Optional<Path> path = plainFile(file);
    if (path.isEmpty() || !Files.exists(path.get())) {
      return; // a new file: nobody else can hold it
    }
    SQLiteConfig probe = new SQLiteConfig();
    probe.setBusyTimeout((int) LOCK_WAIT.toMillis());
    try (Connection c = DriverManager.getConnection(jdbcUrl, probe.toProperties());
        Statement s = c.createStatement()) {
      s.execute("BEGIN IMMEDIATE");
      s.execute("ROLLBACK");
    } catch (SQLException e) {
      String m = String.valueOf(e.getMessage());
      if (m.contains("SQLITE_BUSY") || m.contains("SQLITE_LOCKED") || m.contains("locked")) {
        throw new IllegalStateException(
            "the database "
                + path.get()
                + " is locked by another process (it held SQLite's write lock for more than "
                + LOCK_WAIT.toSeconds()
                + " s): stop the program that has it open (a sqlite3 shell, a backup, another"
                + " gateway), then start Kurir again",
            e);
      }
      throw new IllegalStateException(
          "cannot open the database " + path.get() + ": " + e.getMessage(), e);
    }
  }

  /** The file of a plain SQLite URL; empty for in-memory and {@code file:} URLs. */
  private static Optional<Path> plainFile(String file) {
    int query = file.indexOf('?');
    String name = query >= 0 ? file.substring(0, query) : file;
    if (name.isBlank() || name.startsWith(":memory:") || name.startsWith("file:")) {
      return Optional.empty();
    }
    return Optional.of(Path.of(name).toAbsolutePath());
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
