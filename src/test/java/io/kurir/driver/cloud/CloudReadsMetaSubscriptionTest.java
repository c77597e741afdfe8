package io.kurir.driver.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.MetaWebhookChecks;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestFiles;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.time.SettableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kurir's own Cloud API driver reads what a {@code meta} webhook subscription sends, as it reads
 * Meta's: one gateway's sandbox device has a meta subscription whose URL is a second gateway's
 * Cloud API webhook ({@code /drivers/cloud/webhook}); the second gateway's cloud device has the
 * first device's id as its phone-number id, the subscription's secret as its app secret, and the
 * first gateway's door ({@code /graph}) as its Graph API. The incoming messages of every kind sent
 * to the first device arrive at the second, signature checked, media downloaded through the door.
 */
class CloudReadsMetaSubscriptionTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void theCloudDriverReadsAMetaSubscriptionsIncomingMessagesAndStatuses() throws Exception {
    SettableClock clock = TestGateway.settableClock();
    try (TestGateway first =
            TestGateway.start(dir.resolve("first"), clock, "--media.allow-private-addresses=true");
        TestGateway second =
            TestGateway.start(
                dir.resolve("second"),
                TestGateway.settableClock(),
                "--drivers.cloud.graph-url=" + first.url("/graph"),
                "--drivers.cloud.pacing.min-gap=0ms",
                "--media.allow-private-addresses=true")) {
      Device sandbox = first.newDevice("+6281100007311", true);
      String key =
          first
              .gateway()
              .tenants()
              .apiKeys()
              .create(
                  sandbox.licenseId(),
                  "meta",
                  Set.of(ApiScope.SEND, ApiScope.READ, ApiScope.WEBHOOKS))
              .key()
              .orElseThrow();
      String secret =
          MetaWebhookChecks.subscribeMeta(first, key, second.url(CloudWebhookRoutes.PATH));
      Device cloud =
          second.newDevice(
              "+6281100007312",
              "cloud",
              Map.of(
                  "phone-number-id",
                  Long.toString(sandbox.id()),
                  "access-token",
                  sandbox.ecoKey(),
                  "app-secret",
                  secret,
                  "verify-token",
                  "meta-subscription"));

      String from = Numbers.fresh();
      MetaWebhookChecks.incomingOfSeveralKinds(
          first, clock, sandbox, from, first.dir().resolve("received/image.png"));
      Eventually.until("six messages stored", () -> second.storedIncoming(cloud.id()) == 6);

      // What the second gateway made of them: its own event log, read with the cloud device's key.
      List<JsonNode> received = new ArrayList<>();
      JsonNode page =
          JSON.readTree(
              second
                  .get("/v1/events?limit=1000", "Authorization", "Bearer " + cloud.ecoKey())
                  .body());
      for (JsonNode e : page.get("data")) {
        if (e.get("type").asText().equals("message.received")) {
          received.add(e.get("data"));
        }
      }
      assertThat(received)
          .extracting(d -> d.get("type").asText())
          .containsExactly("text", "location", "contacts", "reaction", "text", "image");
      assertThat(received)
          .allSatisfy(d -> assertThat(d.get("from").asText()).isEqualTo(from.substring(1)));
      assertThat(received.get(0).get("contact_name").asText()).isEqualTo("Siti");
      assertThat(received.get(0).at("/text/body").asText()).isEqualTo("Ada warna lain?");
      assertThat(received.get(1).at("/location/longitude").asDouble()).isEqualTo(106.8272);
      assertThat(received.get(1).at("/location/address").asText()).isEqualTo("Jakarta");
      assertThat(received.get(2).at("/contacts/0/name/formatted_name").asText())
          .isEqualTo("Budi Santoso");
      assertThat(received.get(3).at("/reaction/emoji").asText()).isEqualTo("\uD83D\uDC4D");
      assertThat(received.get(4).at("/context/message_id").asText()).isEqualTo("wamid.QUOTED");
      JsonNode image = received.get(5).get("image");
      assertThat(image.get("caption").asText()).isEqualTo("Warna merah");
      assertThat(image.get("mime_type").asText()).isEqualTo("image/png");

      // The file came through the first gateway's door, byte for byte: the second one serves it.
      Reply described =
          second.get(
              "/graph/v23.0/" + image.get("id").asText(),
              "Authorization",
              "Bearer " + cloud.ecoKey());
      assertThat(described.status()).as(described.body()).isEqualTo(200);
      try (HttpClient http = HttpClient.newHttpClient()) {
        HttpResponse<byte[]> file =
            http.send(
                HttpRequest.newBuilder(
                        URI.create(JSON.readTree(described.body()).get("url").asText()))
                    .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(file.body()).isEqualTo(TestFiles.PNG);
      }

      // Statuses too are taken (answered 200): the deliveries end delivered, none failed.
      Reply sent =
          first.post(
              "/v1/messages",
              "{\"to\":\"" + Numbers.fresh() + "\",\"type\":\"text\",\"text\":{\"body\":\"Hi\"}}",
              "application/json",
              "Authorization",
              "Bearer " + key);
      assertThat(sent.status()).as(sent.body()).isEqualTo(201);
      Eventually.until(
          "the status delivered",
          () -> deliveries(first, "delivered").stream().anyMatch(d -> d.contains("statuses")));
      assertThat(deliveries(first, "failed")).isEmpty();
      assertThat(deliveries(first, "dead")).isEmpty();
    }
  }

  /** The payloads of the first gateway's deliveries in {@code state} (the Admin API). */
  private static List<String> deliveries(TestGateway kurir, String state) {
    Reply r =
        kurir.get(
            "/admin/webhooks?state=" + state, "Authorization", "Bearer " + TestGateway.ADMIN_TOKEN);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    List<String> out = new ArrayList<>();
    try {
      JSON.readTree(r.body()).forEach(d -> out.add(d.get("payload").asText()));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out;
  }
}
