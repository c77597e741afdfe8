package io.kurir.media;

import io.kurir.message.MediaRef;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.tenant.Device;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Files a device uploaded to send later by id, as the Cloud API's {@code POST /<phone-number-id>
 * /media} takes them: any type, each upload a new id (Meta's media ids are never replaced). They
 * are rows of the {@code upload} table named {@value #NAME_PREFIX}{@code <id>-<file name>}, so the
 * license's upload quota counts them, and they last {@code media.keep-for} from their upload (Meta
 * keeps uploaded media 30 days, the setting's default): past it they are not found, and the media
 * sweep deletes their rows ({@link MediaSweep}).
 *
 * <p>Thread-safe.
 */
public final class UploadedMedia {
  /** What the name of every such upload starts with (no character {@code LIKE} reads). */
  static final String NAME_PREFIX = "wamedia-";

  /** An uploaded file, found by its id. */
  public record Media(
      long id,
      long deviceId,
      String fileName,
      String mimeType,
      Path path,
      long size,
      String sha256,
      Instant uploadedAt) {

    /** The file to attach to a message. */
    public MediaRef ref() {
      return new MediaRef(fileName, mimeType, path);
    }
  }

  private final UploadStore store;
  private final IdGenerator ids;
  private final Clock clock;
  private final MediaFiles files;
  private final long maxBytes;
  private final long quotaBytes;
  private final Duration keepFor;

  /**
   * @param maxBytes largest upload ({@code media.max-kb})
   * @param quotaBytes most bytes the uploads of one license's devices may hold together
   * @param keepFor how long an upload can be found ({@code media.keep-for}); zero: forever
   */
  public UploadedMedia(
      Database db,
      IdGenerator ids,
      Clock clock,
      MediaFiles files,
      long maxBytes,
      long quotaBytes,
      Duration keepFor) {
    this.store = new UploadStore(db);
    this.ids = ids;
    this.clock = clock;
    this.files = files;
    this.maxBytes = maxBytes;
    this.quotaBytes = quotaBytes;
    this.keepFor = keepFor;
  }

  /**
   * Keeps {@code bytes}, uploaded as {@code fileName} of type {@code declaredType}, for {@code
   * device}. The type is read from the bytes where they tell it, else the caller's is taken.
   */
  public Uploads.Outcome upload(Device device, String fileName, String declaredType, byte[] bytes) {
    if (bytes.length == 0) {
      return refused(Uploads.Refusal.EMPTY);
    }
    if (bytes.length > maxBytes) {
      return refused(Uploads.Refusal.TOO_LARGE);
    }
    String safe = FileTypes.sanitize(fileName == null ? "" : fileName);
    String typed = FileTypes.typeOf(bytes, safe.isEmpty() ? "file" : safe);
    String type =
        typed.equals("application/octet-stream") && declaredType != null && !declaredType.isBlank()
            ? declaredType.strip()
            : typed;
    long id = ids.next();
    String display = safe.isEmpty() ? "file" + FileTypes.extensionOf(type) : safe;
    String name = NAME_PREFIX + id + "-" + display;
    if (store.usedByLicense(device, name) + bytes.length > quotaBytes) {
      return refused(Uploads.Refusal.OVER_QUOTA);
    }
    MediaRef kept = files.keep(new FetchedFile(display, type, bytes));
    boolean stored =
        store.put(
            device,
            name,
            id,
            type,
            kept.path().toString(),
            bytes.length,
            clock.millis(),
            quotaBytes);
    if (!stored) {
      return refused(Uploads.Refusal.OVER_QUOTA); // the kept file is left to the media sweep
    }
    return new Uploads.Outcome(Optional.of(id), Optional.empty());
  }

  /**
   * The upload {@code id} of {@code device}, while it is kept; empty for another device's, one of
   * the seed's uploads by name, or one past {@code media.keep-for}. Finding it marks its file used,
   * so that the media sweep leaves it while a send is accepted.
   */
  public Optional<Media> find(Device device, long id) {
    return find(id).filter(m -> m.deviceId() == device.id());
  }

  /**
   * The upload {@code id}, whatever its device, while it is kept: for a caller that proved its
   * right to it otherwise (a signed URL). Marks its file used, as {@link #find(Device, long)}.
   */
  public Optional<Media> find(long id) {
    Instant now = clock.instant();
    return store
        .byId(id)
        .filter(row -> row.name().startsWith(NAME_PREFIX))
        .filter(
            row ->
                !keepFor.isPositive()
                    || Instant.ofEpochMilli(row.createdAt()).plus(keepFor).isAfter(now))
        .filter(row -> files.markUsed(row.path()))
        .map(
            row ->
                new Media(
                    row.id(),
                    row.deviceId(),
                    row.name().substring(row.name().indexOf('-', NAME_PREFIX.length()) + 1),
                    row.mimeType(),
                    row.path(),
                    row.size(),
                    row.path().getFileName().toString(),
                    Instant.ofEpochMilli(row.createdAt())));
  }

  /**
   * Deletes {@code media}: its id is found no more; its file goes with the media sweep once no
   * message waiting to be sent names it.
   */
  public boolean delete(Media media) {
    return store.delete(media.id(), media.deviceId());
  }

  private static Uploads.Outcome refused(Uploads.Refusal why) {
    return new Uploads.Outcome(Optional.empty(), Optional.of(why));
  }
}
