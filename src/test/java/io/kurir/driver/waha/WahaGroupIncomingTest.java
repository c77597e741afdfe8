package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeWaha;
import io.kurir.testing.WebhookReceiver;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A message written in a group the linked number is in: stored with its group, pushed to the
 * incoming webhook with the contract's five fields and {@code group_id}; no auto-reply answers it
 * unless {@code bots.answer-in-groups}, and then the reply goes into the group. A direct message
 * keeps exactly the five fields.
 */
class WahaGroupIncomingTest {
  static final String GROUP = "120363025982934543@g.us";
  static final String MEMBER = "6281100008602";

  @TempDir Path dir;
  WebhookReceiver receiver;

  @BeforeEach
  void start() {
    receiver = new WebhookReceiver();
  }

  @AfterEach
  void stop() {
    receiver.close();
  }

  /** A linked device of a license answering {@code harga}, whose incoming URL is the receiver. */
  private Device linked(WahaFixture f, String digits) {
    Device device = f.newDevice("+" + digits, Map.of());
    String name = "kurir-" + device.id();
    f.awaitSession(name, "SCAN_QR_CODE");
    f.waha.scan(name, digits);
    Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));
    f.addBot("harga", "Mulai 10rb");
    String set =
        f.kurir
            .postForm(
                "/v2.0/webhook",
                "license="
                    + f.license.code()
                    + "&no_wa="
                    + digits
                    + "&action=set&url="
                    + receiver.url("/in"))
            .body();
    assertThat(set).contains(receiver.url("/in"));
    return device;
  }

  private JsonNode incomingEvent(int n) throws Exception {
    Eventually.until("webhook " + n, () -> receiver.received().size() >= n);
    return receiver.received().get(n - 1).json();
  }

  private static List<FakeWaha.Sent> replies(WahaFixture f) {
    return f.waha.sent().stream()
        .filter(s -> s.body().path("text").asText().equals("Mulai 10rb"))
        .toList();
  }

  @Test
  void aGroupMessageIsStoredAndPushedWithItsGroupButNotAnswered() throws Exception {
    try (WahaFixture f = new WahaFixture(dir, "--media.allow-private-addresses=true")) {
      Device device = linked(f, "6281100008601");
      String name = "kurir-" + device.id();

      assertThat(f.waha.incomingInGroup(name, "G1", GROUP, MEMBER, "harga")).isEqualTo(200);
      JsonNode group = incomingEvent(1);
      assertThat(group.path("contact_name").asText()).isEqualTo(MEMBER);
      assertThat(group.path("keyword").asText())
          .as("reported though not answered")
          .isEqualTo("harga");
      assertThat(group.path("group_id").asText()).isEqualTo(GROUP);
      assertThat(group.size()).as("the contract's five fields and group_id").isEqualTo(6);
      assertThat(f.inbound(device).stream().map(r -> r.groupId().orElse(null)))
          .containsExactly(GROUP);

      // A direct message of the same member is answered, and its event has the five fields only.
      assertThat(f.waha.incoming(name, "D1", MEMBER, "harga")).isEqualTo(200);
      JsonNode direct = incomingEvent(2);
      assertThat(direct.has("group_id")).isFalse();
      assertThat(direct.size()).isEqualTo(5);
      Eventually.until("the direct message answered", () -> replies(f).size() == 1);
      assertThat(replies(f).getFirst().body().path("chatId").asText()).isEqualTo(MEMBER + "@c.us");
      assertThat(f.storedIncoming(device)).isEqualTo(2);
      assertThat(replies(f)).as("the group message got none").hasSize(1);
    }
  }

  @Test
  void withTheSettingOnTheAutoReplyAnswersIntoTheGroup() throws Exception {
    try (WahaFixture f =
        new WahaFixture(
            dir, "--media.allow-private-addresses=true", "--bots.answer-in-groups=true")) {
      Device device = linked(f, "6281100008611");
      String name = "kurir-" + device.id();
      // The session is in the group it hears from (GOWS refuses a send to one it is not in).
      f.waha.group(GROUP, "Toko Maju", "6281100008611", MEMBER.replaceAll("\\D", ""));

      assertThat(f.waha.incomingInGroup(name, "G2", GROUP, MEMBER, "harga")).isEqualTo(200);
      assertThat(incomingEvent(1).path("group_id").asText()).isEqualTo(GROUP);
      Eventually.until("answered", () -> replies(f).size() == 1);
      assertThat(replies(f).getFirst().body().path("chatId").asText())
          .as("into the group, not to the member")
          .isEqualTo(GROUP);
    }
  }
}
