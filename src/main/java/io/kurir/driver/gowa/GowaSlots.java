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

  private final DeviceSessionStore store;
  private final Map<Long, String> status = new ConcurrentHashMap<>();

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
