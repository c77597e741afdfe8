package io.kurir.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CachedStatementsTest {
  @TempDir Path dir;
  private Connection connection;

  @BeforeEach
  void open() throws SQLException {
    connection =
        CachedStatements.wrap(DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("t.db")));
    try (var s = connection.createStatement()) {
      s.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
    }
  }

  @AfterEach
  void close() throws SQLException {
    connection.close();
  }

  @Test
  void aClosedStatementIsUsedAgainForTheSameSql() throws SQLException {
    for (int i = 1; i <= 3; i++) {
      try (PreparedStatement insert = connection.prepareStatement("INSERT INTO t VALUES (?, ?)")) {
        insert.setInt(1, i);
        insert.setString(2, "v" + i);
        insert.executeUpdate();
      }
    }
    assertThat(CachedStatements.kept(connection)).isEqualTo(1);
    assertThat(values()).containsExactly("v1", "v2", "v3");
  }

  @Test
  void aStatementGivenBackHasNoParametersOrBatchLeft() throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO t VALUES (?, ?)")) {
      insert.setInt(1, 1);
      insert.setString(2, "left in a batch that failed");
      insert.addBatch();
    } // closed without executing: what it held must not reach the next user
    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO t VALUES (?, ?)")) {
      insert.setInt(1, 2);
      insert.setString(2, "b");
      insert.addBatch();
      insert.executeBatch();
    }
    assertThat(values()).containsExactly("b");
  }

  @Test
  void aBatchThatRanOrFailedLeavesNothingForTheNextUser() throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO t VALUES (?, ?)")) {
      for (int i = 1; i <= 40; i++) { // a large batch: the driver's array grows
        insert.setInt(1, i);
        insert.setString(2, "ran");
        insert.addBatch();
      }
      insert.executeBatch();
    }
    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO t VALUES (?, ?)")) {
      insert.setInt(1, 41);
      insert.setString(2, "failed");
      insert.addBatch();
      insert.setInt(1, 1); // taken: the batch fails
      insert.setString(2, "failed");
      insert.addBatch();
      assertThatThrownBy(insert::executeBatch).isInstanceOf(SQLException.class);
    }
    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO t VALUES (?, ?)")) {
      insert.setInt(1, 50);
      insert.setString(2, "next");
      insert.addBatch();
      assertThat(insert.executeBatch()).containsExactly(1);
    }
    assertThat(values()).hasSize(42).contains("next").containsOnly("ran", "failed", "next");
  }

  @Test
  void aNestedUseOfTheSameSqlGetsItsOwnStatement() throws SQLException {
    try (var s = connection.createStatement()) {
      s.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
    }
    String sql = "SELECT v FROM t WHERE id = ?";
    try (PreparedStatement outer = connection.prepareStatement(sql)) {
      outer.setInt(1, 1);
      try (ResultSet rs = outer.executeQuery()) {
        rs.next();
        try (PreparedStatement inner = connection.prepareStatement(sql)) {
          inner.setInt(1, 2);
          try (ResultSet innerRows = inner.executeQuery()) {
            innerRows.next();
            assertThat(innerRows.getString(1)).isEqualTo("b");
          }
        }
        assertThat(rs.getString(1)).isEqualTo("a");
      }
    }
    assertThat(CachedStatements.kept(connection)).isEqualTo(1);
  }

  @Test
  void aReadLeftOpenDoesNotHoldTheDatabaseOnceItsStatementIsClosed() throws SQLException {
    try (var s = connection.createStatement()) {
      s.execute("PRAGMA journal_mode=WAL");
      s.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
    }
    PreparedStatement q = connection.prepareStatement("SELECT v FROM t ORDER BY id");
    ResultSet rows = q.executeQuery();
    rows.next(); // mid-read: SQLite holds a read snapshot
    q.close(); // without closing the rows
    assertThat(rows.isClosed()).isTrue();
    try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("t.db"));
        var s = other.createStatement()) {
      s.execute("INSERT INTO t VALUES (3, 'c')");
      try (ResultSet checkpoint = s.executeQuery("PRAGMA wal_checkpoint(TRUNCATE)")) {
        checkpoint.next();
        assertThat(checkpoint.getInt(1)).as("checkpoint blocked by a reader").isZero();
      }
    }
  }

  @Test
  void aStatementCannotBeUsedAfterItsClose() throws SQLException {
    PreparedStatement insert = connection.prepareStatement("INSERT INTO t VALUES (?, ?)");
    insert.close();
    assertThat(insert.isClosed()).isTrue();
    assertThatThrownBy(() -> insert.setInt(1, 1)).isInstanceOf(SQLException.class);
    insert.close(); // twice is harmless
    assertThat(CachedStatements.kept(connection)).isEqualTo(1);
  }

  @Test
  void jdbiStatementsAreKeptToo() {
    Jdbi jdbi = Jdbi.create(() -> connection);
    try (var h = jdbi.open()) {
      for (int i = 1; i <= 5; i++) {
        h.createUpdate("INSERT INTO t VALUES (?, ?)").bind(0, i).bind(1, "j" + i).execute();
        assertThat(h.createQuery("SELECT COUNT(*) FROM t").mapTo(Integer.class).one()).isEqualTo(i);
      }
      assertThat(CachedStatements.kept(connection)).isEqualTo(2);
    }
  }

  private List<String> values() throws SQLException {
    try (PreparedStatement q = connection.prepareStatement("SELECT v FROM t ORDER BY id");
        ResultSet rs = q.executeQuery()) {
      var out = new java.util.ArrayList<String>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    }
  }
}
