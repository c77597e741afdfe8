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
import io.kurir.driver.Pacing;
import io.kurir.driver.Values;
import java.time.Duration;
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

  static final String URL = "url";
  static final String BASIC_AUTH = "basic-auth";
  static final String WEBHOOK_SECRET = "webhook-secret";
  static final String TIMEOUT = "timeout";
  static final String DEFAULT_URL = "http://127.0.0.1:3000";
  static final String HEALTH_EVERY = "health-every";
  static final String HEALTH_DEFAULT = "30s";

  /** How long GOWA's answer to a number check is kept per device. */
  static final String NUMBER_CHECK_FOR = "number-check-for";

  static final String NUMBER_CHECK_FOR_DEFAULT = "7d";

  /** Number checks a device may make in a minute; beyond, its sends to new numbers wait. */
  static final String NUMBER_CHECKS_PER_MINUTE = "number-checks-per-minute";

  static final String NUMBER_CHECKS_PER_MINUTE_DEFAULT = "20";

  /**
   * A linked phone is paced like a person, as the WAHA driver's: at least a second between sends
   * plus up to two seconds of random extra. The demo profile keeps it: GOWA drives a real number
   * there too.
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
    all.add(DriverSetting.of(BASIC_AUTH, Kind.TEXT, "", ""));
    all.add(DriverSetting.of(WEBHOOK_SECRET, Kind.TEXT, "", ""));
    all.add(DriverSetting.of(TIMEOUT, Kind.DURATION, "30s", "30s"));
    all.add(DriverSetting.of(HEALTH_EVERY, Kind.DURATION, HEALTH_DEFAULT, HEALTH_DEFAULT));
    all.add(
        DriverSetting.of(
            NUMBER_CHECK_FOR, Kind.DURATION, NUMBER_CHECK_FOR_DEFAULT, NUMBER_CHECK_FOR_DEFAULT));
    all.add(
        DriverSetting.of(
            NUMBER_CHECKS_PER_MINUTE,
            Kind.COUNT,
            NUMBER_CHECKS_PER_MINUTE_DEFAULT,
            NUMBER_CHECKS_PER_MINUTE_DEFAULT));
    all.addAll(Pacing.settings(DEFAULT_PACING, DEFAULT_PACING));
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
    return Optional.empty();
  }

  @Override
  public List<String> checkSettings(DriverSettings settings, boolean demo, boolean adminTokenSet) {
    List<String> problems = new ArrayList<>();
    String url = settings.text(URL);
    if (!Values.httpUrl(url)) {
      problems.add("drivers.gowa.url: '" + url + "' is not an http(s) address");
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
