package io.kurir.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.kurir.store.Database;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestTables;
import io.kurir.time.SettableClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /api/webhook_status} and the outbox behind it, against a recording receiver on loopback:
 * signed, in order, retried with backoff, stopped by a 4xx, dead after the retry period.
 */
class DeviceStatusWebhookTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One request the receiver got. */
  record Received(Map<String, String> headers, String body) {}

  @TempDir Path dir;
  SettableClock clock = TestGateway.settableClock();
  TestGateway kurir;
  Device device;
  HttpServer receiver;
  final List<Received> received = new CopyOnWriteArrayList<>();
  final AtomicInteger answer = new AtomicInteger(200);
  String url;

  @BeforeEach
  void start() throws IOException {
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/hook",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          received.add(
              new Received(
                  Map.of(
                      "event-id", exchange.getRequestHeaders().getFirst("X-Kurir-Event-Id"),
                      "timestamp", exchange.getRequestHeaders().getFirst("X-Kurir-Timestamp"),
                      "signature", exchange.getRequestHeaders().getFirst("X-Kurir-Signature"),
                      "type", exchange.getRequestHeaders().getFirst("Content-Type")),
                  body));
          exchange.sendResponseHeaders(answer.get(), -1);
          exchange.close();
        });
    receiver.start();
    url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
    kurir = TestGateway.start(dir, clock, "--media.allow-private-addresses=true");
    device = kurir.newDevice("+6281100008001", false);
  }

  @AfterEach
  void stop() {
    kurir.close();
    receiver.stop(0);
  }

  private JsonNode webhookStatus(String action, String hookUrl) throws Exception {
    String urlField = hookUrl == null ? "" : ",\"url\":\"" + hookUrl + "\"";
    return JSON.readTree(
        kurir
            .postJson(
                "/api/webhook_status",
                "{\"key\":\""
                    + device.ecoKey()
                    + "\",\"action\":\""
                    + action
                    + "\""
                    + urlField
                    + "}")
            .body());
  }

  /** Whether a failed attempt of the delivery is recorded: counted, and its claim let go. */
  private boolean failedAttemptRecorded(String eventId) {
    try (Database db = Database.open(kurir.settings().database())) {
      return TestTables.of(db)
          .delivery(Long.parseLong(eventId))
          .filter(d -> d.attempts() >= 1 && d.claimToken().isEmpty())
          .isPresent();
    }
  }

  private String state(String eventId) {
    try (Database db = Database.open(kurir.settings().database())) {
      return TestTables.of(db).delivery(Long.parseLong(eventId)).orElseThrow().state();
    }
  }

  @Test
  void registersShowsAndRemovesTheUrl() throws Exception {
    JsonNode added = webhookStatus("add", url);
    assertThat(added.get("status").asText()).isEqualTo("success");
    assertThat(added.get("url").asText()).isEqualTo(url);
    assertThat(added.get("accountNo").asText()).isEqualTo("6281100008001");
    assertThat(webhookStatus("status", null).get("url").asText()).isEqualTo(url);
    assertThat(webhookStatus("update", url + "2").get("url").asText()).isEqualTo(url + "2");
    assertThat(webhookStatus("delete", null).get("url").asText()).isEmpty();
    assertThat(webhookStatus("add", "ftp://nope").get("status").asText()).isEqualTo("failed");
    assertThat(webhookStatus("explode", url).get("status").asText()).isEqualTo("failed");
  }

  @Test
  void aStateChangeIsDeliveredSignedAndRetriedInOrder() throws Exception {
    webhookStatus("add", url);
    kurir.sandbox().pair(device.id(), device.number());

    Eventually.until("the first event arrives", () -> received.size() == 1);
    Received first = received.getFirst();
    JsonNode event = JSON.readTree(first.body());
    assertThat(event.get("event").asText()).isEqualTo("device.status");
    assertThat(event.get("oldState").asText()).isEqualTo("none");
    assertThat(event.get("newState").asText()).isEqualTo("online");
    assertThat(event.get("number").asText()).isEqualTo("6281100008001");
    assertThat(first.headers().get("type")).startsWith("application/json");
    String secret = kurir.licenseOf(device).webhookSecret();
    assertThat(first.headers().get("signature"))
        .isEqualTo(
            "sha256=" + WebhookOutbox.sign(secret, first.headers().get("timestamp"), first.body()));
    Eventually.until(
        "recorded delivered", () -> state(first.headers().get("event-id")).equals("delivered"));

    answer.set(503); // the receiver is down for a while
    kurir.sandbox().setDeviceOnline(device.id(), false);
    kurir.sandbox().setDeviceOnline(device.id(), true);
    Eventually.until("the first attempt failed", () -> received.size() == 2);
    // Its retry time is taken from the clock when the failure is recorded: moved only after.
    Eventually.until(
        "the failure recorded",
        () -> failedAttemptRecorded(received.get(1).headers().get("event-id")));
    assertThat(received).hasSize(2); // the next event waits behind the failing one

    answer.set(200);
    clock.advance(Duration.ofSeconds(13)); // past the first backoff (10 s + up to 20 %)
    Eventually.until("retried, then the next one", () -> received.size() == 4);
    assertThat(received.get(2).headers().get("event-id"))
        .isEqualTo(received.get(1).headers().get("event-id"));
    assertThat(JSON.readTree(received.get(2).body()).get("newState").asText()).isEqualTo("offline");
    assertThat(JSON.readTree(received.get(3).body()).get("newState").asText()).isEqualTo("online");
  }

  @Test
  void aClientErrorStopsRetriesAndTheRetryPeriodEndsInDead() throws Exception {
    webhookStatus("add", url);
    answer.set(404);
    kurir.sandbox().pair(device.id(), device.number());
    Eventually.until("tried once", () -> received.size() == 1);
    String refused = received.getFirst().headers().get("event-id");
    Eventually.until("failed for good", () -> state(refused).equals("failed"));

    answer.set(500);
    kurir.sandbox().setDeviceOnline(device.id(), false);
    Eventually.until("tried", () -> received.size() == 2);
    String failing = received.get(1).headers().get("event-id");
    clock.advance(Duration.ofHours(25));
    Eventually.until("dead after 24 h", () -> state(failing).equals("dead"));
  }

  @Test
  void operatorsListFailedDeliveriesAndReplayThem() throws Exception {
    String[] auth = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};
    webhookStatus("add", url);
    answer.set(410);
    kurir.sandbox().pair(device.id(), device.number());
    Eventually.until("tried once", () -> received.size() == 1);
    String id = received.getFirst().headers().get("event-id");
    Eventually.until("failed", () -> state(id).equals("failed"));

    JsonNode failed = JSON.readTree(kurir.get("/admin/webhooks?state=failed", auth).body());
    assertThat(failed).extracting(d -> d.get("id").asText()).contains(id);
    assertThat(failed.get(0).get("lastError").asText()).isEqualTo("HTTP 410");
    assertThat(failed.get(0).get("createdAt").asText())
        .as("the operator zone (Asia/Jakarta) and format, as in every admin reply")
        .isEqualTo("2026-03-10 10:00:00");
    assertThat(failed.get(0).get("finishedAt").asText()).isEqualTo("2026-03-10 10:00:00");

    answer.set(200);
    assertThat(kurir.post("/admin/webhooks/" + id + "/replay", "", null, auth).status())
        .isEqualTo(200);
    Eventually.until("delivered on replay", () -> state(id).equals("delivered"));
    assertThat(received).hasSize(2);
    JsonNode delivered = JSON.readTree(kurir.get("/admin/webhooks?state=delivered", auth).body());
    assertThat(delivered.get(0).get("finishedAt").asText()).isEqualTo("2026-03-10 10:00:00");
    assertThat(kurir.post("/admin/webhooks/" + id + "/replay", "", null, auth).status())
        .as("only failed or dead deliveries are replayed")
        .isEqualTo(404);
    assertThat(kurir.get("/admin/webhooks?state=lost", auth).status()).isEqualTo(400);
  }

  @Test
  void aRotatedSecretKeepsSigningUntilTheOverlapEnds() throws Exception {
    String[] auth = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};
    webhookStatus("add", url);
    String old = kurir.licenseOf(device).webhookSecret();
    JsonNode rotated =
        JSON.readTree(
            kurir
                .post(
                    "/admin/licenses/" + device.licenseId() + "/rotate-webhook-secret",
                    "",
                    null,
                    auth)
                .body());
    String fresh = rotated.get("webhookSecret").asText();
    assertThat(fresh).isNotEqualTo(old).hasSize(32);

    kurir.sandbox().pair(device.id(), device.number());
    Eventually.until("delivered", () -> received.size() == 1);
    Received during = received.getFirst();
    String ts = during.headers().get("timestamp");
    assertThat(during.headers().get("signature"))
        .isEqualTo(
            "sha256="
                + WebhookOutbox.sign(fresh, ts, during.body())
                + ", sha256="
                + WebhookOutbox.sign(old, ts, during.body()));

    clock.advance(Duration.ofHours(25));
    kurir.sandbox().setDeviceOnline(device.id(), false);
    Eventually.until("delivered", () -> received.size() == 2);
    Received after = received.get(1);
    assertThat(after.headers().get("signature"))
        .isEqualTo(
            "sha256=" + WebhookOutbox.sign(fresh, after.headers().get("timestamp"), after.body()));
  }
}
