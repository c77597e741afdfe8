package io.kurir.message;

import io.kurir.store.Database;
import io.kurir.store.Transaction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Idempotency keys: a client that did not get an answer (a timeout, a crash after the commit) sends
 * the same request again with the same key, and is answered what the first request answered,
 * without anything being stored or sent twice.
 *
 * <p>A key is scoped to its device and kept {@link #RETENTION} from the first request. With it is
 * stored a fingerprint of the normalised request (everything that would be stored: recipients,
 * kind, text, media, family, sync, delay, retry), so that the same key on another request is
 * refused ({@link IdempotencyKeyReused}) rather than answered with an id that means something else.
 *
 * <p>The check and the store are one transaction with the request's own insert ({@link
 * Claim#takenIn}, {@link Claim#recordIn}), so that of two concurrent requests with one key exactly
 * one stores; the other is answered the first's ids.
 *
 * <p>Thread-safe.
 */
public final class IdempotencyKeys {
  /** The longest key accepted, in characters. */
  public static final int MAX_LENGTH = 255;

  /** How long a key is remembered, from its first request. */
  public static final Duration RETENTION = Duration.ofHours(24);

  /** Expired keys are deleted at most this often, when a request with a key arrives. */
  private static final Duration PRUNE_EVERY = Duration.ofMinutes(10);

  private static final Logger log = LoggerFactory.getLogger(IdempotencyKeys.class);

  private final IdempotencyKeyStore store;
  private final Clock clock;
  private final AtomicLong nextPrune = new AtomicLong(Long.MIN_VALUE);

  public IdempotencyKeys(Database db, Clock clock) {
    this.store = new IdempotencyKeyStore(db);
    this.clock = clock;
  }

  /**
   * The key as it is compared: without surrounding white space, 1 to {@value #MAX_LENGTH} printable
   * ASCII characters (a UUID, a hash, an order number); empty when {@code raw} is not such a key.
   */
  public static Optional<String> wellFormed(String raw) {
    if (raw == null) {
      return Optional.empty();
    }
    String key = raw.strip();
    if (key.isEmpty() || key.length() > MAX_LENGTH) {
      return Optional.empty();
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        return Optional.empty();
      }
    }
    return Optional.of(key);
  }

  /**
   * A fingerprint of a request made of {@code parts}: SHA-256 of each part with its length in
   * front, so that no two different lists of parts can run together into the same text.
   */
  public static String fingerprint(String... parts) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
    for (String part : parts) {
      String p = part == null ? "" : part;
      sha.update((p.length() + ":" + p + ";").getBytes(StandardCharsets.UTF_8));
    }
    return HexFormat.of().formatHex(sha.digest());
  }

  /** The fingerprint of a send: everything its messages would be stored with. */
  static String fingerprint(SendRequest request) {
    StringBuilder recipients = new StringBuilder();
    for (Recipient r : request.recipients()) {
      recipients.append(r.group() ? "group:" : "number:").append(r.address()).append('\n');
    }
    // A content part only when there is content, so that a seed family's request keeps the
    // fingerprint it had before messages carried content.
    String[] content =
        request
            .content()
            .map(c -> new String[] {io.kurir.content.CloudMessageJson.toStored(c)})
            .orElse(new String[0]);
    String[] parts = {
      "send",
      request.api(),
      request.kind(),
      request.body(),
      Boolean.toString(request.sync()),
      Boolean.toString(request.retry()),
      Long.toString(request.delay().toMillis()),
      // Kept media files are named by the hash of their content: the same bytes, the same name.
      request
          .media()
          .map(m -> m.name() + "\n" + m.mimeType() + "\n" + m.path().getFileName())
          .orElse(""),
      request.mediaUrl().orElse(""),
      recipients.toString()
    };
    String[] all = java.util.Arrays.copyOf(parts, parts.length + content.length);
    System.arraycopy(content, 0, all, parts.length, content.length);
    return fingerprint(all);
  }

  /**
   * The claim of one request on {@code key} of a device. Also deletes expired keys now and then.
   *
   * @param fingerprint what the request is ({@link #fingerprint(String...)})
   */
  public Claim claim(long deviceId, String key, String fingerprint) {
    String wellFormed =
        wellFormed(key).orElseThrow(() -> new IllegalArgumentException("not a usable key"));
    pruneNowAndThen();
    return new Claim(deviceId, wellFormed, fingerprint);
  }

  /** One request's claim on its key: its device, its key and its fingerprint. */
  public final class Claim {
    private final long deviceId;
    private final String key;
    private final String fingerprint;

    private Claim(long deviceId, String key, String fingerprint) {
      this.deviceId = deviceId;
      this.key = key;
      this.fingerprint = fingerprint;
    }

    public String key() {
      return key;
    }

    /**
     * What the first request with this key answered, when there was one within {@link #RETENTION}:
     * the ids it stored, in its order. A read, outside any transaction.
     *
     * @throws IdempotencyKeyReused when the first request with this key was a different request
     */
    public Optional<List<Long>> firstAnswer() {
      Optional<IdempotencyKeyStore.Row> row = store.find(deviceId, key, oldestKept());
      if (row.isPresent() && !row.get().fingerprint().equals(fingerprint)) {
        throw new IdempotencyKeyReused(key);
      }
      return row.map(IdempotencyKeyStore.Row::ids);
    }

    /**
     * Whether a request with this key was stored already (this one or another: {@link #firstAnswer}
     * tells after the commit), in the caller's write transaction. It never throws for a different
     * request, so that it cannot fail the other writes of a group commit.
     */
    public boolean takenIn(Transaction tx) {
      return IdempotencyKeyStore.find(tx, deviceId, key, oldestKept()).isPresent();
    }

    /** Records that this request stored {@code ids}, in the caller's write transaction. */
    public void recordIn(Transaction tx, List<Long> ids) {
      IdempotencyKeyStore.put(tx, deviceId, key, fingerprint, ids, clock.instant());
    }
  }

  private Instant oldestKept() {
    return clock.instant().minus(RETENTION);
  }

  /** Deletes expired keys at most every {@link #PRUNE_EVERY}, in the background. */
  private void pruneNowAndThen() {
    long now = clock.millis();
    long due = nextPrune.get();
    if (now < due || !nextPrune.compareAndSet(due, now + PRUNE_EVERY.toMillis())) {
      return;
    }
    try {
      store
          .prune(oldestKept())
          .whenComplete(
              (deleted, e) -> {
                if (e != null) {
                  log.warn("could not delete expired idempotency keys: {}", e.toString());
                } else if (deleted > 0) {
                  log.debug("deleted {} expired idempotency key(s)", deleted);
                }
              });
    } catch (Throwable e) { // a request must never fail because housekeeping did
      log.warn("could not delete expired idempotency keys: {}", e.toString());
    }
  }
}
