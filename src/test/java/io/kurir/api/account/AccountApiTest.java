package io.kurir.api.account;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.tenant.Tenants;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** The Account API over HTTP: every endpoint, each body encoding, good and bad credentials. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AccountApiTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String HOOK = "http://127.0.0.1:9/kurir"; // registered, never called here

  TestGateway kurir;
  Tenants tenants;
  Partner partner;
  License license;
  Device device;

  @BeforeAll
  void start(@TempDir Path dir) {
    kurir = TestGateway.start(dir, "--media.allow-private-addresses=true");
    tenants = kurir.gateway().tenants();
    partner =
        tenants.createPartner(
            "Reseller", "r@example.com", "reseller", "reseller-secret-0123456789abcdef");
    license =
        tenants.createLicense(
            partner.id(), "Toko Maju", "toko@example.com", LocalDate.of(2099, 12, 31), List.of());
    device = tenants.createDevice(license.id(), "+6281100008201", "sandbox");
    kurir.sandbox().pair(device.id(), device.number());
  }

  @AfterAll
  void stop() {
    kurir.close();
  }

  JsonNode json(Reply r) throws Exception {
    assertThat(r.contentType()).startsWith("application/json");
    return JSON.readTree(r.body());
  }

  Reply webhook(String encoding, Map<String, String> fields) {
    return switch (encoding) {
      case "form" -> {
        StringBuilder form = new StringBuilder();
        fields.forEach(
            (k, v) ->
                form.append(form.isEmpty() ? "" : "&")
                    .append(k)
                    .append('=')
                    .append(java.net.URLEncoder.encode(v, StandardCharsets.UTF_8)));
        yield kurir.postForm("/v2.0/webhook", form.toString());
      }
      case "multipart" -> kurir.postMultipart("/v2.0/webhook", fields);
      default -> {
        try {
          yield kurir.postJson("/v2.0/webhook", JSON.writeValueAsString(fields));
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      }
    };
  }

  Map<String, String> fields(String action, String url) {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("license", "  " + license.code() + " \n"); // stray whitespace, as real clients send
    f.put("no_wa", "081100008201");
    f.put("action", action);
    if (url != null) {
      f.put("url", url);
    }
    return f;
  }

  @Test
  void everyActionInEveryEncoding() throws Exception {
    for (String encoding : List.of("form", "multipart", "json")) {
      JsonNode set = json(webhook(encoding, fields("set", HOOK + "/in")));
      assertThat(set.get("status").asText()).isEqualTo("success");
      assertThat(set.get("message").asText()).isEqualTo(HOOK + "/in");
      assertThat(
              json(webhook(encoding, fields("set_outgoing", HOOK + "/out")))
                  .get("message")
                  .asText())
          .isEqualTo(HOOK + "/out");
      assertThat(json(webhook(encoding, fields("get", null))).get("message").asText())
          .isEqualTo(HOOK + "/in");
      JsonNode all = json(webhook(encoding, fields("get_all", null)));
      assertThat(all.get("status").asText()).isEqualTo("success");
      assertThat(all.get("data").get("incoming").asText()).isEqualTo(HOOK + "/in");
      assertThat(all.get("data").get("outgoing").asText()).isEqualTo(HOOK + "/out");
      assertThat(json(webhook(encoding, fields("unset", null))).get("message").asText())
          .isEqualTo("unset success");
      assertThat(json(webhook(encoding, fields("unset_outgoing", null))).get("message").asText())
          .isEqualTo("unset success");
      JsonNode none = json(webhook(encoding, fields("get_all", null)));
      assertThat(none.get("data").get("incoming").asText()).isEmpty();
      assertThat(none.get("data").get("outgoing").asText()).isEmpty();
    }
  }

  @Test
  void aNullUrlIsFineForGetAndUnset() throws Exception {
    String body =
        "{\"license\":\""
            + license.code()
            + "\",\"no_wa\":\"6281100008201\","
            + "\"action\":\"unset\",\"url\":null}";
    assertThat(json(kurir.postJson("/v2.0/webhook", body)).get("message").asText())
        .isEqualTo("unset success");
    assertThat(
            json(kurir.postJson("/v2.0/webhook", body.replace("unset", "get")))
                .get("status")
                .asText())
        .isEqualTo("success");
  }

  @Test
  void badRequestsGetFailedInTheFamilysShape() throws Exception {
    Reply unknown =
        webhook("form", Map.of("license", "nope", "no_wa", "6281100008201", "action", "get"));
    assertThat(unknown.status()).isEqualTo(401);
    assertThat(json(unknown).get("status").asText()).isEqualTo("failed");
    assertThat(json(unknown).get("message").asText()).isEqualTo("invalid_license");

    Map<String, String> otherNumber = fields("get", null);
    otherNumber.put("no_wa", "6281100009999");
    Reply notHis = webhook("form", otherNumber);
    assertThat(notHis.status()).isEqualTo(404);
    assertThat(json(notHis).get("message").asText()).isEqualTo("no_wa_not_found");

    Reply badAction = webhook("form", fields("explode", null));
    assertThat(badAction.status()).isEqualTo(400);
    assertThat(json(badAction).get("message").asText()).isEqualTo("action_not_valid");

    Reply noUrl = webhook("form", fields("set", null));
    assertThat(noUrl.status()).isEqualTo(400);
    assertThat(json(noUrl).get("message").asText()).isEqualTo("url_empty");

    Reply notHttp = webhook("form", fields("set", "ftp://files.example.com/hook"));
    assertThat(notHttp.status()).isEqualTo(400);
    assertThat(json(notHttp).get("message").asText()).isEqualTo("url_not_valid");

    Reply notJson = kurir.postJson("/v2.0/webhook", "{\"license\":");
    assertThat(notJson.status()).isEqualTo(400);
    assertThat(json(notJson).get("status").asText()).isEqualTo("failed");

    Reply noPath = kurir.postJson("/v2.0/nothing", "{}");
    assertThat(noPath.status()).isEqualTo(404);
    assertThat(json(noPath).get("message").asText()).isEqualTo("not_found");
  }

  @Test
  void theLicenseCheck() throws Exception {
    JsonNode active = json(kurir.get("/v3.0/license/expired/" + license.code()));
    assertThat(active.get("success").asBoolean()).isTrue();
    assertThat(active.get("status").asText()).isEqualTo("active");
    assertThat(active.get("expired_date").asText()).isEqualTo("2099-12-31");

    License old =
        tenants.createLicense(partner.id(), "Lama", "", LocalDate.now().minusDays(3), List.of());
    JsonNode expired = json(kurir.get("/v3.0/license/expired/" + old.code()));
    assertThat(expired.get("success").asBoolean()).isTrue();
    assertThat(expired.get("status").asText()).isEqualTo("expired");
    assertThat(expired.get("expired_date").asText())
        .isEqualTo(LocalDate.now().minusDays(3).toString());

    JsonNode unknown = json(kurir.get("/v3.0/license/expired/no-such-license"));
    assertThat(unknown.get("success").asBoolean()).isFalse();
    assertThat(unknown.get("status").asText()).isEqualTo("failed");
  }

  @Test
  void anOperatorRenewsAnExpiredLicense() throws Exception {
    License old =
        tenants.createLicense(partner.id(), "Renew", "", LocalDate.now().minusDays(1), List.of());
    assertThat(json(kurir.get("/v3.0/license/expired/" + old.code())).get("status").asText())
        .isEqualTo("expired");
    Reply renewed =
        kurir.post(
            "/admin/licenses/" + old.id() + "/expires",
            "{\"expires\":\"2099-06-30\"}",
            "application/json",
            "Authorization",
            "Bearer " + TestGateway.ADMIN_TOKEN);
    assertThat(renewed.status()).as(renewed.body()).isEqualTo(200);
    JsonNode check = json(kurir.get("/v3.0/license/expired/" + old.code()));
    assertThat(check.get("status").asText()).isEqualTo("active");
    assertThat(check.get("expired_date").asText()).isEqualTo("2099-06-30");
  }

  @Test
  void anExpiredLicenseCannotChangeItsWebhooks() throws Exception {
    License old =
        tenants.createLicense(partner.id(), "Lama2", "", LocalDate.now().minusDays(1), List.of());
    tenants.createDevice(old.id(), "+6281100008299", "sandbox");
    Reply r =
        kurir.postForm(
            "/v2.0/webhook",
            "license=" + old.code() + "&no_wa=6281100008299&action=set&url=" + HOOK);
    assertThat(r.status()).isEqualTo(403);
    assertThat(json(r).get("message").asText()).isEqualTo("license_expired");
  }

  @Test
  void theMobileCsListShowsWhatOperatorsEntered() throws Exception {
    String[] auth = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};
    JsonNode empty = json(kurir.get("/v2.0/mobile/get-cs-id-all/" + license.code()));
    assertThat(empty.get("status").asText()).isEqualTo("not_found");
    assertThat(empty.get("data")).isEmpty();

    Reply added =
        kurir.post(
            "/admin/licenses/" + license.id() + "/mobile-cs",
            "{\"device\":\""
                + device.id()
                + "\",\"name\":\"Sari\",\"playerId\":\"player-1\","
                + "\"handsetId\":\"handset-1\"}",
            "application/json",
            auth);
    assertThat(added.status()).isEqualTo(201);
    for (Reply r :
        List.of(
            kurir.get("/v2.0/mobile/get-cs-id-all/" + license.code()),
            kurir.postForm("/v2.0/mobile/get-cs-id-all/" + license.code(), ""))) {
      JsonNode list = json(r);
      assertThat(list.get("status").asText()).isEqualTo("found");
      JsonNode entry = list.get("data").get(0);
      assertThat(entry.get("id").isIntegralNumber()).isTrue();
      assertThat(entry.get("cs_nama").asText()).isEqualTo("Sari");
      assertThat(entry.get("player_id").asText()).isEqualTo("player-1");
      assertThat(entry.get("device_id").asText()).isEqualTo("handset-1");
      assertThat(entry.get("created_at").asText())
          .matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d");
    }
    Reply unknown = kurir.get("/v2.0/mobile/get-cs-id-all/nope");
    assertThat(unknown.status()).isEqualTo(401);

    String entryId = JSON.readTree(added.body()).get("id").asText();
    assertThat(
            kurir
                .send(
                    java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create(kurir.url("/admin/mobile-cs/" + entryId)))
                        .header("Authorization", "Bearer " + TestGateway.ADMIN_TOKEN)
                        .DELETE()
                        .build())
                .status())
        .isEqualTo(204);
    assertThat(json(kurir.get("/v2.0/mobile/get-cs-id-all/" + license.code())).get("data"))
        .isEmpty();
  }

  String basic(String user, String secret) {
    return "Basic "
        + Base64.getEncoder()
            .encodeToString((user + ":" + secret).getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void theDemoSendNeedsThePartnersCredentialsAndAKeyOfItsClient() throws Exception {
    String to = Numbers.fresh();
    String body =
        "{\"phone_no\":\""
            + to
            + "\",\"key\":\""
            + device.ecoKey()
            + "\",\"message\":\"Coba demo\"}";
    Reply ok =
        kurir.post(
            "/v2.0/demo",
            body,
            "application/json",
            "Authorization",
            basic("reseller", "reseller-secret-0123456789abcdef"));
    assertThat(ok.status()).isEqualTo(200);
    JsonNode sent = json(ok);
    assertThat(sent.get("status").asText()).isEqualTo("success");
    assertThat(sent.get("msg_id").asText()).matches("\\d+");
    Eventually.until("arrived", () -> kurir.sandbox().inbox(to).size() == 1);
    assertThat(kurir.sandbox().inbox(to).getFirst().text()).isEqualTo("Coba demo");

    Reply wrongSecret =
        kurir.post("/v2.0/demo", body, "application/json", "Authorization", basic("reseller", "x"));
    assertThat(wrongSecret.status()).isEqualTo(401);
    assertThat(json(wrongSecret).get("message").asText()).isEqualTo("invalid_credentials");
    Reply none = kurir.post("/v2.0/demo", body, "application/json");
    assertThat(none.status()).isEqualTo(401);

    Partner other =
        tenants.createPartner("Other", "", "other-reseller", "other-secret-0123456789abcdefgh");
    Reply notHis =
        kurir.post(
            "/v2.0/demo",
            body,
            "application/json",
            "Authorization",
            basic("other-reseller", "other-secret-0123456789abcdefgh"));
    assertThat(notHis.status()).isEqualTo(403);
    assertThat(json(notHis).get("message").asText()).isEqualTo("not_your_client");
    assertThat(other.id()).isPositive();
  }
}
