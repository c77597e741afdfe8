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
