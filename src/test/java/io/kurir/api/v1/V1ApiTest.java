package io.kurir.api.v1;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.kurir.driver.sandbox.SandboxNetwork;
import io.kurir.tenant.ApiKey;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestFiles;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kurir API v1 end to end: a real gateway on loopback with the sandbox network, keys made by the
 * Admin API's core, sends of each kind the core carries, their status read back, scopes and
 * tenancy, waits, idempotency, bad input and pagination.
 */
class V1ApiTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  TestGateway kurir;
  HttpServer files;
  String filesUrl;

  @BeforeEach
  void start() throws Exception {
    files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    serve("/promo.png", "image/png", TestFiles.PNG);
    serve("/invoice.pdf", "application/pdf", TestFiles.PDF);
    files.start();
    filesUrl = "http://127.0.0.1:" + files.getAddress().getPort();
    kurir = TestGateway.start(dir, "--media.allow-private-addresses=true");
  }

  @AfterEach
  void stop() {
    kurir.close();
    files.stop(0);
  }

  @Test
  void sendsEachKindAndReadsItsStatusHistoryBack() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.SEND, ApiScope.READ);
    String to = Numbers.fresh();

    JsonNode text =
        send(
            key,
            "{\"to\":\""
                + national(to)
                + "\",\"type\":\"text\","
                + "\"text\":{\"body\":\"Your order has shipped\"}}");
    assertThat(text.get("status").asText()).isEqualTo("pending");
    assertThat(text.get("to").asText()).isEqualTo(to);
    assertThat(text.get("api").asText()).isEqualTo("v1");
    JsonNode image =
        send(
            key,
            "{\"to\":\""
                + to
                + "\",\"type\":\"image\",\"image\":{\"link\":\""
                + filesUrl
                + "/promo.png\",\"caption\":\"New stock\"}}");
    JsonNode document =
        send(
            key,
            "{\"to\":\""
                + to
                + "\",\"type\":\"document\",\"document\":{"
                + "\"link\":\""
                + filesUrl
                + "/invoice.pdf\",\"filename\":\"invoice-1042.pdf\","
                + "\"caption\":\"Your invoice\"}}");

    for (JsonNode sent : List.of(text, image, document)) {
      String id = sent.get("id").asText();
      Eventually.until(
          "message " + id + " sent",
          () -> List.of("sent", "delivery", "read").contains(status(key, id)));
    }
    List<SandboxNetwork.InboxEntry> inbox = kurir.sandbox().inbox(to);
    assertThat(inbox)
        .extracting(SandboxNetwork.InboxEntry::kind)
        .containsExactly("text", "image", "file");
    assertThat(inbox.get(2).mediaName()).isEqualTo("invoice-1042.pdf");
    assertThat(inbox.get(1).text()).isEqualTo("New stock");

    JsonNode read = json(get(key, "/v1/messages/" + text.get("id").asText()), 200);
    assertThat(read.get("text").get("body").asText()).isEqualTo("Your order has shipped");
    assertThat(read.get("network_id").asText()).isNotEmpty();
    assertThat(read.get("statuses").get(0).get("status").asText()).isEqualTo("pending");
    assertThat(read.get("statuses").findValuesAsText("status")).contains("sent");
    assertThat(read.get("statuses").get(0).get("at").asText()).isNotEmpty();
    JsonNode doc = json(get(key, "/v1/messages/" + document.get("id").asText()), 200);
    assertThat(doc.get("type").asText()).isEqualTo("document");
    assertThat(doc.get("document").get("filename").asText()).isEqualTo("invoice-1042.pdf");
    assertThat(doc.get("document").get("caption").asText()).isEqualTo("Your invoice");
  }

  @Test
  void aFailureIsReadBackWithItsReason() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.SEND, ApiScope.READ);
    String absent = Numbers.fresh();
    kurir.sandbox().setRegistered(absent, false);
    JsonNode m = send(key, textTo(absent, "hello"));
    String id = m.get("id").asText();
    Eventually.until("failed", () -> status(key, id).equals("failed"));
    JsonNode read = json(get(key, "/v1/messages/" + id), 200);
    assertThat(read.get("reason").asText()).isEqualTo("number_not_found");
    assertThat(read.get("statuses").findValuesAsText("reason")).contains("number_not_found");
  }

  @Test
  void waitAnswersAfterTheOutcome() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.SEND);
    Reply r = post(key, "/v1/messages?wait=10s", textTo(Numbers.fresh(), "now"));
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    JsonNode m = JSON.readTree(r.body());
    assertThat(m.get("status").asText()).isIn("sent", "delivery", "read");
    assertThat(m.get("network_id").asText()).isNotEmpty();

    String absent = Numbers.fresh();
    kurir.sandbox().setRegistered(absent, false);
    JsonNode failed = json(post(key, "/v1/messages?wait=10s", textTo(absent, "x")), 201);
    assertThat(failed.get("status").asText()).isEqualTo("failed");
    assertThat(failed.get("reason").asText()).isEqualTo("number_not_found");

    assertError(post(key, "/v1/messages?wait=soon", textTo(absent, "x")), 400, "wait_not_valid");
  }

  @Test
  void anIdempotencyKeyAnswersTheFirstMessage() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.SEND);
    String to = Numbers.fresh();
    String body = textTo(to, "once");
    Reply first = post(key, "/v1/messages", body, "Idempotency-Key", "order-1042");
    Reply again = post(key, "/v1/messages", body, "Idempotency-Key", "order-1042");
    assertThat(json(again, 201).get("id").asText()).isEqualTo(json(first, 201).get("id").asText());
    assertThat(kurir.storedMessages(device.id())).isEqualTo(1);
    assertError(
        post(key, "/v1/messages", textTo(to, "other"), "Idempotency-Key", "order-1042"),
        422,
        "idempotency_key_reused");
  }

  @Test
  void keysScopesAndTenancy() throws Exception {
    Device mine = kurir.newDevice(Numbers.fresh(), true);
    Device theirs = kurir.newDevice(Numbers.fresh(), true);
    String reader = key(mine, ApiScope.READ);
    String sender = key(mine, ApiScope.SEND, ApiScope.READ);
    String other = key(theirs, ApiScope.SEND, ApiScope.READ);

    assertError(post(reader, "/v1/messages", textTo(Numbers.fresh(), "x")), 403, "missing_scope");
    assertThat(kurir.storedMessages(mine.id())).isZero();
    String id = send(sender, textTo(Numbers.fresh(), "mine")).get("id").asText();

    // One license cannot reach another's messages or devices.
    assertError(get(other, "/v1/messages/" + id), 404, "message_not_found");
    assertThat(json(get(other, "/v1/messages"), 200).get("data")).isEmpty();
    assertError(get(other, "/v1/devices/" + mine.id()), 404, "device_not_found");
    assertError(
        post(
            other,
            "/v1/messages",
            "{\"device\":\"" + mine.id() + "\"," + textTo(Numbers.fresh(), "x").substring(1)),
        404,
        "device_not_found");

    // A device's Eco key is a bearer token for that device alone.
    assertThat(json(get(mine.ecoKey(), "/v1/messages/" + id), 200).get("id").asText())
        .isEqualTo(id);
    assertError(get(theirs.ecoKey(), "/v1/messages/" + id), 404, "message_not_found");
    JsonNode devices = json(get(mine.ecoKey(), "/v1/devices"), 200).get("data");
    assertThat(devices).hasSize(1);
    assertThat(devices.get(0).get("id").asText()).isEqualTo(Long.toString(mine.id()));
    // What its driver carries: the sandbox carries every kind, replies and groups.
    JsonNode can = json(get(mine.ecoKey(), "/v1/devices/" + mine.id()), 200).get("capabilities");
    assertThat(can.get("kinds")).extracting(JsonNode::asText).contains("location", "text", "video");
    assertThat(can.get("replies").asBoolean()).isTrue();
    assertThat(can.get("groups").asBoolean()).isTrue();
    assertThat(json(post(mine.ecoKey(), "/v1/messages", textTo(Numbers.fresh(), "eco")), 201))
        .isNotNull();

    // Unknown, missing and revoked keys.
    assertError(get("kurir_nobody", "/v1/messages"), 401, "invalid_key");
    Reply none = kurir.get("/v1/messages");
    assertThat(none.status()).isEqualTo(401);
    ApiKey revoked =
        kurir.gateway().tenants().apiKeys().of(mine.licenseId()).stream()
            .filter(k -> k.scopes().equals(Set.of(ApiScope.READ)))
            .findFirst()
            .orElseThrow();
    kurir.gateway().tenants().apiKeys().revoke(mine.licenseId(), revoked.id());
    assertError(get(reader, "/v1/messages"), 401, "invalid_key");
  }

  @Test
  void aLicenseWithSeveralDevicesNamesOne() throws Exception {
    Device first = kurir.newDevice(Numbers.fresh(), true);
    Device second =
        kurir.gateway().tenants().createDevice(first.licenseId(), Numbers.fresh(), "sandbox");
    kurir.sandbox().pair(second.id(), second.number());
    String key = key(first, ApiScope.SEND);
    assertError(post(key, "/v1/messages", textTo(Numbers.fresh(), "x")), 400, "device_empty");
    JsonNode byNumber =
        send(
            key,
            "{\"device\":\""
                + national(second.number())
                + "\","
                + textTo(Numbers.fresh(), "x").substring(1));
    assertThat(byNumber.get("device").asText()).isEqualTo(Long.toString(second.id()));
    JsonNode byId =
        send(
            key, "{\"device\":\"" + first.id() + "\"," + textTo(Numbers.fresh(), "x").substring(1));
    assertThat(byId.get("device").asText()).isEqualTo(Long.toString(first.id()));
    // A device's key names only its own device.
    assertError(
        post(
            first.ecoKey(),
            "/v1/messages",
            "{\"device\":\"" + second.id() + "\"," + textTo(Numbers.fresh(), "x").substring(1)),
        403,
        "device_not_allowed");
  }

  @Test
  void sendsToAGroupById() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.SEND, ApiScope.READ);
    String member = Numbers.fresh();
    String groupId = device.number().substring(1) + "-1607654321";
    kurir.sandbox().createGroup(groupId, "Team", List.of(device.number(), member));
    JsonNode m =
        send(
            key,
            "{\"to\":\""
                + groupId
                + "\",\"recipient_type\":\"group\",\"type\":\"text\","
                + "\"text\":{\"body\":\"Meeting at 10\"}}");
    assertThat(m.get("group").asBoolean()).isTrue();
    String id = m.get("id").asText();
    Eventually.until(
        "sent", () -> !status(key, id).equals("pending") && !status(key, id).equals("sending"));
    assertThat(status(key, id)).isIn("sent", "delivery", "read");
    assertError(
        post(
            key,
            "/v1/messages",
            "{\"to\":\"nope\",\"recipient_type\":\"group\",\"type\":\"text\",\"text\":{\"body\":\"x\"}}"),
        400,
        "to_not_valid");
  }

  @Test
  void badInputIsAClearJsonRefusal() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.SEND);
    String to = Numbers.fresh();
    assertError(
        post(key, "/v1/messages", "{\"type\":\"text\",\"text\":{\"body\":\"x\"}}"),
        400,
        "to_empty");
    assertError(
        post(key, "/v1/messages", "{\"to\":\"" + to + "\",\"text\":{\"body\":\"x\"}}"),
        400,
        "type_empty");
    assertError(
        post(key, "/v1/messages", "{\"to\":\"" + to + "\",\"type\":\"fax\"}"),
        400,
        "type_not_valid");
    Reply location =
        post(key, "/v1/messages", "{\"to\":\"" + to + "\",\"type\":\"location\",\"location\":{}}");
    assertThat(location.status()).isEqualTo(400);
    assertThat(JSON.readTree(location.body()).get("error").asText()).startsWith("location");
    assertError(
        post(key, "/v1/messages", "{\"to\":\"12ab\",\"type\":\"text\",\"text\":{\"body\":\"x\"}}"),
        400,
        "to_not_valid");
    assertError(
        post(key, "/v1/messages", "{\"to\":\"" + to + "\",\"type\":\"text\"}"),
        400,
        "text.body_empty");
    assertError(
        post(key, "/v1/messages", "{\"to\":\"" + to + "\",\"type\":\"image\",\"image\":{}}"),
        400,
        "image.link_empty");
    assertError(post(key, "/v1/messages", "{\"to\":"), 400, "malformed_json");
    assertThat(kurir.storedMessages(device.id())).isZero();
  }

  @Test
  void aLocationAndAReplyToItGoThroughTheSandboxAndReadBack() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.SEND, ApiScope.READ);
    String to = Numbers.fresh();
    JsonNode location =
        send(
            key,
            "{\"to\":\""
                + to
                + "\",\"type\":\"location\",\"location\":{\"latitude\":-6.1754,"
                + "\"longitude\":106.8272,\"name\":\"Monas\",\"address\":\"Jakarta\"}}");
    assertThat(location.get("status").asText()).isEqualTo("pending");
    String id = location.get("id").asText();
    Eventually.until(
        "the location delivered", () -> List.of("delivery", "read").contains(status(key, id)));
    JsonNode read = json(get(key, "/v1/messages/" + id), 200);
    assertThat(read.get("type").asText()).isEqualTo("location");
    assertThat(read.get("location").get("name").asText()).isEqualTo("Monas");
    assertThat(read.get("statuses").findValuesAsText("status")).contains("pending", "sent");

    JsonNode reply =
        send(
            key,
            "{\"to\":\""
                + to
                + "\",\"type\":\"text\",\"text\":{\"body\":\"See you there\"},"
                + "\"context\":{\"message_id\":\""
                + id
                + "\"}}");
    String replyId = reply.get("id").asText();
    Eventually.until(
        "the reply sent", () -> List.of("sent", "delivery", "read").contains(status(key, replyId)));
    SandboxNetwork.InboxEntry shown =
        kurir.sandbox().inbox(to).stream()
            .filter(e -> e.kind().equals("location"))
            .findFirst()
            .orElseThrow();
    assertThat(shown.text()).isEqualTo("Monas");
  }

  @Test
  void pagesFollowTheCursorAndFilter() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device, ApiScope.SEND, ApiScope.READ);
    List<String> sent = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      sent.add(send(key, textTo(Numbers.fresh(), "m" + i)).get("id").asText());
    }
    List<String> seen = new ArrayList<>();
    String path = "/v1/messages?limit=2&device=" + device.id();
    int pages = 0;
    while (path != null) {
      JsonNode page = json(get(key, path), 200);
      page.get("data").forEach(m -> seen.add(m.get("id").asText()));
      pages++;
      path =
          page.has("next_cursor")
              ? "/v1/messages?limit=2&cursor=" + page.get("next_cursor").asText()
              : null;
    }
    assertThat(pages).isEqualTo(3);
    assertThat(seen).containsExactlyElementsOf(sent.reversed());
    assertThat(new HashSet<>(seen)).hasSize(5);

    Eventually.until(
        "all out", () -> sent.stream().noneMatch(id -> status(key, id).equals("pending")));
    assertThat(json(get(key, "/v1/messages?status=pending"), 200).get("data")).isEmpty();
    assertThat(json(get(key, "/v1/messages?from=2100-01-01T00:00:00Z"), 200).get("data")).isEmpty();
    assertError(get(key, "/v1/messages?status=lost"), 400, "invalid_status");
    assertError(get(key, "/v1/messages?cursor=%21%21"), 400, "invalid_cursor");
    assertError(get(key, "/v1/messages?limit=0"), 400, "invalid_limit");
    assertError(get(key, "/v1/messages/abc"), 404, "message_not_found");
  }

  // --- helpers

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

  /** {@code +62812…} as customers write it: {@code 0812…}. */
  private static String national(String e164) {
    return Numbers.national(e164);
  }

  private JsonNode send(String key, String body) throws Exception {
    return json(post(key, "/v1/messages", body), 201);
  }

  private String status(String key, String id) {
    try {
      return json(get(key, "/v1/messages/" + id), 200).get("status").asText();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private Reply post(String key, String path, String body, String... headers) {
    List<String> h = new ArrayList<>(List.of("Authorization", "Bearer " + key));
    h.addAll(List.of(headers));
    return kurir.post(path, body, "application/json", h.toArray(String[]::new));
  }

  private Reply get(String key, String path) {
    return kurir.send(
        HttpRequest.newBuilder(URI.create(kurir.url(path)))
            .header("Authorization", "Bearer " + key)
            .GET()
            .build());
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

  private void serve(String path, String type, byte[] bytes) {
    files.createContext(
        path,
        ex -> {
          ex.getResponseHeaders().add("Content-Type", type);
          ex.sendResponseHeaders(200, bytes.length);
          ex.getResponseBody().write(bytes);
          ex.close();
        });
  }
}
