package io.kurir.driver.waha;

import static io.kurir.testing.V1Client.assertError;
import static io.kurir.testing.V1Client.json;
import static io.kurir.testing.V1Client.textTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeWaha;
import io.kurir.testing.V1Client;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The actions of Kurir's API on a WAHA device, against the fake engine: revoke and edit of a sent
 * text by its serialised id in its chat, a chat marked seen up to a received message, typing on and
 * off; an action on a message the engine does not have is the engine's refusal, and a session that
 * is not WORKING cannot act.
 */
class WahaActionsTest {
  @TempDir Path dir;

  @Test
  void revokeEditReadAndTypingGoToWahasRoutes() throws Exception {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = f.paired("+6281100008801");
      String session = "kurir-" + device.id();
      V1Client api = new V1Client(f.kurir);
      String key = api.key(device, ApiScope.SEND, ApiScope.READ);
      String to = "+6281100008809";
      String chat = "6281100008809@c.us";
      String id = api.sent(key, textTo(to, "See you at 9"));
      String net = json(api.get(key, "/v1/messages/" + id), 200).get("network_id").asText();

      json(api.patch(key, "/v1/messages/" + id, "{\"text\":{\"body\":\"At 10\"}}"), 200);
      assertThat(json(api.delete(key, "/v1/messages/" + id), 200).get("result").asText())
          .isEqualTo("revoked");
      List<FakeWaha.Action> done = f.waha.actions();
      assertThat(done).extracting(FakeWaha.Action::method).containsExactly("PUT", "DELETE");
      assertThat(done.get(0).path())
          .isEqualTo("/api/" + session + "/chats/" + chat + "/messages/" + net);
      assertThat(done.get(0).body().path("text").asText()).isEqualTo("At 10");
      assertThat(done.get(1).path()).isEqualTo(done.get(0).path());

      // A received message marks the chat seen up to it; typing on and off.
      assertThat(f.waha.incoming(session, "IN1", "6281100008809", "ok")).isEqualTo(200);
      Eventually.until("received", () -> f.storedIncoming(device) == 1);
      String in =
          json(api.get(key, "/v1/messages?direction=in"), 200)
              .get("data")
              .get(0)
              .get("id")
              .asText();
      json(api.post(key, "/v1/chats/" + to + "/read", "{\"message_id\":\"" + in + "\"}"), 200);
      json(api.post(key, "/v1/chats/" + to + "/typing", "{\"state\":\"typing\"}"), 200);
      json(api.post(key, "/v1/chats/" + to + "/typing", "{\"state\":\"paused\"}"), 200);
      done = f.waha.actions();
      assertThat(done.subList(2, 5))
          .extracting(FakeWaha.Action::path)
          .containsExactly("/api/sendSeen", "/api/startTyping", "/api/stopTyping");
      JsonNode seen = done.get(2).body();
      assertThat(seen.path("session").asText()).isEqualTo(session);
      assertThat(seen.path("chatId").asText()).isEqualTo(chat);
      assertThat(seen.path("messageIds").get(0).asText()).isEqualTo("false_" + chat + "_IN1");
      assertThat(done.get(3).body().path("chatId").asText()).isEqualTo(chat);
      assertThat(f.waha.violations()).isEmpty();
    }
  }

  @Test
  void anUnknownMessageIsTheEnginesRefusalAndAStoppedSessionCannotAct() throws Exception {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = f.paired("+6281100008811");
      V1Client api = new V1Client(f.kurir);
      String key = api.key(device, ApiScope.SEND, ApiScope.READ);
      String to = "+6281100008819";
      String id = api.sent(key, textTo(to, "hello"));
      // The engine lost the message (a restart of a WEBJS session, say): its 500, in its words.
      f.waha.forgetSentMessages();
      assertError(api.delete(key, "/v1/messages/" + id), 422, "network_refused");
      assertThat(json(api.get(key, "/v1/messages/" + id), 200).has("actions")).isFalse();

      // A session the engine stopped without Kurir knowing yet: 422 from the engine.
      f.waha.silently("kurir-" + device.id(), "STOPPED");
      assertError(api.post(key, "/v1/chats/" + to + "/typing", "{}"), 503, "device_unavailable");
      assertThat(f.waha.actions()).isEmpty();
    }
  }
}
