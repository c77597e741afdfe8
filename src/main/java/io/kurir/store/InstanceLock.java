package io.kurir.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One gateway per SQLite database: a second gateway on the same file would resume and send the
 * first one's queue again, and issue the same ids. The lock is an OS file lock next to the
 * database, released when the gateway stops or its process dies. {@code ./kurir admin} does not
 * take it: it never sends. On PostgreSQL, where nodes share the database, there is nothing to hold
 * ({@link #none}).
 */
public final class InstanceLock implements AutoCloseable {
  private final FileChannel channel;
  private final FileLock lock;

  private InstanceLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  private static final InstanceLock NONE = new InstanceLock(null, null);

  /** Holds nothing: the engine arbitrates between the gateways that share it. */
  static InstanceLock none() {
    return NONE;
  }

  /** Locks the SQLite database of {@code jdbcUrl}, or says which gateway holds it. */
  public static InstanceLock acquire(String jdbcUrl) {
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
        throw new IllegalStateException(
            "another Kurir gateway is running on "
                + file
                + " (it holds the lock "
                + lockFile
                + "); stop it, or give this one another data.dir");
      }
      return new InstanceLock(channel, lock);
    } catch (IOException e) {
      throw new IllegalStateException("cannot lock the database " + db + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    if (lock == null) {
      return;
    }
    try {
      lock.release();
      channel.close();
    } catch (IOException e) {
      // the process is stopping; the OS drops the lock with the file handle anyway
    }
  }
}
