package io.kurir.driver;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link ContactDirectory} held in memory, for drivers made outside a gateway (tests of one
 * driver). It knows only what it was taught since it was made; {@link #hasTalkedTo} is true for a
 * number taught with {@link #talkedTo}.
 *
 * <p>Phones are read and answered as the gateway's directory does ({@code
 * io.kurir.contact.ContactIdentities}): the core's E.164 with its {@code +}, whether a driver gives
 * {@code 62…} or {@code +62…}, so a driver behaves the same over either directory.
 */
public final class MemoryContactDirectory implements ContactDirectory {
  private final Map<String, String> phoneById = new ConcurrentHashMap<>();
  private final Map<String, ContactId> idByPhone = new ConcurrentHashMap<>();
  private final Map<String, CheckedNumber> checks = new ConcurrentHashMap<>();
  private final Set<String> talked = ConcurrentHashMap.newKeySet();
  private final Set<String> met = ConcurrentHashMap.newKeySet();

  private static String key(long deviceId, String part) {
    return deviceId + "/" + part;
  }

  /** The core's form of a phone: {@code +} and digits, whether or not it was given with the +. */
  private static String e164(String phone) {
    return phone.startsWith("+") ? phone : "+" + phone;
  }

  @Override
  public Optional<String> phoneOf(long deviceId, ContactId id) {
    return id.isPhone()
        ? Optional.of(e164(id.value()))
        : Optional.ofNullable(phoneById.get(key(deviceId, id.address())));
  }

  @Override
  public Optional<ContactId> networkIdOf(long deviceId, String e164, ContactId.Kind kind) {
    return Optional.ofNullable(idByPhone.get(key(deviceId, kind + "/" + e164(e164))));
  }

  @Override
  public void learn(long deviceId, String e164, ContactId id) {
    if (id.isPhone()) {
      return;
    }
    phoneById.put(key(deviceId, id.address()), e164(e164));
    idByPhone.put(key(deviceId, id.kind() + "/" + e164(e164)), id);
    met.add(key(deviceId, id.address()));
  }

  @Override
  public void heardFrom(long deviceId, ContactId id) {
    if (!id.isPhone()) {
      met.add(key(deviceId, id.address()));
    }
  }

  @Override
  public boolean knows(long deviceId, ContactId id) {
    return !id.isPhone() && met.contains(key(deviceId, id.address()));
  }

  @Override
  public boolean hasTalkedTo(long deviceId, String e164) {
    return talked.contains(key(deviceId, e164(e164)));
  }

  /** Teaches that {@code deviceId} has written with {@code e164}. */
  public void talkedTo(long deviceId, String e164) {
    talked.add(key(deviceId, e164(e164)));
  }

  @Override
  public Optional<CheckedNumber> lastCheck(long deviceId, String e164) {
    return Optional.ofNullable(checks.get(key(deviceId, e164(e164))));
  }

  @Override
  public void recordCheck(long deviceId, CheckedNumber check) {
    String phone = e164(check.e164());
    checks.put(
        key(deviceId, phone),
        new CheckedNumber(phone, check.exists(), check.chatAddress(), check.at()));
  }
}
