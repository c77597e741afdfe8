package io.kurir.store;

import com.zaxxer.hikari.HikariConfig;
import java.sql.SQLException;
import java.util.Map;
import java.util.Set;

/**
 * PostgreSQL: several connections and several nodes may write; the server keeps its own prepared
 * statements (the driver switches a statement to a server-side one after a few uses), so no
 * statement cache of Kurir's wraps the connections.
 */
final class PostgresDialect implements Dialect {
  /**
   * SQLSTATEs after which the same write may succeed when tried again: serialization failure,
   * deadlock, lock not available (lock_timeout).
   */
  private static final Set<String> BUSY = Set.of("40001", "40P01", "55P03");

  @Override
  public String name() {
    return "postgresql";
  }

  @Override
  public String migrationLocation() {
    return "classpath:db/postgresql";
  }

  @Override
  public Map<String, String> migrationPlaceholders() {
    return Map.of(
        "id_pk", "BIGINT PRIMARY KEY",
        "random_secret", "md5(random()::text) || substr(md5(random()::text), 1, 16)");
  }

  @Override
  public void configurePool(HikariConfig config, DatabaseLocation location) {
    config.setJdbcUrl(location.url());
    if (!location.user().isEmpty()) {
      config.setUsername(location.user());
    }
    if (!location.password().isEmpty()) {
      config.setPassword(location.password());
    }
    // Readers and the writer of one node; several nodes share the server's max_connections (100
    // by default), so each node stays modest.
    config.setMaximumPoolSize(10);
    // Hikari validates with isValid(); a connection the server dropped is replaced.
    config.addDataSourceProperty("ApplicationName", "kurir");
    config.addDataSourceProperty("tcpKeepAlive", "true");
    // A JDBC batch of inserts (a batch of messages, their history rows) goes to the server as
    // multi-row INSERTs rather than one statement per row: fewer statements for the server to
    // run. (The driver sends a batch in one round trip either way.)
    config.addDataSourceProperty("reWriteBatchedInserts", "true");
  }

  @Override
  public boolean singleWriter() {
    return false;
  }

  @Override
  public InstanceLock lockInstance(DatabaseLocation location, int nodeId) {
    return InstanceLock.acquireNode(location, nodeId);
  }

  @Override
  public boolean isBusy(SQLException e) {
    return e.getSQLState() != null && BUSY.contains(e.getSQLState());
  }

  @Override
  public boolean isConnectionLost(SQLException e) {
    // Class 08: connection exception; 57P01..57P03: the server is shutting down or starting.
    String state = e.getSQLState();
    return state != null && (state.startsWith("08") || state.startsWith("57P0"));
  }

  @Override
  public boolean commitAsItRuns(java.sql.Connection connection, LastWrite onlyWrite)
      throws Exception {
    org.postgresql.core.BaseConnection pg =
        connection.unwrap(org.postgresql.core.BaseConnection.class);
    if (pg.getTransactionState() != org.postgresql.core.TransactionState.IDLE) {
      return false; // BEGIN went out with a statement: the transaction ends with COMMIT
    }
    if (pg.getQueryExecutor().getPreferQueryMode() == org.postgresql.jdbc.PreferQueryMode.SIMPLE) {
      return false; // each statement its own query, and its own implicit transaction
    }
    // In autocommit, the driver sends no BEGIN: the statements up to its sync are one implicit
    // transaction, committed (or, on an error, rolled back whole) before the reply comes.
    connection.setAutoCommit(true);
    try {
      onlyWrite.run();
    } finally {
      try {
        connection.setAutoCommit(false); // nothing is open: the handle's COMMIT sends nothing
      } catch (SQLException lost) {
        // the connection went away: what onlyWrite threw says so
      }
    }
    return true;
  }

  @Override
  public String skipLocked() {
    return " FOR UPDATE SKIP LOCKED";
  }

  @Override
  public String insertionOrder() {
    return "id";
  }

  @Override
  public String bodyLike(String param) {
    // lower() follows the database's LC_CTYPE (a UTF-8 locale folds every script); the trigram
    // index on message_text's lower(body) serves it (V56: off the message row, which changes).
    return "EXISTS (SELECT 1 FROM message_text t WHERE t.id = message.id AND lower(t.body) LIKE :"
        + param
        + " ESCAPE '!')";
  }
}
