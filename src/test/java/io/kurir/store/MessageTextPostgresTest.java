package io.kurir.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.testing.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * On PostgreSQL the keyword searches look in message_text (V56), off the message row that every
 * state change rewrites: the messages of an install from before V56 are copied there by the
 * migration, every insert of messages after it adds theirs, whatever code inserts, once each, and
 * they are found after their rows changed state.
 */
@Tag("postgres")
class MessageTextPostgresTest {
  private DatabaseLocation postgres;

  @AfterEach
  void drop() {
    if (postgres != null) {
      TestPostgres.drop(postgres);
    }
  }

  @Test
  void oldAndNewMessagesAreFoundByTheirWordsAfterTheirStatesChanged() throws Exception {
    postgres = TestPostgres.freshDatabase(); // already at the newest version: start from scratch
    try (Connection c = admin();
        Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA public CASCADE");
      s.execute("CREATE SCHEMA public");
    }
    Dialect dialect = Dialect.forUrl(postgres.url());
    Flyway.configure()
        .dataSource(postgres.url(), postgres.user(), postgres.password())
        .locations(dialect.migrationLocation())
        .placeholders(dialect.migrationPlaceholders())
        .target("55")
        .load()
        .migrate();
    try (Connection c = admin();
        Statement s = c.createStatement()) {
      s.executeUpdate(
          "INSERT INTO partner (id, name, email, basic_user, basic_secret, disabled, created_at)"
              + " VALUES (10, 'Reseller', '', 'reseller', 'secret', 0, 0)");
      s.executeUpdate(
          "INSERT INTO license (id, partner_id, code, name, created_at) VALUES (11, 10, 'CODE',"
              + " 'Shop', 0)");
      s.executeUpdate(
          "INSERT INTO device (id, license_id, number, eco_key, device_key, crm_device_id, driver,"
              + " created_at) VALUES (12, 11, '+6281100007801', 'e', 'd', 'c', 'sandbox', 0)");
      s.executeUpdate(insert(100, "Pesanan LAMA anda sudah dikirim"));
    }

    try (Database db = Database.open(postgres)) { // V56 and after
      db.jdbi()
          .useHandle(
              h -> {
                h.execute(insert(101, "Pesanan baru: MiXeD CASE"));
                h.execute(insert(102, "nothing to see") + ", " + row(103, "lama sekali"));
                h.execute("UPDATE message SET state = 'sent', network_id = 'n' WHERE id >= 100");
              });
      assertThat(found(db, "%lama%")).containsExactly(100L, 103L);
      assertThat(found(db, "%mixed case%")).containsExactly(101L);
      assertThat(found(db, "%pesanan%")).containsExactly(100L, 101L);
      long texts =
          db.jdbi()
              .withHandle(
                  h -> h.createQuery("SELECT COUNT(*) FROM message_text").mapTo(Long.class).one());
      assertThat(texts).as("one row per message, written once").isEqualTo(4L);
    }
  }

  private static List<Long> found(Database db, String pattern) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT id FROM message WHERE "
                            + db.dialect().bodyLike("pattern")
                            + " ORDER BY id")
                    .bind("pattern", pattern)
                    .mapTo(Long.class)
                    .list());
  }

  private static String insert(long id, String body) {
    return "INSERT INTO message (id, device_id, recipient, recipient_type, kind, body, api, sync,"
        + " state, not_before, created_at, status_at) VALUES "
        + row(id, body);
  }

  private static String row(long id, String body) {
    return "("
        + id
        + ", 12, '+628111', 'number', 'text', '"
        + body
        + "', 'eco', 0, 'pending', 0,"
        + " 0, 0)";
  }

  private Connection admin() throws Exception {
    return DriverManager.getConnection(postgres.url(), postgres.user(), postgres.password());
  }
}
