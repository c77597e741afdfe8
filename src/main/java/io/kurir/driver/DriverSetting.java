package io.kurir.driver;

import java.util.List;

/**
 * One setting of a driver's section, {@code drivers.<driver>.<key>}: read like every other setting
 * (flags > {@code KURIR_*} > {@code kurir.yml} > defaults) and validated at start-up.
 *
 * @param key the key inside the section, such as {@code delivery-after}
 * @param kind how the value is read and checked
 * @param serveDefault the default of {@code ./kurir serve}
 * @param demoDefault the default of {@code ./kurir demo}
 * @param aliases full names it had before drivers had sections; still read, so old files start
 */
public record DriverSetting(
    String key, Kind kind, String serveDefault, String demoDefault, List<String> aliases) {

  /** How a value is read. */
  public enum Kind {
    /** {@code 500ms}, {@code 2s}, {@code 5m}, {@code 1h}. */
    DURATION,
    /** {@code true} / {@code false} (also yes/no, on/off, 1/0). */
    BOOLEAN,
    /** A whole number, 0 or more. */
    COUNT,
    /** Any text. */
    TEXT
  }

  public static DriverSetting of(String key, Kind kind, String serveDefault, String demoDefault) {
    return new DriverSetting(key, kind, serveDefault, demoDefault, List.of());
  }

  /** This setting, also read under its old full name {@code alias}. */
  public DriverSetting alsoCalled(String alias) {
    List<String> all = new java.util.ArrayList<>(aliases);
    all.add(alias);
    return new DriverSetting(key, kind, serveDefault, demoDefault, List.copyOf(all));
  }
}
