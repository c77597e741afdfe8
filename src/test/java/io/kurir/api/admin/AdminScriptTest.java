package io.kurir.api.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /admin/devices/{id}/script}: a generated script carries the gateway's public address
 * ({@code public.url}), never the address the admin's request came to.
 */
class AdminScriptTest {
  @TempDir Path dir;

  private static Reply script(TestGateway kurir, Device device) {
    return kurir.get(
        "/admin/devices/" + device.id() + "/script?script=eco-async&kolom_no_wa=3&template=Halo",
        "Authorization",
        "Bearer " + TestGateway.ADMIN_TOKEN);
  }

  @Test
  void withoutPublicUrlTheScriptIsRefusedNamingTheSetting() {
    try (TestGateway kurir = TestGateway.start(dir)) {
      Reply r = script(kurir, kurir.newDevice());

      assertThat(r.status()).isEqualTo(409);
      assertThat(r.body()).contains("public_url_not_set").contains("public.url").contains("HTTPS");
      assertThat(r.body()).doesNotContain("127.0.0.1");
    }
  }

  @Test
  void theScriptCarriesPublicUrlNotTheAddressTheRequestCameTo() {
    try (TestGateway kurir = TestGateway.start(dir, "--public.url=https://wa.toko.example/")) {
      Reply r = script(kurir, kurir.newDevice());

      assertThat(r.status()).as(r.body()).isEqualTo(200);
      assertThat(r.body())
          .contains("  base_url: 'https://wa.toko.example',")
          .doesNotContain("127.0.0.1:")
          .contains("HTTPS from Google's servers");
    }
  }

  /**
   * A license's push key is stored as its hash: Kurir cannot fill it into a push script, so the
   * caller gives it (as shown when it was made) and it is checked.
   */
  @Test
  void aPushScriptTakesThePushKeyThatIsStoredOnlyAsAHash() {
    try (TestGateway kurir = TestGateway.start(dir, "--public.url=https://wa.toko.example")) {
      Device device = kurir.newDevice();
      io.kurir.tenant.License license = kurir.licenseOf(device);
      new io.kurir.tenant.MobileCs(
              kurir.gateway().database(),
              new io.kurir.store.IdGenerator(java.time.Clock.systemUTC(), 5),
              java.time.Clock.systemUTC(),
              kurir.gateway().tenants())
          .add(license.id(), device.id(), "CS Sari", "player-script", "handset-script");
      java.util.function.Function<String, Reply> push =
          extra ->
              kurir.get(
                  "/admin/devices/"
                      + device.id()
                      + "/script?script=push-v1&kolom_no_wa=3&template=Halo"
                      + extra,
                  "Authorization",
                  "Bearer " + TestGateway.ADMIN_TOKEN);

      Reply none = push.apply("");
      assertThat(none.status()).isEqualTo(400);
      assertThat(none.body()).contains("push_key_empty");
      Reply wrong = push.apply("&push_key=not-the-push-key-0123456789");
      assertThat(wrong.status()).isEqualTo(400);
      assertThat(wrong.body()).contains("push_key_not_valid");
      Reply right = push.apply("&push_key=" + license.pushKey());

      assertThat(right.status()).as(right.body()).isEqualTo(200);
      assertThat(right.body()).contains(license.pushKey());
    }
  }

  @Test
  void aPublicUrlThatIsNotAnAddressIsRefusedAtStart() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> TestGateway.start(dir, "--public.url=kurir.example.com"))
        .hasMessageContaining("public.url");
  }
}
