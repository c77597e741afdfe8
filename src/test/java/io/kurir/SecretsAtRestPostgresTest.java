package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.store.DatabaseLocation;
import io.kurir.testing.Eventually;
import io.kurir.testing.OnPostgreSQL;
import io.kurir.testing.TestDatabases;
import io.kurir.testing.TestGateway;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@OnPostgreSQL
class SecretsAtRestPostgresTest extends SecretsAtRestTest {
  /** The advisory lock a rotation of the secrets key holds ("KURS", 0): see InstanceLock. */
  private static final int SECRETS_KEY_LOCK = 0x4B555253;

  /**
   * A node that starts while a rotation holds the secrets key's lock waits for it to end before it
   * checks its key, instead of checking halfway through.
   */
  @Test
  void aNodeStartingDuringARotationWaitsForItBeforeCheckingItsKey(@TempDir Path other)
      throws Exception {
    DatabaseLocation db = TestDatabases.at(other.resolve("data").resolve("kurir.db"));
    try (Connection rotation = DriverManager.getConnection(db.url(), db.user(), db.password());
        Statement s = rotation.createStatement()) {
      s.execute("SELECT pg_advisory_lock(" + SECRETS_KEY_LOCK + ", 0)");
      CompletableFuture<TestGateway> starting =
          CompletableFuture.supplyAsync(() -> TestGateway.start(other));
      try {
        Eventually.until(
            "the node waits for the secrets key's lock",
            () -> waiting(s) || starting.isCompletedExceptionally());
        assertThat(starting).isNotDone();
      } finally {
        s.execute("SELECT pg_advisory_unlock(" + SECRETS_KEY_LOCK + ", 0)");
      }
      try (TestGateway node = starting.get(30, TimeUnit.SECONDS)) {
        assertThat(node.gateway().tenants().partners()).isEmpty();
      }
    }
  }

  private static boolean waiting(Statement s) {
    try (ResultSet rs =
        s.executeQuery(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                + " AND classid = "
                + SECRETS_KEY_LOCK)) {
      rs.next();
      return rs.getInt(1) > 0;
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
