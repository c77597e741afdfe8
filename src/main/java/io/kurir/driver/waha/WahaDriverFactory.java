package io.kurir.driver.waha;

import io.kurir.driver.ConfigKey;
import io.kurir.driver.DeviceConfig;
import io.kurir.driver.Driver;
import io.kurir.driver.DriverContext;
import io.kurir.driver.DriverFactory;
import io.kurir.driver.DriverRoutes;
import io.kurir.driver.DriverRoutesContext;
import io.kurir.driver.DriverSetting;
import io.kurir.driver.DriverSetting.Kind;
import io.kurir.driver.DriverSettings;
import io.kurir.driver.Pacing;
import io.kurir.driver.Values;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Devices linked by QR code through a WAHA engine (WhatsApp HTTP API, docs/drivers/waha.md): each
 * device is a session on the engine, created when the gateway attaches the device (or adopted, with
 * the device configuration {@code session}), whose webhooks call {@code /drivers/waha/…} signed
 * with a key Kurir keeps per session. Settings {@code drivers.waha.*}.
 */
public final class WahaDriverFactory implements DriverFactory {
  public static final String NAME = "waha";

  /** Device configuration: the name of an existing session on the engine to adopt. */
  static final String SESSION = "session";

  static final String URL = "url";
  static final String API_KEY = "api-key";
  static final String TIMEOUT = "timeout";
  static final String DEFAULT_URL = "http://127.0.0.1:3000";
  static final String HEALTH_EVERY = "health-every";
  static final String HEALTH_DEFAULT = "30s";
  static final String PROBE_TIMEOUT = "probe-timeout";
  static final String PROBE_TIMEOUT_DEFAULT = "10s";

  /**
   * A linked phone is paced like a person: at least a second between sends plus up to two seconds
   * of random extra, so the number never sends in a machine-regular rhythm. The demo profile keeps
   * the same default: the engine drives a real number there too.
   */
  static final Pacing DEFAULT_PACING = new Pacing(Duration.ofSeconds(1), Duration.ofSeconds(2));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<DriverSetting> settings() {
    List<DriverSetting> all = new ArrayList<>();
    all.add(DriverSetting.of(URL, Kind.TEXT, DEFAULT_URL, DEFAULT_URL));
    all.add(DriverSetting.of(API_KEY, Kind.TEXT, "", ""));
    all.add(DriverSetting.of(TIMEOUT, Kind.DURATION, "30s", "30s"));
    all.add(DriverSetting.of(HEALTH_EVERY, Kind.DURATION, HEALTH_DEFAULT, HEALTH_DEFAULT));
    all.add(
        DriverSetting.of(
            PROBE_TIMEOUT, Kind.DURATION, PROBE_TIMEOUT_DEFAULT, PROBE_TIMEOUT_DEFAULT));
    all.addAll(Pacing.settings(DEFAULT_PACING, DEFAULT_PACING));
    return all;
  }

  @Override
  public List<ConfigKey> deviceConfigKeys() {
    return List.of(
        ConfigKey.optional(
            SESSION,
            "an existing session on the engine to adopt (default: one named after the device)"));
  }

  @Override
  public Optional<String> checkDeviceConfig(DeviceConfig config) {
    Optional<String> session = config.get(SESSION);
    if (session.isPresent() && !WahaSessions.validName(session.get())) {
      return Optional.of(
          "'"
              + SESSION
              + "' = '"
              + session.get()
              + "' is not a session name (letters, digits, _ and -, at most 64)");
    }
    return Optional.empty();
  }

  @Override
  public List<String> checkSettings(DriverSettings settings, boolean demo, boolean adminTokenSet) {
    List<String> problems = new ArrayList<>();
    String url = settings.text(URL);
    boolean ok = Values.httpUrl(url);
    if (!ok) {
      problems.add("drivers.waha.url: '" + url + "' is not an http(s) address");
    }
    return problems;
  }

  @Override
  public Driver create(DriverContext context) {
    return new WahaDriver(context);
  }

  @Override
  public List<DriverRoutes> routes(Driver driver, DriverRoutesContext context) {
    return List.of(new WahaWebhookRoutes((WahaDriver) driver, context.devices()).routes());
  }
}
