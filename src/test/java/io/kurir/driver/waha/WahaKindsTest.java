package io.kurir.driver.waha;

import static io.kurir.testing.MessageObjects.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.kurir.content.CloudMessageJson;
import io.kurir.content.MessageContent;
import io.kurir.message.Message;
import io.kurir.message.MessageState;
import io.kurir.message.Recipient;
import io.kurir.message.SendCommand;
import io.kurir.message.SendRefused;
import io.kurir.message.Sends;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeWaha;
import io.kurir.testing.FakeWahaSending.Engine;
import io.kurir.testing.MessageObjects;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every kind the WAHA driver carries, on each engine flavour, sent through the gateway to the fake
 * engine and read back field by field from what it took (each body checked there against WAHA's
 * request schema); every kind it cannot carry refused at accept, naming the driver and the kind,
 * with nothing stored or sent.
 */
class WahaKindsTest {
  @TempDir Path dir;

  private static Device paired(WahaFixture f, String number) {
    Device device = f.newDevice(number, Map.of());
    String name = "kurir-" + device.id();
    f.awaitSession(name, "SCAN_QR_CODE");
    f.waha.scan(name, number.substring(1));
    Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));
    return device;
  }

  /** The stored content of an incoming message, as JSON. */
  private static JsonNode stored(io.kurir.testing.TestTables.InboundRow row) throws Exception {
    return new com.fasterxml.jackson.databind.ObjectMapper().readTree(row.content().orElseThrow());
  }

  private static Message send(Sends sends, Device device, String to, MessageContent content) {
    return sends
        .send(
            device, SendCommand.builder("v1").to(new Recipient(to, false)).content(content).build())
        .first();
  }

  @ParameterizedTest
  @EnumSource(Engine.class)
  void everyKindWahaCarriesGoesToItsEndpoint(Engine engine) {
    try (WahaFixture f = new WahaFixture(dir)) {
      f.waha.sending().engine(engine);
      Device device = paired(f, "+6281100008401");
      Sends sends = new Sends(f.kurir.gateway().messages(), Duration.ofSeconds(10));
      String to = "+6281100008409";
      long first = f.sendAsync(device, to.substring(1), "first");
      f.awaitState(device, first, MessageState.SENT);
      String quoted = f.networkId(first).orElseThrow();
      List<String> objects = MessageObjects.everyKind(quoted);
      int[] carried = {0, 1, 2, 3, 4, 6, 7, 11};
      for (int i : carried) {
        MessageContent content = CloudMessageJson.parse(json(objects.get(i)));
        Message m = send(sends, device, to, content);
        f.awaitState(device, m.id(), MessageState.SENT);
      }
      List<FakeWaha.Sent> sent = f.waha.sent();
      assertThat(sent).hasSize(1 + carried.length);
      assertThat(sent.stream().map(FakeWaha.Sent::path))
          .containsExactly(
              "/api/sendText",
              "/api/sendText",
              "/api/sendImage",
              "/api/sendVideo",
              "/api/sendVoice",
              "/api/sendFile",
              "/api/sendLocation",
              "/api/sendContactVcard",
              "/api/reaction");
      String chat = "6281100008409@c.us";
      JsonNode text = sent.get(1).body();
      assertThat(text.path("chatId").asText()).isEqualTo(chat);
      assertThat(text.path("text").asText()).isEqualTo("Hello");
      assertThat(text.path("linkPreview").asBoolean()).isFalse();
      JsonNode image = sent.get(2).body();
      assertThat(image.path("file").path("url").asText()).isEqualTo("https://example.com/a.jpg");
      assertThat(image.path("file").path("mimetype").asText()).isEqualTo("image/jpeg");
      assertThat(image.path("caption").asText()).isEqualTo("A");
      JsonNode video = sent.get(3).body();
      assertThat(video.path("file").path("url").asText()).isEqualTo("https://example.com/a.mp4");
      assertThat(video.path("file").path("mimetype").asText()).isEqualTo("video/mp4");
      assertThat(video.path("convert").asBoolean()).isFalse();
      assertThat(video.path("caption").asText()).isEqualTo("V");
      JsonNode voice = sent.get(4).body();
      assertThat(voice.path("file").path("mimetype").asText()).isEqualTo("audio/ogg; codecs=opus");
      assertThat(voice.path("convert").asBoolean()).isFalse();
      JsonNode file = sent.get(5).body();
      assertThat(file.path("file").path("filename").asText()).isEqualTo("a.pdf");
      assertThat(file.path("file").path("mimetype").asText()).isEqualTo("application/pdf");
      JsonNode location = sent.get(6).body();
      assertThat(location.path("latitude").asDouble()).isEqualTo(-6.2);
      assertThat(location.path("longitude").asDouble()).isEqualTo(106.8);
      assertThat(location.path("title").asText()).isEqualTo("Monas");
      JsonNode card = sent.get(7).body().path("contacts").path(0);
      assertThat(card.path("fullName").asText()).isEqualTo("Budi");
      assertThat(card.path("phoneNumber").asText()).isEqualTo("+62 812 1111 2222");
      assertThat(card.path("whatsappId").asText()).isEqualTo("6281211112222");
      assertThat(card.path("vcard").asText())
          .startsWith("BEGIN:VCARD\nVERSION:3.0\nFN:Budi\n")
          .contains("TEL;type=WORK;waid=6281211112222:+62 812 1111 2222")
          .endsWith("END:VCARD");
      JsonNode reaction = sent.get(8).body();
      assertThat(reaction.path("messageId").asText()).isEqualTo(quoted);
      assertThat(reaction.path("reaction").asText()).isEqualTo("\uD83D\uDC4D");
      assertThat(reaction.has("chatId")).isFalse();
    }
  }

  @ParameterizedTest
  @EnumSource(Engine.class)
  void aReplyGoesByReplyToWithTheEnginesId(Engine engine) {
    try (WahaFixture f = new WahaFixture(dir)) {
      f.waha.sending().engine(engine);
      Device device = paired(f, "+6281100008411");
      Sends sends = new Sends(f.kurir.gateway().messages(), Duration.ofSeconds(10));
      String to = "+6281100008419";
      long first = f.sendAsync(device, to.substring(1), "first");
      f.awaitState(device, first, MessageState.SENT);
      String quoted = f.networkId(first).orElseThrow();
      MessageContent byKurirId =
          CloudMessageJson.parse(
              json(
                  "{'type':'location','location':{'latitude':1.5,'longitude':2.5,'name':'',"
                      + "'address':'Jl. Sudirman'},'context':{'message_id':'"
                      + first
                      + "'}}"));
      Message m = send(sends, device, to, byKurirId);
      f.awaitState(device, m.id(), MessageState.SENT);
      JsonNode body = f.waha.sent().getLast().body();
      assertThat(body.path("reply_to").asText()).isEqualTo(quoted);
      assertThat(body.path("title").asText())
          .as("the address when no name")
          .isEqualTo("Jl. Sudirman");
    }
  }

  @org.junit.jupiter.api.Test
  void whatWahaCannotCarryIsRefusedAtAcceptNamingTheDriverAndTheKind() {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = paired(f, "+6281100008421");
      Sends sends = new Sends(f.kurir.gateway().messages(), Duration.ofSeconds(10));
      List<String> objects = MessageObjects.everyKind("true_6281100008429@c.us_AAA");
      for (int i : new int[] {5, 8, 9, 10}) { // sticker, interactive (two), template
        MessageContent content = CloudMessageJson.parse(json(objects.get(i)));
        assertThatThrownBy(() -> send(sends, device, "+6281100008429", content))
            .as(objects.get(i))
            .isInstanceOfSatisfying(
                SendRefused.class,
                e -> {
                  assertThat(e.reason()).isEqualTo(SendRefused.Reason.KIND_NOT_SUPPORTED);
                  assertThat(e.getMessage())
                      .isEqualTo("the waha driver cannot carry " + content.kind().wireName());
                });
      }
      MessageContent mentions = CloudMessageJson.parse(json(objects.getLast()));
      assertThatThrownBy(() -> send(sends, device, "+6281100008429", mentions))
          .isInstanceOfSatisfying(
              SendRefused.class,
              e -> {
                assertThat(e.reason()).isEqualTo(SendRefused.Reason.CAPABILITY_NOT_SUPPORTED);
                assertThat(e.getMessage()).isEqualTo("the waha driver cannot carry mentions");
              });
      assertThat(f.kurir.storedMessages(device.id())).isZero();
      assertThat(f.waha.sent()).isEmpty();
    }
  }

  @org.junit.jupiter.api.Test
  void incomingLocationsAndContactCardsAreStoredWithTheirContent() throws Exception {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = paired(f, "+6281100008431");
      String session = "kurir-" + device.id();
      assertThat(
              f.waha.incomingLocation(
                  session,
                  "LOC1",
                  "6281100008439",
                  "-6.175392",
                  "106.827153",
                  "Monas",
                  "Jakarta",
                  "true_6281100008439@c.us_ABC"))
          .isEqualTo(200);
      assertThat(
              f.waha.incomingContacts(
                  session,
                  "VC1",
                  "6281100008439",
                  "BEGIN:VCARD\nVERSION:3.0\nFN:Budi\nTEL;type=CELL;waid=6281211112222:+62 812 1111"
                      + " 2222\nEND:VCARD"))
          .isEqualTo(200);
      Eventually.until("both stored", () -> f.inbound(device).size() == 2);
      var rows = f.inbound(device);
      assertThat(rows.get(0).kind()).contains("location");
      JsonNode location = stored(rows.get(0));
      assertThat(location.path("location").path("latitude").asDouble()).isEqualTo(-6.175392);
      assertThat(location.path("location").path("name").asText()).isEqualTo("Monas");
      assertThat(location.path("context").path("message_id").asText())
          .isEqualTo("true_6281100008439@c.us_ABC");
      assertThat(rows.get(1).kind()).contains("contacts");
      JsonNode card = stored(rows.get(1)).path("contacts").path(0);
      assertThat(card.path("name").path("formatted_name").asText()).isEqualTo("Budi");
      assertThat(card.path("phones").path(0).path("wa_id").asText()).isEqualTo("6281211112222");
      assertThat(card.path("phones").path(0).path("phone").asText()).isEqualTo("+62 812 1111 2222");
    }
  }
}
