package io.kurir.driver.gowa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.testing.FakeGowa;
import io.kurir.testing.TestGateway;
import io.kurir.testing.WebhookReceiver;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * The fake GOWA where the driver's tests do not look at it: its media routes' refusals (GOWA's
 * {@code src/validations/send_validation.go}), and its webhook payloads, each field as GOWA's
 * {@code buildFromFields} and {@code createReceiptPayload} write it (commit {@code 51f7b19}, {@code
 * src/infrastructure/whatsapp/event_message.go}, {@code event_receipt.go}, {@code jid_utils.go};
 * the examples of {@code docs/webhook-payload.md}).
 */
class FakeGowaTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ACCOUNT = "6281100027901";
  private static final String GROUP = "120363025982934543@g.us";

  @Test
  void aLidSendersChatIsTheChatNormalisedNotTheAccount() {
    try (FakeGowa gowa = new FakeGowa(TestGateway.settableClock());
        WebhookReceiver hook = new WebhookReceiver()) {
      gowa.existingSlot("s1", ACCOUNT);
      gowa.webhook(hook.url("/gowa"));

      gowa.incomingFromLid("s1", "3EB0A1", "251556368777322", null, "a");
      JsonNode unknown = payload(hook, 0);
      assertThat(unknown.path("chat_id").asText())
          .as("no phone known: the chat stays the LID's")
          .isEqualTo("251556368777322@lid");
      assertThat(unknown.path("chat_lid").asText()).isEqualTo("251556368777322@lid");
      assertThat(unknown.path("from").asText()).isEqualTo("251556368777322@lid");
      assertThat(unknown.path("from_lid").asText()).isEqualTo("251556368777322@lid");

      gowa.incomingFromLid("s1", "3EB0A2", "251556368777322", "6281100027902", "b");
      JsonNode known = payload(hook, 1);
      assertThat(known.path("chat_id").asText())
          .as("the phone known: the chat is the phone's")
          .isEqualTo("6281100027902@s.whatsapp.net");
      assertThat(known.path("chat_lid").asText()).isEqualTo("251556368777322@lid");
      assertThat(known.path("from").asText()).isEqualTo("6281100027902@s.whatsapp.net");
      assertThat(known.path("from_lid").asText()).isEqualTo("251556368777322@lid");

      gowa.incomingInGroupFromLid("s1", "3EB0A3", GROUP, "251556368777399", null, "c");
      JsonNode inGroup = payload(hook, 2);
      assertThat(inGroup.path("chat_id").asText()).isEqualTo(GROUP);
      assertThat(inGroup.has("chat_lid")).as("a group's chat is no LID").isFalse();
      assertThat(inGroup.path("from").asText()).isEqualTo("251556368777399@lid");

      gowa.incoming("s1", "3EB0A4", "6281100027903", "d");
      JsonNode plain = payload(hook, 3);
      assertThat(plain.path("chat_id").asText()).isEqualTo("6281100027903@s.whatsapp.net");
      assertThat(plain.has("chat_lid")).isFalse();
      assertThat(plain.has("from_lid")).isFalse();
      for (int i = 0; i < 4; i++) {
        assertThat(hook.received().get(i).json().path("device_id").asText())
            .as("the account is the envelope's device_id, never a chat")
            .isEqualTo(ACCOUNT + "@s.whatsapp.net")
            .isNotEqualTo(payload(hook, i).path("chat_id").asText());
      }
      assertThat(gowa.violations()).isEmpty();
    }
  }

  @Test
  void aReceiptInAGroupIsFromTheMemberAndInAChatOfTwoFromTheNumber() throws Exception {
    try (FakeGowa gowa = new FakeGowa(TestGateway.settableClock());
        WebhookReceiver hook = new WebhookReceiver();
        HttpClient http = HttpClient.newHttpClient()) {
      gowa.existingSlot("s1", ACCOUNT);
      gowa.webhook(hook.url("/gowa"));
      FakeGowa.Member told = new FakeGowa.Member("6281100027904", "251556368777344");
      FakeGowa.Member hidden = new FakeGowa.Member(null, "251556368777355");
      gowa.group(GROUP, "Toko", told, hidden);
      String toGroup = send(http, gowa, GROUP);
      String toNumber = send(http, gowa, "6281100027905");

      gowa.groupAck("s1", "delivered", told, toGroup);
      JsonNode byTold = payload(hook, 0);
      assertThat(byTold.path("chat_id").asText()).isEqualTo(GROUP);
      assertThat(byTold.path("from").asText())
          .as("the member, not the group")
          .isEqualTo("6281100027904@s.whatsapp.net");
      assertThat(byTold.path("from_lid").asText()).isEqualTo("251556368777344@lid");
      assertThat(byTold.path("ids").get(0).asText()).isEqualTo(toGroup);

      gowa.groupAck("s1", "read", hidden, toGroup);
      JsonNode byHidden = payload(hook, 1);
      assertThat(byHidden.path("chat_id").asText()).isEqualTo(GROUP);
      assertThat(byHidden.path("from").asText()).isEqualTo("251556368777355@lid");
      assertThat(byHidden.path("receipt_type").asText()).isEqualTo("read");

      gowa.ack("s1", "delivered", toNumber);
      JsonNode direct = payload(hook, 2);
      assertThat(direct.path("chat_id").asText()).isEqualTo("6281100027905@s.whatsapp.net");
      assertThat(direct.path("from").asText()).isEqualTo("6281100027905@s.whatsapp.net");
      assertThat(hook.received().get(2).json().path("timestamp").isTextual()).isTrue();

      assertThatThrownBy(() -> gowa.ack("s1", "read", toGroup))
          .as("a group's receipt names its member")
          .hasMessageContaining("groupAck");
      assertThatThrownBy(() -> gowa.groupAck("s1", "read", told, toNumber))
          .hasMessageContaining("not sent to a group");
      assertThat(gowa.violations()).isEmpty();
    }
  }

  @Test
  void mediaRoutesAnswerAsGowasValidationsDo() throws Exception {
    try (FakeGowa gowa = new FakeGowa(TestGateway.settableClock());
        HttpClient http = HttpClient.newHttpClient()) {
      gowa.existingSlot("s1", ACCOUNT);
      gowa.mediaLimits(8, 8);
      String to = "6281100027906";

      HttpResponse<String> none = media(http, gowa, "/send/video", to, null, null, null);
      assertThat(none.statusCode()).isEqualTo(400);
      assertThat(JSON.readTree(none.body()).path("code").asText()).isEqualTo("VALIDATION_ERROR");
      assertThat(JSON.readTree(none.body()).path("message").asText())
          .isEqualTo("either Video or VideoURL must be provided");

      HttpResponse<String> webm =
          media(http, gowa, "/send/video", to, "video", "video/webm", new byte[] {1});
      assertThat(webm.statusCode()).isEqualTo(400);
      assertThat(JSON.readTree(webm.body()).path("message").asText())
          .isEqualTo("your video type is not allowed. please use mp4/mkv/avi/x-msvideo");

      HttpResponse<String> large =
          media(http, gowa, "/send/file", to, "file", "application/pdf", new byte[9]);
      assertThat(large.statusCode()).isEqualTo(400);
      assertThat(JSON.readTree(large.body()).path("message").asText())
          .startsWith("max file upload is 8 B");

      HttpResponse<String> voice =
          media(http, gowa, "/send/audio", to, "audio", "audio/ogg", new byte[] {1, 2});
      assertThat(voice.statusCode()).as(voice.body()).isEqualTo(200);
      assertThat(JSON.readTree(voice.body()).path("results").path("status").asText())
          .startsWith("Send audio success " + to + "@s.whatsapp.net");
      assertThat(gowa.sent().getLast().body().path("ptt").asText()).isEqualTo("true");

      assertThat(gowa.violations())
          .as("a missing file and a type GOWA refuses are Kurir's mistakes; a size is not")
          .containsExactly(
              "/send/video without the video part", "/send/video with a video of type video/webm");
    }
  }

  /**
   * A multipart send through slot {@code s1}: {@code phone}, {@code ptt}, and the file part {@code
   * field} of {@code type} when not null.
   */
  private static HttpResponse<String> media(
      HttpClient http,
      FakeGowa gowa,
      String path,
      String phone,
      String field,
      String type,
      byte[] bytes)
      throws Exception {
    String auth =
        Base64.getEncoder().encodeToString(FakeGowa.basicAuth().getBytes(StandardCharsets.UTF_8));
    java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
    String b = "----fake-gowa-test";
    body.writeBytes(
        ("--"
                + b
                + "\r\nContent-Disposition: form-data; name=\"phone\"\r\n\r\n"
                + phone
                + "\r\n--"
                + b
                + "\r\nContent-Disposition: form-data; name=\"ptt\"\r\n\r\ntrue\r\n")
            .getBytes(StandardCharsets.UTF_8));
    if (field != null) {
      body.writeBytes(
          ("--"
                  + b
                  + "\r\nContent-Disposition: form-data; name=\""
                  + field
                  + "\"; filename=\"f\"\r\nContent-Type: "
                  + type
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.UTF_8));
      body.writeBytes(bytes);
      body.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
    }
    body.writeBytes(("--" + b + "--\r\n").getBytes(StandardCharsets.UTF_8));
    return http.send(
        HttpRequest.newBuilder(URI.create(gowa.url() + path))
            .header("Authorization", "Basic " + auth)
            .header("X-Device-Id", "s1")
            .header("Content-Type", "multipart/form-data; boundary=" + b)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A text sent through slot {@code s1}; WhatsApp's message id. */
  private static String send(HttpClient http, FakeGowa gowa, String phone) throws Exception {
    String auth =
        Base64.getEncoder().encodeToString(FakeGowa.basicAuth().getBytes(StandardCharsets.UTF_8));
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(gowa.url() + "/send/message"))
                .header("Authorization", "Basic " + auth)
                .header("X-Device-Id", "s1")
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"phone\":\"" + phone + "\",\"message\":\"hi\"}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body()).path("results").path("message_id").asText();
  }

  private static JsonNode payload(WebhookReceiver hook, int i) {
    return hook.received().get(i).json().path("payload");
  }
}
