package io.kurir.media;

import io.kurir.message.MediaRef;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.tenant.Device;
import java.time.Clock;
import java.util.Optional;

/**
 * Images a device uploaded to send later by name ({@code send_image}'s {@code /media/<name>}). A
 * name is reduced to safe characters, so no name reaches outside the media folder; uploading a name
 * again replaces the earlier file. Only images are taken, up to the media size limit.
 *
 * <p>Thread-safe.
 */
public final class Uploads {
  /** Why an upload was refused. */
  public enum Refusal {
    EMPTY,
    TOO_LARGE,
    NOT_AN_IMAGE,
    /** The license's uploads would pass its quota ({@code media.upload-quota}). */
    OVER_QUOTA
  }

  /** The outcome of an upload: the stored upload's id, or why it was refused. */
  public record Outcome(Optional<Long> id, Optional<Refusal> refusal) {}

  private final UploadStore store;
  private final IdGenerator ids;
  private final Clock clock;
  private final MediaFiles files;
  private final long maxBytes;
  private final long quotaBytes;

  /**
   * @param maxBytes largest upload
   * @param quotaBytes most bytes the uploads of one license's devices may hold together
   */
  public Uploads(
      Database db, IdGenerator ids, Clock clock, MediaFiles files, long maxBytes, long quotaBytes) {
    this.store = new UploadStore(db);
    this.ids = ids;
    this.clock = clock;
    this.files = files;
    this.maxBytes = maxBytes;
    this.quotaBytes = quotaBytes;
  }

  public Outcome upload(Device device, String originalName, byte[] bytes) {
    if (bytes.length == 0) {
      return refused(Refusal.EMPTY);
    }
    if (bytes.length > maxBytes) {
      return refused(Refusal.TOO_LARGE);
    }
    String type = FileTypes.sniff(bytes);
    if (!type.startsWith("image/")) {
      return refused(Refusal.NOT_AN_IMAGE);
    }
    String name = keyOf(originalName);
    if (usedByLicense(device, name) + bytes.length > quotaBytes) {
      return refused(Refusal.OVER_QUOTA); // before writing the file: nothing to clean up
    }
    MediaRef kept = files.keep(new FetchedFile(displayName(name, type), type, bytes));
    long id = ids.next();
    long now = clock.millis();
    // The file the name had before stays until the media sweep finds no row refers to it.
    boolean stored =
        store.put(device, name, id, type, kept.path().toString(), bytes.length, now, quotaBytes);
    if (!stored) {
      return refused(Refusal.OVER_QUOTA); // the kept file is left to the media sweep
    }
    return new Outcome(Optional.of(idOf(device, name).orElse(id)), Optional.empty());
  }

  private long usedByLicense(Device device, String name) {
    return store.usedByLicense(device, name);
  }

  /**
   * The upload a {@code send_image} names: {@code /media/<name>}, or the bare name, as it was
   * uploaded (it is reduced the same way).
   */
  public Optional<MediaRef> find(Device device, String reference) {
    String raw = reference.strip();
    if (raw.startsWith("/media/")) {
      raw = raw.substring("/media/".length());
    }
    String name = keyOf(raw);
    return store
        .find(device, name)
        .map(
            row ->
                new MediaRef(displayName(row.name(), row.mimeType()), row.mimeType(), row.path()))
        // Used now: the media sweep leaves its file alone while the send is accepted.
        .filter(ref -> files.markUsed(ref.path()));
  }

  private Optional<Long> idOf(Device device, String name) {
    return store.idOf(device, name);
  }

  /**
   * The name an upload is stored and found under, the same at both ends: the last path part
   * (browsers send {@code C:\\fakepath\\x.png}), reduced to safe characters, {@code image} when
   * nothing is left. No extension is added here, so {@code /media/photo} finds what was uploaded as
   * {@code photo}.
   */
  static String keyOf(String reference) {
    String path = reference == null ? "" : reference.strip().replace('\\', '/');
    String name = FileTypes.sanitize(path.substring(path.lastIndexOf('/') + 1));
    return name.isEmpty() || name.chars().allMatch(c -> c == '.' || c == '_') ? "image" : name;
  }

  /** The name the recipient sees: the key, with an extension from the type when it has none. */
  private static String displayName(String key, String type) {
    return key.contains(".") ? key : key + FileTypes.extensionOf(type);
  }

  private static Outcome refused(Refusal why) {
    return new Outcome(Optional.empty(), Optional.of(why));
  }
}
