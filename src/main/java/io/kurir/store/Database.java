package io.kurir.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.util.Optional;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.ColonPrefixSqlParser;
import org.jdbi.v3.core.statement.SqlParser;
import org.jdbi.v3.core.statement.SqlStatements;

/**
 * The database of one gateway: a connection pool for reads, the single {@link WriteQueue} for
 * writes, and the schema brought up to date by Flyway before anything else touches it. SQLite or
 * PostgreSQL, as the URL says; what differs between them is in the {@link Dialect}.
 */
public final class Database implements AutoCloseable {
  /**
   * One parser of Kurir's SQL (named parameters, {@code <list>} templates) for every database the
   * process opens: the statements are the same code's constants, and a parser keeps what it has
   * parsed. A process that opens the database again (the admin tool, a restart in a test) does not
   * parse them all again; the parser is thread-safe.
   */
  private static final SqlParser SQL_PARSER = new ColonPrefixSqlParser();

  private final HikariDataSource pool;
  private final Jdbi jdbi;
  private final Dialect dialect;
  private final WriteQueue writes;
  private final NodeSignals signals;
  // Set once, by open, before the database is handed to anyone.
  private volatile SecretBox secrets = SecretBox.none();

  private Database(HikariDataSource pool, Dialect dialect, DatabaseLocation location) {
    this.pool = pool;
    this.dialect = dialect;
    this.jdbi = Jdbi.create(pool);
    jdbi.getConfig(SqlStatements.class).setSqlParser(SQL_PARSER);
    // A lost writer connection means a lost server: the pooled ones are opened afresh.
    this.writes =
        new WriteQueue(
            jdbi,
            dialect,
            () -> {
              var beans = pool.getHikariPoolMXBean();
              if (beans != null) {
                beans.softEvictConnections();
              }
            });
    this.signals = NodeSignals.forLocation(location, dialect);
  }

  /** Opens the database at {@code jdbcUrl}, creating a SQLite file and its folder when needed. */
  public static Database open(String jdbcUrl) {
    return open(DatabaseLocation.of(jdbcUrl));
  }

  /** The file that {@link #open} would create at {@code location}; empty when it exists. */
  public static Optional<Path> fileToCreate(DatabaseLocation location) {
    return Dialect.forUrl(location.url()).fileToCreate(location);
  }

  /**
   * Opens the database at {@code location}, brings its schema up to date, and opens its secrets
   * with the key {@code keys} names ({@link SecretKeys#open}): what an older version stored in
   * plaintext is hashed or encrypted before this returns.
   */
  public static Database open(
      DatabaseLocation location, SecretKeys.Source keys, java.util.function.Consumer<String> log) {
    Database db = open(location);
    try {
      db.secrets = SecretKeys.open(db, keys, log);
      return db;
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
  }

  /**
   * Opens the database at {@code location} and brings its schema up to date, without a secrets key:
   * for tools and tests that read or write no stored secret.
   */
  public static Database open(DatabaseLocation location) {
    Dialect dialect = Dialect.forUrl(location.url());
    HikariConfig config = new HikariConfig();
    config.setPoolName("kurir-db");
    dialect.configurePool(config, location);
    HikariDataSource pool;
    try {
      pool = new HikariDataSource(config);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "cannot connect to the database " + location + ": " + rootMessage(e), e);
    }
    try {
      Flyway.configure()
          .dataSource(pool)
          .locations(dialect.migrationLocation())
          .placeholders(dialect.migrationPlaceholders())
          .load()
          .migrate();
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
    return new Database(pool, dialect, location);
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null) {
      t = t.getCause();
    }
    return String.valueOf(t.getMessage());
  }

  /**
   * The lock that keeps a second gateway off the database at {@code location}: a file lock beside a
   * SQLite file; on PostgreSQL, where nodes will share the database, an advisory lock per node id.
   */
  public static InstanceLock lockInstance(DatabaseLocation location, int nodeId) {
    return Dialect.forUrl(location.url()).lockInstance(location, nodeId);
  }

  /** For reads; each call takes a pooled connection. */
  public Jdbi jdbi() {
    return jdbi;
  }

  /**
   * A read in plain JDBC on a pooled connection ({@code read} gets it), for the hot reads where
   * Jdbi's binding and mapping cost more than the statement; a failure is Jdbi's unchecked one, as
   * a Jdbi read's would be.
   */
  public <T> T readPlain(JdbcRead<T> read) {
    try {
      return jdbi.withHandle(h -> read.apply(h.getConnection()));
    } catch (java.sql.SQLException e) {
      throw new org.jdbi.v3.core.statement.UnableToExecuteStatementException(e, null);
    }
  }

  /** What {@link #readPlain} runs. */
  @FunctionalInterface
  public interface JdbcRead<T> {
    T apply(java.sql.Connection connection) throws java.sql.SQLException;
  }

  /** For every write: commits are shared between concurrent callers. */
  public WriteQueue writes() {
    return writes;
  }

  /** Seals and opens the secrets stored in this database ({@link SecretBox}). */
  public SecretBox secrets() {
    return secrets;
  }

  public Dialect dialect() {
    return dialect;
  }

  /** Hints to and from the other nodes on this database (none on SQLite). */
  public NodeSignals signals() {
    return signals;
  }

  /**
   * How many gateways run on this database now: on PostgreSQL, the nodes holding their {@link
   * InstanceLock} (a node that dies loses it with its connection); on SQLite, one. At least one.
   */
  public int liveNodes() {
    if (dialect.singleWriter()) {
      return 1;
    }
    return Math.max(1, jdbi.withHandle(InstanceLock::liveNodes));
  }

  /**
   * Counts the pool's connections, waits and timeouts into {@code registry} ({@code hikaricp_…}),
   * from now on; once per database.
   */
  public void measurePoolWith(io.micrometer.core.instrument.MeterRegistry registry) {
    pool.setMetricsTrackerFactory(
        new com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory(registry));
  }

  /** Whether a pooled connection answers a trivial query within {@code seconds} (health). */
  public boolean reachable(int seconds) {
    try {
      return jdbi.withHandle(
          h ->
              h.createQuery("SELECT 1")
                  .setQueryTimeout(seconds)
                  .mapTo(Integer.class)
                  .findOne()
                  .isPresent());
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * Whether the schema holds every migration of this version (health). Flyway applied them at open;
   * this reads its history table again, so a database restored from an older backup shows.
   */
  public boolean migrated() {
    try {
      return Flyway.configure()
              .dataSource(pool)
              .locations(dialect.migrationLocation())
              .placeholders(dialect.migrationPlaceholders())
              .load()
              .info()
              .pending()
              .length
          == 0;
    } catch (RuntimeException e) {
      return false;
    }
  }

  @Override
  public void close() {
    signals.close();
    writes.close();
    pool.close();
  }
}
