package io.kurir.driver.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestTables;
import io.kurir.testing.WebhookReceiver;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Users Meta names by a business-scoped user id (BSUID) with no phone number: their messages are
 * kept, pushed to the incoming webhook and auto-replied, and a send to a BSUID goes to them with
 * {@code recipient}; when Meta gives the phone beside the BSUID, the device learns it.
 */
class CloudBsuidTest {
  @TempDir Path dir;

  static final String BSUID = "US.13491208655302741918";

  @Test
  void aSenderKnownOnlyByABsuidIsKeptPushedAndAnswered() {
    try (WebhookReceiver receiver = new WebhookReceiver();
        CloudFixture f = new CloudFixture(dir)) {
      Device device = CloudWebhookTest.deviceWithBotAndWebhook(f, receiver);
      assertThat(
              f.graph.postWebhook(
                  f.graph.bsuidTextMessage(BSUID, null, "wamid.B1", "Bob", "@bob", "harga")))
          .isEqualTo(200);

      Eventually.until("the auto-reply went out", () -> f.graph.sentTo(BSUID).size() == 1);
      var reply = f.graph.sentTo(BSUID).getFirst().body();
      assertThat(reply.path("recipient").asText()).isEqualTo(BSUID);
      assertThat(reply.has("to")).isFalse();
      assertThat(reply.path("text").path("body").asText()).isEqualTo("Mulai 10rb");

      Eventually.until("pushed", () -> !receiver.ofEvent("message.incoming").isEmpty());
      assertThat(receiver.ofEvent("message.incoming").getFirst().json().path("message").asText())
          .isEqualTo("harga");
      assertThat(sendersOf(f, device)).containsExactly(BSUID);
    }
  }

  @Test
  void aPhoneGivenBesideTheBsuidIsLearnedForLaterMessages() {
    try (WebhookReceiver receiver = new WebhookReceiver();
        CloudFixture f = new CloudFixture(dir)) {
      Device device = CloudWebhookTest.deviceWithBotAndWebhook(f, receiver);
      String phone = Numbers.fresh().substring(1);
      String bsuid = "ID.8817264512";
      assertThat(
              f.graph.postWebhook(
                  f.graph.bsuidTextMessage(bsuid, phone, "wamid.P1", "Ani", "@ani", "halo")))
          .isEqualTo(200);
      // Later Meta no longer shares the phone: the message is still told as from it.
      assertThat(
              f.graph.postWebhook(
                  f.graph.bsuidTextMessage(bsuid, null, "wamid.P2", "Ani", "@ani", "lagi")))
          .isEqualTo(200);
      assertThat(sendersOf(f, device)).containsExactly("+" + phone, "+" + phone);
    }
  }

  private static List<String> sendersOf(CloudFixture f, Device device) {
    return TestTables.of(f.kurir).inboundOf(device.id()).stream()
        .map(TestTables.InboundRow::sender)
        .toList();
  }
}
