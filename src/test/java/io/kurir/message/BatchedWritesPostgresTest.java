package io.kurir.message;

import static io.kurir.message.SenderParts.message;
import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.store.DatabaseLocation;
import io.kurir.testing.OnPostgreSQL;
import io.kurir.testing.TestDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link BatchedWritesTest} on PostgreSQL, and what only a server can do: hang up on the writer.
 */
@OnPostgreSQL
class BatchedWritesPostgresTest extends BatchedWritesTest {

  @Test
  void anAcceptWhoseConnectionTheServerCutIsStoredOnANewOne() throws Exception {
    // Every session on the database goes (a server restart, a failover), the writer's among them.
    DatabaseLocation where = TestDatabases.at(dir.resolve("k.db"));
    try (Connection admin =
            DriverManager.getConnection(where.url(), where.user(), where.password());
        Statement s = admin.createStatement()) {
      s.execute(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
              + " WHERE datname = current_database() AND pid <> pg_backend_pid()");
    }
    // The next transaction is an accept alone, which commits as it stores: its first statement is
    // its commit, and it meets the dead connection. Nothing was stored: it is run again.
    Message m = message(9_400_000L, device.id(), "+628111", false, clock.instant());
    assertThat(stores.queue().insert(List.of(m), Optional.empty()).get(30, TimeUnit.SECONDS))
        .isTrue();
    assertThat(stores.reads().find(m.id())).isPresent();
  }
}
