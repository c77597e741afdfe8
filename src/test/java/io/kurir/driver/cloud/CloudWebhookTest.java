package io.kurir.driver.cloud;

import static io.kurir.testing.TestFiles.PDF;
import static io.kurir.testing.TestFiles.PNG;
import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGraphApi;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.TestTables;
import io.kurir.testing.WebhookReceiver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The network's webhook: the verification handshake, signatures (nothing of an unsigned or badly
 * signed body is recorded), and incoming text and media through the incoming pipeline.
 */
class CloudWebhookTest {
  @TempDir Path dir;

  private static final String PATH = CloudWebhookRoutes.PATH;

  @Test
  void theHandshakeEchoesTheChallengeOnlyForAKnownVerifyToken() {
    try (CloudFixture f = new CloudFixture(dir)) {
      Reply ok =
          f.kurir.get(
              PATH
                  + "?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token="
                  + FakeGraphApi.VERIFY_TOKEN);
      assertThat(ok.status()).isEqualTo(200);
      assertThat(ok.body()).isEqualTo("1158201444");
      assertThat(ok.contentType()).startsWith("text/plain");

      Reply wrong =
          f.kurir.get(PATH + "?hub.mode=subscribe&hub.challenge=1&hub.verify_token=guess");
      assertThat(wrong.status()).isEqualTo(403);
      assertThat(wrong.body()).contains("verify_token_not_valid");
      assertThat(f.kurir.get(PATH + "?hub.mode=subscribe&hub.challenge=1").status()).isEqualTo(403);
      assertThat(
              f.kurir
                  .get(
                      PATH
                          + "?hub.mode=unsubscribe&hub.challenge=1&hub.verify_token="
                          + FakeGraphApi.VERIFY_TOKEN)
                  .status())
          .isEqualTo(400);
      assertThat(
              f.kurir
                  .get(PATH + "?hub.mode=subscribe&hub.verify_token=" + FakeGraphApi.VERIFY_TOKEN)
                  .status())
          .isEqualTo(400);
    }
  }

  @Test
  void theDriverLevelVerifyTokenIsAcceptedToo() {
    try (CloudFixture f = new CloudFixture(dir, "--drivers.cloud.verify-token=operator-token")) {
      Reply ok =
          f.kurir.get(
              PATH + "?hub.mode=subscribe&hub.challenge=42&hub.verify_token=operator-token");
      assertThat(ok.status()).isEqualTo(200);
      assertThat(ok.body()).isEqualTo("42");
    }
  }

  @Test
  void aMissingOrBadSignatureIsRefusedAndNothingIsRecorded() throws Exception {
    try (CloudFixture f = new CloudFixture(dir)) {
      String customer = Numbers.fresh().substring(1);
      byte[] body =
          new com.fasterxml.jackson.databind.ObjectMapper()
              .writeValueAsBytes(f.graph.textMessage(customer, "wamid.IN1", "Sheena", "halo"));
      assertThat(f.graph.postWebhook(body, null)).isEqualTo(401);
      assertThat(f.graph.postWebhook(body, "sha256=" + FakeGraphApi.sign("other-secret", body)))
          .isEqualTo(401);
      assertThat(f.graph.postWebhook(body, "sha256=00")).isEqualTo(401);
      byte[] tampered = new String(body, StandardCharsets.UTF_8).replace("halo", "hola").getBytes();
      assertThat(
              f.graph.postWebhook(
                  tampered, "sha256=" + FakeGraphApi.sign(FakeGraphApi.APP_SECRET, body)))
          .isEqualTo(401);
      assertThat(f.storedIncoming()).isZero();

      assertThat(f.graph.postWebhook("not json".getBytes(), "sha256=00")).isEqualTo(400);
      byte[] otherNumber =
          new String(body, StandardCharsets.UTF_8)
              .replace(FakeGraphApi.PHONE_NUMBER_ID, "999")
              .getBytes();
      assertThat(
              f.graph.postWebhook(
                  otherNumber, "sha256=" + FakeGraphApi.sign(FakeGraphApi.APP_SECRET, otherNumber)))
          .isEqualTo(404);

      assertThat(
              f.graph.postWebhook(
                  body, "sha256=" + FakeGraphApi.sign(FakeGraphApi.APP_SECRET, body)))
          .isEqualTo(200);
      assertThat(f.storedIncoming()).isOne();
    }
  }

