package io.kurir.store;

import java.lang.reflect.InvocationHandler;
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
 * <p>Not thread-safe, like the connection it wraps: one borrower at a time uses it.
 */
final class CachedStatements implements InvocationHandler {
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
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            new CachedStatements(connection));
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    if (method.getName().equals("prepareStatement") && isPlain(args)) {
      return lend((String) args[0], (Connection) proxy);
    }
    if (method.getName().equals("close")) {
      idle.values().forEach(CachedStatements::closeQuietly);
      idle.clear();
    }
    return call(connection, method, args);
  }

  /** {@code (sql)}, or {@code (sql, TYPE_FORWARD_ONLY, CONCUR_READ_ONLY)}: the same statement. */
  private static boolean isPlain(Object[] args) {
    if (args.length == 1) {
      return true;
    }
    return args.length == 3
        && args[1] instanceof Integer type
        && type == ResultSet.TYPE_FORWARD_ONLY
        && args[2] instanceof Integer concurrency
        && concurrency == ResultSet.CONCUR_READ_ONLY;
  }

  private PreparedStatement lend(String sql, Connection owner) throws SQLException {
    PreparedStatement kept = idle.remove(sql);
    PreparedStatement statement = kept != null ? kept : connection.prepareStatement(sql);
    return (PreparedStatement)
        Proxy.newProxyInstance(
            PreparedStatement.class.getClassLoader(),
            new Class<?>[] {PreparedStatement.class},
            new Lent(sql, statement, owner));
  }

  /** One use of a kept statement: its close gives it back. */
  private final class Lent implements InvocationHandler {
    private final String sql;
    private final PreparedStatement statement;
    private final Connection owner;
    private boolean closed;
    private ResultSet rows; // the last one handed out: closed with the statement, as JDBC says

    Lent(String sql, PreparedStatement statement, Connection owner) {
      this.sql = sql;
      this.statement = statement;
      this.owner = owner;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      switch (method.getName()) {
        case "close" -> {
          giveBack();
          return null;
        }
        case "isClosed" -> {
          return closed;
        }
        case "getConnection" -> {
          return owner;
        }
        default -> {
          if (closed) {
            throw new SQLException("statement is closed");
          }
          Object result = call(statement, method, args);
          if (result instanceof ResultSet rows) {
            this.rows = rows;
          }
          return result;
        }
      }
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
        statement.clearBatch();
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
    return Proxy.getInvocationHandler(wrapped) instanceof CachedStatements c ? c.idle.size() : 0;
  }
}
