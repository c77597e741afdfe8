package io.kurir.device;

import io.kurir.driver.ContactDirectory;
import io.kurir.driver.ContactId;
import io.kurir.driver.Drivers;
import io.kurir.driver.GroupMembers;
import io.kurir.driver.NumberCheck;
import io.kurir.tenant.Device;
import java.util.Optional;

/**
 * What a device's network says, asked through its driver: whether a number has an account there,
 * whether the device is connected, its groups. Nothing here touches the message queue.
 *
 * <p>Thread-safe.
 */
public final class NetworkLookups {
  private final Drivers drivers;
  // What the gateway knows of each device's contacts (its ContactIdentities): where checkNumber
  // learns which network ids a device has met.
  private final ContactDirectory contacts;

  public NetworkLookups(Drivers drivers, ContactDirectory contacts) {
    this.drivers = drivers;
    this.contacts = contacts;
  }

  /**
   * Whether {@code address} has an account on {@code device}'s network: a phone number (E.164) is
   * asked of the driver; a network id (a LID, a BSUID) exists when the device has met it, since the
   * network gave it to this device, and is unknown to the network otherwise ({@code NOT_EXISTS}, as
   * a send to it is refused): drivers check phone numbers only.
   */
  public NumberCheck checkNumber(Device device, String address) {
    Optional<ContactId> id = ContactId.parse(address).filter(i -> !i.isPhone());
    if (id.isPresent()) {
      return contacts.knows(device.id(), id.get()) ? NumberCheck.EXISTS : NumberCheck.NOT_EXISTS;
    }
    return drivers.of(device.ref()).checkNumber(device.ref(), address);
  }

  /** Whether {@code device} can send right now. */
  public boolean isConnected(Device device) {
    return drivers.of(device.ref()).isConnected(device.ref());
  }

  /** The id of the group {@code device} is in that is called {@code name}, if any. */
  public Optional<String> groupIdByName(Device device, String name) {
    return drivers.of(device.ref()).groupIdByName(device.ref(), name);
  }

  /** The members of group {@code groupId} of {@code device}, as its driver answers. */
  public GroupMembers groupMembers(Device device, String groupId) {
    return drivers.of(device.ref()).groupMembers(device.ref(), groupId);
  }
}
