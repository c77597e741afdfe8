package io.kurir.message;

import static io.kurir.message.SenderParts.message;
import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.testing.OnPostgreSQL;
import io.kurir.testing.TestDatabases;
import io.kurir.testing.TestPostgres;
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
    TestPostgres.hangUp(TestDatabases.at(dir.resolve("k.db")), Optional.empty());
    // The next transaction is an accept alone, which commits as it stores: its first statement is
    // its commit, and it meets the dead connection. Nothing was stored: it is run again.
    Message m = message(9_400_000L, device.id(), "+628111", false, clock.instant());
    assertThat(stores.queue().insert(List.of(m), Optional.empty()).get(30, TimeUnit.SECONDS))
        .isTrue();
    assertThat(stores.reads().find(m.id())).isPresent();
  }
}
