package io.kurir.device;

import java.util.Locale;

/**
 * The session state of a device, with the contract's {@code qr_status} values as names: never
 * paired or logged out ({@code none}), paired and reachable ({@code online}), paired but the phone
 * unreachable ({@code offline}), taken over by another session ({@code refresh_it}), or broken
 * ({@code failed}). {@code port_down} is not a state of the device but of its driver, and is
 * answered when the driver is not running.
 */
public enum DeviceState {
  NONE,
  ONLINE,
  OFFLINE,
  REFRESH_IT,
  FAILED;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static DeviceState ofWireName(String name) {
    return valueOf(name.toUpperCase(Locale.ROOT));
  }
}
