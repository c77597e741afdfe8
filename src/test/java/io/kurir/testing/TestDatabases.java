package io.kurir.testing;

import io.kurir.store.DatabaseLocation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Which database the tests' gateways and nodes use: SQLite in their folder, or, in a class marked
 * {@link OnPostgreSQL}, a fresh PostgreSQL database per folder. Tests run one at a time in the test
 * JVM (JUnit's default), so the engine is a plain static setting of the class being run.
 */
public final class TestDatabases {
  private static volatile boolean postgres;
  private static final Map<Path, DatabaseLocation> BY_DIR = new HashMap<>();
  // Databases made during one test method, dropped after it; and those made outside one (a
  // gateway that a @BeforeAll starts for the whole class), dropped after the class.
  private static final List<DatabaseLocation> MADE_IN_TEST = new ArrayList<>();
  private static final List<DatabaseLocation> MADE_FOR_CLASS = new ArrayList<>();
  private static volatile boolean inTest;

  private TestDatabases() {}

  /** Whether the class being run is on PostgreSQL. */
  public static boolean onPostgres() {
    return postgres;
  }

  /**
   * The database that a test keeps in {@code sqliteFile}: that file on SQLite; on PostgreSQL, a
   * fresh database, the same one every time it is asked for the same file.
   */
  public static synchronized DatabaseLocation at(Path sqliteFile) {
    if (!postgres) {
      return DatabaseLocation.of("jdbc:sqlite:" + sqliteFile);
    }
    return BY_DIR.computeIfAbsent(
        sqliteFile.toAbsolutePath().normalize(),
        d -> {
          DatabaseLocation made = TestPostgres.freshDatabase();
          (inTest ? MADE_IN_TEST : MADE_FOR_CLASS).add(made);
          return made;
        });
  }

  /** The secrets key of databases opened by {@link #open}: fixed, so reopening finds it. */
  public static final String TEST_SECRETS_KEY =
      java.util.Base64.getEncoder().encodeToString(new byte[32]);

  /**
   * Opens {@code location} as a gateway does, with the fixed {@link #TEST_SECRETS_KEY}: for tests
   * that build core services on a database of their own.
   */
  public static io.kurir.store.Database open(DatabaseLocation location) {
    return io.kurir.store.Database.open(
        location,
        new io.kurir.store.SecretKeys.Source(Path.of("unused-secret.key"), TEST_SECRETS_KEY),
        message -> {});
  }

  /**
   * Settings flags that put a gateway (or {@code ./kurir admin}) on the database a test keeps in
   * {@code sqliteFile}, with the fixed {@link #TEST_SECRETS_KEY}: on SQLite the gateway finds the
   * database under {@code data.dir}; on PostgreSQL a second node given these flags from another
   * folder has the first one's key. No test gateway makes a key file (nor logs that it did); tests
   * of that give {@code --secrets.key=} (empty) after these.
   */
  public static List<String> flags(Path sqliteFile) {
    String key = "--secrets.key=" + TEST_SECRETS_KEY;
    if (!postgres) {
      return List.of(key);
    }
    DatabaseLocation db = at(sqliteFile);
    return List.of(
        "--database.url=" + db.url(),
        "--database.user=" + db.user(),
        "--database.password=" + db.password(),
        key);
  }

  /** The migrated SQLite database new test databases start as a copy of; made once per JVM. */
  private static Path sqliteTemplate;

  /**
   * Puts a copy of an empty, migrated SQLite database at {@code location}'s file when a gateway is
   * about to open one that does not exist yet, instead of letting the gateway migrate it.
   *
   * <p>Why: a test JVM starts a thousand gateways, and each one ran every migration on a new file,
   * each in its own transaction with its own sync to disk: about 85 ms of CPU and 300 ms of waiting
   * a gateway, against 20 ms and 30 ms for a copy. The gateway still runs Flyway, which finds the
   * schema current (the copy is the same file a first start would leave, made by the same
   * migrations of this build). Nothing happens on PostgreSQL, for a file that exists (a restart, a
   * test's own older schema), or where the folder cannot be made (a test of that error): the
   * gateway then does what it always did.
   */
  public static void seedSqlite(DatabaseLocation location) {
    if (!location.url().startsWith("jdbc:sqlite:")) {
      return;
    }
    String name = location.url().substring("jdbc:sqlite:".length());
    if (name.contains("?") || name.startsWith(":") || name.startsWith("file:")) {
      return; // a URL with options or a memory database: opened as given
    }
    Path file = Path.of(name);
    if (java.nio.file.Files.exists(file)) {
      return;
    }
    try {
      Path template = sqliteTemplate();
      java.nio.file.Files.createDirectories(file.toAbsolutePath().getParent());
      java.nio.file.Files.copy(template, file);
    } catch (java.io.IOException | RuntimeException e) {
      // The folder cannot be made or written: the gateway's own start says why.
    }
  }

  private static synchronized Path sqliteTemplate() throws java.io.IOException {
    if (sqliteTemplate == null) {
      Path dir = java.nio.file.Files.createTempDirectory("kurir-schema");
      Path file = dir.resolve("kurir.db");
      io.kurir.store.Database.open(DatabaseLocation.of("jdbc:sqlite:" + file)).close();
      // Closed cleanly, the write-ahead log is folded into the file: the file is the whole
      // database.
      if (java.nio.file.Files.exists(dir.resolve("kurir.db-wal"))) {
        throw new IllegalStateException("the template database left a write-ahead log");
      }
      file.toFile().deleteOnExit();
      dir.toFile().deleteOnExit();
      sqliteTemplate = file;
    }
    return sqliteTemplate;
  }

  private static synchronized void drop(List<DatabaseLocation> made) {
    for (DatabaseLocation db : made) {
      TestPostgres.drop(db);
      BY_DIR.values().remove(db);
    }
    made.clear();
  }

  /** Turns PostgreSQL on for a class; drops each test's databases after it. */
  static final class PostgreSQLExtension
      implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {
    @Override
    public void beforeAll(ExtensionContext context) {
      postgres = true;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
      inTest = true;
    }

    @Override
    public void afterEach(ExtensionContext context) {
      inTest = false;
      drop(MADE_IN_TEST);
    }

    @Override
    public void afterAll(ExtensionContext context) {
      drop(MADE_IN_TEST);
      drop(MADE_FOR_CLASS);
      postgres = false;
    }
  }
}
