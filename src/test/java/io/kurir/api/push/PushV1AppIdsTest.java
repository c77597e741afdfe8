package io.kurir.api.push;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.MobileCs;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Push v1's accepted app ids ({@code push.app-ids}, issue 25 item 4): every OneSignal-shaped sender
 * in public code hard-codes {@code 429d3472-da0f-4b2b-a63e-4644050caf8f} ("don't change"), and
 * Kurir accepts it by default, next to its own id; the old single {@code push.app-id} sets the
 * whole list.
 */
class PushV1AppIdsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PUBLIC_CLIENTS_APP_ID = "429d3472-da0f-4b2b-a63e-4644050caf8f";
  private static final String KURIR_APP_ID = "6b757269-7200-4000-8000-707573680001";

  @TempDir Path dir;

  /** A license with a paired device and a handset whose player id is {@code player}. */
  private static License licenseWithHandset(TestGateway kurir, String number, String player) {
    Device device = kurir.newDevice(number, true);
    License license = kurir.licenseOf(device);
    new MobileCs(
            kurir.gateway().database(),
            new io.kurir.store.IdGenerator(Clock.systemUTC(), 3),
            Clock.systemUTC(),
            kurir.gateway().tenants())
        .add(license.id(), device.id(), "CS " + player, player, "handset-" + player);
    return license;
  }

  /** The body the WordPress plugins send: their app id, one player id, data, contents, headings. */
  private static String pluginBody(String appId, String player, String to, String text) {
    return "{\"app_id\":\""
        + appId
        + "\",\"include_player_ids\":[\""
        + player
        + "\"],\"data\":{\"type\":\"After Checkout\",\"message\":\""
        + text
        + "\",\"no_wa\":\""
        + to
        + "\"},\"contents\":{\"en\":\"Title\"},\"headings\":{\"en\":\"Notice\"}}";
  }

  private static Reply notify(TestGateway kurir, License license, String body) {
    return kurir.post(
        "/api/v1/notifications",
        body,
        "application/json; charset=utf-8",
        "Authorization",
        "Basic " + license.pushKey());
  }

  @Test
  void thePublicClientsAppIdAndKurirsOwnAreAcceptedByDefault() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir)) {
      assertThat(kurir.settings().pushAppIds())
          .containsExactly(KURIR_APP_ID, PUBLIC_CLIENTS_APP_ID);
      License license = licenseWithHandset(kurir, "+6281100008501", "player-plugin");
      String to = Numbers.fresh().substring(1); // the plugin strips the +

      Reply plugin =
          notify(kurir, license, pluginBody(PUBLIC_CLIENTS_APP_ID, "player-plugin", to, "Lunas"));
      assertThat(plugin.status()).as(plugin.body()).isEqualTo(200);
      assertThat(JSON.readTree(plugin.body()).get("recipients").asInt()).isEqualTo(1);

      Reply own = notify(kurir, license, pluginBody(KURIR_APP_ID, "player-plugin", to, "Dikirim"));
      assertThat(own.status()).as(own.body()).isEqualTo(200);
      Eventually.until("both delivered", () -> kurir.sandbox().inbox("+" + to).size() == 2);
      assertThat(kurir.sandbox().inbox("+" + to))
          .extracting(InboxEntry::text)
          .containsExactly("Lunas", "Dikirim");

      Reply other = notify(kurir, license, pluginBody("other-app", "player-plugin", to, "x"));
      assertThat(other.status()).isEqualTo(400);
      JsonNode errors = JSON.readTree(other.body()).get("errors");
      assertThat(errors.get(0).asText()).isEqualTo("app_id_not_valid");
    }
  }

  @Test
  void theOldSingleSettingNamesTheOnlyAcceptedId() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir, "--push.app-id=mine-only")) {
      assertThat(kurir.settings().pushAppIds()).containsExactly("mine-only");
      License license = licenseWithHandset(kurir, "+6281100008502", "player-own");
      String to = Numbers.fresh();

      Reply publicId =
          notify(kurir, license, pluginBody(PUBLIC_CLIENTS_APP_ID, "player-own", to, "x"));
      assertThat(publicId.status()).isEqualTo(400);
      assertThat(JSON.readTree(publicId.body()).get("errors").get(0).asText())
          .isEqualTo("app_id_not_valid");
      Reply mine = notify(kurir, license, pluginBody("mine-only", "player-own", to, "y"));
      assertThat(mine.status()).as(mine.body()).isEqualTo(200);
    }
  }
}
