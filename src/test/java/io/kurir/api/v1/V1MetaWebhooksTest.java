package io.kurir.api.v1;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.MetaWebhookChecks;
import io.kurir.testing.Numbers;
import io.kurir.testing.RawWebhookReceiver;
import io.kurir.testing.TestFiles;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.time.SettableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code meta} webhook subscription end to end: the sandbox makes incoming messages of several
 * kinds and a sent message's statuses, a receiver on loopback gets them as Meta's webhooks, and the
 * test checks each signature with its own HMAC (javax.crypto, written from Meta's reference, not
 * Kurir's code), each payload field by field, and that an incoming file resolves through the door
 * ({@code GET /graph/{v}/{media-id}}) as Meta's media ids do.
 */
class V1MetaWebhooksTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  final SettableClock clock = TestGateway.settableClock();
  TestGateway kurir;
  RawWebhookReceiver receiver;
  Device device;
  String key;

  @BeforeEach
  void start() {
    kurir = TestGateway.start(dir, clock, "--media.allow-private-addresses=true");
    receiver = new RawWebhookReceiver();
    device = kurir.newDevice("+6281100007301", true);
    key =
        kurir
            .gateway()
            .tenants()
            .apiKeys()
            .create(
                device.licenseId(), "meta", Set.of(ApiScope.SEND, ApiScope.READ, ApiScope.WEBHOOKS))
            .key()
            .orElseThrow();
  }

  @AfterEach
  void stop() {
    kurir.close();
    receiver.close();
  }

  private Reply subscribe(String body) {
    return kurir.post("/v1/webhooks", body, "application/json", "Authorization", "Bearer " + key);
  }

  /** The messages of the meta deliveries so far, by their {@code type}, in arrival order. */
  private static List<JsonNode> messages(List<RawWebhookReceiver.Received> deliveries) {
    List<JsonNode> out = new ArrayList<>();
    for (RawWebhookReceiver.Received r : deliveries) {
      r.json().at("/entry/0/changes/0/value/messages").forEach(out::add);
    }
    return out;
  }

  private static List<JsonNode> statuses(List<RawWebhookReceiver.Received> deliveries) {
    List<JsonNode> out = new ArrayList<>();
    for (RawWebhookReceiver.Received r : deliveries) {
      r.json().at("/entry/0/changes/0/value/statuses").forEach(out::add);
    }
    return out;
  }

  @Test
  void aMetaSubscriptionGetsIncomingMessagesAndStatusesAsMetasWebhooksSignedWithItsSecret()
      throws Exception {
    String secret = MetaWebhookChecks.subscribeMeta(kurir, key, receiver.url("/meta"));
    Reply standard =
        subscribe(
            "{\"url\":\"" + receiver.url("/standard") + "\",\"events\":[\"message.status\"]}");
    assertThat(standard.status()).as(standard.body()).isEqualTo(201);
    assertThat(JSON.readTree(standard.body()).get("format").asText()).isEqualTo("standard");
    Reply statusesOnly =
        subscribe(
            "{\"url\":\""
                + receiver.url("/meta-statuses")
                + "\",\"events\":[\"message.status\"],\"format\":\"meta\"}");
    assertThat(statusesOnly.status()).as(statusesOnly.body()).isEqualTo(201);

    String from = Numbers.fresh();
    MetaWebhookChecks.incomingOfSeveralKinds(
        kurir, clock, device, from, kurir.dir().resolve("received/image.png"));
    String absent = Numbers.fresh();
    kurir.sandbox().setRegistered(absent, false);
    String sent = send(Numbers.fresh(), "Pesanan dikirim");
    String failed = send(absent, "Halo");
    Eventually.until(
        "sent and failed",
        () -> statusesOf(sent).contains("sent") && statusesOf(failed).contains("failed"));
    // The sandbox's phone: delivered after 2 s, read after 5; one step at a time.
    clock.advance(Duration.ofSeconds(3));
    Eventually.until("delivered", () -> statusesOf(sent).contains("delivered"));
    clock.advance(Duration.ofSeconds(3));
    Eventually.until("read", () -> statusesOf(sent).contains("read"));
    Eventually.until("six messages", () -> messages(receiver.at("/meta")).size() == 6);

    List<RawWebhookReceiver.Received> meta = receiver.at("/meta");
    for (RawWebhookReceiver.Received r : meta) {
      assertThat(r.hubSignature()).isEqualTo(MetaWebhookChecks.hubSignature(secret, r.body()));
      assertThat(r.webhookSignature()).as("Meta's signature only").isNull();
      JsonNode root = r.json();
      assertThat(root.get("object").asText()).isEqualTo("whatsapp_business_account");
      assertThat(root.at("/entry/0/id").asText()).isEqualTo(Long.toString(device.licenseId()));
      JsonNode value = root.at("/entry/0/changes/0/value");
      assertThat(root.at("/entry/0/changes/0/field").asText()).isEqualTo("messages");
      assertThat(value.get("messaging_product").asText()).isEqualTo("whatsapp");
      assertThat(value.at("/metadata/phone_number_id").asText())
          .isEqualTo(Long.toString(device.id()));
      assertThat(value.at("/metadata/display_phone_number").asText()).isEqualTo("6281100007301");
      assertThat(value.has("messages") ^ value.has("statuses")).isTrue();
    }

    List<JsonNode> in = messages(meta);
    assertThat(in)
        .extracting(m -> m.get("type").asText())
        .containsExactly("text", "location", "contacts", "reaction", "text", "image");
    assertThat(in)
        .allSatisfy(
            m -> {
              assertThat(m.get("from").asText()).isEqualTo(from.substring(1));
              assertThat(m.get("id").asText()).matches("\\d+");
              assertThat(m.get("timestamp").asText()).matches("\\d{10}");
            });
    JsonNode first = meta.getFirst().json().at("/entry/0/changes/0/value");
    assertThat(first.at("/contacts/0/wa_id").asText()).isEqualTo(from.substring(1));
    assertThat(first.at("/contacts/0/profile/name").asText()).isEqualTo("Siti");
    assertThat(in.get(0).at("/text/body").asText()).isEqualTo("Ada warna lain?");
    assertThat(in.get(1).get("location").get("latitude").asDouble()).isEqualTo(-6.175);
    assertThat(in.get(1).get("location").get("name").asText()).isEqualTo("Monas");
    assertThat(in.get(2).at("/contacts/0/name/formatted_name").asText()).isEqualTo("Budi Santoso");
    assertThat(in.get(2).at("/contacts/0/phones/0/phone").asText()).isEqualTo("+6281234500001");
    assertThat(in.get(3).at("/reaction/message_id").asText()).isEqualTo("wamid.ABC");
    assertThat(in.get(3).at("/reaction/emoji").asText()).isEqualTo("\uD83D\uDC4D");
    assertThat(in.get(4).at("/context/id").asText()).isEqualTo("wamid.QUOTED");
    JsonNode image = in.get(5).get("image");
    assertThat(image.get("caption").asText()).isEqualTo("Warna merah");
    assertThat(image.get("mime_type").asText()).isEqualTo("image/png");
    assertThat(image.has("link")).isFalse();

    // The media id resolves through the door, as Meta's does: its URL, type, hash and size, and
    // the bytes at the URL.
    Reply described =
        kurir.get("/graph/v23.0/" + image.get("id").asText(), "Authorization", "Bearer " + key);
    assertThat(described.status()).as(described.body()).isEqualTo(200);
    JsonNode media = JSON.readTree(described.body());
    assertThat(media.get("mime_type").asText()).isEqualTo("image/png");
    assertThat(media.get("file_size").asLong()).isEqualTo(TestFiles.PNG.length);
    assertThat(media.get("sha256").asText())
        .isEqualTo(
            HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(TestFiles.PNG)));
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<byte[]> file =
          http.send(
              HttpRequest.newBuilder(URI.create(media.get("url").asText())).build(),
              HttpResponse.BodyHandlers.ofByteArray());
      assertThat(file.statusCode()).isEqualTo(200);
      assertThat(file.body()).isEqualTo(TestFiles.PNG);
    }
    // Another license's key does not reach it.
    Device stranger = kurir.newDevice(Numbers.fresh(), true);
    assertThat(
            kurir
                .get(
                    "/graph/v23.0/" + image.get("id").asText(),
                    "Authorization",
                    "Bearer " + stranger.ecoKey())
                .status())
        .isEqualTo(400);

    // Statuses: Meta's names, in order, only those Meta has (no pending, no sending).
    List<JsonNode> statuses = statuses(meta);
    assertThat(statuses)
        .filteredOn(s -> s.get("id").asText().equals(sent))
        .extracting(s -> s.get("status").asText())
        .containsExactly("sent", "delivered", "read");
    JsonNode fail =
        statuses.stream().filter(s -> s.get("id").asText().equals(failed)).findFirst().get();
    assertThat(fail.get("status").asText()).isEqualTo("failed");
    assertThat(fail.get("recipient_id").asText()).isEqualTo(absent.substring(1));
    assertThat(fail.at("/errors/0/code").asInt()).isEqualTo(131026);
    assertThat(fail.at("/errors/0/title").asText()).isEqualTo("Message undeliverable");
    assertThat(fail.at("/errors/0/error_data/details").asText()).isEqualTo("number_not_found");

    // A meta subscription of statuses alone gets the same statuses and no message.
    Eventually.until(
        "the statuses-only subscription",
        () -> statuses(receiver.at("/meta-statuses")).size() == statuses(meta).size());
    assertThat(messages(receiver.at("/meta-statuses"))).isEmpty();

    // The standard subscription beside it: Kurir's events, Standard Webhooks' signature, its own
    // filter (statuses only, pending and sending too).
    List<RawWebhookReceiver.Received> kurirs = receiver.at("/standard");
    Eventually.until("standard statuses", () -> receiver.at("/standard").size() >= 4);
    assertThat(receiver.at("/standard"))
        .allSatisfy(
            r -> {
              assertThat(r.hubSignature()).isNull();
              assertThat(r.webhookSignature()).startsWith("v1,");
              assertThat(r.json().get("type").asText()).isEqualTo("message.status");
            });
    assertThat(kurirs).isNotEmpty();
  }

  @Test
  void aMetaSubscriptionTakesOnlyWhatMetaHasAndTheFormatIsChecked() throws Exception {
    Reply deviceStatus =
        subscribe(
            "{\"url\":\"https://example.com/h\",\"events\":[\"device.status\"],"
                + "\"format\":\"meta\"}");
    assertThat(deviceStatus.status()).isEqualTo(422);
    assertThat(JSON.readTree(deviceStatus.body()).get("error").asText())
        .isEqualTo("event_not_in_format");
    for (String format : List.of("\"xml\"", "5", "\"\"")) {
      Reply r =
          subscribe(
              "{\"url\":\"https://example.com/h\",\"events\":[\"message.status\"],\"format\":"
                  + format
                  + "}");
      assertThat(r.status()).as(format).isEqualTo(400);
      assertThat(JSON.readTree(r.body()).get("error").asText()).isEqualTo("invalid_format");
    }
    MetaWebhookChecks.subscribeMeta(kurir, key, receiver.url("/meta"));
    JsonNode listed =
        JSON.readTree(kurir.get("/v1/webhooks", "Authorization", "Bearer " + key).body());
    assertThat(listed.at("/data/0/format").asText()).isEqualTo("meta");
    assertThat(listed.at("/data/0/secret").isMissingNode()).isTrue();

    // A device's state changes reach no meta subscription (Meta's webhooks have none).
    kurir.sandbox().unpair(device.id());
    kurir.sandbox().pair(device.id(), device.number());
    kurir.sandbox().injectIncoming(device.id(), Numbers.fresh(), "after");
    Eventually.until("the message", () -> messages(receiver.at("/meta")).size() == 1);
    assertThat(receiver.at("/meta")).hasSize(1);
  }

  private String send(String to, String text) throws Exception {
    Reply r =
        kurir.post(
            "/v1/messages",
            "{\"to\":\"" + to + "\",\"type\":\"text\",\"text\":{\"body\":\"" + text + "\"}}",
            "application/json",
            "Authorization",
            "Bearer " + key);
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    return JSON.readTree(r.body()).get("id").asText();
  }

  private List<String> statusesOf(String id) {
    return statuses(receiver.at("/meta")).stream()
        .filter(s -> s.get("id").asText().equals(id))
        .map(s -> s.get("status").asText())
        .toList();
  }
}
