package io.kurir.driver.cloud;

import static io.kurir.testing.V1Client.assertError;
import static io.kurir.testing.V1Client.json;
import static io.kurir.testing.V1Client.textTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.tenant.ApiScope;
import io.kurir.testing.Eventually;
import io.kurir.testing.TestGateway;
import io.kurir.testing.V1Client;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Read marks and the typing indicator on a Cloud API device, against the fake Graph API, through
 * Kurir's API and through the Cloud API's door ({@code status: "read"} answered {@code {"success":
 * true}} as Meta does); edits and revoke, which the Cloud API does not have, refused naming the
 * driver with nothing sent to Meta.
 */
class CloudActionsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void aChatIsMarkedReadWithTheTypingIndicatorAndEditsAreRefused() throws Exception {
    try (CloudFixture f = new CloudFixture(dir)) {
      V1Client api = new V1Client(f.kurir);
      String key = api.key(f.device, ApiScope.SEND, ApiScope.READ);
      String customer = f.customer();
      Eventually.until("received", () -> f.storedIncoming() == 1);
      String wamid =
          json(api.get(key, "/v1/messages?direction=in"), 200).at("/data/0/network_id").asText();

      json(api.post(key, "/v1/chats/" + customer + "/read", "{}"), 200);
      json(api.post(key, "/v1/chats/" + customer + "/typing", "{\"state\":\"typing\"}"), 200);
      // Meta has no call to end the indicator (its reply or 25 s end it): nothing is sent.
      json(api.post(key, "/v1/chats/" + customer + "/typing", "{\"state\":\"paused\"}"), 200);
      List<JsonNode> marks = f.graph.readMarks();
      assertThat(marks).hasSize(2);
      assertThat(marks).allMatch(m -> m.path("message_id").asText().equals(wamid));
      assertThat(marks.get(0).has("typing_indicator")).isFalse();
      assertThat(marks.get(1).at("/typing_indicator/type").asText()).isEqualTo("text");

      // A chat with nothing received: Meta marks by message, so there is nothing to mark.
      assertError(
          api.post(key, "/v1/chats/" + io.kurir.testing.Numbers.fresh() + "/read", "{}"),
          422,
          "network_refused");

      String id = api.sent(key, textTo(customer, "Your order shipped"));
      Eventually.until("sent", () -> f.networkId(Long.parseLong(id)).isPresent());
      JsonNode refused = JSON.readTree(api.delete(key, "/v1/messages/" + id).body());
      assertThat(refused.path("error").asText()).isEqualTo("capability_not_supported");
      assertThat(refused.path("message").asText()).contains("cloud");
      assertError(
          api.patch(key, "/v1/messages/" + id, "{\"text\":{\"body\":\"x\"}}"),
          422,
          "capability_not_supported");
      assertThat(f.graph.readMarks()).hasSize(2);
      assertThat(f.graph.violations()).isEmpty();
    }
  }

  @Test
  void theDoorsReadMarkGoesToMetaAndAnswersSuccess() throws Exception {
    try (CloudFixture f = new CloudFixture(dir)) {
      f.customer();
      Eventually.until("received", () -> f.storedIncoming() == 1);
      V1Client api = new V1Client(f.kurir);
      String key = api.key(f.device, ApiScope.SEND, ApiScope.READ);
      JsonNode in = json(api.get(key, "/v1/messages?direction=in"), 200).at("/data/0");
      // Named by Kurir's id, with the indicator; then by Meta's own id.
      TestGateway.Reply byKurir =
          door(
              f,
              "{'messaging_product':'whatsapp','status':'read','message_id':'"
                  + in.path("id").asText()
                  + "','typing_indicator':{'type':'text'}}");
      assertThat(byKurir.status()).as(byKurir.body()).isEqualTo(200);
      assertThat(JSON.readTree(byKurir.body()).path("success").asBoolean()).isTrue();
      TestGateway.Reply byMeta =
          door(
              f,
              "{'messaging_product':'whatsapp','status':'read','message_id':'"
                  + in.path("network_id").asText()
                  + "'}");
      assertThat(byMeta.status()).as(byMeta.body()).isEqualTo(200);
      String wamid = in.path("network_id").asText();
      assertThat(f.graph.readMarks())
          .extracting(m -> m.path("message_id").asText())
          .containsExactly(wamid, wamid, wamid);
      assertThat(f.graph.readMarks().get(1).at("/typing_indicator/type").asText())
          .isEqualTo("text");

      TestGateway.Reply unknown =
          door(f, "{'messaging_product':'whatsapp','status':'read','message_id':'wamid.NOPE'}");
      assertThat(unknown.status()).as(unknown.body()).isEqualTo(400);
      assertThat(JSON.readTree(unknown.body()).at("/error/code").asInt()).isEqualTo(100);
      assertThat(f.graph.violations()).isEmpty();
    }
  }

  private static TestGateway.Reply door(CloudFixture f, String body) {
    return f.kurir.post(
        "/graph/v23.0/" + f.device.id() + "/messages",
        body.replace('\'', '"'),
        "application/json",
        "Authorization",
        "Bearer " + f.device.ecoKey());
  }
}
