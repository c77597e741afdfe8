package io.kurir.driver.waha;

import io.kurir.driver.DeviceSessionStore;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * What Kurir keeps of each device's session on the engine, in the driver's {@link
 * DeviceSessionStore}: the session's name, the key that signs its webhooks, and the last status the
 * engine reported (also cached in memory: every send asks it).
 *
 * <p>Thread-safe.
 */
final class WahaSessions {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  private static final SecureRandom RANDOM = new SecureRandom();

  static final String KEY_SESSION = "session";
  // Stored encrypted; keep in sync with StoredSecrets.SessionSecrets.KEYS.
  static final String KEY_HMAC = "hmac-key";
  static final String KEY_STATUS = "status";

  private final DeviceSessionStore store;
  private final Map<Long, String> status = new ConcurrentHashMap<>();
  private final AtomicLong reads = new AtomicLong();
  // The number of the read that recorded each device's status; guarded by this.
  private final Map<Long, Long> statusRead = new HashMap<>();

  WahaSessions(DeviceSessionStore store) {
    this.store = store;
  }

  static boolean validName(String name) {
    return NAME.matcher(name).matches();
  }

  /** The name of the session a device without {@code session} configured gets. */
  static String defaultName(long deviceId) {
    return "kurir-" + deviceId;
  }

  /** The session the device was attached to, if it ever was. */
  Optional<String> name(long deviceId) {
    return store.get(deviceId, KEY_SESSION);
  }

  void rememberName(long deviceId, String name) {
    if (!name(deviceId).filter(name::equals).isPresent()) {
      store.put(deviceId, KEY_SESSION, name);
    }
  }

  /** The key that signs the device's webhooks; made on first use and kept. */
  String hmacKey(long deviceId) {
    Optional<String> key = store.getSecret(deviceId, KEY_HMAC);
    if (key.isPresent()) {
      return key.get();
    }
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    String made = HexFormat.of().formatHex(bytes);
    store.putSecret(deviceId, KEY_HMAC, made);
    return made;
  }

  Optional<String> existingHmacKey(long deviceId) {
    return store.getSecret(deviceId, KEY_HMAC);
  }

  /** The engine's last reported status of the device's session, such as {@code WORKING}. */
  Optional<String> status(long deviceId) {
    String s = status.get(deviceId);
    if (s != null) {
      return Optional.of(s);
    }
    Optional<String> stored = store.get(deviceId, KEY_STATUS);
    stored.ifPresent(v -> status.put(deviceId, v));
    return stored;
  }

  /** The devices whose sessions the engine last reported WORKING, as far as this node saw. */
  java.util.List<Long> working() {
    return status.entrySet().stream()
        .filter(e -> e.getValue().equals("WORKING"))
        .map(Map.Entry::getKey)
        .toList();
  }

  /** The devices this node has seen a status of (attached, or reported by the engine). */
  java.util.Set<Long> known() {
    return java.util.Set.copyOf(status.keySet());
  }

  /**
   * Records a status Kurir learned now (its own word: the engine cannot be reached, logged out);
   * true when it differs from the one known before.
   */
  boolean setStatus(long deviceId, String newStatus) {
    return setStatus(deviceId, newStatus, nextRead());
  }

  /**
   * Numbers a read of the engine, taken before the request goes: a status it finds is recorded with
   * {@link #setStatus(long, String, long)}.
   */
  long nextRead() {
    return reads.incrementAndGet();
  }

  /** Whether a read later than {@code read} has recorded the device's status already. */
  synchronized boolean overtaken(long deviceId, long read) {
    return statusRead.getOrDefault(deviceId, 0L) > read;
  }

  /**
   * Records a status that read {@code read} found; true when it differs from the one known before.
   * Nothing is recorded when a later read has recorded the status already: reads run at once (a
   * webhook's, the health probe's, an attach's, an API call's) and a slow one must not write the
   * {@code SCAN_QR_CODE} it found before the phone scanned over the {@code WORKING} a later one
   * found, or a device that is linked would stay unlinked until the next change.
   */
  synchronized boolean setStatus(long deviceId, String newStatus, long read) {
    if (overtaken(deviceId, read)) {
      return false;
    }
    statusRead.put(deviceId, read);
    Optional<String> before = status(deviceId);
    if (before.filter(newStatus::equals).isPresent()) {
      return false;
    }
    status.put(deviceId, newStatus);
    store.put(deviceId, KEY_STATUS, newStatus);
    return true;
  }
}
