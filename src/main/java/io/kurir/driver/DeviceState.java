package io.kurir.driver;

/**
 * A device's session as its driver sees it, reported by {@link Driver#state} and {@link
 * DriverListener#stateChanged}. The core maps it onto the device states it stores and shows (the
 * contract's {@code qr_status}); the names are the same, so that a driver reads as before.
 *
 * <p>It lives here, not beside the core's states, so that the driver interface depends on nothing
 * of the core (docs/decisions.md, "A driver interface that points one way").
 */
public enum DeviceState {
  /** Never paired, or logged out. */
  NONE,
  /** Paired and reachable: a send can go out now. */
  ONLINE,
  /** Paired, but the phone cannot be reached. */
  OFFLINE,
  /** Another session took the number over. */
  REFRESH_IT,
  /** Broken: the network refused the session. */
  FAILED,
  /** The engine that holds the session cannot be reached. */
  PORT_DOWN
}
