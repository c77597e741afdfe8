package io.kurir.media;

import io.kurir.message.MediaRef;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The images and files the gateway keeps for the messages that send them, under {@code
 * data.dir/media}, named by content hash: a file is written (and synced to disk) before the message
 * that refers to it is committed, so an accepted message always finds its file, also after a
 * restart. The same content is stored once.
 *
 * <p>Each file's modification time says when it was last kept or looked up, on the injected clock:
 * {@link MediaSweep} removes a file no row refers to only once it has not been used for its grace
 * period, which covers the gap between keeping a file and committing the row that refers to it.
 * Keeping, touching and the sweep's removal take one lock, so a file the sweep is about to remove
 * is either removed before it is kept again (and written anew) or touched first (and kept).
 *
 * <p>Thread-safe. One instance per gateway: the lock is the instance's.
 */
public final class MediaFiles {
  private final Path folder;
  private final Clock clock;
  private final ReentrantLock useOrRemove = new ReentrantLock();

  public MediaFiles(Path dataDir, Clock clock) {
    this.folder = dataDir.resolve("media");
    this.clock = clock;
  }

  /** The folder the files are kept in. */
  public Path folder() {
    return folder;
  }

  public MediaRef keep(FetchedFile file) {
    String hash = sha256(file.bytes());
    Path target = folder.resolve(hash.substring(0, 2)).resolve(hash);
    useOrRemove.lock();
    try {
      if (!touch(target)) {
        Files.createDirectories(target.getParent());
        Path temp = Files.createTempFile(target.getParent(), hash, ".part");
        try {
          try (FileChannel out = FileChannel.open(temp, StandardOpenOption.WRITE)) {
            out.write(ByteBuffer.wrap(file.bytes()));
            out.force(true);
          }
          Files.setLastModifiedTime(temp, FileTime.from(clock.instant()));
          Files.move(
              temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
          Files.deleteIfExists(temp);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot keep " + file.name() + " under " + folder, e);
    } finally {
      useOrRemove.unlock();
    }
    return new MediaRef(file.name(), file.mimeType(), target);
  }

  /**
   * Marks a kept file as used now (an upload about to be sent), so that the sweep leaves it for its
   * grace period; false when it is not there.
   */
  public boolean markUsed(Path file) {
    useOrRemove.lock();
    try {
      return touch(file);
    } catch (IOException e) {
      return false; // not ours to fail a send over; the sweep's check of rows still holds
    } finally {
      useOrRemove.unlock();
    }
  }

  private boolean touch(Path file) throws IOException {
    try {
      Files.setLastModifiedTime(file, FileTime.from(clock.instant()));
      return true;
    } catch (NoSuchFileException e) {
      return false;
    }
  }

  /**
   * Removes {@code file} if it was last used before {@code usedBefore}; false when it was used
   * since (or is gone).
   */
  boolean removeIfUnusedSince(Path file, Instant usedBefore) throws IOException {
    useOrRemove.lock();
    try {
      if (!Files.getLastModifiedTime(file).toInstant().isBefore(usedBefore)) {
        return false;
      }
      return Files.deleteIfExists(file);
    } catch (NoSuchFileException e) {
      return false;
    } finally {
      useOrRemove.unlock();
    }
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
