package io.kurir.driver.gowa;

import io.kurir.driver.DeviceSessionStore;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * What Kurir keeps of each device's slot on GOWA (GOWA calls it a device: one WhatsApp account in
 * its process since v8), in the driver's {@link DeviceSessionStore}: the slot's id, and the last
 * status Kurir saw of it (also cached in memory: every send asks it).
 *
 * <p>Thread-safe.
 */
final class GowaSlots {
  // GOWA takes any id; Kurir keeps to ones that read safely in a header, a path and a log line.
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

  static final String KEY_SLOT = "slot";
  static final String KEY_STATUS = "status";
  static final String KEY_PAIRED = "paired";
  static final String KEY_JID = "jid";

  private final DeviceSessionStore store;
  private final Map<Long, String> status = new ConcurrentHashMap<>();
  // Reads of GOWA numbered in the order they were asked; by device, the number of the read its
  // status was last set from (guarded by this).
  private final java.util.concurrent.atomic.AtomicLong reads =
      new java.util.concurrent.atomic.AtomicLong();
  private final Map<Long, Long> statusRead = new ConcurrentHashMap<>();

  GowaSlots(DeviceSessionStore store) {
    this.store = store;
  }

  static boolean validId(String id) {
    return ID.matcher(id).matches();
  }

  /** The slot a device without {@code device-id} configured gets. */
  static String defaultId(long deviceId) {
    return "kurir-" + deviceId;
  }

  /** Whether {@code id} has the form of {@link #defaultId}: the slot of some Kurir device. */
  static boolean isDefaultId(String id) {
    return id.matches("kurir-\\d+");
  }

  /** The slot the device was attached to, if it ever was. */
  Optional<String> slot(long deviceId) {
    return store.get(deviceId, KEY_SLOT);
  }

  void rememberSlot(long deviceId, String slot) {
    if (slot(deviceId).filter(slot::equals).isEmpty()) {
      store.put(deviceId, KEY_SLOT, slot);
    }
  }

  /** The last status Kurir saw of the device's slot ({@link GowaStatus}). */
  Optional<String> status(long deviceId) {
    String s = status.get(deviceId);
    if (s != null) {
      return Optional.of(s);
    }
    Optional<String> stored = store.get(deviceId, KEY_STATUS);
    stored.ifPresent(v -> status.put(deviceId, v));
    return stored;
  }

  /**
   * The account (its phone's digits) last seen paired on the device's slot: the webhook's {@code
   * device_id} must name it.
   */
  Optional<String> account(long deviceId) {
    return store.get(deviceId, KEY_JID);
  }

  void rememberAccount(long deviceId, String digits) {
    if (account(deviceId).filter(digits::equals).isEmpty()) {
      store.put(deviceId, KEY_JID, digits);
    }
  }

  /** Whether the device's slot was ever seen logged in: a slot without a JID then logged out. */
  boolean everPaired(long deviceId) {
    return store.get(deviceId, KEY_PAIRED).isPresent();
  }

  /** The devices this node has seen a status of (attached, or reported). */
  Set<Long> known() {
    return Set.copyOf(status.keySet());
  }

  /**
   * Records a status; true when it differs from the one known before. Synchronized: two threads
   * that read the same new status (an attach and an API call) tell the change once.
   */
  synchronized boolean setStatus(long deviceId, String newStatus) {
    return setStatus(deviceId, newStatus, nextRead());
  }

  /**
   * Numbers a read of GOWA, taken before the request is sent: a status read from it is set with
   * {@link #setStatus(long, String, long)}.
   */
  long nextRead() {
    return reads.incrementAndGet();
  }

  /**
   * Records a status that read {@code read} found; false, and nothing recorded, when it differs
   * from the one known before or when a later read has set the status already: a slow read (the
   * attach of a new device, whose answer says "not paired") must not write its older status over
   * the "logged in" that a newer read found meanwhile.
   */
  synchronized boolean setStatus(long deviceId, String newStatus, long read) {
    if (statusRead.getOrDefault(deviceId, 0L) > read) {
      return false;
    }
    statusRead.put(deviceId, read);
    Optional<String> before = status(deviceId);
    if (before.filter(newStatus::equals).isPresent()) {
      return false;
    }
    status.put(deviceId, newStatus);
    store.put(deviceId, KEY_STATUS, newStatus);
    if (newStatus.equals(GowaStatus.LOGGED_IN) && !everPaired(deviceId)) {
      store.put(deviceId, KEY_PAIRED, "true");
    }
    return true;
  }
}
