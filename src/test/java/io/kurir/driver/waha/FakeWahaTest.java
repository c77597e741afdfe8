package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.kurir.testing.FakeWaha;
import io.kurir.testing.FakeWahaSending;
import io.kurir.testing.QrCamera;
import io.kurir.testing.TestGateway;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * The fake engine itself, where Kurir does not reach: the QR code in the engine's three formats
 * carries one value, a call without the API key is refused as the engine refuses it, and the
 * sending side is as strict as WAHA (pre-generated ids only where an engine takes them, no
 * {@code @s.whatsapp.net} chats, no delivery to a number not on WhatsApp, per-member acks only to
 * webhooks that subscribe to them).
 */
class FakeWahaTest {

  @Test
  void theQrCodeComesInTheEnginesThreeFormatsWithOneValue() throws Exception {
    try (FakeWaha waha = new FakeWaha(TestGateway.settableClock());
        HttpClient http = HttpClient.newHttpClient()) {
      waha.existingSession("s1", null);
      String qr = waha.rotateQr("s1");
      String base = waha.url() + "/api/s1/auth/qr";

      HttpResponse<String> raw = http.send(get(base + "?format=raw", "*/*"), body());
      assertThat(raw.body()).isEqualTo("{\"value\":\"" + qr + "\"}");

      HttpResponse<String> json = http.send(get(base, "application/json"), body());
      String data = json.body().replaceAll(".*\"data\":\"([^\"]+)\".*", "$1");
      assertThat(QrCamera.read("data:image/png;base64," + data)).isEqualTo(qr);

      HttpResponse<byte[]> png =
          http.send(
              get(base + "?format=image", "image/png"), HttpResponse.BodyHandlers.ofByteArray());
      assertThat(png.headers().firstValue("Content-Type")).contains("image/png");
      assertThat(
              QrCamera.read(
                  "data:image/png;base64," + Base64.getEncoder().encodeToString(png.body())))
          .isEqualTo(qr);

      HttpResponse<String> noKey =
          http.send(
              HttpRequest.newBuilder(URI.create(waha.url() + "/api/sessions")).build(), body());
      assertThat(noKey.statusCode()).isEqualTo(401);
      assertThat(noKey.body()).contains("Unauthorized");
      waha.violations().clear(); // refused on purpose
    }
  }

