package io.kurir.driver.cloud;

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
import io.kurir.driver.Values;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Meta's WhatsApp Business Cloud API (docs/drivers/cloud.md): a device is a business phone number
 * ({@code phone-number-id}) with an access token, the app secret that signs the network's webhooks
 * and the verify token of the webhook's handshake. Settings {@code drivers.cloud.*}.
 */
public final class CloudDriverFactory implements DriverFactory {
  public static final String NAME = "cloud";

  static final String PHONE_NUMBER_ID = "phone-number-id";
  static final String ACCESS_TOKEN = "access-token";
  static final String APP_SECRET = "app-secret";
  static final String VERIFY_TOKEN = "verify-token";
  static final String TEMPLATE = "template";
  static final String LINK_PREVIEW = "link-preview";

  /** The default pacing: Meta's default throughput, 80 messages a second per number. */
  static final int DEFAULT_RATE = 80;

  /**
   * Sends under way at once by default: a Graph API call takes ~200 ms, so 80 a second needs about
   * 16 at a time (one at a time gives about 5).
   */
  static final int DEFAULT_IN_FLIGHT = 16;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<DriverSetting> settings() {
    List<DriverSetting> settings = new java.util.ArrayList<>();
    settings.addAll(
        List.of(
            DriverSetting.of(
                "graph-url", Kind.TEXT, "https://graph.facebook.com", "https://graph.facebook.com"),
            DriverSetting.of("graph-version", Kind.TEXT, "v23.0", "v23.0"),
            DriverSetting.of("verify-token", Kind.TEXT, "", ""),
            DriverSetting.of("timeout", Kind.DURATION, "30s", "30s")));
    settings.addAll(io.kurir.driver.Pacing.rateSettings(DEFAULT_RATE, DEFAULT_IN_FLIGHT));
    return settings;
  }

  @Override
  public List<ConfigKey> deviceConfigKeys() {
    return List.of(
        ConfigKey.required(PHONE_NUMBER_ID, "the number's id in Meta's WhatsApp Manager"),
        ConfigKey.secret(
            ACCESS_TOKEN, "a system user's access token with whatsapp_business_messaging"),
        ConfigKey.secret(APP_SECRET, "the Meta app's secret, which signs the webhook"),
        new ConfigKey(
            VERIFY_TOKEN,
            true,
            false,
            "the verify token entered with the webhook's callback URL (else drivers.cloud.verify-token)"),
        ConfigKey.optional(
            TEMPLATE,
            "an approved template (name or name:language) sent instead of text outside the 24-hour window"),
        ConfigKey.optional(
            LINK_PREVIEW, "show a preview of the first link of a text (default true)"));
  }

  @Override
  public Optional<String> checkDeviceConfig(DeviceConfig config) {
    String id = config.get(PHONE_NUMBER_ID).orElse("");
    if (!id.matches("\\d{1,25}")) {
      return Optional.of(
          "'" + PHONE_NUMBER_ID + "' = '" + id + "' is not a phone number id (digits)");
    }
    Optional<String> template = config.get(TEMPLATE);
    if (template.isPresent() && CloudTemplate.parse(template.get()).isEmpty()) {
      return Optional.of(
          "'"
              + TEMPLATE
              + "' = '"
              + template.get()
              + "' is not a template name (lower case, digits, _) with an optional :language");
    }
    Optional<String> preview = config.get(LINK_PREVIEW);
    if (preview.isPresent() && Values.bool(preview.get()).isEmpty()) {
      return Optional.of("'" + LINK_PREVIEW + "' = '" + preview.get() + "' is not true or false");
    }
    return Optional.empty();
  }

  @Override
  public List<String> checkSettings(DriverSettings settings, boolean demo, boolean adminTokenSet) {
    List<String> problems = new ArrayList<>();
    String url = settings.text("graph-url");
    if (!Values.httpUrl(url)) {
      problems.add("drivers.cloud.graph-url: '" + url + "' is not an http(s) address");
    }
    String version = settings.text("graph-version");
    if (!version.matches("v\\d{1,3}\\.\\d{1,3}")) {
      problems.add("drivers.cloud.graph-version: '" + version + "' is not a version such as v23.0");
    }
    return problems;
  }

  @Override
  public Driver create(DriverContext context) {
    return new CloudDriver(context);
  }

  @Override
  public List<DriverRoutes> routes(Driver driver, DriverRoutesContext context) {
    return List.of(new CloudWebhookRoutes((CloudDriver) driver, context.devices()).routes());
  }
}
