package io.kurir.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * One gateway per SQLite database, one per {@code node.id} on PostgreSQL: a second gateway in the
 * same place would resume and send the first one's queue again, and issue the same ids. On SQLite
 * the lock is an OS file lock next to the database, released when the gateway stops or its process
 * dies. On PostgreSQL it is a session advisory lock keyed by the node id, held by a connection of
 * its own and released when that connection ends (the process died, the server restarted). {@code
 * ./kurir admin} does not take it: it never sends.
 */
public final class InstanceLock implements AutoCloseable {
  /** The first half of the advisory lock's key: "KURI", so that other programs' locks differ. */
  private static final int ADVISORY_KEY = 0x4B555249;

  /**
   * The advisory lock ("KURS", 0) of the secrets key: a rotation holds it exclusively for its
   * transaction, a starting node's secrets check shares it, so a node never checks its key halfway
   * through a rotation. Its first half differs from the nodes' so {@link #liveNodes} does not count
   * it.
   */
  private static final int SECRETS_KEY_LOCK = 0x4B555253;

  private final FileChannel channel;
  private final FileLock lock;
  private final Connection session;
  private final int nodeId;

  private InstanceLock(FileChannel channel, FileLock lock, Connection session, int nodeId) {
    this.channel = channel;
    this.lock = lock;
    this.session = session;
    this.nodeId = nodeId;
  }

  /** Takes node {@code nodeId}'s advisory lock on the PostgreSQL database at {@code location}. */
  static InstanceLock acquireNode(DatabaseLocation location, int nodeId) {
    Connection c;
    try {
      c = DriverManager.getConnection(location.url(), location.user(), location.password());
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot connect to the database " + location + ": " + e.getMessage(), e);
    }
    try (PreparedStatement q = c.prepareStatement("SELECT pg_try_advisory_lock(?, ?)")) {
      q.setInt(1, ADVISORY_KEY);
      q.setInt(2, nodeId);
      try (ResultSet rs = q.executeQuery()) {
        if (rs.next() && rs.getBoolean(1)) {
          return new InstanceLock(null, null, c, nodeId);
        }
      }
      throw new IllegalStateException(
          "another Kurir gateway is running as node.id "
              + nodeId
              + " on "
              + location
              + "; stop it, or give this one another node.id");
    } catch (SQLException | RuntimeException e) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // the connection is being given up anyway
      }
      if (e instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException(
          "cannot lock the database " + location + ": " + e.getMessage(), e);
    }
  }

  /**
   * How many nodes hold their advisory lock on this PostgreSQL database: the gateways running on it
   * now. A node killed loses its lock as soon as the server sees its connection end.
   */
  static int liveNodes(org.jdbi.v3.core.Handle h) {
    return h.createQuery(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                + " AND classid = :key AND objsubid = 2"
                + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")
        .bind("key", ADVISORY_KEY)
        .mapTo(Integer.class)
        .one();
  }

  /**
   * Inside a rotation's transaction on PostgreSQL: takes the secrets key's lock for the rest of the
   * transaction (a node starting now waits in {@link #awaitSecretsKey} and then meets the new key),
   * and refuses while any node holds its lock: a running gateway would keep sealing with the old
   * key. Nothing on SQLite, where the rotation holds the gateway's own file lock ({@link
   * #forMaintenance}).
   */
  static void lockSecretsKey(org.jdbi.v3.core.Handle h, Dialect dialect) {
    if (dialect.singleWriter()) {
      return;
    }
    h.createQuery("SELECT pg_advisory_xact_lock(:key, 0)::text")
        .bind("key", SECRETS_KEY_LOCK)
        .mapTo(String.class)
        .one();
    int live = liveNodes(h);
    if (live > 0) {
      throw new IllegalStateException(
          "a gateway is running on this database ("
              + live
              + (live == 1 ? " node holds its lock" : " nodes hold their locks")
              + " on it); stop it first");
    }
  }

  /**
   * {@link #lockSecretsKey}'s refusal, checked early (before a new key is made); the rotation's
   * transaction checks again.
   */
  public static void refuseWhileRunning(Database db) {
    db.jdbi().useTransaction(h -> lockSecretsKey(h, db.dialect()));
  }

  /** At a node's secrets check on PostgreSQL: waits while a rotation of the key runs. */
  static void awaitSecretsKey(Database db) {
    if (db.dialect().singleWriter()) {
      return;
    }
    db.jdbi()
        .useTransaction(
            h ->
                h.createQuery("SELECT pg_advisory_xact_lock_shared(:key, 0)::text")
                    .bind("key", SECRETS_KEY_LOCK)
                    .mapTo(String.class)
                    .one());
  }

  /**
   * For work that no gateway may run beside (rotating the secrets key): on SQLite, the lock {@code
   * serve} takes, held until closed, or a refusal naming who holds it; on PostgreSQL nothing here
   * (see {@link #lockSecretsKey}).
   */
  public static InstanceLock forMaintenance(DatabaseLocation location) {
    if (!Dialect.forUrl(location.url()).singleWriter()) {
      return new InstanceLock(null, null, null, 0);
    }
    return acquire(location.url(), true);
  }

  /** Locks the SQLite database of {@code jdbcUrl}, or says which gateway holds it. */
  public static InstanceLock acquire(String jdbcUrl) {
    return acquire(jdbcUrl, false);
  }

  private static InstanceLock acquire(String jdbcUrl, boolean maintenance) {
    String file = jdbcUrl.substring("jdbc:sqlite:".length());
    if (file.startsWith("file:")) {
      file = file.substring("file:".length());
    }
    int query = file.indexOf('?');
    if (query >= 0) {
      file = file.substring(0, query);
    }
    Path db = Path.of(file).toAbsolutePath();
    try {
      // One lock per real file, however the URL spells it (relative path, symlinked folder).
      Files.createDirectories(db.getParent());
      Path lockFile = db.getParent().toRealPath().resolve(db.getFileName() + ".lock");
      FileChannel channel =
          FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException sameProcess) {
        lock = null;
      }
      if (lock == null) {
        channel.close();
        if (maintenance) {
          throw new IllegalStateException(
              "a gateway is running on this database (it holds the lock "
                  + lockFile
                  + "); stop it first");
        }
        throw new IllegalStateException(
            "another Kurir gateway is running on the database "
                + file
                + " (it holds the lock "
                + lockFile
                + "). Stop it, or give this one a data folder of its own with --data=<folder>"
                + " (data.dir)");
      }
      return new InstanceLock(channel, lock, null, 0);
    } catch (IOException e) {
      // Mostly a folder or lock file this user may not write: said as such, with its path.
      throw new IllegalStateException(
          DataFolder.problem(e, db.resolveSibling(db.getFileName() + ".lock")), e);
    }
  }

  @Override
  public void close() {
    if (session != null) {
      // Unlocked before the session closes: a session's end reaches the server a moment later,
      // and a gateway restarted at once would find its own node still locked.
      try (session;
          PreparedStatement q = session.prepareStatement("SELECT pg_advisory_unlock(?, ?)")) {
        q.setInt(1, ADVISORY_KEY);
        q.setInt(2, nodeId);
        q.execute();
      } catch (SQLException e) {
        // the server is gone; so is the lock
      }
      return;
    }
    if (lock == null) {
      return; // PostgreSQL's maintenance: nothing held
    }
    try {
      lock.release();
      channel.close();
    } catch (IOException e) {
      // the process is stopping; the OS drops the lock with the file handle anyway
    }
  }
}
