package io.kurir.media;

import io.kurir.message.MediaRef;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The images and files the gateway keeps for the messages that send them, under {@code
 * data.dir/media}, named by content hash: a file is written (and synced to disk) before the message
 * that refers to it is committed, so an accepted message always finds its file, also after a
 * restart. The same content is stored once.
 *
 * <p>Thread-safe.
 */
public final class MediaFiles {
  private final Path folder;

  public MediaFiles(Path dataDir) {
    this.folder = dataDir.resolve("media");
  }

  public MediaRef keep(FetchedFile file) {
    String hash = sha256(file.bytes());
    Path target = folder.resolve(hash.substring(0, 2)).resolve(hash);
    try {
      if (!Files.exists(target)) {
        Files.createDirectories(target.getParent());
        Path temp = Files.createTempFile(target.getParent(), hash, ".part");
        try {
          try (FileChannel out = FileChannel.open(temp, StandardOpenOption.WRITE)) {
            out.write(ByteBuffer.wrap(file.bytes()));
            out.force(true);
          }
          Files.move(
              temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
          Files.deleteIfExists(temp);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot keep " + file.name() + " under " + folder, e);
    }
    return new MediaRef(file.name(), file.mimeType(), target);
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
