package io.kurir.driver;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link ContactDirectory} held in memory, for drivers made outside a gateway (tests of one
 * driver). It knows only what it was taught since it was made; {@link #hasTalkedTo} is true for a
 * number taught with {@link #talkedTo}.
 */
public final class MemoryContactDirectory implements ContactDirectory {
  private final Map<String, String> phoneById = new ConcurrentHashMap<>();
  private final Map<String, ContactId> idByPhone = new ConcurrentHashMap<>();
  private final Map<String, CheckedNumber> checks = new ConcurrentHashMap<>();
  private final Map<String, Boolean> talked = new ConcurrentHashMap<>();

  private static String key(long deviceId, String part) {
    return deviceId + "/" + part;
  }

  @Override
  public Optional<String> phoneOf(long deviceId, ContactId id) {
    return id.isPhone()
        ? Optional.of(id.value())
        : Optional.ofNullable(phoneById.get(key(deviceId, id.address())));
  }

  @Override
  public Optional<ContactId> networkIdOf(long deviceId, String e164, ContactId.Kind kind) {
    return Optional.ofNullable(idByPhone.get(key(deviceId, kind + "/" + e164)));
  }

  @Override
  public void learn(long deviceId, String e164, ContactId id) {
    if (id.isPhone()) {
      return;
    }
    phoneById.put(key(deviceId, id.address()), e164);
    idByPhone.put(key(deviceId, id.kind() + "/" + e164), id);
  }

  @Override
  public boolean hasTalkedTo(long deviceId, String e164) {
    return talked.containsKey(key(deviceId, e164));
  }

  /** Teaches that {@code deviceId} has written with {@code e164}. */
  public void talkedTo(long deviceId, String e164) {
    talked.put(key(deviceId, e164), true);
  }

  @Override
  public Optional<CheckedNumber> lastCheck(long deviceId, String e164) {
    return Optional.ofNullable(checks.get(key(deviceId, e164)));
  }

  @Override
  public void recordCheck(long deviceId, CheckedNumber check) {
    checks.put(key(deviceId, check.e164()), check);
  }
}
