package io.kurir.api.v1;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.testing.Eventually;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.TestTables;
import io.kurir.time.SettableClock;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /v1/events} (pull and Server-Sent Events) and {@code /v1/webhooks} end to end: a real
 * gateway on loopback, the sandbox network making the events, a real HTTP client reading the
 * stream, and a receiver on loopback that verifies the Standard Webhooks signature itself.
 */
class V1EventsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  final SettableClock clock = TestGateway.settableClock();
  TestGateway kurir;
  License licenseA;
  Device a1;
  Device a2;
  Device b1;
  String keyA;
  String keyB;
  final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void start() {
    kurir = TestGateway.start(dir, clock, "--media.allow-private-addresses=true");
    a1 = kurir.newDevice("+6281100007001", true);
    licenseA = kurir.licenseOf(a1);
    a2 = kurir.gateway().tenants().createDevice(licenseA.id(), "+6281100007002", "sandbox");
    kurir.sandbox().pair(a2.id(), a2.number());
    b1 = kurir.newDevice("+6281100007101", true);
    keyA = key(licenseA.id(), Set.of(ApiScope.READ, ApiScope.WEBHOOKS));
    keyB = key(kurir.licenseOf(b1).id(), Set.of(ApiScope.READ, ApiScope.WEBHOOKS));
  }

  @AfterEach
  void stop() {
    kurir.close();
    http.close();
  }

  private String key(long license, Set<ApiScope> scopes) {
    return kurir
        .gateway()
        .tenants()
        .apiKeys()
        .create(license, "events", scopes)
        .key()
        .orElseThrow();
  }

  private void incoming(Device d, String text) {
    assertThat(kurir.sandbox().injectIncoming(d.id(), "+6281234567890", text)).isTrue();
  }

  private Reply get(String path, String key) {
    return kurir.get(path, "Authorization", "Bearer " + key);
  }

  private JsonNode pull(String query, String key) throws IOException {
    Reply r = get("/v1/events" + query, key);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  /** Every event the key sees, by the pull API, from the oldest kept. */
  private List<JsonNode> all(String key) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    JsonNode page = pull("?limit=1000", key);
    page.get("data").forEach(out::add);
    return out;
  }

  private static List<String> texts(List<JsonNode> events) {
    return events.stream()
        .filter(e -> e.get("type").asText().equals("message.received"))
        .map(e -> e.at("/data/text/body").asText())
        .toList();
  }

  private static List<Long> sequences(List<JsonNode> events) {
    return events.stream().map(e -> e.get("sequence").asLong()).toList();
  }

  @Test
  void thePullPagesThroughOneIncreasingSequencePerLicense() throws Exception {
    for (int i = 1; i <= 5; i++) {
      incoming(i % 2 == 0 ? a2 : a1, "hello " + i);
    }
    Eventually.until("five events", () -> texts(unchecked(() -> all(keyA))).size() == 5);
    List<JsonNode> everything = all(keyA);
    // The pairing's device states and the messages, numbered 1, 2, 3… without a gap.
    List<Long> seqs = sequences(everything);
    for (int i = 0; i < seqs.size(); i++) {
      assertThat(seqs.get(i)).isEqualTo(i + 1L);
    }
    assertThat(texts(everything))
        .containsExactly("hello 1", "hello 2", "hello 3", "hello 4", "hello 5");
    assertThat(everything)
        .anySatisfy(
            e -> {
              assertThat(e.get("type").asText()).isEqualTo("device.status");
              assertThat(e.at("/data/new_state").asText()).isNotEmpty();
            });

    // Pages of two, each going on from the last one's next_after: the same events, once each.
    List<JsonNode> paged = new ArrayList<>();
    long after = 0;
    while (true) {
      JsonNode page = pull("?after=" + after + "&limit=2", keyA);
      page.get("data").forEach(paged::add);
      assertThat(page.get("data").size()).isLessThanOrEqualTo(2);
      after = page.get("next_after").asLong();
      if (!page.get("has_more").asBoolean()) {
        break;
      }
    }
    assertThat(paged).isEqualTo(everything);
    assertThat(pull("?after=" + after, keyA).get("data")).isEmpty();
    assertThat(pull("?after=" + after, keyA).get("next_after").asLong()).isEqualTo(after);

    assertThat(get("/v1/events?after=x", keyA).status()).isEqualTo(400);
    assertThat(get("/v1/events?limit=0", keyA).status()).isEqualTo(400);
  }

  @Test
  void aLicenseSeesOnlyItsOwnEventsAndADeviceKeyOnlyItsDevice() throws Exception {
    incoming(a1, "to a1");
    incoming(a2, "to a2");
    incoming(b1, "to b1");
    Eventually.until("B's event", () -> texts(unchecked(() -> all(keyB))).size() == 1);
    Eventually.until("A's events", () -> texts(unchecked(() -> all(keyA))).size() == 2);

    assertThat(texts(all(keyB))).containsExactly("to b1");
    assertThat(all(keyB))
        .allSatisfy(e -> assertThat(e.get("device").asText()).isEqualTo(Long.toString(b1.id())));
    assertThat(texts(all(keyA))).containsExactly("to a1", "to a2");

    List<JsonNode> ofA1 = all(a1.ecoKey());
    assertThat(texts(ofA1)).containsExactly("to a1");
    assertThat(ofA1)
        .allSatisfy(e -> assertThat(e.get("device").asText()).isEqualTo(Long.toString(a1.id())));
    // Its numbers are the license's: the other device's are skipped, none is renumbered.
    assertThat(sequences(all(keyA))).containsAll(sequences(ofA1));

    // A key without the read scope is refused; a device key cannot manage subscriptions.
    String sendOnly = key(licenseA.id(), Set.of(ApiScope.SEND));
    assertThat(get("/v1/events", sendOnly).status()).isEqualTo(403);
    assertThat(get("/v1/events", "nobody").status()).isEqualTo(401);
    Reply deviceSubscribes =
        kurir.post(
            "/v1/webhooks",
            "{\"url\":\"http://127.0.0.1:9/x\",\"events\":[\"message.status\"]}",
            "application/json",
            "Authorization",
            "Bearer " + a1.ecoKey());
    assertThat(deviceSubscribes.status()).isEqualTo(403);
    assertThat(JSON.readTree(deviceSubscribes.body()).get("error").asText())
        .isEqualTo("license_key_required");
  }

  /** One open SSE connection, read on its own thread. */
  final class Stream implements AutoCloseable {
    final List<JsonNode> events = new CopyOnWriteArrayList<>();
    final List<String> ids = new CopyOnWriteArrayList<>();
    final AtomicInteger keepAlives = new AtomicInteger();
    final InputStream body;
    final Thread reader;

    Stream(String key, String lastEventId) throws Exception {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(URI.create(kurir.url("/v1/events")))
              .header("Authorization", "Bearer " + key)
              .header("Accept", "text/event-stream");
      if (lastEventId != null) {
        request.header("Last-Event-ID", lastEventId);
      }
      HttpResponse<InputStream> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.headers().firstValue("Content-Type").orElse(""))
          .startsWith("text/event-stream");
      body = response.body();
      reader = Thread.ofVirtual().start(this::read);
    }

    private void read() {
      try (BufferedReader lines =
          new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
        String id = null;
        String line;
        while ((line = lines.readLine()) != null) {
          if (line.startsWith("id: ")) {
            id = line.substring(4);
          } else if (line.startsWith("data: ")) {
            events.add(JSON.readTree(line.substring(6)));
            ids.add(id);
          } else if (line.equals(": keep-alive")) {
            keepAlives.incrementAndGet();
          }
        }
      } catch (IOException closed) {
        // the test dropped the connection
      }
    }

    String lastId() {
      return ids.getLast();
    }

    @Override
    public void close() throws Exception {
      body.close(); // drops the connection
      reader.join(Duration.ofSeconds(20));
    }
  }

  @Test
  void theStreamResumesAfterADroppedConnectionWithNothingMissedOrRepeated() throws Exception {
    String start = Long.toString(pull("", keyA).get("next_after").asLong());
    List<JsonNode> seen = new ArrayList<>();
    try (Stream first = new Stream(keyA, start)) {
      for (int i = 1; i <= 3; i++) {
        incoming(a1, "first " + i);
      }
      Eventually.until("three events streamed", () -> texts(first.events).size() == 3);
      // The id of each frame is its sequence.
      for (int i = 0; i < first.events.size(); i++) {
        assertThat(first.ids.get(i)).isEqualTo(first.events.get(i).get("sequence").asText());
      }
      seen.addAll(first.events);
    }
    // Meanwhile, disconnected: these must come on the resumed stream.
    for (int i = 1; i <= 3; i++) {
      incoming(i == 2 ? a2 : a1, "while away " + i);
    }
    String last = seen.getLast().get("sequence").asText();
    try (Stream second = new Stream(keyA, last)) {
      incoming(a1, "after 1");
      incoming(a2, "after 2");
      Eventually.until("five more streamed", () -> texts(second.events).size() == 5);
      seen.addAll(second.events);

      // Nothing for 15 s of the gateway's clock: a keep-alive comment.
      assertThat(second.keepAlives).hasValue(0);
      clock.advance(Duration.ofSeconds(15));
      Eventually.until("a keep-alive", () -> second.keepAlives.get() >= 1);
    }
    assertThat(texts(seen))
        .containsExactly(
            "first 1",
            "first 2",
            "first 3",
            "while away 1",
            "while away 2",
            "while away 3",
            "after 1",
            "after 2");
    // Exactly what the pull API holds after the start: same events, same order, none twice.
    List<JsonNode> pulled = new ArrayList<>();
    pull("?after=" + start + "&limit=1000", keyA).get("data").forEach(pulled::add);
    List<JsonNode> seenUpToPulled = seen.subList(0, Math.min(seen.size(), pulled.size()));
    assertThat(sequences(seen)).doesNotHaveDuplicates();
    assertThat(sequences(seenUpToPulled))
        .isEqualTo(sequences(pulled).subList(0, seenUpToPulled.size()));
    assertThat(texts(pulled)).isEqualTo(texts(seen));

    // A device key's stream carries its device's events only.
    try (Stream ofA2 = new Stream(a2.ecoKey(), start)) {
      Eventually.until("a2's events", () -> texts(ofA2.events).size() == 2);
      assertThat(texts(ofA2.events)).containsExactly("while away 2", "after 2");
    }
    // Another license's stream, from its start, has none of these.
    try (Stream ofB = new Stream(keyB, "0")) {
      incoming(b1, "to b");
      Eventually.until("b's event", () -> texts(ofB.events).size() == 1);
      assertThat(texts(ofB.events)).containsExactly("to b");
    }
  }

  /** A receiver on loopback that records every request with its headers. */
  static final class Receiver implements AutoCloseable {
    record Got(Map<String, String> headers, String body) {}

    final List<Got> got = new CopyOnWriteArrayList<>();
    final AtomicInteger failuresLeft = new AtomicInteger();
    final HttpServer server;

    Receiver() throws IOException {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.createContext(
          "/",
          exchange -> {
            var h = exchange.getRequestHeaders();
            Map<String, String> headers = new java.util.HashMap<>();
            for (String name :
                List.of("webhook-id", "webhook-timestamp", "webhook-signature", "X-Kurir-Event")) {
              if (h.getFirst(name) != null) {
                headers.put(name, h.getFirst(name));
              }
            }
            got.add(
                new Got(
                    headers,
                    new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
            int status = failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0 ? 503 : 204;
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
          });
      server.start();
    }

    String url() {
      return "http://127.0.0.1:" + server.getAddress().getPort() + "/events";
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  /**
   * The Standard Webhooks verification, written here from the specification rather than taken from
   * Kurir: the secret's part after {@code whsec_} is base64, the signed content is {@code
   * id.timestamp.body}, the header holds space-separated {@code v1,<base64>} signatures.
   */
  static boolean verifies(String secret, Map<String, String> headers, String body)
      throws Exception {
    byte[] key = Base64.getDecoder().decode(secret.substring("whsec_".length()));
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    String content =
        headers.get("webhook-id") + "." + headers.get("webhook-timestamp") + "." + body;
    byte[] expected = mac.doFinal(content.getBytes(StandardCharsets.UTF_8));
    for (String signature : headers.get("webhook-signature").split(" ")) {
      if (signature.startsWith("v1,")
          && MessageDigest.isEqual(expected, Base64.getDecoder().decode(signature.substring(3)))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Waits until the outbox recorded the failed first attempt of the delivery {@code got} was (its
   * claim let go); its delivery id, from {@code webhook-id}.
   */
  private long failedAttemptRecorded(Receiver.Got got) {
    long delivery = Long.parseLong(got.headers().get("webhook-id").substring("msg_".length()));
    Eventually.until(
        "the failed attempt recorded",
        () ->
            TestTables.of(kurir)
                .delivery(delivery)
                .filter(d -> d.attempts() == 1 && d.claimToken().isEmpty())
                .isPresent());
    return delivery;
  }

  private JsonNode subscribe(String url, String events) throws IOException {
    Reply r =
        kurir.post(
            "/v1/webhooks",
            "{\"url\":\"" + url + "\",\"events\":" + events + "}",
            "application/json",
            "Authorization",
            "Bearer " + keyA);
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    return JSON.readTree(r.body());
  }

  @Test
  void aSubscriptionGetsItsEventsOnlySignedAsStandardWebhooks() throws Exception {
    try (Receiver receiver = new Receiver()) {
      JsonNode made = subscribe(receiver.url(), "[\"message.received\"]");
      String secret = made.get("secret").asText();
      assertThat(secret).startsWith("whsec_");
      assertThat(made.get("events").toString()).isEqualTo("[\"message.received\"]");

      // A status change (a send) is not what it asked for; the incoming message is.
      assertThat(kurir.sendAsync(a1, "081234567891", "out").status()).isEqualTo(200);
      incoming(a2, "wanted");
      Eventually.until("the delivery", () -> !receiver.got.isEmpty());
      Eventually.until(
          "the send's statuses are in the log",
          () ->
              unchecked(() -> all(keyA)).stream()
                  .anyMatch(e -> e.get("type").asText().equals("message.status")));
      incoming(a1, "wanted too");
      Eventually.until("the second delivery", () -> receiver.got.size() == 2);

      assertThat(receiver.got).hasSize(2);
      List<JsonNode> log = all(keyA);
      for (Receiver.Got g : receiver.got) {
        assertThat(verifies(secret, g.headers(), g.body())).as(g.toString()).isTrue();
        assertThat(verifies(StandardWebhooksSecrets.other(), g.headers(), g.body())).isFalse();
        assertThat(g.headers()).doesNotContainKey("X-Kurir-Event");
        JsonNode body = JSON.readTree(g.body());
        assertThat(body.get("type").asText()).isEqualTo("message.received");
        // The same event as the pull API shows, byte for byte in content.
        assertThat(log).contains(body);
      }
      assertThat(receiver.got.stream().map(g -> g.headers().get("webhook-id")).distinct())
          .hasSize(2);
      assertThat(
              texts(
                  receiver.got.stream()
                      .map(g -> unchecked(() -> JSON.readTree(g.body())))
                      .toList()))
          .containsExactly("wanted", "wanted too");

      // Listed without its secret; removed, it gets nothing more.
      JsonNode listed = JSON.readTree(get("/v1/webhooks", keyA).body());
      assertThat(listed.get("data")).hasSize(1);
      assertThat(listed.get("data").get(0).has("secret")).isFalse();
      String id = made.get("id").asText();
      Reply removed =
          kurir.send(
              HttpRequest.newBuilder(URI.create(kurir.url("/v1/webhooks/" + id)))
                  .header("Authorization", "Bearer " + keyA)
                  .DELETE()
                  .build());
      assertThat(removed.status()).isEqualTo(204);
      assertThat(JSON.readTree(get("/v1/webhooks", keyA).body()).get("data")).isEmpty();
      Reply again =
          kurir.send(
              HttpRequest.newBuilder(URI.create(kurir.url("/v1/webhooks/" + id)))
                  .header("Authorization", "Bearer " + keyB)
                  .DELETE()
                  .build());
      assertThat(again.status()).isEqualTo(404);
      incoming(a1, "after removal");
      Eventually.until(
          "the event is in the log",
          () -> texts(unchecked(() -> all(keyA))).contains("after removal"));
      assertThat(receiver.got).hasSize(2);
    }
  }

  @Test
  void aRefusedDeliveryIsTriedAgainWithTheSameIdUntilItIsTaken() throws Exception {
    try (Receiver receiver = new Receiver()) {
      String secret = subscribe(receiver.url(), "[\"message.received\"]").get("secret").asText();
      receiver.failuresLeft.set(1);
      incoming(a1, "retried");
      Eventually.until("the first attempt", () -> receiver.got.size() == 1);
      // Its failure recorded (the retry counts from then), the outbox's first backoff, 10-12 s of
      // its clock, is let pass.
      long delivery = failedAttemptRecorded(receiver.got.get(0));
      clock.advance(Duration.ofSeconds(13));
      Eventually.until("the second attempt", () -> receiver.got.size() == 2);
      Receiver.Got first = receiver.got.get(0);
      Receiver.Got second = receiver.got.get(1);
      assertThat(second.headers().get("webhook-id")).isEqualTo(first.headers().get("webhook-id"));
      assertThat(second.body()).isEqualTo(first.body());
      assertThat(verifies(secret, second.headers(), second.body())).isTrue();
      Eventually.until(
          "delivered",
          () -> TestTables.of(kurir).delivery(delivery).orElseThrow().state().equals("delivered"));
      // Taken: nothing more comes, however long.
      clock.advance(Duration.ofMinutes(10));
      incoming(a1, "next");
      Eventually.until("the next event", () -> receiver.got.size() == 3);
      assertThat(
              texts(
                  receiver.got.stream()
                      .map(g -> unchecked(() -> JSON.readTree(g.body())))
                      .toList()))
          .containsExactly("retried", "retried", "next");
    }
  }

  @Test
  void theSeedsStatusWebhookIsUntouchedBesideASubscription() throws Exception {
    try (Receiver seed = new Receiver();
        Receiver moved = new Receiver();
        Receiver subscribed = new Receiver()) {
      Reply registered =
          kurir.postJson(
              "/api/webhook_status",
              "{\"key\":\""
                  + a1.ecoKey()
                  + "\",\"action\":\"add\",\"url\":\""
                  + seed.url()
                  + "\"}");
      assertThat(registered.body()).contains("success");
      String secret = subscribe(subscribed.url(), "[\"device.status\"]").get("secret").asText();
      subscribed.failuresLeft.set(1);

      assertThat(kurir.sandbox().setDeviceOnline(a1.id(), false)).isTrue();
      Eventually.until("the seed's delivery", () -> seed.got.size() == 1);
      Eventually.until("the subscription's first attempt", () -> subscribed.got.size() == 1);
      // The seed's request is the contract's: X-Kurir-* headers, its own payload.
      Receiver.Got old = seed.got.get(0);
      assertThat(old.headers()).containsEntry("X-Kurir-Event", "device.status");
      assertThat(old.headers()).doesNotContainKey("webhook-id");
      JsonNode oldBody = JSON.readTree(old.body());
      assertThat(oldBody.get("event").asText()).isEqualTo("device.status");
      assertThat(oldBody.has("eventId")).isTrue();
      assertThat(oldBody.has("sequence")).isFalse();

      // The seed's URL changes while the subscription's delivery waits for its retry: the change
      // moves the seed's deliveries only.
      failedAttemptRecorded(subscribed.got.get(0));
      kurir.postJson(
          "/api/webhook_status",
          "{\"key\":\""
              + a1.ecoKey()
              + "\",\"action\":\"update\",\"url\":\""
              + moved.url()
              + "\"}");
      clock.advance(Duration.ofSeconds(13));
      Eventually.until("the subscription's retry", () -> subscribed.got.size() == 2);
      Receiver.Got retried = subscribed.got.get(1);
      assertThat(verifies(secret, retried.headers(), retried.body())).isTrue();
      assertThat(JSON.readTree(retried.body()).at("/data/new_state").asText())
          .isEqualTo(oldBody.get("newState").asText());
      assertThat(moved.got).isEmpty();
    }
  }

  @Test
  void theGatewayStopsWithAStreamOpenAndTheStreamEnds() throws Exception {
    Stream open = new Stream(keyA, null);
    incoming(a1, "live");
    Eventually.until("the live event", () -> texts(open.events).size() == 1);
    kurir.stop(); // returns, although the stream's reader never hung up
    open.reader.join(Duration.ofSeconds(20));
    assertThat(open.reader.isAlive()).as("the stream ended").isFalse();
    kurir.startAgain();
  }

  @Test
  void badSubscriptionsAreRefusedWithTheirToken() throws Exception {
    assertThat(error(postWebhook("{\"url\":\"ftp://x\",\"events\":[\"message.status\"]}")))
        .isEqualTo("invalid_url");
    assertThat(error(postWebhook("{\"url\":\"http://127.0.0.1:9/\",\"events\":[\"nope\"]}")))
        .isEqualTo("invalid_events");
    assertThat(error(postWebhook("{\"url\":\"http://127.0.0.1:9/\",\"events\":[]}")))
        .isEqualTo("invalid_events");
    assertThat(error(postWebhook("{\"url\":\"http://127.0.0.1:9/\"}"))).isEqualTo("invalid_events");
    assertThat(error(postWebhook("not json"))).isEqualTo("malformed_json");
  }

  @Test
  void eventsPastTheRetentionAreGoneAndSaidToBe() throws Exception {
    incoming(a1, "old");
    Eventually.until("the event", () -> texts(unchecked(() -> all(keyA))).size() == 1);
    clock.advance(Duration.ofDays(8));
    kurir.restart(); // the log prunes as it starts
    Eventually.until(
        "the old events pruned", () -> get("/v1/events?after=0", keyA).status() == 410);
    assertThat(error(get("/v1/events?after=0", keyA))).isEqualTo("events_expired");
    assertThat(pull("", keyA).get("data")).isEmpty();
    incoming(a1, "new");
    Eventually.until("the new event", () -> texts(unchecked(() -> all(keyA))).size() == 1);
    assertThat(texts(all(keyA))).containsExactly("new");
  }

  private Reply postWebhook(String body) {
    return kurir.post("/v1/webhooks", body, "application/json", "Authorization", "Bearer " + keyA);
  }

  private static String error(Reply r) throws IOException {
    assertThat(r.status()).as(r.body()).isBetween(400, 499);
    return JSON.readTree(r.body()).get("error").asText();
  }

  /** Another secret, to show that a signature does not verify with just any. */
  static final class StandardWebhooksSecrets {
    static String other() {
      return "whsec_" + Base64.getEncoder().encodeToString(new byte[24]);
    }
  }

  interface Call<T> {
    T call() throws Exception;
  }

  static <T> T unchecked(Call<T> call) {
    try {
      return call.call();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
