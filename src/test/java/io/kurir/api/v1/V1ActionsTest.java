package io.kurir.api.v1;

import static io.kurir.testing.V1Client.assertError;
import static io.kurir.testing.V1Client.json;
import static io.kurir.testing.V1Client.textTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.driver.sandbox.SandboxNetwork;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.V1Client;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The actions of Kurir's API besides sending, end to end through the sandbox: revoke ({@code DELETE
 * /v1/messages/{id}}) and the cancel of a queued message, edit ({@code PATCH}), reactions to sent
 * and received messages, read marks and typing in a chat; each seen on the recipient phone, in the
 * message's history and on the event log; the refusals, scopes and tenancy.
 */
class V1ActionsTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  TestGateway kurir;

  @AfterEach
  void stop() {
    if (kurir != null) {
      kurir.close();
    }
  }

  @Test
  void aSentTextIsEditedThenRevokedAsThePhoneAndTheHistoryShow() throws Exception {
    kurir = TestGateway.start(dir);
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.SEND, ApiScope.READ);
    String to = Numbers.fresh();
    String id = sent(key, textTo(to, "See you at 9"));

    JsonNode edited =
        json(patch(key, "/v1/messages/" + id, "{\"text\":{\"body\":\"At 10\"}}"), 200);
    assertThat(edited.get("actions").get(0).get("action").asText()).isEqualTo("edited");
    assertThat(edited.get("actions").get(0).get("text").asText()).isEqualTo("At 10");
    SandboxNetwork.InboxEntry onPhone = kurir.sandbox().inbox(to).getFirst();
    assertThat(onPhone.text()).isEqualTo("At 10");
    assertThat(onPhone.edited()).isTrue();

    JsonNode revoked = json(delete(key, "/v1/messages/" + id), 200);
    assertThat(revoked.get("result").asText()).isEqualTo("revoked");
    assertThat(revoked.get("message").get("actions").findValuesAsText("action"))
        .containsExactly("edited", "revoked");
    onPhone = kurir.sandbox().inbox(to).getFirst();
    assertThat(onPhone.revoked()).isTrue();
    assertThat(onPhone.text()).isNull();
    // The phone's inbox over HTTP shows it too.
    JsonNode inbox =
        JSON.readTree(
            kurir
                .get(
                    "/sandbox/phones/" + to + "/inbox",
                    "Authorization",
                    "Bearer " + TestGateway.ADMIN_TOKEN)
                .body());
    assertThat(inbox.get("messages").get(0).get("revoked").asBoolean()).isTrue();

    JsonNode read = json(get(key, "/v1/messages/" + id), 200);
    assertThat(read.get("actions").findValuesAsText("action")).containsExactly("edited", "revoked");
    // The event log tells both, in order.
    JsonNode events = json(get(key, "/v1/events"), 200).get("data");
    List<String> types = new ArrayList<>();
    events.forEach(e -> types.add(e.get("type").asText()));
    assertThat(types).containsSubsequence("message.edited", "message.revoked");
    JsonNode editEvent = first(events, "message.edited");
    assertThat(editEvent.get("data").get("message_id").asText()).isEqualTo(id);
    assertThat(editEvent.get("data").get("text").asText()).isEqualTo("At 10");

    // Once revoked, neither again nor an edit.
    assertError(delete(key, "/v1/messages/" + id), 409, "message_revoked");
    assertError(
        patch(key, "/v1/messages/" + id, "{\"text\":{\"body\":\"x\"}}"), 409, "message_revoked");
  }

  @Test
  void aQueuedMessageIsCancelledAndOnlyATextIsEdited() throws Exception {
    kurir = TestGateway.start(dir);
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.SEND, ApiScope.READ);
    kurir.sandbox().setDeviceOnline(device.id(), false);
    String to = Numbers.fresh();
    String id = json(post(key, "/v1/messages", textTo(to, "later")), 201).get("id").asText();

    assertError(
        patch(key, "/v1/messages/" + id, "{\"text\":{\"body\":\"x\"}}"), 409, "message_not_sent");
    JsonNode cancelled = json(delete(key, "/v1/messages/" + id), 200);
    assertThat(cancelled.get("result").asText()).isEqualTo("cancelled");
    assertThat(cancelled.get("message").get("status").asText()).isEqualTo("failed");
    assertThat(cancelled.get("message").get("reason").asText()).isEqualTo("cancelled");
    kurir.sandbox().setDeviceOnline(device.id(), true);
    // A failed message is not on the network: nothing to revoke.
    assertError(delete(key, "/v1/messages/" + id), 409, "message_not_sent");

    String location =
        sent(
            key,
            "{\"to\":\""
                + to
                + "\",\"type\":\"location\",\"location\":{\"latitude\":-6.2,\"longitude\":106.8}}");
    assertError(
        patch(key, "/v1/messages/" + location, "{\"text\":{\"body\":\"x\"}}"),
        422,
        "message_not_text");
    assertError(patch(key, "/v1/messages/" + location, "{\"text\":{}}"), 400, "text.body_empty");
    assertThat(kurir.sandbox().inbox(to))
        .extracting(SandboxNetwork.InboxEntry::kind)
        .containsExactly("location");
  }

  @Test
  void anEditPastTheNetworksWindowIsTheNetworksRefusal() throws Exception {
    SettableClock clock = TestGateway.settableClock();
    kurir = TestGateway.start(dir, clock);
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.SEND, ApiScope.READ);
    String id = sent(key, textTo(Numbers.fresh(), "typo"));
    clock.advance(SandboxNetwork.EDIT_WINDOW.plus(Duration.ofMinutes(1)));
    assertError(
        patch(key, "/v1/messages/" + id, "{\"text\":{\"body\":\"fixed\"}}"),
        422,
        "network_refused");
    assertThat(json(get(key, "/v1/messages/" + id), 200).has("actions")).isFalse();
  }

  @Test
  void reactionsGoToSentAndReceivedMessagesAsQueuedMessages() throws Exception {
    kurir = TestGateway.start(dir);
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.SEND, ApiScope.READ);
    String customer = Numbers.fresh();
    String id = sent(key, textTo(customer, "Your parcel is here"));
    String net = json(get(key, "/v1/messages/" + id), 200).get("network_id").asText();

    Reply first =
        post(
            key,
            "/v1/messages/" + id + "/reactions",
            "{\"emoji\":\"👍\"}",
            "Idempotency-Key",
            "r-1");
    JsonNode reaction = json(first, 201);
    assertThat(reaction.get("status").asText()).isEqualTo("pending");
    assertThat(reaction.get("type").asText()).isEqualTo("reaction");
    // The same key answers the same reaction.
    JsonNode again =
        json(
            post(
                key,
                "/v1/messages/" + id + "/reactions",
                "{\"emoji\":\"👍\"}",
                "Idempotency-Key",
                "r-1"),
            201);
    assertThat(again.get("id").asText()).isEqualTo(reaction.get("id").asText());
    Eventually.until(
        "the reaction on the phone",
        () -> kurir.sandbox().inbox(customer).stream().anyMatch(e -> e.kind().equals("reaction")));
    SandboxNetwork.InboxEntry onPhone =
        kurir.sandbox().inbox(customer).stream()
            .filter(e -> e.kind().equals("reaction"))
            .findFirst()
            .orElseThrow();
    assertThat(onPhone.content().get("reaction").get("message_id").asText()).isEqualTo(net);
    assertThat(onPhone.content().get("reaction").get("emoji").asText()).isEqualTo("👍");

    // POST /v1/messages with a reaction names its message by Kurir's id too.
    String byObject =
        json(
                post(
                    key,
                    "/v1/messages",
                    "{\"to\":\""
                        + customer
                        + "\",\"type\":\"reaction\",\"reaction\":{\"message_id\":\""
                        + id
                        + "\",\"emoji\":\"🎉\"}}"),
                201)
            .get("id")
            .asText();
    Eventually.until(
        "the second reaction on the phone",
        () ->
            kurir.sandbox().inbox(customer).stream()
                .anyMatch(
                    e ->
                        Long.toString(e.messageId()).equals(byObject)
                            && e.content().at("/reaction/message_id").asText().equals(net)));

    // A received message is reacted to by its id in GET /v1/messages?direction=in.
    kurir.sandbox().injectIncoming(device.id(), customer, "Thanks!", "SBX-IN-42");
    Eventually.until("received", () -> kurir.storedIncoming(device.id()) == 1);
    String in =
        json(get(key, "/v1/messages?direction=in"), 200).get("data").get(0).get("id").asText();
    json(post(key, "/v1/messages/" + in + "/reactions", "{}"), 201);
    Eventually.until(
        "the removal on the phone",
        () ->
            kurir.sandbox().inbox(customer).stream()
                .anyMatch(
                    e ->
                        e.kind().equals("reaction")
                            && e.content()
                                .get("reaction")
                                .get("message_id")
                                .asText()
                                .equals("SBX-IN-42")
                            && e.content().get("reaction").path("emoji").asText("").isEmpty()));

    assertError(
        post(key, "/v1/messages/" + in + "/reactions", "{\"emoji\":\"too many emoji here\"}"),
        400,
        "reaction_emoji_not_valid");
    assertError(
        post(key, "/v1/messages/999999/reactions", "{\"emoji\":\"👍\"}"), 404, "message_not_found");
    // A message not sent yet has no id on the network to react to.
    kurir.sandbox().setDeviceOnline(device.id(), false);
    String queued =
        json(post(key, "/v1/messages", textTo(customer, "later")), 201).get("id").asText();
    assertError(
        post(key, "/v1/messages/" + queued + "/reactions", "{\"emoji\":\"👍\"}"),
        409,
        "message_not_sent");
  }

  @Test
  void aChatIsMarkedReadAndShowsTyping() throws Exception {
    kurir = TestGateway.start(dir);
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.SEND);
    String customer = Numbers.fresh();
    kurir.sandbox().injectIncoming(device.id(), customer, "Is it in stock?", "SBX-IN-7");
    Eventually.until("received", () -> kurir.storedIncoming(device.id()) == 1);

    JsonNode read = json(post(key, "/v1/chats/" + Numbers.national(customer) + "/read", "{}"), 200);
    assertThat(read.get("success").asBoolean()).isTrue();
    assertThat(read.get("chat").asText()).isEqualTo(customer);
    assertThat(kurir.sandbox().readMarks(customer).get(device.number()).networkId())
        .isEqualTo("SBX-IN-7");

    json(post(key, "/v1/chats/" + customer + "/typing", "{\"state\":\"typing\"}"), 200);
    assertThat(kurir.sandbox().typing(customer)).containsExactly(device.number());
    json(post(key, "/v1/chats/" + customer + "/typing", "{\"state\":\"paused\"}"), 200);
    assertThat(kurir.sandbox().typing(customer)).isEmpty();

    assertError(
        post(key, "/v1/chats/" + customer + "/typing", "{\"state\":\"dancing\"}"),
        400,
        "state_not_valid");
    assertError(post(key, "/v1/chats/not-a-chat/read", "{}"), 400, "invalid_chat");
    assertError(
        post(key, "/v1/chats/" + customer + "/read", "{\"message_id\":\"424242\"}"),
        404,
        "message_not_found");
    // An offline device cannot: the caller is told so, nothing is queued.
    kurir.sandbox().setDeviceOnline(device.id(), false);
    assertError(post(key, "/v1/chats/" + customer + "/typing", "{}"), 503, "device_unavailable");
  }

  @Test
  void keysScopesAndTenancy() throws Exception {
    kurir = TestGateway.start(dir);
    Device mine = kurir.newDevice(Numbers.fresh(), true);
    Device theirs = kurir.newDevice(Numbers.fresh(), true);
    String sender = key(mine, ApiScope.SEND, ApiScope.READ);
    String reader = key(mine, ApiScope.READ);
    String other = key(theirs, ApiScope.SEND, ApiScope.READ);
    String to = Numbers.fresh();
    String id = sent(sender, textTo(to, "mine"));

    assertError(delete(reader, "/v1/messages/" + id), 403, "missing_scope");
    assertError(
        patch(reader, "/v1/messages/" + id, "{\"text\":{\"body\":\"x\"}}"), 403, "missing_scope");
    assertError(
        post(reader, "/v1/messages/" + id + "/reactions", "{\"emoji\":\"👍\"}"),
        403,
        "missing_scope");
    assertError(post(reader, "/v1/chats/" + to + "/read", "{}"), 403, "missing_scope");
    // Another license's key, and another device's Eco key, see no such message.
    assertError(delete(other, "/v1/messages/" + id), 404, "message_not_found");
    assertError(
        patch(other, "/v1/messages/" + id, "{\"text\":{\"body\":\"x\"}}"),
        404,
        "message_not_found");
    assertError(
        post(other, "/v1/messages/" + id + "/reactions", "{\"emoji\":\"👍\"}"),
        404,
        "message_not_found");
    assertError(delete(theirs.ecoKey(), "/v1/messages/" + id), 404, "message_not_found");
    // A device key acts for its device only.
    assertError(
        post(theirs.ecoKey(), "/v1/chats/" + to + "/typing", "{\"device\":\"" + mine.id() + "\"}"),
        403,
        "device_not_allowed");
    assertError(
        post(other, "/v1/chats/" + to + "/typing", "{\"device\":\"" + mine.id() + "\"}"),
        404,
        "device_not_found");
    assertThat(kurir.sandbox().inbox(to).getFirst().revoked()).isFalse();
    // The device's own Eco key may.
    assertThat(json(delete(mine.ecoKey(), "/v1/messages/" + id), 200).get("result").asText())
        .isEqualTo("revoked");
  }

  @Test
  void aDriverWithoutTheActionsIsRefusedNamingItWithNothingAsked() throws Exception {
    io.kurir.testing.ScriptedDriver driver = new io.kurir.testing.ScriptedDriver("scripted", false);
    kurir =
        TestGateway.start(
            dir, java.time.Clock.systemUTC(), new io.kurir.testing.ScriptedDriver.Factory(driver));
    Device device = kurir.newDevice(Numbers.fresh(), "scripted", java.util.Map.of());
    String key = key(device, ApiScope.SEND, ApiScope.READ);
    String to = Numbers.fresh();
    String id = sent(key, textTo(to, "hello"));
    for (Reply r :
        List.of(
            delete(key, "/v1/messages/" + id),
            patch(key, "/v1/messages/" + id, "{\"text\":{\"body\":\"x\"}}"),
            post(key, "/v1/chats/" + to + "/read", "{}"),
            post(key, "/v1/chats/" + to + "/typing", "{}"))) {
      assertError(r, 422, "capability_not_supported");
      assertThat(JSON.readTree(r.body()).get("message").asText()).contains("scripted");
    }
    assertError(
        post(key, "/v1/messages/" + id + "/reactions", "{\"emoji\":\"x\"}"),
        422,
        "kind_not_supported");
    // The Cloud API's door: Meta's 131051, naming the driver.
    Reply door =
        kurir.post(
            "/graph/v23.0/" + device.id() + "/messages",
            "{\"messaging_product\":\"whatsapp\",\"status\":\"read\",\"message_id\":\"1\"}",
            "application/json",
            "Authorization",
            "Bearer " + device.ecoKey());
    assertThat(door.status()).as(door.body()).isEqualTo(400);
    assertThat(JSON.readTree(door.body()).at("/error/code").asInt()).isEqualTo(131051);
    assertThat(JSON.readTree(door.body()).at("/error/error_data/details").asText())
        .contains("scripted");
    assertThat(driver.sends()).hasSize(1); // the text alone
  }

  // --- helpers

  private String key(Device device, ApiScope... scopes) {
    return api().key(device, scopes);
  }

  private V1Client api() {
    return new V1Client(kurir);
  }

  private String sent(String key, String body) throws Exception {
    return api().sent(key, body);
  }

  private static JsonNode first(JsonNode events, String type) {
    for (JsonNode e : events) {
      if (e.get("type").asText().equals(type)) {
        return e;
      }
    }
    throw new AssertionError("no " + type + " in " + events);
  }

  private Reply post(String key, String path, String body, String... headers) {
    return api().post(key, path, body, headers);
  }

  private Reply patch(String key, String path, String body) {
    return api().patch(key, path, body);
  }

  private Reply delete(String key, String path) {
    return api().delete(key, path);
  }

  private Reply get(String key, String path) {
    return api().get(key, path);
  }
}
