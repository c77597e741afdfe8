package io.kurir.driver;

import io.kurir.driver.DriverSetting.Kind;
import java.time.Duration;
import java.util.Map;

/**
 * The settings the WhatsApp Web engine drivers (waha, gowa) have in common, defined once: the
 * engine's address, its call timeout, the health probe's period, the number check's keeping and
 * pace, and the pacing of a linked phone. Each driver lists them in its section ({@code
 * drivers.<name>.…}) with its own defaults where they differ, beside its own settings.
 */
public final class EngineSettings {
  private EngineSettings() {}

  /** The engine's base URL. */
  public static final String URL = "url";

  /** Where an engine runs when none is set: on this host, the port both engines default to. */
  public static final String DEFAULT_URL = "http://127.0.0.1:3000";

  /** How long a call to the engine may take. */
  public static final String TIMEOUT = "timeout";

  /** How often the health probe asks the engine how each device is (0: never). */
  public static final String HEALTH_EVERY = "health-every";

  public static final String HEALTH_DEFAULT = "30s";

  /** How long the engine's answer to a number check ("yes") is kept per device. */
  public static final String NUMBER_CHECK_FOR = "number-check-for";

  public static final String NUMBER_CHECK_FOR_DEFAULT = "7d";

  /** Number checks a device may make in a minute; beyond, its sends to new numbers wait. */
  public static final String NUMBER_CHECKS_PER_MINUTE = "number-checks-per-minute";

  public static final String NUMBER_CHECKS_PER_MINUTE_DEFAULT = "20";

  /**
   * A linked phone is paced like a person: at least a second between sends plus up to two seconds
   * of random extra, so the number never sends in a machine-regular rhythm. The demo profile keeps
   * the same default: the engine drives a real number there too.
   */
  public static final Pacing PACING = new Pacing(Duration.ofSeconds(1), Duration.ofSeconds(2));

  /** {@link #URL}, defaulting to {@link #DEFAULT_URL}. */
  public static DriverSetting url() {
    return DriverSetting.of(URL, Kind.TEXT, DEFAULT_URL, DEFAULT_URL);
  }

  /** {@link #TIMEOUT}, defaulting to {@code fallback}. */
  public static DriverSetting timeout(String fallback) {
    return DriverSetting.of(TIMEOUT, Kind.DURATION, fallback, fallback);
  }

  /** {@link #HEALTH_EVERY}, 30 s. */
  public static DriverSetting healthEvery() {
    return DriverSetting.of(HEALTH_EVERY, Kind.DURATION, HEALTH_DEFAULT, HEALTH_DEFAULT);
  }

  /** {@link #NUMBER_CHECK_FOR}, 7 days. */
  public static DriverSetting numberCheckFor() {
    return DriverSetting.of(
        NUMBER_CHECK_FOR, Kind.DURATION, NUMBER_CHECK_FOR_DEFAULT, NUMBER_CHECK_FOR_DEFAULT);
  }

  /** {@link #NUMBER_CHECKS_PER_MINUTE}, 20. */
  public static DriverSetting numberChecksPerMinute() {
    return DriverSetting.of(
        NUMBER_CHECKS_PER_MINUTE,
        Kind.COUNT,
        NUMBER_CHECKS_PER_MINUTE_DEFAULT,
        NUMBER_CHECKS_PER_MINUTE_DEFAULT);
  }

  /** The problem with {@link #URL} in {@code driver}'s section, or null when it is an address. */
  public static String urlProblem(String driver, DriverSettings settings) {
    String url = settings.text(URL);
    return Values.httpUrl(url)
        ? null
        : "drivers." + driver + "." + URL + ": '" + url + "' is not an http(s) address";
  }

  /** A duration setting's value, {@code fallback} when it is not set or not a duration. */
  public static Duration duration(Map<String, String> values, String key, String byDefault) {
    return Values.duration(values.getOrDefault(key, byDefault))
        .orElseGet(() -> Values.duration(byDefault).orElseThrow());
  }
}
