package io.kurir.api.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** The Admin API over HTTP, and what its changes do to the Eco API. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] AUTH = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};

  TestGateway kurir;

  @BeforeAll
  void start(@TempDir Path dir) {
    kurir = TestGateway.start(dir);
  }

  @AfterAll
  void stop() {
    kurir.close();
  }

  private JsonNode admin(String path, String json, int expectedStatus) throws Exception {
    Reply reply = kurir.post(path, json, "application/json", AUTH);
    assertThat(reply.status()).as(reply.body()).isEqualTo(expectedStatus);
    assertThat(reply.contentType()).startsWith("application/json");
    return JSON.readTree(reply.body());
  }

  private JsonNode newDevice(String number) throws Exception {
    JsonNode partner =
        admin("/admin/partners", "{\"name\":\"Reseller\",\"email\":\"r@example.com\"}", 201);
    JsonNode license =
        admin(
            "/admin/licenses",
            "{\"partner\":\""
                + partner.get("id").asText()
                + "\",\"name\":\"School\",\"expires\":\"2099-12-31\",\"allowed\":\"203.0.113.5,10.0.0.0/8\"}",
            201);
    assertThat(license.get("allowedAddresses")).hasSize(2);
    assertThat(license.get("expiresOn").asText()).isEqualTo("2099-12-31");
    return admin(
        "/admin/devices",
        "{\"license\":" + license.get("id").asText() + ",\"number\":\"" + number + "\"}",
        201);
  }

  private Reply sendWith(String key, String to) {
    return kurir.postJson(
        "/api/send_message",
        "{\"key\":\"" + key + "\",\"phone_no\":\"" + to + "\",\"message\":\"hi\"}");
  }

  @Test
  void createsADeviceWithLongRandomCredentialsThatSendsOnceItIsPaired() throws Exception {
    JsonNode device = newDevice("0811-0000-2001");

    assertThat(device.get("id").asText()).matches("\\d+");
    assertThat(device.get("number").asText()).isEqualTo("+6281100002001");
    assertThat(device.get("key").asText()).matches("[A-Za-z0-9]{32}");
    assertThat(device.get("deviceKey").asText()).matches("[A-Za-z0-9]{32}");
    assertThat(device.get("crmDeviceId").asText()).matches("[A-Za-z0-9]{24}");
    assertThat(device.get("driver").asText()).isEqualTo("sandbox");

    String key = device.get("key").asText();
    String to = Numbers.fresh();
    assertThat(sendWith(key, to).body()).isEqualTo("phone_offline");
    kurir.post("/sandbox/devices/" + device.get("id").asText() + "/pair", "", null, AUTH);
    assertThat(sendWith(key, to).body()).isEqualTo("success");
  }

  @Test
  void listsWhatWasCreated() throws Exception {
    JsonNode device = newDevice("+6281100002002");
    Reply list = kurir.get("/admin/devices", AUTH);
    assertThat(list.status()).isEqualTo(200);
    assertThat(list.body()).contains(device.get("key").asText());
    assertThat(kurir.get("/admin/partners", AUTH).body()).contains("\"basicUser\":\"partner-");
    // A license code is stored as its hash: shown when the license was made, never in a list.
    assertThat(kurir.get("/admin/licenses", AUTH).body())
        .contains("\"name\":\"School\"")
        .doesNotContain("\"code\":");
  }

  @Test
  void disablingAndEnablingADeviceLicenseOrPartnerGuardsTheKey() throws Exception {
    JsonNode device = newDevice("+6281100002003");
    String key = device.get("key").asText();
    String id = device.get("id").asText();
    kurir.gateway().sandbox().pair(Long.parseLong(id), "+6281100002003");

    admin("/admin/devices/" + id + "/disable", "", 200);
    assertThat(sendWith(key, Numbers.fresh()).body()).isEqualTo("key_disabled");
    admin("/admin/devices/" + id + "/enable", "", 200);
    assertThat(sendWith(key, Numbers.fresh()).body()).isEqualTo("success");

    String license = device.get("licenseId").asText();
    admin("/admin/licenses/" + license + "/disable", "", 200);
    assertThat(sendWith(key, Numbers.fresh()).body()).isEqualTo("key_disabled");
    admin("/admin/licenses/" + license + "/enable", "", 200);
    assertThat(sendWith(key, Numbers.fresh()).body()).isEqualTo("success");
  }

  @Test
  void rotatingAKeyRetiresTheOldOne() throws Exception {
    JsonNode device = newDevice("+6281100002004");
    String id = device.get("id").asText();
    kurir.gateway().sandbox().pair(Long.parseLong(id), "+6281100002004");
    String oldKey = device.get("key").asText();

    JsonNode rotated = admin("/admin/devices/" + id + "/rotate", "{\"credential\":\"key\"}", 200);

    String newKey = rotated.get("key").asText();
    assertThat(newKey).isNotEqualTo(oldKey).matches("[A-Za-z0-9]{32}");
    // The device key was not rotated: stored as its hash, it is not shown again.
    assertThat(rotated.has("deviceKey")).isFalse();
    assertThat(sendWith(oldKey, Numbers.fresh()).body()).isEqualTo("invalid_key");
    assertThat(sendWith(newKey, Numbers.fresh()).body()).isEqualTo("success");

    JsonNode crm = admin("/admin/devices/" + id + "/rotate", "{\"credential\":\"crm-id\"}", 200);
    assertThat(crm.get("crmDeviceId").asText()).isNotEqualTo(device.get("crmDeviceId").asText());
  }

  @Test
  void apiKeysAreAnsweredOnceListedWithoutTheKeyAndRevoked() throws Exception {
    JsonNode device = newDevice("+6281100004711");
    String license = device.get("licenseId").asText();
    String path = "/admin/licenses/" + license + "/api-keys";
    JsonNode made = admin(path, "{\"name\":\"backend\",\"scopes\":[\"read\"]}", 201);
    String key = made.get("key").asText();
    assertThat(key).startsWith("kurir_").hasSizeGreaterThan(40);
    Reply listed = kurir.get(path, AUTH);
    assertThat(listed.status()).isEqualTo(200);
    assertThat(listed.body()).contains("backend").doesNotContain(key);
    Reply devices = kurir.get("/v1/devices", "Authorization", "Bearer " + key);
    assertThat(devices.status()).as(devices.body()).isEqualTo(200);

    assertThat(admin(path, "{\"name\":\"x\",\"scopes\":[\"fly\"]}", 400).get("error").asText())
        .isEqualTo("invalid");
    assertThat(admin(path, "{\"scopes\":\"read\"}", 400).get("error").asText())
        .isEqualTo("name_empty");
    assertThat(
            admin("/admin/licenses/999/api-keys", "{\"name\":\"x\",\"scopes\":\"read\"}", 404)
                .get("error")
                .asText())
        .isEqualTo("not_found");

    Reply revoked =
        kurir.send(
            java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(kurir.url(path + "/" + made.get("id").asText())))
                .headers(AUTH)
                .DELETE()
                .build());
    assertThat(revoked.status()).isEqualTo(204);
    assertThat(kurir.get("/v1/devices", "Authorization", "Bearer " + key).status()).isEqualTo(401);
    assertThat(kurir.get(path, AUTH).body()).isEqualTo("[]");
  }

  @Test
  void refusesWithoutTheAdminToken() {
    Reply none = kurir.get("/admin/devices");
    assertThat(none.status()).isEqualTo(401);
    assertThat(none.body()).contains("\"error\":\"invalid_admin_token\"");
    Reply wrong = kurir.get("/admin/devices", "Authorization", "Bearer wrong-token");
    assertThat(wrong.status()).isEqualTo(401);
    Reply basic =
        kurir.post(
            "/admin/partners",
            "{\"name\":\"x\"}",
            "application/json",
            "Authorization",
            "Basic YTpi");
    assertThat(basic.status()).isEqualTo(401);
  }

  @Test
  void badInputGetsJsonErrorsThatSayWhat() throws Exception {
    assertThat(admin("/admin/partners", "{}", 400).get("error").asText()).isEqualTo("name_empty");
    assertThat(
            admin("/admin/licenses", "{\"partner\":\"999\",\"name\":\"x\"}", 404)
                .get("error")
                .asText())
        .isEqualTo("not_found");
    assertThat(
            admin("/admin/licenses", "{\"partner\":\"abc\",\"name\":\"x\"}", 400)
                .get("error")
                .asText())
        .isEqualTo("partner_not_valid");
    JsonNode partner = admin("/admin/partners", "{\"name\":\"P\"}", 201);
    assertThat(
            admin(
                    "/admin/licenses",
                    "{\"partner\":\""
                        + partner.get("id").asText()
                        + "\",\"name\":\"x\",\"expires\":\"tomorrow\"}",
                    400)
                .get("error")
                .asText())
        .isEqualTo("expires_not_valid");
    JsonNode badAddress =
        admin(
            "/admin/licenses",
            "{\"partner\":\""
                + partner.get("id").asText()
                + "\",\"name\":\"x\",\"allowed\":\"not-an-ip\"}",
            400);
    assertThat(badAddress.get("message").asText()).contains("not-an-ip");
    JsonNode license =
        admin(
            "/admin/licenses",
            "{\"partner\":\"" + partner.get("id").asText() + "\",\"name\":\"x\"}",
            201);
    JsonNode badNumber =
        admin(
            "/admin/devices",
            "{\"license\":\"" + license.get("id").asText() + "\",\"number\":\"12\"}",
            400);
    assertThat(badNumber.get("message").asText()).contains("number");
    JsonNode badDriver =
        admin(
            "/admin/devices",
            "{\"license\":\""
                + license.get("id").asText()
                + "\",\"number\":\"08110000200\",\"driver\":\"carrier-pigeon\"}",
            400);
    assertThat(badDriver.get("message").asText()).contains("carrier-pigeon");
    assertThat(
            admin("/admin/devices/123/rotate", "{\"credential\":\"key\"}", 404)
                .get("error")
                .asText())
        .isEqualTo("not_found");
    assertThat(admin("/admin/devices/abc/disable", "", 400).get("error").asText())
        .isEqualTo("id_not_valid");
    assertThat(admin("/admin/partners", "{bad json", 400).get("error").asText())
        .isEqualTo("malformed_json");
  }

  @Test
  void allowedAddressesMustBeAddressesOrRanges() throws Exception {
    JsonNode partner = admin("/admin/partners", "{\"name\":\"Ranges\"}", 201);
    String id = partner.get("id").asText();
    for (String bad :
        new String[] {
          "1.2.3.4/99", "::::", "256.1.1.1", "example.com", "10.0.0.0/", "2001:db8::/129"
        }) {
      JsonNode refused =
          admin(
              "/admin/licenses",
              "{\"partner\":\"" + id + "\",\"name\":\"x\",\"allowed\":\"" + bad + "\"}",
              400);
      assertThat(refused.get("message").asText()).as(bad).contains(bad);
    }
    JsonNode ok =
        admin(
            "/admin/licenses",
            "{\"partner\":\""
                + id
                + "\",\"name\":\"x\",\"allow\":\"203.0.113.7, 10.0.0.0/8,2001:db8::/32,::1\"}",
            201);
    assertThat(ok.get("allowedAddresses")).hasSize(4);
  }

  @Test
  void aNumberCanBeLinkedToOneDeviceOnly() throws Exception {
    newDevice("+6281100002099");
    JsonNode partner = admin("/admin/partners", "{\"name\":\"Dup\"}", 201);
    JsonNode license =
        admin(
            "/admin/licenses",
            "{\"partner\":\"" + partner.get("id").asText() + "\",\"name\":\"x\"}",
            201);
    JsonNode dup =
        admin(
            "/admin/devices",
            "{\"license\":\"" + license.get("id").asText() + "\",\"number\":\"0811-0000-2099\"}",
            409);
    assertThat(dup.get("error").asText()).isEqualTo("conflict");
    assertThat(dup.get("message").asText()).contains("+6281100002099");
  }

  @Test
  void aMessagesHistorySaysWhyItDidOrDidNotGoOut() throws Exception {
    io.kurir.tenant.Device device = kurir.newDevice("+6281100002100", true);
    String missing = Numbers.fresh();
    kurir.gateway().sandbox().setRegistered(missing, false);
    String failedId =
        kurir
            .postJson(
                "/api/async_send_message",
                "{\"key\":\""
                    + device.ecoKey()
                    + "\",\"phone_no\":\""
                    + missing
                    + "\",\"message\":\"hi\"}")
            .body();
    String to = Numbers.fresh();
    kurir
        .gateway()
        .sandbox()
        .injectFailure(to, io.kurir.driver.sandbox.SandboxNetwork.FailureKind.FAIL, 1);
    JsonNode retriedReply =
        JSON.readTree(
            kurir
                .postJson(
                    "/api/send_message",
                    "{\"key\":\""
                        + device.ecoKey()
                        + "\",\"phone_no\":\""
                        + to
                        + "\",\"message\":\"again\",\"flag_retry\":\"on\",\"deliveryFlag\":true}")
                .body());
    assertThat(retriedReply.get("status").asText()).isEqualTo("Other error");

    io.kurir.testing.Eventually.until(
        "failed recorded",
        () ->
            kurir.get("/admin/messages/" + failedId, AUTH).body().contains("\"state\":\"failed\""));
    JsonNode failed = JSON.readTree(kurir.get("/admin/messages/" + failedId, AUTH).body());
    assertThat(failed.get("message").get("reason").asText()).isEqualTo("number_not_found");
    assertThat(failed.get("events"))
        .extracting(e -> e.get("state").asText())
        .containsExactly("pending", "sending", "failed");
    assertThat(failed.get("events").get(2).get("reason").asText()).isEqualTo("number_not_found");

    String retriedId = retriedReply.get("message").get("messageId").asText();
    JsonNode retried = JSON.readTree(kurir.get("/admin/messages/" + retriedId, AUTH).body());
    assertThat(retried.get("message").get("state").asText()).isEqualTo("pending");
    assertThat(retried.get("message").get("attempts").asInt()).isEqualTo(1);
    assertThat(retried.get("events"))
        .extracting(e -> e.get("state").asText())
        .containsExactly("pending", "sending", "pending");
    assertThat(retried.get("events").get(2).get("reason").asText())
        .contains("attempt 1 failed, retry at");

    Reply unknown = kurir.get("/admin/messages/42", AUTH);
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(unknown.body()).contains("no message 42");
  }
}
