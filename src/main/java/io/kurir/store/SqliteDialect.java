package io.kurir.store;

import com.zaxxer.hikari.HikariConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.sqlite.Function;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/** SQLite in WAL mode with {@code synchronous=FULL}: a commit survives power loss. */
final class SqliteDialect implements Dialect {
  /** How long start-up waits for another process's write lock before it gives up. */
  private static final Duration LOCK_WAIT = Duration.ofSeconds(3);

  /** The Unicode lower-case function registered on every connection (see {@link #bodyLike}). */
  private static final String UNICODE_LOWER = "kurir_lower";

  @Override
  public String name() {
    return "sqlite";
  }

  @Override
  public String migrationLocation() {
    return "classpath:db/migration";
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
  public void configurePool(HikariConfig config, DatabaseLocation location) {
    String file = location.url().substring("jdbc:sqlite:".length());
    createParentFolder(file);
    refuseEmptyFile(file);
    refuseLocked(location.url(), file);
    SQLiteConfig sqlite = new SQLiteConfig();
    sqlite.setJournalMode(SQLiteConfig.JournalMode.WAL);
    sqlite.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
    sqlite.setBusyTimeout(10_000);
    sqlite.enforceForeignKeys(true);
    // Ids come from IdGenerator: the driver's own look-up of the last rowid after every
    // insert (a query prepared anew each time) is work nobody reads.
    sqlite.setGetGeneratedKeys(false);
    SQLiteDataSource source = new UnicodeLowerDataSource(sqlite);
    source.setUrl(location.url());
    // Every connection keeps its prepared statements (see CachedStatements); readers share the
    // file with the one writer, so a few connections are enough.
    config.setDataSource(CachedStatements.wrap(source));
    config.setMaximumPoolSize(8);
    config.setConnectionInitSql("PRAGMA foreign_keys=ON");
  }

  @Override
  public Optional<Path> fileToCreate(DatabaseLocation location) {
    return plainFile(location.url().substring("jdbc:sqlite:".length()))
        .filter(path -> !Files.exists(path));
  }

  @Override
  public boolean singleWriter() {
    return true;
  }

  @Override
  public InstanceLock lockInstance(DatabaseLocation location, int nodeId) {
    return InstanceLock.acquire(location.url());
  }

  @Override
  public boolean isBusy(SQLException e) {
    // SQLITE_BUSY (5) or SQLITE_LOCKED (6)
    return e.getErrorCode() == 5 || e.getErrorCode() == 6;
  }

  @Override
  public boolean isConnectionLost(SQLException e) {
    return false; // a file does not hang up; a broken one fails every connection alike
  }

  @Override
  public String skipLocked() {
    return "";
  }

  @Override
  public String insertionOrder() {
    return "rowid";
  }

  @Override
  public String bodyLike(String param) {
    return UNICODE_LOWER + "(body) LIKE :" + param + " ESCAPE '!'";
  }

  /** Connections that know {@code kurir_lower}: Java's Unicode lower case of a text. */
  private static final class UnicodeLowerDataSource extends SQLiteDataSource {
    UnicodeLowerDataSource(SQLiteConfig config) {
      super(config);
    }

    @Override
    public org.sqlite.SQLiteConnection getConnection(String user, String password)
        throws SQLException {
      org.sqlite.SQLiteConnection c = super.getConnection(user, password);
      Function.create(
          c,
          UNICODE_LOWER,
          new Function() {
            @Override
            protected void xFunc() throws SQLException {
              String text = value_text(0);
              if (text == null) {
                result();
              } else {
                result(text.toLowerCase(Locale.ROOT));
              }
            }
          },
          1,
          Function.FLAG_DETERMINISTIC);
      return c;
    }
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
}
