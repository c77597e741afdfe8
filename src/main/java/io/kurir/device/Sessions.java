package io.kurir.device;

import io.kurir.driver.Driver;
import io.kurir.driver.Drivers;
import io.kurir.tenant.Device;
import java.util.Optional;

/**
 * Device sessions as the API sees them: the state now (from the device's driver), logging out, and
 * the history of changes (from {@link DeviceStates}).
 *
 * <p>Thread-safe.
 */
public final class Sessions {
  /** What a logout did. */
  public enum Logout {
    DONE,
    NOT_PAIRED,
    DRIVER_DOWN
  }

  private final Drivers drivers;
  private final DeviceStates states;

  public Sessions(Drivers drivers, DeviceStates states) {
    this.drivers = drivers;
    this.states = states;
  }

  /** The session's state now; empty when the device's driver is not running ({@code port_down}). */
  public Optional<DeviceState> state(Device device) {
    Driver driver = drivers.of(device);
    return driver.isRunning() ? Optional.of(driver.state(device)) : Optional.empty();
  }

  public Logout logout(Device device) {
    Driver driver = drivers.of(device);
    if (!driver.isRunning()) {
      return Logout.DRIVER_DOWN;
    }
    return driver.logout(device) ? Logout.DONE : Logout.NOT_PAIRED;
  }

  public DeviceStates states() {
    return states;
  }
}
