package io.kurir.store;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * A connection that keeps its prepared statements: closing one puts it back for the next use of the
 * same SQL instead of throwing it away. The gateway runs a few dozen statements over and over
 * (every write on the writer's one connection, every sender's look at its queue on the pooled
 * ones), and preparing them anew each time cost about a third of SQLite's time (parsing, planning).
 *
 * <p>Only the plain forms are kept ({@code prepareStatement(sql)} and the forward-only, read-only
 * form Jdbi uses); anything else goes to the connection as it is. A statement asked for while the
 * same SQL is still open (a nested use) is prepared anew and closed for real.
 *
 * <p>Plain classes, not proxies: every parameter set and execute of every statement passes here,
 * and a reflective call each time was as much of the SQLite writer's time as the driver's own work.
 *
 * <p>Not thread-safe, like the connection it wraps: one borrower at a time uses it.
 */
final class CachedStatements extends ForwardingConnection {
  /** Distinct statements kept; the writer's whole vocabulary fits, a leak does not. */
  private static final int MAX_KEPT = 256;

  private final Connection connection;
  private final Map<String, PreparedStatement> idle =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, PreparedStatement> eldest) {
          if (size() > MAX_KEPT) {
            closeQuietly(eldest.getValue());
            return true;
          }
          return false;
        }
      };

  private CachedStatements(Connection connection) {
    this.connection = connection;
  }

  /** {@code source}, whose connections keep the statements prepared on them. */
  static DataSource wrap(DataSource source) {
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result = call(source, method, args);
              return result instanceof Connection c && method.getName().equals("getConnection")
                  ? wrap(c)
                  : result;
            });
  }

  /** {@code connection}, keeping the statements prepared on it. */
  static Connection wrap(Connection connection) {
    return new CachedStatements(connection);
  }

  @Override
  Connection target() {
    return connection;
  }

  @Override
  public PreparedStatement prepareStatement(String sql) throws SQLException {
    return lend(sql);
  }

  /** The forward-only, read-only form Jdbi asks for is the plain statement. */
  @Override
  public PreparedStatement prepareStatement(String sql, int type, int concurrency)
      throws SQLException {
    if (type == ResultSet.TYPE_FORWARD_ONLY && concurrency == ResultSet.CONCUR_READ_ONLY) {
      return lend(sql);
    }
    return connection.prepareStatement(sql, type, concurrency);
  }

  @Override
  public void close() throws SQLException {
    idle.values().forEach(CachedStatements::closeQuietly);
    idle.clear();
    connection.close();
  }

  private PreparedStatement lend(String sql) throws SQLException {
    PreparedStatement kept = idle.remove(sql);
    return new Lent(sql, kept != null ? kept : connection.prepareStatement(sql));
  }

  /** One use of a kept statement: its close gives it back. */
  private final class Lent extends ForwardingPreparedStatement {
    private final String sql;
    private final PreparedStatement statement;
    private boolean closed;
    private ResultSet rows; // the last one handed out: closed with the statement, as JDBC says
    // Rows added that no run of the batch took: only then is the batch cleared at the give-back.
    // SQLite's driver clears a batch by walking its whole array, as long as the largest batch the
    // statement ever ran, and it has already done so after each run.
    private boolean batchLeft;

    Lent(String sql, PreparedStatement statement) {
      this.sql = sql;
      this.statement = statement;
    }

    @Override
    PreparedStatement open() throws SQLException {
      if (closed) {
        throw new SQLException("statement is closed");
      }
      return statement;
    }

    @Override
    public void close() {
      giveBack();
    }

    @Override
    public boolean isClosed() {
      return closed;
    }

    @Override
    public Connection getConnection() {
      return CachedStatements.this;
    }

    @Override
    public ResultSet executeQuery() throws SQLException {
      return kept(open().executeQuery());
    }

    @Override
    public ResultSet executeQuery(String other) throws SQLException {
      return kept(open().executeQuery(other));
    }

    @Override
    public ResultSet getResultSet() throws SQLException {
      return kept(open().getResultSet());
    }

    @Override
    public ResultSet getGeneratedKeys() throws SQLException {
      return kept(open().getGeneratedKeys());
    }

    private ResultSet kept(ResultSet handedOut) {
      this.rows = handedOut;
      return handedOut;
    }

    @Override
    public void addBatch() throws SQLException {
      open().addBatch();
      batchLeft = true;
    }

    @Override
    public int[] executeBatch() throws SQLException {
      int[] counts = open().executeBatch();
      batchLeft = false;
      return counts;
    }

    @Override
    public long[] executeLargeBatch() throws SQLException {
      long[] counts = open().executeLargeBatch();
      batchLeft = false;
      return counts;
    }

    @Override
    public void clearBatch() throws SQLException {
      open().clearBatch();
      batchLeft = false;
    }

    private void giveBack() {
      if (closed) {
        return;
      }
      closed = true;
      try {
        if (rows != null && !rows.isClosed()) {
          rows.close(); // a statement left mid-read would hold SQLite's read snapshot open
        }
        statement.clearParameters();
        if (batchLeft) {
          statement.clearBatch();
        }
        if (!idle.containsKey(sql)) {
          idle.put(sql, statement);
          return;
        }
      } catch (SQLException | RuntimeException e) {
        // not reusable: closed below
      }
      closeQuietly(statement);
    }
  }

  private static Object call(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static void closeQuietly(PreparedStatement statement) {
    try {
      statement.close();
    } catch (SQLException | RuntimeException e) {
      // closing a statement of a connection that is going away: nothing to keep
    }
  }

  /** For tests: how many statements wait to be used again. */
  static int kept(Connection wrapped) {
    return wrapped instanceof CachedStatements c ? c.idle.size() : 0;
  }
}
