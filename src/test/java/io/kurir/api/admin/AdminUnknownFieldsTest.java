package io.kurir.api.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.testing.OpenApiDocument;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Admin API call that takes a body refuses a field it does not know with 400 {@code
 * unknown_field} naming it, instead of ignoring it: a license created with {@code partnerId}
 * instead of {@code partner} must not succeed as if the field were not there.
 */
class AdminUnknownFieldsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] AUTH = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};

  TestGateway kurir;

  @BeforeEach
  void start(@TempDir Path dir) {
    kurir = TestGateway.start(dir);
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  private JsonNode post(String path, String json, int expectedStatus) throws Exception {
    Reply reply = kurir.post(path, json, "application/json", AUTH);
    assertThat(reply.status())
        .as(path + " " + json + " → " + reply.body())
        .isEqualTo(expectedStatus);
    return JSON.readTree(reply.body());
  }

  @Test
  void aLicenseWithPartnerIdInsteadOfPartnerIsRefusedNamingTheFieldAndTheNearestName()
      throws Exception {
    String partner = post("/admin/partners", "{\"name\":\"Reseller\"}", 201).get("id").asText();

    JsonNode refused =
        post(
            "/admin/licenses",
            "{\"partnerId\":\"" + partner + "\",\"partner\":\"" + partner + "\",\"name\":\"S\"}",
            400);

    assertThat(refused.get("error").asText()).isEqualTo("unknown_field");
    assertThat(refused.get("field").asText()).isEqualTo("partnerId");
    assertThat(refused.get("message").asText())
        .contains("unknown field partnerId")
        .contains("did you mean partner?");
    assertThat(kurir.gateway().tenants().licenses()).as("nothing was created").isEmpty();
    // The fields it does take still work, and so does the old spelling of allowed.
    post(
        "/admin/licenses",
        "{\"partner\":\"" + partner + "\",\"name\":\"S\",\"allow\":\"203.0.113.5\"}",
        201);
  }

  @Test
  void formFieldsAndQueryParametersAreCheckedLikeJsonOnes() throws Exception {
    Reply form =
        kurir.post(
            "/admin/partners", "name=R&emial=r@x.id", "application/x-www-form-urlencoded", AUTH);
    assertThat(form.status()).isEqualTo(400);
    assertThat(JSON.readTree(form.body()).get("field").asText()).isEqualTo("emial");
    assertThat(JSON.readTree(form.body()).get("message").asText()).contains("did you mean email?");

    Reply query =
        kurir.post("/admin/partners?nama=R", "{\"name\":\"R\"}", "application/json", AUTH);
    assertThat(query.status()).isEqualTo(400);
    assertThat(JSON.readTree(query.body()).get("field").asText()).isEqualTo("nama");
    assertThat(kurir.gateway().tenants().partners()).isEmpty();
  }

  @Test
  void aFieldThatIsNotCloseToAnyGetsNoGuessAndACallWithoutFieldsTakesNone() throws Exception {
    JsonNode device = newDevice();
    String id = device.get("id").asText();

    JsonNode refused = post("/admin/devices/" + id + "/disable", "{\"reason\":\"x\"}", 400);
    assertThat(refused.get("field").asText()).isEqualTo("reason");
    assertThat(refused.get("message").asText())
        .doesNotContain("did you mean")
        .contains("takes no fields");
    assertThat(kurir.gateway().tenants().device(Long.parseLong(id)).disabled()).isFalse();
    post("/admin/devices/" + id + "/disable", "", 200);
  }

  /**
   * Every POST, PUT and PATCH of the Admin API in the API document, called with one field nobody
   * knows: a call added later is covered without an edit here.
   */
  @Test
  void everyAdminCallWithABodyRefusesAnUnknownField() throws Exception {
    JsonNode device = newDevice();
    Map<String, String> ids =
        Map.of(
            "/admin/partners/",
            kurir.gateway().tenants().partners().getFirst().id() + "",
            "/admin/licenses/",
            device.get("licenseId").asText(),
            "/admin/devices/",
            device.get("id").asText(),
            "/admin/webhooks/",
            "1",
            "/admin/mobile-cs/",
            "1");
    List<String> routes =
        OpenApiDocument.served().documentedRoutes().stream()
            .filter(r -> r.matches("(POST|PUT|PATCH) /admin/.*"))
            .toList();
    assertThat(routes).hasSizeGreaterThan(15);
    for (String route : routes) {
      String method = route.substring(0, route.indexOf(' '));
      String path = route.substring(route.indexOf(' ') + 1);
      for (var e : ids.entrySet()) {
        path = path.replace(e.getKey() + "{id}", e.getKey() + e.getValue());
      }
      Reply reply =
          kurir.send(
              HttpRequest.newBuilder(URI.create(kurir.url(path)))
                  .method(method, HttpRequest.BodyPublishers.ofString("{\"zzz\":\"1\"}"))
                  .header("Content-Type", "application/json")
                  .header(AUTH[0], AUTH[1])
                  .build(),
              "{\"zzz\":\"1\"}");
      assertThat(reply.status()).as(route + " → " + reply.body()).isEqualTo(400);
      JsonNode body = JSON.readTree(reply.body());
      assertThat(body.get("error").asText()).as(route).isEqualTo("unknown_field");
      assertThat(body.get("field").asText()).as(route).isEqualTo("zzz");
    }
  }

  private JsonNode newDevice() throws Exception {
    String partner = post("/admin/partners", "{\"name\":\"Reseller\"}", 201).get("id").asText();
    String license =
        post("/admin/licenses", "{\"partner\":\"" + partner + "\",\"name\":\"S\"}", 201)
            .get("id")
            .asText();
    return post(
        "/admin/devices", "{\"license\":\"" + license + "\",\"number\":\"+6281100006101\"}", 201);
  }
}
