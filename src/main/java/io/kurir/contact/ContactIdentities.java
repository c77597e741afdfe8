package io.kurir.contact;

import io.kurir.driver.ContactDirectory;
import io.kurir.driver.ContactId;
import java.time.Clock;
import java.util.Optional;

/**
 * A contact's identities in one place: the {@link ContactDirectory} of every device of a gateway,
 * kept in the database ({@code contact_identity}, {@code number_check}), and what the core asks of
 * it (which address a reply to a network id goes to, whether a caller may send to one).
 *
 * <p>Phones are the core's E.164 ({@code +62…}); a driver that teaches one as digits alone is read
 * the same. A phone learned for a network id fills in the rows that showed the id: incoming
 * messages' sender and queued or sent messages' recipient, so that reports and reads show the phone
 * from then on.
 *
 * <p>Thread-safe.
 */
public final class ContactIdentities implements ContactDirectory {
  private final ContactStore store;
  private final Clock clock;

  public ContactIdentities(io.kurir.store.Database db, Clock clock) {
    this.store = new ContactStore(db);
    this.clock = clock;
  }

  @Override
  public Optional<String> phoneOf(long deviceId, ContactId id) {
    return id.isPhone() ? Optional.of(e164(id.value())) : store.phoneOf(deviceId, id.address());
  }

  @Override
  public Optional<ContactId> networkIdOf(long deviceId, String e164, ContactId.Kind kind) {
    return store.addressOf(deviceId, e164(e164), kind).flatMap(ContactId::parse);
  }

  @Override
  public void learn(long deviceId, String e164, ContactId id) {
    if (!id.isPhone()) {
      store.learn(deviceId, e164(e164), id, clock.instant());
    }
  }

  @Override
  public boolean hasTalkedTo(long deviceId, String e164) {
    return store.talkedTo(deviceId, e164(e164));
  }

  @Override
  public Optional<CheckedNumber> lastCheck(long deviceId, String e164) {
    return store.lastCheck(deviceId, e164(e164));
  }

  @Override
  public void recordCheck(long deviceId, CheckedNumber check) {
    store.recordCheck(deviceId, e164(check.e164()), check);
  }

  /**
   * A message came from {@code id}, or a driver met it in a member list or a lookup that found no
   * phone: the device knows the id from now on, so a reply (or a caller's send) to it is accepted.
   */
  @Override
  public void heardFrom(long deviceId, ContactId id) {
    if (!id.isPhone()) {
      store.remember(deviceId, id, clock.instant());
    }
  }

  @Override
  public boolean knows(long deviceId, ContactId id) {
    return !id.isPhone() && store.knows(deviceId, id.address());
  }

  /**
   * Where a send to the network id written {@code address} goes: the phone when the device knows
   * it, else the id itself when the device has heard from it; empty for anything else (an id this
   * device never met is refused as a bad number is).
   */
  public Optional<String> sendableAddress(long deviceId, String address) {
    Optional<ContactId> id =
        ContactId.parse(address == null ? null : address.strip()).filter(i -> !i.isPhone());
    if (id.isEmpty()) {
      return Optional.empty();
    }
    Optional<String> phone = store.phoneOf(deviceId, id.get().address());
    if (phone.isPresent()) {
      return phone;
    }
    return store.knows(deviceId, id.get().address())
        ? Optional.of(id.get().address())
        : Optional.empty();
  }

  /** The core's form of a phone: {@code +} and digits, whether or not it was given with the +. */
  private static String e164(String phone) {
    return phone.startsWith("+") ? phone : "+" + phone;
  }
}
