package io.kurir.driver;

import io.kurir.store.Database;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * The drivers this gateway loaded, by name, each with its default pacing. Made once at start-up
 * from the {@link DriverCatalog}; thread-safe.
 */
public final class Drivers implements AutoCloseable {
  private final Map<String, Driver> byName = new LinkedHashMap<>();
  private final Map<String, Pacing> pacing = new LinkedHashMap<>();
  private final LongFunction<DeviceConfig> configOf;

  /** A device whose driver this gateway did not load (a driver since switched off). */
  public static final class NotLoaded extends IllegalStateException {
    NotLoaded(DeviceRef device) {
      super(
          "device " + device.id() + " uses driver '" + device.driver() + "', which is not loaded");
    }
  }

  /** Loaded drivers with no pacing and no device configuration (tests of the core). */
  public Drivers(Driver... drivers) {
    this.configOf = id -> DeviceConfig.EMPTY;
    for (Driver d : drivers) {
      byName.put(d.name(), d);
      pacing.put(d.name(), Pacing.OFF);
    }
  }

  private Drivers(LongFunction<DeviceConfig> configOf) {
    this.configOf = configOf;
  }

  /**
   * Makes every driver of {@code catalog}, each with its settings section and its own folder under
   * {@code dataDir}, the gateway's {@code callbackUrl} for networks that call it back, and what the
   * core knows of each device's {@code contacts}.
   */
  public static Drivers load(
      DriverCatalog catalog,
      Function<String, DriverSettings> settingsOf,
      LongFunction<DeviceConfig> configOf,
      Database db,
      Clock clock,
      Path dataDir,
      Optional<String> callbackUrl,
      ContactDirectory contacts) {
    Drivers drivers = new Drivers(configOf);
    for (DriverFactory f : catalog.factories()) {
      DriverSettings settings = settingsOf.apply(f.name());
      Driver driver =
          f.create(
              new DriverContext(
                  settings,
                  configOf,
                  new DeviceSessionStore(db, clock, f.name()),
                  clock,
                  dataDir.resolve("drivers").resolve(f.name()),
                  callbackUrl,
                  contacts));
      drivers.byName.put(f.name(), driver);
      drivers.pacing.put(f.name(), pacingOf(settings));
    }
    return drivers;
  }

  /** A driver's pacing from its section's {@code pacing.*} settings. */
  private static Pacing pacingOf(DriverSettings settings) {
    return Pacing.of(settings.values(), Pacing.OFF);
  }

  public Set<String> names() {
    return byName.keySet();
  }

  /** The driver of {@code device}; {@link NotLoaded} when this gateway has not loaded it. */
  public Driver of(DeviceRef device) {
    Driver driver = byName.get(device.driver());
    if (driver == null) {
      throw new NotLoaded(device);
    }
    return driver;
  }

  /** A loaded driver by name. */
  public Optional<Driver> named(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /** The device's configuration as stored (its own pacing keys among them). */
  public DeviceConfig configOf(DeviceRef device) {
    return configOf(device.id());
  }

  /** The configuration of the device {@code deviceId} as stored. */
  public DeviceConfig configOf(long deviceId) {
    return configOf.apply(deviceId);
  }

  /** How fast {@code device} sends: its own configuration over its driver's default. */
  public Pacing pacingOf(DeviceRef device) {
    return configOf.apply(device.id()).pacing(pacing.getOrDefault(device.driver(), Pacing.OFF));
  }

  public List<Driver> all() {
    return List.copyOf(byName.values());
  }

  public void start(DriverListener listener) {
    byName.values().forEach(d -> d.start(listener));
    started = true;
  }

  private volatile boolean started;

  /** Whether every driver was started and none closed yet (health). */
  public boolean started() {
    return started;
  }

  @Override
  public void close() {
    started = false;
    byName.values().forEach(Driver::close);
  }
}
