package io.kurir.driver;

import java.util.List;
import java.util.Optional;

/**
 * The devices a driver's routes may find: by the id or number a path names, by driver, and by a
 * value of their driver configuration (the Cloud API's phone-number id). Disabled devices are found
 * too: a webhook for one is still the network's word. Implemented by the core over its tenants;
 * thread-safe.
 */
public interface DeviceLookup {

  /** The device with id {@code id}, of any driver. */
  Optional<DeviceRef> byId(long id);

  /** The first device with number {@code e164} (already normalized), of any driver. */
  Optional<DeviceRef> byNumber(String e164);

  /** Every device of driver {@code driver}. */
  List<DeviceRef> ofDriver(String driver);

  /** Every device of driver {@code driver} whose configuration has {@code key} = {@code value}. */
  List<DeviceRef> withConfig(String driver, String key, String value);
}
