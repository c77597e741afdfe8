package io.kurir.driver;

import java.util.List;
import java.util.Optional;

/**
 * How a driver is made, and what Kurir must know of it before any is made: its name, its settings
 * section, the configuration keys a device of it takes. {@link DriverCatalog} lists every factory;
 * nothing else in Kurir names a driver.
 */
public interface DriverFactory {

  /** The name devices refer to ({@code --driver <name>}), and its settings section's. */
  String name();

  /** The settings of its section, {@code drivers.<name>.<key>}. */
  List<DriverSetting> settings();

  /**
   * The keys of a device's configuration. The core adds {@link Pacing#MIN_GAP_KEY} and {@link
   * Pacing#JITTER_KEY}, which every driver takes.
   */
  List<ConfigKey> deviceConfigKeys();

  /**
   * Checks one device's configuration beyond "known key, required present": the format of an id,
   * say. Empty when it is fine, else the problem, naming the key.
   */
  default Optional<String> checkDeviceConfig(DeviceConfig config) {
    return Optional.empty();
  }

  /**
   * Keys of a device's configuration whose value names one thing on the network's side (an engine's
   * session, an account): no two devices of this driver may share a value, or one device's traffic
   * would be another's. Refused like any bad configuration when a device is created or configured.
   */
  default List<String> uniqueConfigKeys() {
    return List.of();
  }

  /**
   * Problems of its settings that a single value's check cannot see (one setting that needs
   * another), each naming the setting; empty when there are none.
   */
  default List<String> checkSettings(DriverSettings settings, boolean demo, boolean adminTokenSet) {
    return List.of();
  }

  /** Makes the driver; called once at start-up. */
  Driver create(DriverContext context);

  /**
   * The HTTP routes of {@code driver}, as data: the network's webhooks under {@code
   * /drivers/<name>/}, and any control API of its own. Served on the gateway's port with the other
   * API families; the HTTP layer reads each request, guards it as its route's {@link
   * DriverRoute.Access} says and writes the reply.
   */
  default List<DriverRoutes> routes(Driver driver, DriverRoutesContext context) {
    return List.of();
  }
}
