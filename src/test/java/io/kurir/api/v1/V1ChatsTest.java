package io.kurir.api.v1;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.driver.IncomingMessage;
import io.kurir.driver.sandbox.SandboxNetwork;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestFiles;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.time.SettableClock;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Conversations end to end (issue 29, item 4): messages of several kinds received through the
 * sandbox and sent through {@code POST /v1/messages}, read back as chats and as a chat's messages,
 * page by page; a LID sender whose phone is learned later; what one key reaches; a received file
 * downloaded, and gone (410) once the retention sweep released it.
 */
class V1ChatsTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  SettableClock clock;
  TestGateway kurir;

  @BeforeEach
  void start() {
    clock = TestGateway.settableClock();
    kurir = TestGateway.start(dir, clock);
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  @Test
  void chatsAndTheirMessagesInAndOutNewestFirst() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.SEND, ApiScope.READ);
    String ani = Numbers.fresh();
    String budi = Numbers.fresh();

    incoming(
        device,
        "{\"from\":\""
            + ani
            + "\",\"name\":\"Ani\",\"type\":\"text\","
            + "\"text\":{\"body\":\"Is the shop open?\"}}");
    incoming(
        device,
        "{\"from\":\""
            + ani
            + "\",\"type\":\"location\",\"location\":{"
            + "\"latitude\":-6.2,\"longitude\":106.8,\"name\":\"Monas\"}}");
    incoming(
        device,
        "{\"from\":\""
            + ani
            + "\",\"type\":\"image\",\"image\":{"
            + "\"link\":\"https://example.com/shelf.png\",\"caption\":\"This one\"}}");
    String reply = send(key, textTo(ani, "Yes, until 9")).get("id").asText();
    Eventually.until("the reply sent", () -> kurir.networkIdOf(Long.parseLong(reply)).isPresent());
    incoming(device, "{\"from\":\"" + budi + "\",\"type\":\"text\",\"text\":{\"body\":\"Hello\"}}");
    incoming(
        device,
        "{\"from\":\""
            + ani
            + "\",\"type\":\"reaction\",\"reaction\":{"
            + "\"message_id\":\""
            + kurir.networkIdOf(Long.parseLong(reply)).orElseThrow()
            + "\",\"emoji\":\"👍\"}}");
    Eventually.until("five messages stored", () -> kurir.storedIncoming(device.id()) == 5);

    JsonNode chats = json(get(key, "/v1/chats"), 200).get("data");
    assertThat(chats).hasSize(2);
    JsonNode first = chats.get(0);
    assertThat(first.get("chat").asText()).isEqualTo(ani);
    assertThat(first.get("name").asText()).isEqualTo("Ani");
    assertThat(first.get("group").asBoolean()).isFalse();
    assertThat(first.get("unread").asInt()).as("only what came after the reply").isEqualTo(1);
    assertThat(first.get("last_message").get("direction").asText()).isEqualTo("in");
    assertThat(first.get("last_message").get("type").asText()).isEqualTo("reaction");
    assertThat(first.get("last_message").get("preview").asText()).isEqualTo("👍");
    assertThat(chats.get(1).get("chat").asText()).isEqualTo(budi);
    assertThat(chats.get(1).get("unread").asInt()).isEqualTo(1);
    assertThat(chats.get(1).has("name")).isFalse();

    JsonNode messages = json(get(key, "/v1/chats/" + enc(ani) + "/messages"), 200).get("data");
    assertThat(messages.findValuesAsText("type"))
        .containsExactly("reaction", "text", "image", "location", "text");
    assertThat(messages.findValuesAsText("direction"))
        .containsExactly("in", "out", "in", "in", "in");
    assertThat(messages.get(1).get("id").asText()).isEqualTo(reply);
    assertThat(messages.get(1).get("status").asText()).isNotEmpty();
    assertThat(messages.get(1).get("text").get("body").asText()).isEqualTo("Yes, until 9");
    assertThat(messages.get(3).get("location").get("name").asText()).isEqualTo("Monas");
    assertThat(messages.get(3).get("location").get("latitude").asDouble()).isEqualTo(-6.2);
    assertThat(messages.get(2).get("image").get("caption").asText()).isEqualTo("This one");
    assertThat(messages.get(4).get("from_name").asText()).isEqualTo("Ani");
    // The number as customers write it names the same chat.
    assertThat(json(get(key, "/v1/chats/" + Numbers.national(ani) + "/messages"), 200).get("data"))
        .hasSize(5);
    // An incoming message's id is one GET /v1/messages/{id} answers too.
    String inId = messages.get(0).get("id").asText();
    assertThat(json(get(key, "/v1/messages/" + inId), 200).get("direction").asText())
        .isEqualTo("in");

    assertError(get(key, "/v1/chats/" + Numbers.fresh() + "/messages"), 404, "chat_not_found");
    assertError(get(key, "/v1/chats?cursor=nonsense"), 400, "invalid_cursor");
    assertError(get(key, "/v1/chats?limit=0"), 400, "invalid_limit");
  }

  @Test
  void pagesFollowTheCursor() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.SEND, ApiScope.READ);
    List<String> numbers = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      String n = Numbers.fresh();
      numbers.add(n);
      incoming(device, "{\"from\":\"" + n + "\",\"message\":\"hi " + i + "\"}");
    }
    String chat = numbers.get(0);
    for (int i = 0; i < 4; i++) {
      send(key, textTo(chat, "answer " + i));
    }
    Eventually.until("five received", () -> kurir.storedIncoming(device.id()) == 5);

    List<String> seen = new ArrayList<>();
    String cursor = null;
    do {
      JsonNode page =
          json(get(key, "/v1/chats?limit=2" + (cursor == null ? "" : "&cursor=" + cursor)), 200);
      assertThat(page.get("data").size()).isBetween(1, 2);
      page.get("data").forEach(c -> seen.add(c.get("chat").asText()));
      cursor = page.hasNonNull("next_cursor") ? page.get("next_cursor").asText() : null;
    } while (cursor != null);
    // The chat answered last is the newest; the others newest first, each once.
    assertThat(seen)
        .containsExactly(chat, numbers.get(4), numbers.get(3), numbers.get(2), numbers.get(1));

    List<String> texts = new ArrayList<>();
    cursor = null;
    do {
      JsonNode page =
          json(
              get(
                  key,
                  "/v1/chats/"
                      + enc(chat)
                      + "/messages?limit=2"
                      + (cursor == null ? "" : "&cursor=" + cursor)),
              200);
      page.get("data").forEach(m -> texts.add(m.get("text").get("body").asText()));
      cursor = page.hasNonNull("next_cursor") ? page.get("next_cursor").asText() : null;
    } while (cursor != null);
    assertThat(texts).containsExactly("answer 3", "answer 2", "answer 1", "answer 0", "hi 0");
  }

  @Test
  void aLidSenderJoinsItsPhonesChatOnceThePhoneIsKnown() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.READ);
    String phone = Numbers.fresh();
    String lid = SandboxNetwork.lidOf(phone).address();
    incoming(device, "{\"from\":\"" + phone + "\",\"message\":\"who am I\",\"as\":\"lid\"}");
    Eventually.until("stored", () -> kurir.storedIncoming(device.id()) == 1);
    JsonNode before = json(get(key, "/v1/chats"), 200).get("data");
    assertThat(before).hasSize(1);
    assertThat(before.get(0).get("chat").asText()).isEqualTo(lid);

    incoming(
        device,
        "{\"from\":\"" + phone + "\",\"message\":\"it is me\",\"as\":\"lid\",\"reveal\":true}");
    Eventually.until("stored", () -> kurir.storedIncoming(device.id()) == 2);
    JsonNode after = json(get(key, "/v1/chats"), 200).get("data");
    assertThat(after).hasSize(1);
    assertThat(after.get(0).get("chat").asText()).isEqualTo(phone);
    assertThat(after.get(0).get("unread").asInt()).isEqualTo(2);
    // Named by the LID, the chat is the phone's now.
    JsonNode byLid = json(get(key, "/v1/chats/" + enc(lid) + "/messages"), 200);
    assertThat(byLid.get("chat").asText()).isEqualTo(phone);
    assertThat(byLid.get("data").findValuesAsText("body")).containsExactly("it is me", "who am I");
  }

  @Test
  void aKeyReachesItsOwnDevicesChatsAndMediaOnly() throws Exception {
    Device mine = kurir.newDevice(Numbers.fresh(), true);
    Device second =
        kurir.gateway().tenants().createDevice(mine.licenseId(), Numbers.fresh(), "sandbox");
    kurir.sandbox().pair(second.id(), second.number());
    Device theirs = kurir.newDevice(Numbers.fresh(), true);
    String customer = Numbers.fresh();
    incoming(mine, "{\"from\":\"" + customer + "\",\"message\":\"to mine\"}");
    incoming(second, "{\"from\":\"" + customer + "\",\"message\":\"to second\"}");
    long file = receiveImage(mine, customer);
    Eventually.until("stored", () -> kurir.storedIncoming(mine.id()) == 2);

    String license = key(mine, ApiScope.READ);
    String other = key(theirs, ApiScope.READ);
    assertError(get(license, "/v1/chats"), 400, "device_empty");
    assertThat(json(get(license, "/v1/chats?device=" + mine.id()), 200).get("data")).hasSize(1);
    assertThat(
            json(get(license, "/v1/chats?device=" + enc(second.number())), 200)
                .get("data")
                .get(0)
                .get("last_message")
                .get("preview")
                .asText())
        .isEqualTo("to second");
    assertError(get(other, "/v1/chats?device=" + mine.id()), 404, "device_not_found");
    assertError(
        get(other, "/v1/chats/" + enc(customer) + "/messages?device=" + mine.id()),
        404,
        "device_not_found");
    assertError(get(other, "/v1/media/" + file), 404, "media_not_found");
    assertError(get(theirs.ecoKey(), "/v1/media/" + file), 404, "media_not_found");
    // A device's key sees its device only.
    JsonNode own = json(get(second.ecoKey(), "/v1/chats"), 200).get("data");
    assertThat(own).hasSize(1);
    assertThat(own.get(0).get("device").asText()).isEqualTo(Long.toString(second.id()));
    assertError(get(second.ecoKey(), "/v1/chats?device=" + mine.id()), 403, "device_not_allowed");
    assertThat(get(mine.ecoKey(), "/v1/media/" + file).status()).isEqualTo(200);
    // No read scope, no chats.
    String sendOnly = key(mine, ApiScope.SEND);
    assertError(get(sendOnly, "/v1/chats?device=" + mine.id()), 403, "missing_scope");
  }

  @Test
  void aReceivedFileIsDownloadedUntilTheRetentionSweepReleasesIt() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.READ);
    String customer = Numbers.fresh();
    long id = receiveImage(device, customer);
    incoming(device, "{\"from\":\"" + customer + "\",\"message\":\"and a text\"}");
    Eventually.until("stored", () -> kurir.storedIncoming(device.id()) == 2);

    JsonNode message =
        json(get(key, "/v1/chats/" + enc(customer) + "/messages"), 200).get("data").get(1);
    assertThat(message.get("type").asText()).isEqualTo("image");
    assertThat(message.get("image").get("id").asText()).isEqualTo(Long.toString(id));
    assertThat(message.get("image").get("mime_type").asText()).isEqualTo("image/png");
    assertThat(message.get("media_link").asText()).isEqualTo("/v1/media/" + id);
    Reply file = getBytes(key, "/v1/media/" + id);
    assertThat(file.status()).isEqualTo(200);
    assertThat(file.contentType()).startsWith("image/png");

    String text =
        json(get(key, "/v1/chats/" + enc(customer) + "/messages"), 200)
            .get("data")
            .get(0)
            .get("id")
            .asText();
    assertError(get(key, "/v1/media/" + text), 404, "media_not_found");
    assertError(get(key, "/v1/media/12345"), 404, "media_not_found");
    assertError(get(key, "/v1/media/not-an-id"), 404, "media_not_found");

    clock.advance(Duration.ofDays(31)); // past media.keep-for's 30 days
    kurir.gateway().mediaSweep().sweepOnce();
    assertError(get(key, "/v1/media/" + id), 410, "media_expired");
  }

  @Test
  void aGroupIsOneChatWithEachMessagesSender() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.SEND, ApiScope.READ);
    String member = Numbers.fresh();
    String groupId = device.number().substring(1) + "-1607654321";
    kurir.sandbox().createGroup(groupId, "Team", List.of(device.number(), member));
    send(
        key,
        "{\"to\":\""
            + groupId
            + "\",\"recipient_type\":\"group\",\"type\":\"text\",\"text\":{\"body\":\"Meeting at 10\"}}");
    kurir
        .sandbox()
        .injectIncoming(
            new IncomingMessage(
                device.id(),
                Optional.of("GRP-" + device.id()),
                member,
                Optional.of(groupId),
                "I will be there",
                Optional.empty(),
                clock.instant()));
    Eventually.until("stored", () -> kurir.storedIncoming(device.id()) == 1);

    JsonNode chats = json(get(key, "/v1/chats"), 200).get("data");
    assertThat(chats).hasSize(1);
    assertThat(chats.get(0).get("chat").asText()).isEqualTo(groupId);
    assertThat(chats.get(0).get("group").asBoolean()).isTrue();
    assertThat(chats.get(0).get("last_message").get("from").asText()).isEqualTo(member);
    JsonNode messages = json(get(key, "/v1/chats/" + groupId + "/messages"), 200).get("data");
    assertThat(messages.findValuesAsText("direction")).containsExactly("in", "out");
    assertThat(messages.get(0).get("from").asText()).isEqualTo(member);
    assertThat(messages.get(0).get("group_id").asText()).isEqualTo(groupId);
  }

  // --- helpers

  /** An image received from {@code from} with its file kept, as a network's driver keeps one. */
  private long receiveImage(Device device, String from) throws Exception {
    int before = kurir.storedIncoming(device.id());
    Path file =
        dir.resolve("data").resolve("media").resolve("in-" + device.id() + "-" + before + ".png");
    Files.createDirectories(file.getParent());
    Files.write(file, TestFiles.PNG);
    kurir
        .sandbox()
        .injectIncoming(
            new IncomingMessage(
                device.id(),
                Optional.of("IMG-" + device.id() + "-" + before),
                from,
                Optional.empty(),
                "",
                Optional.of(new IncomingMessage.Media("image", "image/png", file)),
                clock.instant()));
    Eventually.until("the image stored", () -> kurir.storedIncoming(device.id()) == before + 1);
    JsonNode page =
        json(
            get(
                key(device, ApiScope.READ),
                "/v1/chats/" + enc(from) + "/messages?device=" + device.id()),
            200);
    return page.get("data").get(0).get("id").asLong();
  }

  private void incoming(Device device, String json) {
    Reply r =
        kurir.post(
            "/sandbox/devices/" + device.id() + "/incoming",
            json,
            "application/json",
            "Authorization",
            "Bearer " + TestGateway.ADMIN_TOKEN);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
  }

  private String key(Device device, ApiScope... scopes) {
    return kurir
        .gateway()
        .tenants()
        .apiKeys()
        .create(device.licenseId(), "test", Set.of(scopes))
        .key()
        .orElseThrow();
  }

  private static String textTo(String to, String body) {
    return "{\"to\":\"" + to + "\",\"type\":\"text\",\"text\":{\"body\":\"" + body + "\"}}";
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private JsonNode send(String key, String body) throws Exception {
    return json(
        kurir.post("/v1/messages", body, "application/json", "Authorization", "Bearer " + key),
        201);
  }

  private Reply get(String key, String path) {
    return kurir.send(
        HttpRequest.newBuilder(URI.create(kurir.url(path)))
            .header("Authorization", "Bearer " + key)
            .GET()
            .build());
  }

  private Reply getBytes(String key, String path) {
    return get(key, path);
  }

  private static JsonNode json(Reply r, int status) throws Exception {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    return JSON.readTree(r.body());
  }

  private static void assertError(Reply r, int status, String token) throws Exception {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.get("error").asText()).as(r.body()).isEqualTo(token);
    assertThat(body.get("message").asText()).isNotEmpty();
  }
}
