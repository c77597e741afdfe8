package io.kurir.driver.gowa;

import static io.kurir.testing.V1Client.assertError;
import static io.kurir.testing.V1Client.json;
import static io.kurir.testing.V1Client.textTo;
import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGowa;
import io.kurir.testing.V1Client;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The actions of Kurir's API on a GOWA device, against the fake server: revoke and edit of a sent
 * text by its id with the chat's JID, a chat marked read by a received message, typing on and off;
 * a chat with nothing received cannot be marked (GOWA marks by message), and a slot that is not
 * logged in cannot act.
 */
class GowaActionsTest {
  @TempDir Path dir;

  @Test
  void revokeEditReadAndTypingGoToGowasRoutes() throws Exception {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.linked("+6281100008701");
      String slot = GowaFixture.slot(device);
      V1Client api = new V1Client(f.kurir);
      String key = api.key(device, ApiScope.SEND, ApiScope.READ);
      String to = "+6281100008709";
      String jid = "6281100008709@s.whatsapp.net";
      String id = api.sent(key, textTo(to, "See you at 9"));
      String net = json(api.get(key, "/v1/messages/" + id), 200).get("network_id").asText();

      json(api.patch(key, "/v1/messages/" + id, "{\"text\":{\"body\":\"At 10\"}}"), 200);
      json(api.delete(key, "/v1/messages/" + id), 200);
      // Nothing received in the chat yet: GOWA marks read by a message, so there is nothing to do.
      assertError(api.post(key, "/v1/chats/" + to + "/read", "{}"), 422, "network_refused");
      assertThat(f.gowa.incoming(slot, "3EB0IN01", "6281100008709", "ok")).isEqualTo(200);
      Eventually.until("received", () -> f.inbound(device).size() == 1);
      json(api.post(key, "/v1/chats/" + to + "/read", "{}"), 200);
      json(api.post(key, "/v1/chats/" + to + "/typing", "{\"state\":\"typing\"}"), 200);
      json(api.post(key, "/v1/chats/" + to + "/typing", "{\"state\":\"paused\"}"), 200);

      List<FakeGowa.Action> done = f.gowa.actions();
      assertThat(done)
          .extracting(FakeGowa.Action::path)
          .containsExactly(
              "/message/" + net + "/update",
              "/message/" + net + "/revoke",
              "/message/3EB0IN01/read",
              "/send/chat-presence",
              "/send/chat-presence");
      assertThat(done).extracting(FakeGowa.Action::slot).containsOnly(slot);
      assertThat(done).allMatch(a -> a.body().path("phone").asText().equals(jid));
      assertThat(done.get(0).body().path("message").asText()).isEqualTo("At 10");
      assertThat(done.get(3).body().path("action").asText()).isEqualTo("start");
      assertThat(done.get(4).body().path("action").asText()).isEqualTo("stop");
      assertThat(f.gowa.violations()).isEmpty();
    }
  }

  @Test
  void aSlotNotLoggedInCannotAct() throws Exception {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device device = f.linked("+6281100008711");
      V1Client api = new V1Client(f.kurir);
      String key = api.key(device, ApiScope.SEND, ApiScope.READ);
      String id = api.sent(key, textTo("+6281100008719", "hello"));
      // The connection dropped without Kurir knowing yet: GOWA's 401.
      f.gowa.connectionLost(GowaFixture.slot(device));
      assertError(api.delete(key, "/v1/messages/" + id), 503, "device_unavailable");
      assertThat(json(api.get(key, "/v1/messages/" + id), 200).has("actions")).isFalse();
      assertThat(f.gowa.actions()).isEmpty();
    }
  }
}
