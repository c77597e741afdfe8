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
import io.kurir.driver.EngineSettings;
import io.kurir.driver.Pacing;
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

  // The engine's address, timeout, health period, number checks and pacing: EngineSettings.
  static final String API_KEY = "api-key";
  static final String PROBE_TIMEOUT = "probe-timeout";
  static final String PROBE_TIMEOUT_DEFAULT = "10s";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<DriverSetting> settings() {
    List<DriverSetting> all = new ArrayList<>();
    all.add(EngineSettings.url());
    all.add(DriverSetting.of(API_KEY, Kind.TEXT, "", ""));
    all.add(EngineSettings.timeout("30s"));
    all.add(EngineSettings.healthEvery());
    all.add(
        DriverSetting.of(
            PROBE_TIMEOUT, Kind.DURATION, PROBE_TIMEOUT_DEFAULT, PROBE_TIMEOUT_DEFAULT));
    all.add(EngineSettings.numberCheckFor());
    all.add(EngineSettings.numberChecksPerMinute());
    all.addAll(Pacing.settings(EngineSettings.PACING, EngineSettings.PACING));
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
    String url = EngineSettings.urlProblem(NAME, settings);
    if (url != null) {
      problems.add(url);
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
