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

  @Test
  void aPublicUrlThatIsNotAnAddressIsRefusedAtStart() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> TestGateway.start(dir, "--public.url=kurir.example.com"))
        .hasMessageContaining("public.url");
  }
}
