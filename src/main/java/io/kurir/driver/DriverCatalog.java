package io.kurir.driver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The drivers a gateway can load, by name: their factories, and what follows from them. Settings,
 * the Admin API and the command line ask it which drivers exist, what settings their sections hold
 * and what a device of each may be configured with. The first listed is the default of a device
 * created without one.
 *
 * <p>It names no driver: the drivers that ship with Kurir are listed beside them ({@code
 * StandardDrivers}, in the {@code standard} package next to the drivers' own), so that the
 * interface's package does not import its implementations.
 *
 * <p>Immutable and thread-safe.
 */
public final class DriverCatalog {

  /** Configuration keys every driver takes: a device's own pacing, campaigns' included. */
  static final List<ConfigKey> COMMON_KEYS =
      List.of(
          ConfigKey.optional(Pacing.MIN_GAP_KEY, "this device's minimum gap between sends"),
          ConfigKey.optional(Pacing.JITTER_KEY, "this device's random extra gap"),
          ConfigKey.optional(
              Pacing.RATE_KEY, "this device's messages a second (instead of gap and jitter)"),
          ConfigKey.optional(Pacing.IN_FLIGHT_KEY, "this device's sends under way at once"),
          ConfigKey.optional(
              Pacing.RECIPIENT_GAP_KEY, "this device's least gap between two sends to one number"),
          ConfigKey.optional(
              Pacing.DAILY_CAP_KEY, "this device's sends a day; past it, messages wait"),
          ConfigKey.optional(
              Pacing.CAMPAIGN_WARM_UP_START_KEY,
              "this device's campaign sends on its first day (0: no warm-up ramp)"),
          ConfigKey.optional(
              Pacing.CAMPAIGN_DAILY_CAP_KEY,
              "this device's campaign sends a day once warmed up (0: no cap)"),
          ConfigKey.optional(
              Pacing.CAMPAIGN_GAP_MIN_KEY, "this device's least gap between campaign sends"),
          ConfigKey.optional(
              Pacing.CAMPAIGN_GAP_MAX_KEY, "this device's most gap between campaign sends"));

  private final Map<String, DriverFactory> byName = new LinkedHashMap<>();

  public DriverCatalog(List<DriverFactory> factories) {
    for (DriverFactory f : factories) {
      if (byName.putIfAbsent(f.name(), f) != null) {
        throw new IllegalArgumentException("two drivers are called " + f.name());
      }
    }
    if (byName.isEmpty()) {
      throw new IllegalArgumentException("no driver");
    }
  }

  /** These drivers, with {@code replacement} in place of the one of the same name. */
  public DriverCatalog with(DriverFactory replacement) {
    List<DriverFactory> all = new ArrayList<>();
    boolean replaced = false;
    for (DriverFactory f : byName.values()) {
      boolean same = f.name().equals(replacement.name());
      all.add(same ? replacement : f);
      replaced |= same;
    }
    if (!replaced) {
      all.add(replacement);
    }
    return new DriverCatalog(all);
  }

  /** Every driver a device may name. */
  public Set<String> names() {
    return byName.keySet();
  }

  /** The driver of a device created without one: the first listed. */
  public String defaultName() {
    return byName.keySet().iterator().next();
  }

  public Optional<DriverFactory> find(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  public List<DriverFactory> factories() {
    return List.copyOf(byName.values());
  }

  /** A setting of a driver's section, by its full name {@code drivers.<driver>.<key>}. */
  public record QualifiedSetting(String fullKey, String driver, DriverSetting setting) {}

  /** Every setting of every driver's section. */
  public List<QualifiedSetting> settings() {
    List<QualifiedSetting> all = new ArrayList<>();
    for (DriverFactory f : byName.values()) {
      for (DriverSetting s : f.settings()) {
        all.add(new QualifiedSetting("drivers." + f.name() + "." + s.key(), f.name(), s));
      }
    }
    return all;
  }

  private List<ConfigKey> keysOf(DriverFactory f) {
    List<ConfigKey> keys = new ArrayList<>(COMMON_KEYS);
    keys.addAll(f.deviceConfigKeys());
    return keys;
  }

  /**
   * The configuration a device of {@code driver} would have after {@code changes} are applied to
   * {@code current} (an empty value removes a key); throws {@link IllegalArgumentException} naming
   * the key when a key is unknown, a value is not valid or a required key is missing.
   */
  public Map<String, String> configure(
      String driver, Map<String, String> current, Map<String, String> changes) {
    DriverFactory f =
        find(driver)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "driver: '" + driver + "' is not one of " + names()));
    List<ConfigKey> keys = keysOf(f);
    Map<String, String> next = new TreeMap<>(current);
    for (var e : changes.entrySet()) {
      String key = e.getKey().strip();
      if (keys.stream().noneMatch(k -> k.name().equals(key))) {
        throw new IllegalArgumentException(
            "config: '"
                + key
                + "' is not a setting of driver "
                + driver
                + "; known: "
                + String.join(", ", keys.stream().map(ConfigKey::name).toList()));
      }
      String value = e.getValue() == null ? "" : e.getValue().strip();
      if (value.isEmpty()) {
        next.remove(key);
      } else {
        next.put(key, value);
      }
    }
    for (ConfigKey k : keys) {
      if (k.required() && !next.containsKey(k.name())) {
        throw new IllegalArgumentException(
            "config: driver " + driver + " needs '" + k.name() + "' (" + k.description() + ")");
      }
    }
    List<String> pacingProblems = Pacing.problems(next);
    if (!pacingProblems.isEmpty()) {
      throw new IllegalArgumentException("config: " + pacingProblems.getFirst());
    }
    Optional<String> problem = f.checkDeviceConfig(new DeviceConfig(next));
    if (problem.isPresent()) {
      throw new IllegalArgumentException("config: " + problem.get());
    }
    return next;
  }

  /** The keys of {@code driver}'s configuration no two of its devices may share a value of. */
  public List<String> uniqueConfigKeys(String driver) {
    return find(driver).map(DriverFactory::uniqueConfigKeys).orElse(List.of());
  }

  /** Whether {@code key} of {@code driver}'s configuration is a secret, never shown. */
  public boolean isSecret(String driver, String key) {
    return find(driver)
        .map(f -> f.deviceConfigKeys().stream().anyMatch(k -> k.name().equals(key) && k.secret()))
        // A key of a driver no longer loaded: better hidden than shown.
        .orElse(true);
  }
}
