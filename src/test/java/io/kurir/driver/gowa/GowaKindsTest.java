package io.kurir.driver.gowa;

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
import io.kurir.testing.FakeGowa;
import io.kurir.testing.MessageObjects;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kinds the GOWA driver carries, sent through the gateway to the fake GOWA and read back field
 * by field from what it took (each body checked there as GOWA's validations do); a reply and
 * mentions on a text; every kind it cannot carry refused at accept, naming the driver and the kind,
 * with nothing stored or sent.
 */
class GowaKindsTest {
  @TempDir Path dir;

  private static Message send(Sends sends, Device device, String to, MessageContent content) {
    return sends
        .send(
            device, SendCommand.builder("v1").to(new Recipient(to, false)).content(content).build())
        .first();
  }

  @Test
  void textLocationContactAndReactionGoToTheirRoutes() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.linked("+6281100008501");
      Sends sends = new Sends(f.kurir.gateway().messages(), Duration.ofSeconds(10));
      String to = "+6281100008509";
      long first = f.sendAsync(device, to.substring(1), "first");
      f.awaitState(device, first, MessageState.SENT);
      String quoted = f.kurir.networkIdOf(first).orElseThrow();
      List<String> objects = MessageObjects.everyKind(quoted);
      for (int i : new int[] {0, 6, 7, 11, 12}) {
        MessageContent content = CloudMessageJson.parse(json(objects.get(i)));
        Message m = send(sends, device, to, content);
        f.awaitState(device, m.id(), MessageState.SENT);
      }
      List<FakeGowa.Sent> sent = f.gowa.sent();
      assertThat(sent.stream().map(FakeGowa.Sent::path))
          .containsExactly(
              "/send/message",
              "/send/message",
              "/send/location",
              "/send/contact",
              "/message/" + quoted + "/reaction",
              "/send/message");
      String jid = "6281100008509@s.whatsapp.net";
      assertThat(sent.stream().skip(1).map(FakeGowa.Sent::phone)).containsOnly(jid);
      assertThat(sent.get(1).body().path("message").asText()).isEqualTo("Hello");
      JsonNode location = sent.get(2).body();
      assertThat(location.path("latitude").asText()).isEqualTo("-6.2");
      assertThat(location.path("longitude").asText()).isEqualTo("106.8");
      JsonNode contact = sent.get(3).body();
      assertThat(contact.path("contact_name").asText()).isEqualTo("Budi");
      assertThat(contact.path("contact_phone").asText()).isEqualTo("6281211112222");
      JsonNode reaction = sent.get(4).body();
      assertThat(reaction.path("message_id").asText()).isEqualTo(quoted);
      assertThat(reaction.path("emoji").asText()).isEqualTo("\uD83D\uDC4D");
      JsonNode reply = sent.get(5).body();
      assertThat(reply.path("message").asText()).isEqualTo("re");
      assertThat(reply.path("reply_message_id").asText()).isEqualTo(quoted);
      assertThat(reply.path("mentions").get(0).asText()).isEqualTo("6281234500002");
    }
  }

  @Test
  void whatGowaCannotCarryIsRefusedAtAcceptNamingTheDriverAndTheKind() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.linked("+6281100008511");
      Sends sends = new Sends(f.kurir.gateway().messages(), Duration.ofSeconds(10));
      List<String> objects = MessageObjects.everyKind("3EB0AAAA");
      // interactive (two), template; the media kinds go (GowaMediaKindsTest)
      for (int i : new int[] {8, 9, 10}) {
        MessageContent content = CloudMessageJson.parse(json(objects.get(i)));
        assertThatThrownBy(() -> send(sends, device, "+6281100008519", content))
            .as(objects.get(i))
            .isInstanceOfSatisfying(
                SendRefused.class,
                e -> {
                  assertThat(e.reason()).isEqualTo(SendRefused.Reason.KIND_NOT_SUPPORTED);
                  assertThat(e.getMessage())
                      .isEqualTo("the gowa driver cannot carry " + content.kind().wireName());
                });
      }
      assertThat(f.kurir.storedMessages(device.id())).isZero();
      assertThat(f.gowa.sent()).isEmpty();
    }
  }

  @Test
  void whatGowasRequestsCannotHoldIsRefusedAtAcceptNotFailedWhenSent() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.linked("+6281100008521");
      Sends sends = new Sends(f.kurir.gateway().messages(), Duration.ofSeconds(10));
      String replyOnALocation =
          "{\"type\":\"location\",\"location\":{\"latitude\":-6.1,\"longitude\":106.8},"
              + "\"context\":{\"message_id\":\"3EB0BBBB\"}}";
      String twoCards =
          "{\"type\":\"contacts\",\"contacts\":["
              + "{\"name\":{\"formatted_name\":\"Ani\"},\"phones\":[{\"phone\":\"+6281200000001\"}]},"
              + "{\"name\":{\"formatted_name\":\"Budi\"},\"phones\":[{\"phone\":\"+6281200000002\"}]}]}";
      for (String object : List.of(replyOnALocation, twoCards)) {
        MessageContent content = CloudMessageJson.parse(json(object));
        assertThatThrownBy(() -> send(sends, device, "+6281100008529", content))
            .as(object)
            .isInstanceOfSatisfying(
                SendRefused.class,
                e -> {
                  assertThat(e.reason()).isEqualTo(SendRefused.Reason.CAPABILITY_NOT_SUPPORTED);
                  assertThat(e.getMessage())
                      .startsWith("the gowa driver cannot carry this message: GOWA ");
                });
      }
      assertThat(f.kurir.storedMessages(device.id())).isZero();
      assertThat(f.gowa.sent()).isEmpty();
    }
  }
}
