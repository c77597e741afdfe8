package io.kurir.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.WebhookReceiver;
import io.kurir.time.SettableClock;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /metrics} scraped over real HTTP while real messages go through the sandbox: the counters
 * and gauges move as the messages do, and {@code metrics.access} decides who may read them.
 */
class MetricsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String AUTH = "Bearer " + TestGateway.ADMIN_TOKEN;

  /**
   * The gauges counted in the database are counted at each scrape here: with the default (5 s of
   * real time) a test would wait that long for a change to show.
   */
  private static final String COUNT_AT_EACH_SCRAPE = "--metrics.gauges-fresh-for=0s";

  @TempDir Path dir;

  static Scrape scrape(TestGateway kurir) {
    Reply reply = kurir.get("/metrics", "Authorization", AUTH);
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.contentType()).startsWith("text/plain; version=0.0.4");
    return new Scrape(reply.body());
  }

  @Test
  void sendsMoveTheMessageCountersTheQueueGaugesAndTheHttpTimings() {
    try (TestGateway kurir = TestGateway.start(dir, COUNT_AT_EACH_SCRAPE)) {
      Device device = kurir.newDevice(Numbers.fresh(), true);
      Scrape before = scrape(kurir);

      // Offline: accepted, then waiting in the queue, where the gauges see them.
      kurir.sandbox().setDeviceOnline(device.id(), false);
      for (int i = 0; i < 3; i++) {
        assertThat(kurir.sendAsync(device, Numbers.fresh(), "queued " + i).status()).isEqualTo(200);
      }
      Eventually.until(
          "three pending in the gauge",
          () -> scrape(kurir).value("kurir_queue_messages", "state", "pending") == 3);
      Scrape queued = scrape(kurir);
      assertThat(queued.value("kurir_queue_oldest_age_seconds", "state", "pending"))
          .isGreaterThanOrEqualTo(0);
      assertThat(
              queued.value("kurir_messages_total", "driver", "sandbox", "event", "accepted")
                  - before.value("kurir_messages_total", "driver", "sandbox", "event", "accepted"))
          .isEqualTo(3);
      assertThat(
              queued.value(
                  "kurir_http_requests_seconds_count",
                  "family",
                  "eco",
                  "route",
                  "/api/async_send_message",
                  "status",
                  "200"))
          .isEqualTo(3);

      // Online again: sent, delivered, read; the queue empties.
      kurir.sandbox().setDeviceOnline(device.id(), true);
      Eventually.until(
          "three read",
          () ->
              scrape(kurir).value("kurir_messages_total", "driver", "sandbox", "event", "read")
                  == 3);
      Eventually.until(
          "the queue empty in the gauge",
          () -> scrape(kurir).value("kurir_queue_messages", "state", "pending") == 0);
      Scrape after = scrape(kurir);
      assertThat(after.value("kurir_messages_total", "driver", "sandbox", "event", "sent"))
          .isEqualTo(3);
      assertThat(after.value("kurir_messages_total", "driver", "sandbox", "event", "delivered"))
          .isEqualTo(3);
      assertThat(
              after.value(
                  "kurir_send_duration_seconds_count", "driver", "sandbox", "outcome", "sent"))
          .isEqualTo(3);
      assertThat(after.value("kurir_queue_oldest_age_seconds", "state", "pending")).isZero();
      // The writer, the pool and the JVM are there too.
      assertThat(after.value("kurir_db_commit_seconds_count")).isPositive();
      assertThat(after.value("hikaricp_connections_max", "pool", "kurir-db")).isPositive();
      assertThat(after.value("jvm_threads_live_threads")).isPositive();
      // A path that routes nowhere is counted under one label, never under the raw path.
      kurir.get("/api/no-such-thing/" + device.ecoKey());
      assertThat(scrape(kurir).text())
          .doesNotContain(device.ecoKey())
          .contains("route=\"unmatched\"");
    }
  }

  @Test
  void aFailedSendAndWebhookAttemptsAreCounted() throws Exception {
    try (TestGateway kurir =
            TestGateway.start(dir, COUNT_AT_EACH_SCRAPE, "--media.allow-private-addresses=true");
        WebhookReceiver receiver = new WebhookReceiver()) {
      Device device = kurir.newDevice(Numbers.fresh(), true);
      String number = Numbers.fresh();
      setIncomingWebhook(kurir, device, receiver.url("/in"));
      // The sandbox refuses the next send: a failed attempt.
      assertThat(
              kurir
                  .post(
                      "/sandbox/failures",
                      "{\"target\":\"" + number + "\",\"kind\":\"fail\"}",
                      "application/json",
                      "Authorization",
                      AUTH)
                  .status())
          .isEqualTo(200);
      kurir.sendAsync(device, number, "refused");
      Eventually.until(
          "a failed send",
          () ->
              scrape(kurir).value("kurir_messages_total", "driver", "sandbox", "event", "failed")
                  == 1);
      assertThat(
              scrape(kurir)
                  .value(
                      "kurir_send_duration_seconds_count",
                      "driver",
                      "sandbox",
                      "outcome",
                      "failed"))
          .isEqualTo(1);

      // An incoming message to the webhook: its receiver fails once (retried later), then takes
      // the next one.
      receiver.failNext(1);
      kurir.sandbox().injectIncoming(device.id(), Numbers.fresh(), "first");
      Eventually.until(
          "a retry",
          () -> scrape(kurir).value("kurir_webhook_attempts_total", "outcome", "retry") == 1);
      Eventually.until(
          "one waiting in the backlog",
          () -> scrape(kurir).value("kurir_webhook_deliveries", "state", "pending") >= 1);
      assertThat(scrape(kurir).value("kurir_webhook_deliveries", "state", "dead")).isZero();

      // The dashboard in docs/ draws what a gateway serves: every name it uses is scraped.
      String scraped = scrape(kurir).text();
      java.util.regex.Matcher names =
          java.util.regex.Pattern.compile("\\b(?:kurir|hikaricp|jvm|process)_[a-z_]+")
              .matcher(java.nio.file.Files.readString(Path.of("docs/grafana-dashboard.json")));
      int checked = 0;
      while (names.find()) {
        assertThat(scraped)
            .as("the dashboard's " + names.group())
            .containsPattern("(?m)^" + names.group() + "[{ ]");
        checked++;
      }
      assertThat(checked).isGreaterThan(15);
    }
  }

  @Test
  void devicesAreCountedByDriverAndState() {
    try (TestGateway kurir = TestGateway.start(dir, COUNT_AT_EACH_SCRAPE)) {
      kurir.newDevice(Numbers.fresh(), true);
      kurir.newDevice(Numbers.fresh(), true);
      kurir.newDevice(Numbers.fresh(), false);
      Device off = kurir.newDevice(Numbers.fresh(), true);
      kurir.gateway().tenants().setDeviceDisabled(off.id(), true);
      Eventually.until(
          "two online, one not linked and one switched off sandbox devices",
          () -> {
            Scrape s = scrape(kurir);
            return s.value("kurir_devices", "driver", "sandbox", "state", "online") == 2
                && s.value("kurir_devices", "driver", "sandbox", "state", "none") == 1
                && s.value("kurir_devices", "driver", "sandbox", "state", "disabled") == 1;
          });
      // A deleted device is no longer counted.
      kurir.gateway().tenants().deleteDevice(off.id());
      Eventually.until(
          "the deleted device gone from the gauge",
          () -> !scrape(kurir).text().contains("state=\"disabled\""));
    }
  }

  @Test
  void theGaugesCountedInTheDatabaseAreCountedAtMostOncePerTheirFreshness() {
    try (TestGateway kurir = TestGateway.start(dir, "--metrics.gauges-fresh-for=1h")) {
      Device device = kurir.newDevice(Numbers.fresh(), true);
      kurir.sandbox().setDeviceOnline(device.id(), false);
      assertThat(scrape(kurir).value("kurir_queue_messages", "state", "pending")).isZero();
      assertThat(kurir.sendAsync(device, Numbers.fresh(), "waits").status()).isEqualTo(200);
      // Counted, and in the counter at once; the gauge keeps the hour-old count.
      Scrape later = scrape(kurir);
      assertThat(later.value("kurir_messages_total", "driver", "sandbox", "event", "accepted"))
          .isEqualTo(1);
      assertThat(later.value("kurir_queue_messages", "state", "pending")).isZero();
    }
  }

  @Test
  void aScheduleTakenUpLateIsMeasured() {
    SettableClock clock = TestGateway.settableClock(); // 10:00 in the operator zone
    try (TestGateway kurir = TestGateway.start(dir, clock, COUNT_AT_EACH_SCRAPE)) {
      Device device = kurir.newDevice(Numbers.fresh(), true);
      Reply scheduled =
          kurir.postJson(
              "/api/scheduler",
              "{\"key\":\""
                  + device.ecoKey()
                  + "\",\"phone_no\":\""
                  + Numbers.fresh()
                  + "\",\"sch_date\":\"2026-03-10 10:05\",\"api_type\":\"text\","
                  + "\"message\":\"later\"}");
      assertThat(scheduled.body()).matches("\\d+");
      assertThat(scrape(kurir).value("kurir_schedule_lateness_seconds_count")).isZero();
      // The gateway was away: the clock jumps ten minutes past the schedule's time.
      clock.advance(Duration.ofMinutes(15));
      Eventually.until(
          "the schedule taken up",
          () -> scrape(kurir).value("kurir_schedule_lateness_seconds_count") == 1);
      assertThat(scrape(kurir).value("kurir_schedule_lateness_seconds_sum"))
          .isGreaterThanOrEqualTo(600);
    }
  }

  @Test
  void aReceiverDownPastTheRetryWindowLeavesADeadLetter() throws Exception {
    SettableClock clock = TestGateway.settableClock();
    try (TestGateway kurir =
            TestGateway.start(
                dir, clock, COUNT_AT_EACH_SCRAPE, "--media.allow-private-addresses=true");
        WebhookReceiver receiver = new WebhookReceiver()) {
      Device device = kurir.newDevice(Numbers.fresh(), true);
      setIncomingWebhook(kurir, device, receiver.url("/in"));
      receiver.answer(500);
      kurir.sandbox().injectIncoming(device.id(), Numbers.fresh(), "anyone?");
      Eventually.until(
          "a retry",
          () -> scrape(kurir).value("kurir_webhook_attempts_total", "outcome", "retry") == 1);
      clock.advance(Duration.ofHours(25)); // past webhook.retry-for (24h)
      Eventually.until(
          "a dead letter",
          () -> scrape(kurir).value("kurir_webhook_attempts_total", "outcome", "dead") == 1);
      Eventually.until(
          "the dead letter in the gauge",
          () -> scrape(kurir).value("kurir_webhook_deliveries", "state", "dead") == 1);
      Scrape after = scrape(kurir);
      assertThat(after.value("kurir_webhook_deliveries", "state", "pending")).isZero();
      assertThat(after.value("kurir_webhook_oldest_age_seconds", "state", "dead"))
          .isGreaterThanOrEqualTo(Duration.ofHours(25).toSeconds());
      assertThat(after.value("kurir_webhook_attempts_total", "outcome", "delivered")).isZero();
    }
  }

  static void setIncomingWebhook(TestGateway kurir, Device device, String url) {
    String licenseCode = kurir.licenseOf(device).code();
    Reply set =
        kurir.postForm(
            "/v2.0/webhook",
            "license="
                + licenseCode
                + "&no_wa="
                + device.number().substring(1)
                + "&action=set&url="
                + url);
    assertThat(set.body()).contains(url);
  }

  @Test
  void offAnswers404InKurirsStyle() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir, "--metrics.access=off")) {
      Reply reply = kurir.get("/metrics", "Authorization", AUTH);
      assertThat(reply.status()).isEqualTo(404);
      assertThat(JSON.readTree(reply.body()).get("error").asText()).isEqualTo("not_found");
    }
  }

  @Test
  void adminNeedsTheAdminToken() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir, "--metrics.access=admin")) {
      Reply none = kurir.get("/metrics");
      assertThat(none.status()).isEqualTo(401);
      assertThat(JSON.readTree(none.body()).get("error").asText()).isEqualTo("invalid_admin_token");
      assertThat(kurir.get("/metrics", "Authorization", "Bearer wrong-token-0123456789").status())
          .isEqualTo(401);
      assertThat(kurir.get("/metrics", "Authorization", AUTH).body()).contains("kurir_");
    }
  }

  @Test
  void aTakenMetricsPortStopsStartUpNamingTheSetting() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () ->
                  TestGateway.start(
                      dir, "--metrics.access=port", "--metrics.port=" + taken.getLocalPort()))
          .hasMessageContaining("metrics.port: cannot listen on 127.0.0.1:" + taken.getLocalPort())
          .hasMessageContaining("--metrics.port=<n>");
    }
    // Nothing was left behind: a gateway starts on the same folder at once.
    try (TestGateway kurir = TestGateway.start(dir, COUNT_AT_EACH_SCRAPE)) {
      assertThat(kurir.get("/health/ready").status()).isEqualTo(200);
    }
  }

  @Test
  void portServesMetricsOnItsOwnListenerOnly() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    try (TestGateway kurir =
        TestGateway.start(dir, "--metrics.access=port", "--metrics.port=" + port)) {
      assertThat(kurir.gateway().metricsPort()).hasValue(port);
      // Not on the API port, even with the token.
      assertThat(kurir.get("/metrics", "Authorization", AUTH).status()).isEqualTo(404);
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> open =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(open.statusCode()).isEqualTo(200);
      assertThat(open.body()).contains("kurir_queue_messages");
      // Nothing else on that port: the API is not reachable through it.
      HttpResponse<String> api =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/ready"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(api.statusCode()).isEqualTo(404);
    }
  }
}
