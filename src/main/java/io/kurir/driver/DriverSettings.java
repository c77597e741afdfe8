package io.kurir.driver;

import java.time.Duration;
import java.util.Map;

/**
 * The validated values of one driver's settings section ({@code drivers.<driver>.…}), by key inside
 * the section. Immutable; the settings loader checked every value against its {@link
 * DriverSetting.Kind} before this was made.
 */
public record DriverSettings(String driver, Map<String, String> values) {

  public DriverSettings {
    values = Map.copyOf(values);
  }

  public String text(String key) {
    String v = values.get(key);
    if (v == null) {
      throw new IllegalArgumentException("drivers." + driver + "." + key + " is not a setting");
    }
    return v;
  }

  public boolean bool(String key) {
    return Values.bool(text(key)).orElseThrow();
  }

  public Duration duration(String key) {
    return Values.duration(text(key)).orElseThrow();
  }
}
