package io.kurir.driver;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.function.LongFunction;

/**
 * What a driver is given when it is made: its settings section, each device's configuration (read
 * when it is needed, so a changed token applies at once), a store for per-device session state, the
 * clock, and a folder of its own under the data folder (received media, for instance).
 *
 * @param settings {@code drivers.<name>.…}, validated
 * @param configOf a device's driver configuration by device id, secrets included
 * @param sessions per-device state that outlives the process
 * @param clock the gateway's clock
 * @param dataDir {@code <data.dir>/drivers/<name>}, created on first use
 * @param callbackUrl the gateway's address as a network's engine reaches it ({@code
 *     public.callback-url}, else {@code public.url}; no trailing slash), for a driver whose network
 *     calls the gateway back; empty when neither is set
 * @param contacts what the core knows of each device's contacts: phones behind network ids, the
 *     network's last answer to a number check
 */
public record DriverContext(
    DriverSettings settings,
    LongFunction<DeviceConfig> configOf,
    DeviceSessionStore sessions,
    Clock clock,
    Path dataDir,
    Optional<String> callbackUrl,
    ContactDirectory contacts) {

  /** A context whose contacts are kept in memory (one driver under test). */
  public DriverContext(
      DriverSettings settings,
      LongFunction<DeviceConfig> configOf,
      DeviceSessionStore sessions,
      Clock clock,
      Path dataDir,
      Optional<String> callbackUrl) {
    this(settings, configOf, sessions, clock, dataDir, callbackUrl, new MemoryContactDirectory());
  }

  /** A context with no callback address (drivers that are never called back, tests). */
  public DriverContext(
      DriverSettings settings,
      LongFunction<DeviceConfig> configOf,
      DeviceSessionStore sessions,
      Clock clock,
      Path dataDir) {
    this(settings, configOf, sessions, clock, dataDir, Optional.empty());
  }
}
