package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kurir.config.Settings;
import io.kurir.config.SettingsLoader;
import io.kurir.config.SettingsLoader.Profile;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeWaha;
import io.kurir.testing.TestGateway;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The address the engine calls Kurir back at ({@code public.callback-url}) is not the public
 * address written into spreadsheet scripts ({@code public.url}): in a container stack the engine
 * reaches Kurir as {@code http://kurir:8080} while Google's servers reach it over HTTPS.
 */
class WahaCallbackAddressTest {
  @TempDir Path dir;

  @Test
  void theEngineIsGivenTheCallbackAddressAndScriptsThePublicOne() {
    try (WahaFixture f = new WahaFixture(dir, "--public.url=https://wa.toko.example")) {
      var device = f.newDevice("+6281100008101", Map.of());

      FakeWaha.Session session = f.awaitSession("kurir-" + device.id(), "SCAN_QR_CODE");
      assertThat(session.config().path("webhooks").path(0).path("url").asText())
          .as("the engine calls back where it reaches Kurir")
          .isEqualTo(f.kurir.url("/drivers/waha/events/" + device.id()))
          .doesNotContain("wa.toko.example");

      TestGateway.Reply script =
          f.kurir.get(
              "/admin/devices/"
                  + device.id()
                  + "/script?script=eco-async&kolom_no_wa=3&template=Halo",
              "Authorization",
              "Bearer " + TestGateway.ADMIN_TOKEN);
      assertThat(script.status()).as(script.body()).isEqualTo(200);
      assertThat(script.body())
          .contains("base_url: 'https://wa.toko.example'")
          .doesNotContain("127.0.0.1:");
    }
  }

  @Test
  void aWebhookLeftAtAnEarlierCallbackAddressIsReplacedNotKept() {
    try (WahaFixture f = new WahaFixture(dir)) {
      var device = f.newDevice("+6281100008111", Map.of());
      String name = "kurir-" + device.id();
      FakeWaha.Session session = f.awaitSession(name, "SCAN_QR_CODE");
      // As a gateway whose callback address was http://127.0.0.1:8080 left it: an address the
      // engine's container never reached.
      String current = f.kurir.url("/drivers/waha/events/" + device.id());
      var hook =
          (com.fasterxml.jackson.databind.node.ObjectNode)
              session.config().path("webhooks").path(0);
      hook.put("url", "http://127.0.0.1:8080/drivers/waha/events/" + device.id());

      f.kurir.restart();

      Eventually.until(
          "the webhook moved",
          () ->
              f.waha
                  .session(name)
                  .config()
                  .path("webhooks")
                  .path(0)
                  .path("url")
                  .asText()
                  .equals(current));
      assertThat(f.waha.session(name).config().path("webhooks"))
          .as("only the current one")
          .hasSize(1);
    }
  }

  @Test
  void withoutACallbackAddressThePublicOneIsUsed() {
    assertThat(settings("--public.url=https://kurir.example.com/").callbackUrlIfSet())
        .contains("https://kurir.example.com");
    assertThat(
            settings(
                    "--public.url=https://kurir.example.com",
                    "--public.callback-url=http://kurir:8080/")
                .callbackUrlIfSet())
        .contains("http://kurir:8080");
    assertThat(settings().callbackUrlIfSet()).isEqualTo(Optional.empty());
    assertThat(
            SettingsLoader.load(
                    Profile.SERVE,
                    List.of(),
                    Map.of("KURIR_PUBLIC_CALLBACK_URL", "http://kurir:8080"),
                    dir)
                .callbackUrlIfSet())
        .contains("http://kurir:8080");
  }

  @Test
  void aCallbackAddressThatIsNotOneIsRefusedNamingTheSetting() {
    assertThatThrownBy(() -> settings("--public.callback-url=kurir:8080"))
        .hasMessageContaining("public.callback-url: 'kurir:8080' is not an http(s) address");
  }

  private Settings settings(String... flags) {
    return SettingsLoader.load(Profile.SERVE, List.of(flags), Map.of(), dir);
  }
}
