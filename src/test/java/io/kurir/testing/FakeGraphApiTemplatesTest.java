package io.kurir.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * The fake Graph API sends a template only as Meta does: approved on the account in the language
 * asked (else 132001), with the template's number of body parameters (else 132000), no parameter
 * holding a new line, a tab or more than four spaces in a row (else 132018); Meta's error bodies.
 */
class FakeGraphApiTemplatesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void onlyApprovedTemplatesWithTheirParametersGo() throws Exception {
    try (FakeGraphApi graph = new FakeGraphApi(TestGateway.settableClock());
        HttpClient http = HttpClient.newHttpClient()) {
      graph.approveTemplate("otp_code", "id", 1);

      JsonNode ok = post(http, graph, template("otp_code", "id", "Kode 123456"));
      assertThat(ok.path("messages").path(0).path("id").asText()).startsWith("wamid.");

      JsonNode unknown = post(http, graph, template("no_such", "id", "x"));
      assertThat(unknown.path("error").path("code").asInt()).isEqualTo(132001);
      assertThat(unknown.path("error").path("message").asText())
          .isEqualTo("(#132001) Template name does not exist in the translation");
      assertThat(unknown.path("error").path("error_data").path("details").asText())
          .isEqualTo("template name (no_such) does not exist in id");
      JsonNode language = post(http, graph, template("otp_code", "en_US", "x"));
      assertThat(language.path("error").path("code").asInt()).isEqualTo(132001);

      JsonNode none = post(http, graph, template("otp_code", "id"));
      assertThat(none.path("error").path("code").asInt()).isEqualTo(132000);
      JsonNode two = post(http, graph, template("otp_code", "id", "a", "b"));
      assertThat(two.path("error").path("code").asInt()).isEqualTo(132000);
      assertThat(two.path("error").path("error_data").path("details").asText())
          .contains("(2)")
          .contains("(1)");

      for (String bad : new String[] {"line\nbreak", "a\ttab", "five     spaces"}) {
        JsonNode refused = post(http, graph, template("otp_code", "id", bad));
        assertThat(refused.path("error").path("code").asInt()).as(bad).isEqualTo(132018);
      }
      assertThat(post(http, graph, template("otp_code", "id", "four    spaces")).has("error"))
          .isFalse();
      assertThat(graph.sent()).hasSize(2);
      assertThat(graph.violations()).isEmpty();
    }
  }

  private static String template(String name, String language, String... parameters) {
    var body = JSON.createObjectNode();
    body.put("messaging_product", "whatsapp");
    body.put("to", "6281234567001");
    body.put("type", "template");
    var t = body.putObject("template");
    t.put("name", name);
    t.putObject("language").put("code", language);
    var params = t.putArray("components").addObject().put("type", "body").putArray("parameters");
    for (String p : parameters) {
      params.addObject().put("type", "text").put("text", p);
    }
    return body.toString();
  }

  private static JsonNode post(HttpClient http, FakeGraphApi graph, String body) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create(
                    graph.graphUrl()
                        + "/"
                        + FakeGraphApi.VERSION
                        + "/"
                        + FakeGraphApi.PHONE_NUMBER_ID
                        + "/messages"))
            .header("Authorization", "Bearer " + FakeGraphApi.TOKEN)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return JSON.readTree(http.send(request, HttpResponse.BodyHandlers.ofString()).body());
  }
}
