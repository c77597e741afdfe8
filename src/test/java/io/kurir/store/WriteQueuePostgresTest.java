package io.kurir.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.testing.OnPostgreSQL;
import io.kurir.testing.TestDatabases;
import io.kurir.testing.TestPostgres;
import org.junit.jupiter.api.Test;

/** {@link WriteQueueTest} on PostgreSQL, and what only a server can do: hang up on the writer. */
@OnPostgreSQL
class WriteQueuePostgresTest extends WriteQueueTest {

  @Test
  void theWriterConnectsAgainAfterTheServerCutsItsConnection() throws Exception {
    DatabaseLocation where = TestDatabases.at(dir.resolve("t.db"));
    try (Database db = Database.open(where)) {
      db.jdbi().useHandle(h -> h.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)"));
      db.writes().write(h -> h.execute("INSERT INTO t (id, v) VALUES (1, 'before')"));
      // Every other session on this database goes, the writer's among them (a server restart, a
      // failover of a managed database).
      TestPostgres.hangUp(where, java.util.Optional.empty());
      db.writes().write(h -> h.execute("INSERT INTO t (id, v) VALUES (2, 'after')"));
      long rows =
          db.jdbi()
              .withHandle(h -> h.createQuery("SELECT COUNT(*) FROM t").mapTo(Long.class).one());
      assertThat(rows).isEqualTo(2);
    }
  }
}
