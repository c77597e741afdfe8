package io.kurir.clients;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.MetaWebhookChecks;
import io.kurir.testing.Numbers;
import io.kurir.testing.RawWebhookReceiver;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code meta} webhook subscription's deliveries read by the public npm Cloud API library's own
 * webhook functions ({@code @kapso/whatsapp-cloud-api/server}: {@code verifySignature} with the
 * subscription's secret as the app secret, {@code normalizeWebhook}), run unchanged under Node by
 * {@code clients/cloud-api-sdk/webhooks/verify.mjs}: an implementation of Meta's signature that is
 * not Kurir's, and a reader written for Meta's payloads.
 */
class MetaWebhookSdkTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path SDK = Path.of("clients/cloud-api-sdk");

  @TempDir Path dir;

  @Test
  void theCloudApiLibraryVerifiesAndReadsAMetaSubscriptionsDeliveries() throws Exception {
    String node = AppsScriptTest.node();
    assertThat(SDK.resolve("node_modules/@kapso/whatsapp-cloud-api/package.json"))
        .as("the SDK's dependencies are installed: ./kurir test runs npm ci in " + SDK)
        .exists();
    SettableClock clock = TestGateway.settableClock();
    try (TestGateway kurir =
            TestGateway.start(dir.resolve("kurir"), clock, "--media.allow-private-addresses=true");
        RawWebhookReceiver receiver = new RawWebhookReceiver()) {
      Device device = kurir.newDevice("+6281100007321", true);
      String key =
          kurir
              .gateway()
              .tenants()
              .apiKeys()
              .create(
                  device.licenseId(),
                  "sdk",
                  Set.of(ApiScope.SEND, ApiScope.READ, ApiScope.WEBHOOKS))
              .key()
              .orElseThrow();
      String secret = MetaWebhookChecks.subscribeMeta(kurir, key, receiver.url("/meta"));
      String from = Numbers.fresh();
      MetaWebhookChecks.incomingOfSeveralKinds(
          kurir, clock, device, from, kurir.dir().resolve("received/image.png"));
      String to = Numbers.fresh();
      TestGateway.Reply sent =
          kurir.post(
              "/v1/messages",
              "{\"to\":\"" + to + "\",\"type\":\"text\",\"text\":{\"body\":\"Terima kasih\"}}",
              "application/json",
              "Authorization",
              "Bearer " + key);
      assertThat(sent.status()).as(sent.body()).isEqualTo(201);
      String sentId = JSON.readTree(sent.body()).get("id").asText();
      Eventually.until(
          "six messages and a status",
          () ->
              receiver.at("/meta").size() >= 7
                  && receiver.at("/meta").stream()
                      .anyMatch(r -> r.json().toString().contains("\"statuses\"")));

      ObjectNode input = JSON.createObjectNode().put("secret", secret);
      ArrayNode deliveries = input.putArray("deliveries");
      for (RawWebhookReceiver.Received r : receiver.at("/meta")) {
        deliveries
            .addObject()
            .put("body64", Base64.getEncoder().encodeToString(r.body()))
            .put("signature", r.hubSignature());
      }
      Path in = dir.resolve("deliveries.json");
      Files.writeString(in, input.toString());
      Path output = dir.resolve("node-out.json");
      Process p =
          new ProcessBuilder(node, "webhooks/verify.mjs", in.toAbsolutePath().toString())
              .directory(SDK.toFile())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      boolean done = p.waitFor(60, TimeUnit.SECONDS);
      String out = Files.readString(output, StandardCharsets.UTF_8);
      if (!done) {
        p.destroyForcibly();
      }
      assertThat(done).as("node finished in time:\n" + out).isTrue();
      assertThat(p.exitValue()).as(out).isZero();

      JsonNode results = JSON.readTree(out);
      assertThat(results).hasSize(deliveries.size());
      List<String> types = new ArrayList<>();
      List<String> statuses = new ArrayList<>();
      for (JsonNode r : results) {
        assertThat(r.get("valid").asBoolean()).as("verifySignature with the secret").isTrue();
        assertThat(r.get("tampered").asBoolean()).as("a changed body is refused").isFalse();
        JsonNode n = r.get("normalized");
        assertThat(n.get("object").asText()).isEqualTo("whatsapp_business_account");
        assertThat(n.get("phoneNumberId").asText()).isEqualTo(Long.toString(device.id()));
        assertThat(n.get("displayPhoneNumber").asText()).isEqualTo("6281100007321");
        n.get("messages").forEach(m -> types.add(m.get("type").asText()));
        n.get("statuses")
            .forEach(
                s -> {
                  assertThat(s.get("id").asText()).isEqualTo(sentId);
                  assertThat(s.get("recipientId").asText()).isEqualTo(to.substring(1));
                  statuses.add(s.get("status").asText());
                });
      }
      assertThat(types)
          .containsExactly("text", "location", "contacts", "reaction", "text", "image");
      assertThat(statuses).startsWith("sent");
    }
  }
}
