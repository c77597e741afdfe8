package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.content.CloudMessageJson;
import io.kurir.content.MessageContent;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.MessageObjects;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestTables;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kind of the Cloud API's message object through the core and the sandbox, end to end:
 * accepted by {@link Sends}, stored with its content, carried to the recipient phone's inbox with
 * the kind's object, and its statuses on to {@code read}; incoming messages of every kind injected
 * through the sandbox's control API and stored with their kind and content.
 */
class MessageKindsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] ADMIN = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};
  private static final String CUSTOMER = "+6281234500001";

  /** One message object of each kind, as a caller of Kurir's API writes it. */
  static final List<String> EVERY_KIND = MessageObjects.everyKind("SBX-1");

  @TempDir Path dir;
  final SettableClock clock = TestGateway.settableClock();
  TestGateway kurir;
  Device device;
  Sends sends;

  @BeforeEach
  void start() {
    kurir =
        TestGateway.start(
            dir, clock, "--drivers.sandbox.delivery-after=1s", "--drivers.sandbox.read-after=2s");
    device = kurir.newDevice("+6281100002901", true);
    sends = new Sends(kurir.gateway().messages(), Duration.ofSeconds(10));
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  private static JsonNode json(String singleQuoted) throws Exception {
    return JSON.readTree(singleQuoted.replace('\'', '"'));
  }

  private Message send(MessageContent content) {
    return sends
        .send(
            device,
            SendCommand.builder("v1").to(new Recipient(CUSTOMER, false)).content(content).build())
        .first();
  }

  @Test
  void everyKindIsAcceptedCarriedToThePhoneShownWithItsObjectAndReadInTheEnd() throws Exception {
    for (String object : EVERY_KIND) {
      JsonNode given = json(object);
      MessageContent content = CloudMessageJson.parse(given);
      Message accepted = send(content);
      assertThat(accepted.kind()).isEqualTo(given.path("type").asText());
      assertThat(kurir.gateway().messages().find(device, accepted.id()).orElseThrow().content())
          .as("stored with its content: " + object)
          .contains(content);

      Eventually.until(
          "the phone received " + object,
          () ->
              kurir.sandbox().inbox(CUSTOMER).stream()
                  .anyMatch(e -> e.messageId() == accepted.id()));
      InboxEntry entry =
          kurir.sandbox().inbox(CUSTOMER).stream()
              .filter(e -> e.messageId() == accepted.id())
              .findFirst()
              .orElseThrow();
      assertThat(entry.kind()).isEqualTo(given.path("type").asText());
      String type = given.path("type").asText();
      if (type.equals("text") && !given.has("context")) {
        // A plain text says no more than a seed family's: the phone shows its text as before.
        assertThat(entry.text()).isEqualTo("Hello");
        continue;
      }
      assertThat(entry.content().get(type)).as(object).isEqualTo(given.get(type));
      assertThat(entry.content().get("context")).isEqualTo(given.get("context"));
      assertThat(entry.content().get("mentions")).isEqualTo(given.get("mentions"));
    }
    // Its statuses go on as any message's: delivered, then read, on the sandbox's clock.
    clock.advance(Duration.ofSeconds(3));
    Eventually.until(
        "every kind read",
        () -> kurir.sandbox().inbox(CUSTOMER).stream().allMatch(e -> e.status().equals("read")));
    for (InboxEntry e : kurir.sandbox().inbox(CUSTOMER)) {
      Eventually.until(
          "message " + e.messageId() + " read",
          () ->
              kurir.gateway().messages().find(device, e.messageId()).orElseThrow().state()
                  == MessageState.READ);
    }
  }

  @Test
  void thePhonesInboxRouteShowsTheKindWithItsObject() throws Exception {
    Message location = send(CloudMessageJson.parse(json(EVERY_KIND.get(6))));
    Eventually.until(
        "delivered to the phone",
        () ->
            kurir.sandbox().inbox(CUSTOMER).stream().anyMatch(e -> e.messageId() == location.id()));
    JsonNode inbox =
        JSON.readTree(kurir.get("/sandbox/phones/" + CUSTOMER + "/inbox", ADMIN).body());
    JsonNode shown = inbox.path("messages").get(0);
    assertThat(shown.path("kind").asText()).isEqualTo("location");
    assertThat(shown.path("location")).isEqualTo(json(EVERY_KIND.get(6)).get("location"));
    assertThat(shown.path("text").asText()).isEqualTo("Monas");
  }

  @Test
  void aSeedFamilysTextReadsAsATextAndKeepsNoContentOfItsOwn() {
    Message text =
        sends
            .send(
                device,
                SendCommand.builder("eco").to(new Recipient(CUSTOMER, false)).text("plain").build())
            .first();
    Message stored = kurir.gateway().messages().find(device, text.id()).orElseThrow();
    assertThat(stored.kind()).isEqualTo("text");
    assertThat(stored.content()).isEmpty();
    assertThat(stored.asContent())
        .isEqualTo(MessageContent.of(new io.kurir.content.Content.Text("plain", true)));
  }

  @Test
  void aKindTheDriverCannotCarryIsRefusedBeforeAnythingIsStored() throws Exception {
    Device cloud =
        kurir.newDevice(
            "+6281100002902",
            "cloud",
            java.util.Map.of(
                "phone-number-id", "106540352242922",
                "access-token", "EAAG-test",
                "app-secret", "secret-0123456789"));
    long before = kurir.storedMessages(cloud.id());
    MessageContent sticker = CloudMessageJson.parse(json(EVERY_KIND.get(5)));
    // The cloud driver carries stickers; a group it cannot send to.
    assertThatThrownBy(
            () ->
                sends.send(
                    cloud,
                    SendCommand.builder("v1")
                        .to(new Recipient("6281100002903-1234", true))
                        .content(sticker)
                        .build()))
        .isInstanceOfSatisfying(
            SendRefused.class,
            e -> {
              assertThat(e.reason()).isEqualTo(SendRefused.Reason.CAPABILITY_NOT_SUPPORTED);
              assertThat(e.getMessage())
                  .isEqualTo("the cloud driver cannot carry messages to groups");
            });
    assertThat(kurir.storedMessages(cloud.id())).isEqualTo(before);
  }

  @Test
  void incomingMessagesOfEveryKindAreStoredWithTheirKindAndContent() throws Exception {
    TestTables tables = TestTables.of(kurir);
    for (String object : EVERY_KIND) {
      JsonNode body = json(object);
      ((com.fasterxml.jackson.databind.node.ObjectNode) body).put("from", CUSTOMER);
      var reply =
          kurir.post(
              "/sandbox/devices/" + device.id() + "/incoming",
              body.toString(),
              "application/json",
              ADMIN);
      assertThat(reply.status()).as(object + ": " + reply.body()).isEqualTo(200);
    }
    Eventually.until(
        "every kind stored", () -> tables.inboundOf(device.id()).size() == EVERY_KIND.size());
    List<TestTables.InboundRow> rows = tables.inboundOf(device.id());
    for (int i = 0; i < EVERY_KIND.size(); i++) {
      JsonNode given = json(EVERY_KIND.get(i));
      TestTables.InboundRow row = rows.get(i);
      assertThat(row.kind()).contains(given.path("type").asText());
      MessageContent stored = CloudMessageJson.fromStored(row.content().orElseThrow());
      assertThat(stored).as(EVERY_KIND.get(i)).isEqualTo(CloudMessageJson.parse(given));
      assertThat(row.body()).isEqualTo(stored.incomingText());
    }
    assertThat(rows.get(6).body()).isEqualTo("Monas");
    assertThat(rows.get(11).body()).as("a reaction is no text").isEmpty();
  }

  @Test
  void anIncomingObjectMetaWouldRefuseIsRefusedWithTheFieldsToken() {
    var reply =
        kurir.post(
            "/sandbox/devices/" + device.id() + "/incoming",
            "{\"from\":\"" + CUSTOMER + "\",\"type\":\"location\",\"location\":{\"longitude\":1}}",
            "application/json",
            ADMIN);
    assertThat(reply.status()).isEqualTo(400);
    assertThat(reply.body()).contains("location_latitude_empty");
  }

  @Test
  void aContentSendRemembersItsIdempotencyKeyByItsContent() throws Exception {
    MessageContent location = CloudMessageJson.parse(json(EVERY_KIND.get(6)));
    SendCommand first =
        SendCommand.builder("v1")
            .to(new Recipient(CUSTOMER, false))
            .content(location)
            .idempotencyKey(Optional.of("k-1"))
            .build();
    long id = sends.send(device, first).first().id();
    assertThat(sends.send(device, first).first().id()).isEqualTo(id);
    MessageContent other = CloudMessageJson.parse(json(EVERY_KIND.get(1)));
    assertThatThrownBy(
            () ->
                sends.send(
                    device,
                    SendCommand.builder("v1")
                        .to(new Recipient(CUSTOMER, false))
                        .content(other)
                        .idempotencyKey(Optional.of("k-1"))
                        .build()))
        .isInstanceOf(IdempotencyKeyReused.class);
  }
}