  @Test
  void theSendingSideIsAsStrictAsTheEngine() throws Exception {
    try (FakeWaha waha = new FakeWaha(TestGateway.settableClock());
        HttpClient http = HttpClient.newHttpClient()) {
      waha.existingSession("s1", "6281100008901");
      waha.sending().engine(FakeWahaSending.Engine.NOWEB);
      HttpResponse<String> generated =
          http.send(get(waha.url() + "/api/s1/new-message-id", "application/json"), body());
      assertThat(generated.statusCode()).isEqualTo(200);
      String id = JSON.readTree(generated.body()).path("id").asText();

      String text =
          "{\"session\":\"s1\",\"chatId\":\"6281100008909@c.us\",\"text\":\"hi\",\"id\":\""
              + id
              + "\"}";
      HttpResponse<String> sent = http.send(post(waha.url() + "/api/sendText", text), body());
      assertThat(sent.statusCode()).isEqualTo(201);
      JsonNode reply = JSON.readTree(sent.body());
      assertThat(reply.has("id")).as("NOWEB: Baileys' message, no top-level id").isFalse();
      assertThat(reply.path("key").path("id").asText()).isEqualTo(id);
      assertThat(reply.path("key").path("remoteJid").asText())
          .isEqualTo("6281100008909@s.whatsapp.net");
      assertThat(waha.sent().getLast().id()).isEqualTo("true_6281100008909@c.us_" + id);

      assertThat(http.send(post(waha.url() + "/api/sendText", text), body()).statusCode())
          .as("an id used twice")
          .isEqualTo(400);
      String image =
          "{\"session\":\"s1\",\"chatId\":\"6281100008909@c.us\",\"id\":\"3EB0FF\","
              + "\"file\":{\"mimetype\":\"image/png\",\"data\":\"AA==\"}}";
      assertThat(http.send(post(waha.url() + "/api/sendImage", image), body()).statusCode())
          .as("sendImage takes no pre-generated id")
          .isEqualTo(400);
      String baileysJid =
          "{\"session\":\"s1\",\"chatId\":\"6281100008909@s.whatsapp.net\",\"text\":\"hi\"}";
      assertThat(http.send(post(waha.url() + "/api/sendText", baileysJid), body()).statusCode())
          .isEqualTo(400);
      assertThat(waha.violations()).hasSize(3);
      waha.violations().clear(); // refused on purpose

      waha.sending().engine(FakeWahaSending.Engine.WEBJS);
      assertThat(
              http.send(get(waha.url() + "/api/s1/new-message-id", "application/json"), body())
                  .statusCode())
          .as("WEBJS does not pre-generate ids")
          .isEqualTo(501);

      // Not on WhatsApp: 201 like any send, and it never reaches a phone.
      waha.notOnWhatsApp("6281100008908");
      String nobody = "{\"session\":\"s1\",\"chatId\":\"6281100008908@c.us\",\"text\":\"hi\"}";
      HttpResponse<String> lost = http.send(post(waha.url() + "/api/sendText", nobody), body());
      assertThat(lost.statusCode()).isEqualTo(201);
      String lostId = JSON.readTree(lost.body()).path("id").path("_serialized").asText();
      assertThatThrownBy(() -> waha.ack(lostId, 2, "DEVICE"))
          .hasMessageContaining("never reached a phone");

      // A group's per-member acks go only to a webhook that takes message.ack.group.
      waha.group("120363025982934543@g.us", "Toko", "6281100008901", "6281100008902");
      String toGroup =
          "{\"session\":\"s1\",\"chatId\":\"120363025982934543@g.us\",\"text\":\"hi\"}";
      http.send(post(waha.url() + "/api/sendText", toGroup), body());
      assertThat(waha.ackGroup(waha.sent().getLast().id(), "6281100008902@c.us", 3, "READ"))
          .as("no webhook subscribes to message.ack.group")
          .isZero();

      // A group the session is not in: taken on WEBJS (undocumented), refused on GOWS as
      // whatsmeow refuses it, passed on as WAHA passes a GOWS error.
      String notIn = "{\"session\":\"s1\",\"chatId\":\"120363099999999999@g.us\",\"text\":\"hi\"}";
      assertThat(http.send(post(waha.url() + "/api/sendText", notIn), body()).statusCode())
          .isEqualTo(201);
      waha.sending().engine(FakeWahaSending.Engine.GOWS);
      HttpResponse<String> refused = http.send(post(waha.url() + "/api/sendText", notIn), body());
      assertThat(refused.statusCode()).isEqualTo(500);
      assertThat(JSON.readTree(refused.body()).path("exception").path("details").asText())
          .isEqualTo("failed to get group members: you're not participating in that group");
      assertThat(waha.violations()).isEmpty();
    }
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  private static HttpRequest post(String url, String json) {
    return HttpRequest.newBuilder(URI.create(url))
        .header("X-Api-Key", FakeWaha.API_KEY)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json))
        .build();
  }

  @Test
  void aReceivedFileIsDeletedAfterTheFilesLifetimeAndThenAnswers404AsTheEngineDoes()
      throws Exception {
    var clock = TestGateway.settableClock();
    try (FakeWaha waha = new FakeWaha(clock);
        HttpClient http = HttpClient.newHttpClient()) {
      waha.existingSession("s1", "6281100008901");
      waha.incomingMedia("s1", "M1", "6281100008909", "", "image/jpeg", "a.jpg", new byte[] {1, 2});
      String url = waha.url() + "/api/files/s1/M1-a.jpg";
      assertThat(http.send(get(url, "*/*"), body()).statusCode()).isEqualTo(200);
      clock.advance(java.time.Duration.ofSeconds(180));
      assertThat(http.send(get(url, "*/*"), body()).statusCode())
          .as("180 s: still there")
          .isEqualTo(200);
      clock.advance(java.time.Duration.ofSeconds(1));
      HttpResponse<String> gone = http.send(get(url, "*/*"), body());
      assertThat(gone.statusCode()).isEqualTo(404);
      assertThat(gone.body())
          .contains("\"message\":\"File not found: M1-a.jpg\"", "\"statusCode\":404");
    }
  }

  private static HttpRequest get(String url, String accept) {
    return HttpRequest.newBuilder(URI.create(url))
        .header("X-Api-Key", FakeWaha.API_KEY)
        .header("Accept", accept)
        .build();
  }

  private static HttpResponse.BodyHandler<String> body() {
    return HttpResponse.BodyHandlers.ofString();
  }
}