  @Test
  void anIncomingTextIsStoredOnceAnsweredByTheBotAndPushedToTheWebhook() {
    try (WebhookReceiver receiver = new WebhookReceiver();
        CloudFixture f = new CloudFixture(dir)) {
      Device device = deviceWithBotAndWebhook(f, receiver);
      String customer = Numbers.fresh().substring(1);
      var message = f.graph.textMessage(customer, "wamid.IN-harga", "Sheena", "harga");
      assertThat(f.graph.postWebhook(message)).isEqualTo(200);
      assertThat(f.graph.postWebhook(message)).as("a redelivery").isEqualTo(200);

      Eventually.until("the auto-reply went out", () -> f.graph.sentTo(customer).size() == 1);
      assertThat(f.graph.sentTo(customer).getFirst().body().path("text").path("body").asText())
          .isEqualTo("Mulai 10rb");
      Eventually.until("pushed", () -> !receiver.ofEvent("message.incoming").isEmpty());
      var pushed = receiver.ofEvent("message.incoming").getFirst().json();
      assertThat(pushed.path("message").asText()).isEqualTo("harga");
      assertThat(pushed.path("contact_name").asText())
          .as("the name the customer gave in WhatsApp")
          .isEqualTo("Sheena");
      int stored = TestTables.of(f.kurir).inboundOf(device.id()).size();
      assertThat(stored).isOne();
      assertThat(f.graph.sentTo(customer)).as("answered once").hasSize(1);
    }
  }

  @Test
  void incomingImagesAndDocumentsAreFetchedAndKept() throws Exception {
    try (CloudFixture f = new CloudFixture(dir)) {
      String customer = Numbers.fresh().substring(1);
      assertThat(
              f.graph.postWebhook(
                  f.graph.mediaMessage(customer, "wamid.IMG", "image", PNG, "image/png", "look")))
          .isEqualTo(200);
      assertThat(
              f.graph.postWebhook(
                  f.graph.mediaMessage(
                      customer, "wamid.DOC", "document", PDF, "application/pdf", null)))
          .isEqualTo(200);
      List<TestTables.InboundRow> rows =
          TestTables.of(f.kurir).inboundOf(f.device.id()).stream()
              .sorted(java.util.Comparator.comparing(r -> r.networkId().orElse("")))
              .toList();
      assertThat(rows).hasSize(2);
      assertThat(rows.get(0).networkId()).contains("wamid.DOC");
      assertThat(rows.get(0).mediaType()).contains("application/pdf");
      assertThat(Files.readAllBytes(Path.of(rows.get(0).mediaPath().orElseThrow()))).isEqualTo(PDF);
      assertThat(rows.get(1).body()).isEqualTo("look");
      assertThat(rows.get(1).mediaType()).contains("image/png");
      assertThat(Files.readAllBytes(Path.of(rows.get(1).mediaPath().orElseThrow()))).isEqualTo(PNG);
    }
  }

  /** The cloud device's license answers "harga" and pushes what arrives (as the sandbox tests). */
  static Device deviceWithBotAndWebhook(CloudFixture f, WebhookReceiver receiver) {
    var tenants = f.kurir.gateway().tenants();
    String secret = "reseller-secret-0123456789abcdef";
    Partner partner = tenants.createPartner("Reseller", "", "reseller", secret);
    License license = tenants.createLicense(partner.id(), "Toko", "", null, List.of());
    // The fixture's device holds the fake's number id; this one takes it over, from its creation:
    // made with another id and changed after, its first attach (refused: no such number) could
    // land after the change and hold its queue (noted in docs/decisions.md as a known race).
    tenants.configureDevice(f.device.id(), Map.of("phone-number-id", "1"));
    Device device =
        tenants.createDevice(
            license.id(),
            "+6281100007402",
            "cloud",
            Map.of(
                "phone-number-id", FakeGraphApi.PHONE_NUMBER_ID,
                "access-token", FakeGraphApi.TOKEN,
                "app-secret", FakeGraphApi.APP_SECRET));
    Reply bot =
        f.kurir.post(
            "/v4.0/wa_partner/add_bot",
            "license="
                + license.code()
                + "&bot_keyword=harga&bot_response=Mulai+10rb&bot_type=match",
            "application/x-www-form-urlencoded",
            "Authorization",
            "Basic "
                + Base64.getEncoder()
                    .encodeToString(("reseller:" + secret).getBytes(StandardCharsets.UTF_8)));
    assertThat(bot.status()).as(bot.body()).isEqualTo(200);
    Reply hook =
        f.kurir.postForm(
            "/v2.0/webhook",
            "license="
                + license.code()
                + "&no_wa=6281100007402&action=set&url="
                + receiver.url("/in"));
    assertThat(hook.status()).as(hook.body()).isEqualTo(200);
    return device;
  }
}
