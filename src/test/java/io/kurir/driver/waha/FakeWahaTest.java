package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.testing.FakeWaha;
import io.kurir.testing.QrCamera;
import io.kurir.testing.TestGateway;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * The fake engine itself, where Kurir does not reach: the QR code in the engine's three formats
 * carries one value, and a call without the API key is refused as the engine refuses it.
 */
class FakeWahaTest {

  @Test
  void theQrCodeComesInTheEnginesThreeFormatsWithOneValue() throws Exception {
    try (FakeWaha waha = new FakeWaha(TestGateway.settableClock());
        HttpClient http = HttpClient.newHttpClient()) {
      waha.existingSession("s1", null);
      String qr = waha.rotateQr("s1");
      String base = waha.url() + "/api/s1/auth/qr";

      HttpResponse<String> raw = http.send(get(base + "?format=raw", "*/*"), body());
      assertThat(raw.body()).isEqualTo("{\"value\":\"" + qr + "\"}");

      HttpResponse<String> json = http.send(get(base, "application/json"), body());
      String data = json.body().replaceAll(".*\"data\":\"([^\"]+)\".*", "$1");
      assertThat(QrCamera.read("data:image/png;base64," + data)).isEqualTo(qr);

      HttpResponse<byte[]> png =
          http.send(
              get(base + "?format=image", "image/png"), HttpResponse.BodyHandlers.ofByteArray());
      assertThat(png.headers().firstValue("Content-Type")).contains("image/png");
      assertThat(
              QrCamera.read(
                  "data:image/png;base64," + Base64.getEncoder().encodeToString(png.body())))
          .isEqualTo(qr);

      HttpResponse<String> noKey =
          http.send(
              HttpRequest.newBuilder(URI.create(waha.url() + "/api/sessions")).build(), body());
      assertThat(noKey.statusCode()).isEqualTo(401);
      assertThat(noKey.body()).contains("Unauthorized");
      waha.violations().clear(); // refused on purpose
    }
  }

  @Test
  void aReceivedFileIsDeletedAfterTheFilesLifetimeAndThenAnswers404AsTheEngineDoes()
      throws Exception {
    var clock = TestGateway.settableClock();
    try (FakeWaha waha = new FakeWaha(clock);
        HttpClient http = HttpClient.newHttpClient()) {
      waha.existingSession("s1", "6281100008901");
      waha.incomingMedia("s1", "M1", "6281100008909", "", "image/jpeg", "a.jpg", new byte[] {1, 2});
      String url = waha.url() + "/api/files/s1/M1-a.jpg";
      assertThat(http.send(get(url, "*/*"), body()).statusCode()).isEqualTo(200);
      clock.advance(java.time.Duration.ofSeconds(180));
      assertThat(http.send(get(url, "*/*"), body()).statusCode())
          .as("180 s: still there")
          .isEqualTo(200);
      clock.advance(java.time.Duration.ofSeconds(1));
      HttpResponse<String> gone = http.send(get(url, "*/*"), body());
      assertThat(gone.statusCode()).isEqualTo(404);
      assertThat(gone.body())
          .contains("\"message\":\"File not found: M1-a.jpg\"", "\"statusCode\":404");
    }
  }

  private static HttpRequest get(String url, String accept) {
    return HttpRequest.newBuilder(URI.create(url))
        .header("X-Api-Key", FakeWaha.API_KEY)
        .header("Accept", accept)
        .build();
  }

  private static HttpResponse.BodyHandler<String> body() {
    return HttpResponse.BodyHandlers.ofString();
  }
}
