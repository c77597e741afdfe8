package io.kurir.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Request limits on a real gateway: a caller over its limit gets HTTP 429 {@code rate_limited} in
 * its own family's error style, with {@code Retry-After}; the limit refills with time; client
 * addresses are counted as {@code http.trusted-proxies} says; loopback is exempt by default.
 */
class RequestLimitsHttpTest {
  @TempDir Path dir;
  private final SettableClock clock = TestGateway.settableClock();
  private final HttpClient http = HttpClient.newHttpClient();
  private TestGateway kurir;

  @AfterEach
  void stop() {
    if (kurir != null) {
      kurir.close();
    }
  }

  /** One request a minute per key, no address limit, loopback not exempt. */
  private void startWithOneRequestAMinutePerKey() {
    kurir =
        TestGateway.start(
            dir,
            clock,
            "--limits.exempt=",
            "--limits.per-key=1/min",
            "--limits.per-key-burst=1",
            "--limits.per-address=0");
  }

  private HttpResponse<String> post(String path, String body, String... headers) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(kurir.url(path)))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  /** The second call within the minute is refused in the family's style, with Retry-After. */
  private void assertSecondCallRefused(String expectedBody, String path, String body, String... h)
      throws Exception {
    HttpResponse<String> first = post(path, body, h);
    assertThat(first.statusCode()).as(path + " first: " + first.body()).isNotEqualTo(429);
    HttpResponse<String> second = post(path, body, h);
    assertThat(second.statusCode()).as(path + ": " + second.body()).isEqualTo(429);
    assertThat(second.body()).as(path).isEqualTo(expectedBody);
    assertThat(second.headers().firstValue("Retry-After")).as(path).hasValue("60");
  }

  @Test
  void everyFamilyAnswersAKeyOverItsLimitInItsOwnStyle() throws Exception {
    startWithOneRequestAMinutePerKey();
    String to = "\"phone_no\":\"081234567890\"";

    Device eco = kurir.newDevice("+6281100000001", true);
    assertSecondCallRefused(
        "rate_limited", "/api/check_number", "{\"key\":\"" + eco.ecoKey() + "\"," + to + "}");

    Device crm = kurir.newDevice("+6281100000002", true);
    assertSecondCallRefused(
        "{\"status\":false,\"message\":\"rate_limited\"}",
        "/send/message-text",
        "{\"deviceId\":\"" + crm.crmDeviceId() + "\"}");

    Device agent = kurir.newDevice("+6281100000003", true);
    assertSecondCallRefused(
        "{\"status\":429,\"message\":\"rate_limited\"}",
        "/api/srv1/send-text",
        "{}",
        "device-key",
        agent.deviceKey());

    License v1 = licenseOf(kurir.newDevice("+6281100000004", true));
    assertSecondCallRefused(
        "{\"errors\":[\"rate_limited\"]}",
        "/api/v1/notifications",
        "{}",
        "Authorization",
        "Basic " + v1.pushKey());

    License v2 = licenseOf(kurir.newDevice("+6281100000005", true));
    assertSecondCallRefused(
        "{\"error\":\"rate_limited\"}", "/send", "{}", "Authorization", "Bearer " + v2.pushKey());

    Partner partner = partnerOf(kurir.newDevice("+6281100000006", true));
    assertSecondCallRefused(
        "{\"status\":\"failed\",\"message\":\"rate_limited\"}",
        "/v4.0/wa_partner/get_key",
        "{}",
        "Authorization",
        basic(partner));

    Partner accountPartner = partnerOf(kurir.newDevice("+6281100000007", true));
    assertSecondCallRefused(
        "{\"status\":\"failed\",\"message\":\"rate_limited\"}",
        "/v2.0/demo",
        "{}",
        "Authorization",
        basic(accountPartner));

    // The Account API's legacy send names its device by the license code.
    License account = licenseOf(kurir.newDevice("+6281100000008", true));
    assertSecondCallRefused(
        "{\"status\":\"failed\",\"message\":\"rate_limited\"}",
        "/v2.0/send-message",
        "{\"license\":\"" + account.code() + "\",\"wa_number\":\"081234567890\",\"text\":\"hi\"}");
  }

  @Test
  void aKeyIsAdmittedAgainOnceItsBucketRefillsAndTheThreeEcoCredentialsShareOne() throws Exception {
    startWithOneRequestAMinutePerKey();
    Device device = kurir.newDevice();
    String status = "{\"key\":\"" + device.ecoKey() + "\",\"id\":\"1\"}";

    assertThat(post("/api/status_msg_id", status).statusCode()).isNotEqualTo(429);
    // The device's multi-agent key names the same device: the same bucket.
    HttpResponse<String> other =
        post("/api/srv1/send-text", "{}", "device-key", device.deviceKey());
    assertThat(other.statusCode()).as(other.body()).isEqualTo(429);

    clock.advance(Duration.ofSeconds(59));
    HttpResponse<String> early = post("/api/status_msg_id", status);
    assertThat(early.statusCode()).isEqualTo(429);
    assertThat(early.headers().firstValue("Retry-After")).hasValue("1");

    clock.advance(Duration.ofSeconds(1));
    assertThat(post("/api/status_msg_id", status).statusCode()).isNotEqualTo(429);
    // A wrong key is not a caller's key: it is counted by its address only.
    assertThat(post("/api/check_number", "{\"key\":\"nope\"}").body()).isEqualTo("invalid_key");
    assertThat(post("/api/check_number", "{\"key\":\"nope\"}").body()).isEqualTo("invalid_key");
  }

  @Test
  void addressesAreCountedBehindTrustedProxiesAndTheirOwnPathsAnswerInTheirStyle()
      throws Exception {
    kurir =
        TestGateway.start(
            dir,
            clock,
            "--limits.exempt=",
            "--limits.per-key=0",
            "--limits.per-address=2/h",
            "--limits.per-address-burst=2",
            "--http.trusted-proxies=127.0.0.1");
    String forwarded = "X-Forwarded-For";

    for (int i = 0; i < 2; i++) {
      assertThat(post("/api/check_number", "{}", forwarded, "203.0.113.7").body())
          .isEqualTo("key_empty");
    }
    HttpResponse<String> third = post("/api/check_number", "{}", forwarded, "203.0.113.7");
    assertThat(third.statusCode()).isEqualTo(429);
    assertThat(third.body()).isEqualTo("rate_limited");
    assertThat(third.headers().firstValue("Retry-After")).hasValue("1800");
    // Every path of the address counts, an unknown one too, each answered in its family's style.
    HttpResponse<String> admin =
        post("/admin/devices", "{}", forwarded, "203.0.113.7", "Authorization", "Bearer x");
    assertThat(admin.statusCode()).isEqualTo(429);
    JsonNode adminBody = new ObjectMapper().readTree(admin.body());
    assertThat(adminBody.get("error").asText()).isEqualTo("rate_limited");
    assertThat(adminBody.get("message").asText())
        .isEqualTo("this client address is over its limit of 2/h, bursts of 2");
    assertThat(post("/nowhere", "{}", forwarded, "203.0.113.7").statusCode()).isEqualTo(429);

    // Another client behind the same proxy has its own allowance.
    assertThat(post("/api/check_number", "{}", forwarded, "203.0.113.8").body())
        .isEqualTo("key_empty");
    // The messaging engines' callbacks are never limited.
    assertThat(post("/drivers/sandbox/nothing", "{}", forwarded, "203.0.113.7").statusCode())
        .isNotEqualTo(429);
  }

  @Test
  void loopbackIsExemptByDefaultSoLocalToolsAndTheBenchmarksAreNeverLimited() throws Exception {
    kurir =
        TestGateway.start(
            dir,
            clock,
            "--limits.per-key=1/h",
            "--limits.per-key-burst=1",
            "--limits.per-address=1/h",
            "--limits.per-address-burst=1");
    Device device = kurir.newDevice();
    for (int i = 0; i < 20; i++) {
      assertThat(kurir.sendAsync(device, "081234567890", "hello " + i).status()).isEqualTo(200);
    }
    assertThat(kurir.gateway().settings().limits().exempt()).containsExactly("127.0.0.0/8", "::1");
  }

  private License licenseOf(Device device) {
    return kurir.licenseOf(device);
  }

  private Partner partnerOf(Device device) {
    return kurir.partnerOf(device);
  }

  private static String basic(Partner partner) {
    return "Basic "
        + Base64.getEncoder()
            .encodeToString(
                (partner.basicUser() + ":" + partner.basicSecret())
                    .getBytes(StandardCharsets.UTF_8));
  }
}
