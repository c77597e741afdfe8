package io.kurir.driver.gowa;

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
 * Devices linked by QR code through a GOWA server (go-whatsapp-web-multidevice v8 or later,
 * docs/drivers/gowa.md): each device is a GOWA device ("slot") in one GOWA process, made when the
 * gateway attaches the device (or adopted, with the device configuration {@code device-id}). GOWA
 * posts every slot's events to one webhook, {@code /drivers/gowa/webhook}, signed with {@code
 * drivers.gowa.webhook-secret}. Settings {@code drivers.gowa.*}.
 */
public final class GowaDriverFactory implements DriverFactory {
  public static final String NAME = "gowa";

  /** Device configuration: the id of an existing GOWA device to adopt. */
  static final String DEVICE_ID = "device-id";

  // The address, timeout, health period, number checks and pacing: EngineSettings.
  static final String BASIC_AUTH = "basic-auth";
  static final String WEBHOOK_SECRET = "webhook-secret";

  /**
   * How long GOWA's "not on WhatsApp" is kept: briefly, for GOWA answers no as well when its own
   * look-up failed.
   */
  static final String NUMBER_CHECK_NO_FOR = "number-check-no-for";

  static final String NUMBER_CHECK_NO_FOR_DEFAULT = "1h";

  /**
   * Above GOWA's own 45 s deadline for a request (middleware/timeout.go): a send GOWA is still
   * working on is not given up by Kurir first, to be recorded unknown while it goes out.
   */
  static final String TIMEOUT_DEFAULT = "60s";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<DriverSetting> settings() {
    List<DriverSetting> all = new ArrayList<>();
    all.add(EngineSettings.url());
    all.add(DriverSetting.of(BASIC_AUTH, Kind.TEXT, "", ""));
    all.add(DriverSetting.of(WEBHOOK_SECRET, Kind.TEXT, "", ""));
    all.add(EngineSettings.timeout(TIMEOUT_DEFAULT));
    all.add(EngineSettings.healthEvery());
    all.add(EngineSettings.numberCheckFor());
    all.add(
        DriverSetting.of(
            NUMBER_CHECK_NO_FOR,
            Kind.DURATION,
            NUMBER_CHECK_NO_FOR_DEFAULT,
            NUMBER_CHECK_NO_FOR_DEFAULT));
    all.add(EngineSettings.numberChecksPerMinute());
    // A linked phone is paced like a person, as the WAHA driver's (EngineSettings.PACING).
    all.addAll(Pacing.settings(EngineSettings.PACING, EngineSettings.PACING));
    return all;
  }

  @Override
  public List<ConfigKey> deviceConfigKeys() {
    return List.of(
        ConfigKey.optional(
            DEVICE_ID,
            "an existing device on GOWA to adopt (default: one named after the device)"));
  }

  @Override
  public Optional<String> checkDeviceConfig(DeviceConfig config) {
    Optional<String> id = config.get(DEVICE_ID);
    if (id.isPresent() && !GowaSlots.validId(id.get())) {
      return Optional.of(
          "'"
              + DEVICE_ID
              + "' = '"
              + id.get()
              + "' is not a GOWA device id (letters, digits, _, . and -, at most 64)");
    }
    if (id.isPresent() && GowaSlots.isDefaultId(id.get())) {
      // kurir-<n> is the slot of Kurir's device n when it names none: naming it would share it.
      return Optional.of(
          "'"
              + DEVICE_ID
              + "' = '"
              + id.get()
              + "' is the name Kurir gives a device's own GOWA device: pick another");
    }
    return Optional.empty();
  }

  /** One GOWA device is one Kurir device: GOWA's webhook names the slot, not the Kurir device. */
  @Override
  public List<String> uniqueConfigKeys() {
    return List.of(DEVICE_ID);
  }

  @Override
  public List<String> checkSettings(DriverSettings settings, boolean demo, boolean adminTokenSet) {
    List<String> problems = new ArrayList<>();
    String url = EngineSettings.urlProblem(NAME, settings);
    if (url != null) {
      problems.add(url);
    }
    String auth = settings.text(BASIC_AUTH);
    if (!auth.isEmpty() && (auth.indexOf(':') <= 0 || auth.contains(","))) {
      // GOWA takes a list (user:pass,user2:pass2); Kurir signs in with one of its pairs.
      problems.add("drivers.gowa.basic-auth: give one user:password pair of GOWA's --basic-auth");
    }
    return problems;
  }

  @Override
  public Driver create(DriverContext context) {
    return new GowaDriver(context);
  }

  @Override
  public List<DriverRoutes> routes(Driver driver, DriverRoutesContext context) {
    GowaDriver gowa = (GowaDriver) driver;
    String secret = gowa.context().settings().values().getOrDefault(WEBHOOK_SECRET, "");
    return List.of(new GowaWebhookRoutes(gowa, context.devices(), secret).routes());
  }
}
