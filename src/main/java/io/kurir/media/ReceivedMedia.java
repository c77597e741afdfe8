package io.kurir.media;

import io.kurir.store.Database;
import io.kurir.tenant.Device;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The files incoming messages came with (an image, a voice note, a document…), named by the
 * incoming message's id, as a {@code meta} webhook subscription's payloads name them and the Cloud
 * API's door ({@code GET /graph/{v}/{media-id}}) resolves them, beside the uploads of {@link
 * UploadedMedia}. Kept as the retention settings say ({@link MediaSweep}): once the sweep let go of
 * a file, its id is not found, as Meta's media ids expire.
 *
 * <p>Thread-safe.
 */
public final class ReceivedMedia {
  private final ReceivedMediaStore store;

  public ReceivedMedia(Database db) {
    this.store = new ReceivedMediaStore(db);
  }

  /**
   * What incoming message {@code id}'s row says of its file, without reading the file: its device,
   * its type (empty for a message that came with no file) and its path (empty once the media sweep
   * released it). Empty for an id no incoming message has.
   */
  public Optional<IncomingFile> incomingFile(long id) {
    return store.byId(id).map(row -> new IncomingFile(row.deviceId(), row.mimeType(), row.path()));
  }

  /** An incoming message's file as its row holds it ({@link #incomingFile}). */
  public record IncomingFile(long deviceId, Optional<String> mimeType, Optional<Path> path) {}

  /** The file of incoming message {@code id} of {@code device}, while it is kept. */
  public Optional<UploadedMedia.Media> find(Device device, long id) {
    return find(id).filter(m -> m.deviceId() == device.id());
  }

  /**
   * The file of incoming message {@code id}, whatever its device, while it is kept: for a caller
   * that proved its right to it otherwise (a signed URL).
   */
  public Optional<UploadedMedia.Media> find(long id) {
    return store
        .byId(id)
        .filter(row -> row.path().isPresent())
        .flatMap(
            row -> {
              Path path = row.path().get();
              String type = row.mimeType().orElse("application/octet-stream");
              // Its size and hash are read from the file: drivers keep incoming files under names
              // of their own, and Meta's media object carries both.
              try (InputStream in = Files.newInputStream(path);
                  DigestInputStream digest =
                      new DigestInputStream(in, MessageDigest.getInstance("SHA-256"))) {
                long size = digest.transferTo(java.io.OutputStream.nullOutputStream());
                return Optional.of(
                    new UploadedMedia.Media(
                        row.id(),
                        row.deviceId(),
                        path.getFileName().toString(),
                        type,
                        path,
                        size,
                        HexFormat.of().formatHex(digest.getMessageDigest().digest()),
                        row.receivedAt()));
              } catch (IOException e) { // the file is gone (swept meanwhile): not found
                return Optional.empty();
              } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is part of every JDK", e);
              }
            });
  }
}
