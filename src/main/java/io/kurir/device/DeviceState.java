package io.kurir.device;

import java.util.Locale;

/**
 * The session state of a device, with the contract's {@code qr_status} values as names: never
 * paired or logged out ({@code none}), paired and reachable ({@code online}), paired but the phone
 * unreachable ({@code offline}), taken over by another session ({@code refresh_it}), broken ({@code
 * failed}), or out of reach because the engine that holds its session cannot be reached ({@code
 * port_down}: the contract's answer for a driver that is not running, recorded on each of its
 * devices so that operators and status webhooks see it; docs/decisions.md, "Unreachable engines").
 */
public enum DeviceState {
  NONE,
  ONLINE,
  OFFLINE,
  REFRESH_IT,
  FAILED,
  PORT_DOWN;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The state a driver reports, as the core stores and shows it. Exhaustive on purpose: a state a
   * driver gains must be given its place here (and in the contract's {@code qr_status}) before it
   * compiles.
   */
  public static DeviceState of(io.kurir.driver.DeviceState reported) {
    return switch (reported) {
      case NONE -> NONE;
      case ONLINE -> ONLINE;
      case OFFLINE -> OFFLINE;
      case REFRESH_IT -> REFRESH_IT;
      case FAILED -> FAILED;
      case PORT_DOWN -> PORT_DOWN;
    };
  }

  public static DeviceState ofWireName(String name) {
    return valueOf(name.toUpperCase(Locale.ROOT));
  }
}
