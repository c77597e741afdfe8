package io.kurir.driver;

import java.util.Map;
import java.util.Optional;

/**
 * A device's driver configuration as stored: keys its driver declared ({@link ConfigKey}), secrets
 * included. Given to the driver only; the API and the command line show secrets as set or not set.
 * Immutable.
 */
public record DeviceConfig(Map<String, String> values) {
  public static final DeviceConfig EMPTY = new DeviceConfig(Map.of());

  public DeviceConfig {
    values = Map.copyOf(values);
  }

  public Optional<String> get(String key) {
    return Optional.ofNullable(values.get(key));
  }

  /** A required key's value; the core refused to store a device without it. */
  public String require(String key) {
    return get(key).orElseThrow(() -> new IllegalStateException(key + " is not configured"));
  }

  /** The device's own pacing: its overrides over {@code driverDefault}. */
  public Pacing pacing(Pacing driverDefault) {
    return Pacing.of(values, driverDefault);
  }
}
