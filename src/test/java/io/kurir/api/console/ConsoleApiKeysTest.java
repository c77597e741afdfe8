package io.kurir.api.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.ApiKey;
import io.kurir.tenant.Device;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The license's API keys section of the console: a key made there is shown once and works as a
 * bearer token on /v1 with the scopes ticked; the list never shows it; revoking it stops it.
 */
class ConsoleApiKeysTest {
  @TempDir Path dir;

  @Test
  void makesAKeyShownOnceListsItAndRevokesIt() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir)) {
      Device device = kurir.newDevice(Numbers.fresh(), true);
      ConsoleClient console = new ConsoleClient(kurir);
      String page = "/console/licenses/" + device.licenseId() + "/api-keys";
      assertThat(console.get("/console/licenses").body()).contains(page);
      assertThat(console.get(page).body()).contains("No API key yet.");

      HttpResponse<String> made = console.post(page, "name", "shop backend", "scopes", "read");
      assertThat(made.statusCode()).isEqualTo(303);
      // The key travels to the page that shows it in a sealed cookie of this session.
      String sealed =
          made.headers().allValues("Set-Cookie").stream()
              .filter(c -> c.startsWith(OnceShown.COOKIE + "="))
              .findFirst()
              .orElseThrow();
      HttpResponse<String> shown =
          console.send(
              HttpRequest.newBuilder(URI.create(kurir.url(OnceShown.PATH)))
                  .header("Cookie", console.cookie + "; " + sealed.split(";")[0]));
      Matcher key = Pattern.compile("kurir_[A-Za-z0-9_-]+").matcher(shown.body());
      assertThat(key.find()).as(shown.body()).isTrue();
      String bearer = "Bearer " + key.group();
      assertThat(get(kurir, "/v1/devices", bearer).statusCode()).isEqualTo(200);
      assertThat(
              kurir
                  .post(
                      "/v1/messages",
                      "{\"to\":\""
                          + Numbers.fresh()
                          + "\",\"type\":\"text\",\"text\":{\"body\":\"x\"}}",
                      "application/json",
                      "Authorization",
                      bearer)
                  .status())
          .as("only the scope ticked")
          .isEqualTo(403);

      String listed = console.get(page).body();
      assertThat(listed).contains("shop backend").contains("read").doesNotContain(key.group());
      List<ApiKey> keys = kurir.gateway().tenants().apiKeys().of(device.licenseId());
      assertThat(keys).hasSize(1);
      assertThat(console.post(page + "/" + keys.getFirst().id() + "/revoke").statusCode())
          .isEqualTo(303);
      assertThat(console.get(page).body()).contains("No API key yet.");
      assertThat(get(kurir, "/v1/devices", bearer).statusCode()).isEqualTo(401);

      assertThat(console.post(page, "name", "no scope").body()).contains("scope");
    }
  }

  private static HttpResponse<String> get(TestGateway kurir, String path, String auth)
      throws Exception {
    return java.net.http.HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(kurir.url(path)))
                .header("Authorization", auth)
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }
}
