package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.SendOutcome;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.ScriptedDriver;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestTables;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many sync sends on one online device: a caller whose send could not go out before its timeout is
 * told {@code device_busy} (429, Retry-After), never {@code phone_offline}, and what it was told
 * was not sent never goes out.
 */
class DeviceBusyTest {
  @TempDir Path dir;

  private static final HttpClient http = HttpClient.newHttpClient();

  private static HttpResponse<String> syncSend(TestGateway kurir, Device d, String to)
      throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(kurir.url("/api/send_message")))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(ecoText(d, to)))
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  @Test
  void aBurstOfSyncSendsOnAPacedOnlineDeviceAnswersSuccessOrDeviceBusyNeverPhoneOffline()
      throws Exception {
    int burst = 16;
    try (TestGateway kurir = TestGateway.start(dir, "--send.sync-timeout=2s");
        ExecutorService callers = Executors.newFixedThreadPool(burst)) {
      Device device =
          kurir.newDevice(
              "+6281100007901",
              "sandbox",
              Map.of("pacing.min-gap", "500ms", "pacing.jitter", "0ms"));
      kurir.sandbox().pair(device.id(), device.number());
      List<String> to = new ArrayList<>();
      List<Future<HttpResponse<String>>> replies = new ArrayList<>();
      for (int i = 0; i < burst; i++) {
        String number = Numbers.fresh();
        to.add(number);
        replies.add(callers.submit(() -> syncSend(kurir, device, number)));
      }
      List<String> sent = new ArrayList<>();
      List<String> refused = new ArrayList<>();
      for (int i = 0; i < burst; i++) {
        HttpResponse<String> r = replies.get(i).get();
        if (r.statusCode() == 429) {
          assertThat(r.body()).isEqualTo("device_busy");
          assertThat(r.headers().firstValue("Retry-After"))
              .hasValueSatisfying(s -> assertThat(Long.parseLong(s)).isBetween(1L, 14L));
          refused.add(to.get(i));
        } else {
          assertThat(r.body()).as("reply %d of the burst", i).isEqualTo("success");
          sent.add(to.get(i));
        }
      }
      assertThat(sent).as("some fit in the timeout").isNotEmpty();
      assertThat(refused).as("2 s at 500 ms a send cannot hold %d", burst).isNotEmpty();

      // The queue drains; a refused send never arrives, a sent one arrives once.
      Eventually.until(
          "the device's queue is empty", () -> kurir.gateway().messages().queued(device.id()) == 0);
      // A refused send is either not stored or stored failed, which is final: none can go later.
      long unfinished =
          TestTables.of(kurir).messagesOf(device.id()).stream()
              .filter(m -> !m.state().equals("failed"))
              .count();
      assertThat(unfinished).as("only the sent ones are not failed").isEqualTo(sent.size());
      for (String number : sent) {
        Eventually.until(number + " received", () -> !kurir.sandbox().inbox(number).isEmpty());
        assertThat(kurir.sandbox().inbox(number)).as(number).hasSize(1);
      }
      for (String number : refused) {
        assertThat(kurir.sandbox().inbox(number)).as(number).isEmpty();
      }

      // An offline device still answers phone_offline, at once.
      kurir.sandbox().setDeviceOnline(device.id(), false);
      Eventually.until(
          "the device is seen offline", () -> !kurir.gateway().messages().isConnected(device));
      HttpResponse<String> offline = syncSend(kurir, device, Numbers.fresh());
      assertThat(offline.statusCode()).isEqualTo(200);
      assertThat(offline.body()).isEqualTo("phone_offline");
    }
  }

  @Test
  void aSyncSendStillWaitingWhenADriverSlowerThanTheEstimateRunsOutIsDeviceBusyAndNeverSent() {
    try (TestGateway kurir = startScripted()) {
      Device device = kurir.newDevice("+6281100007902", "scripted", Map.of());
      Messages messages = kurir.gateway().messages();
      // The driver takes far longer than the 100 ms a send is counted for.
      Message first = holdFirstSend(messages, device);

      Message second = messages.accept(device, syncText(Numbers.fresh())).getFirst();
      SendResult result =
          messages.awaitFirstOutcome(second, Instant.now().plusSeconds(1), Instant.now());

      assertThat(result).as("online, busy: not phone_offline").isEqualTo(SendResult.DEVICE_BUSY);
      driver.release();
      Eventually.until(
          "the first went out",
          () -> messages.find(device, first.id()).orElseThrow().state().wentOut());
      Eventually.until("the sender is idle", () -> messages.senderIdle(device.id()));
      assertThat(driver.sentIds()).containsExactly(first.id());
      Message withdrawn = messages.find(device, second.id()).orElseThrow();
      assertThat(withdrawn.state()).isEqualTo(MessageState.FAILED);
      assertThat(withdrawn.reason()).contains(FailureReason.TIMEOUT);
    }
  }

  @Test
  void theLatePathAnswersDeviceBusyOverHttpToo() throws Exception {
    try (TestGateway kurir = startScripted()) {
      Device device = kurir.newDevice("+6281100007903", "scripted", Map.of());
      holdFirstSend(kurir.gateway().messages(), device);

      HttpResponse<String> reply = syncSend(kurir, device, Numbers.fresh());
      driver.release();

      assertThat(reply.statusCode()).as(reply.body()).isEqualTo(429);
      assertThat(reply.body()).isEqualTo("device_busy");
      assertThat(reply.headers().firstValue("Retry-After")).isPresent();
      Eventually.until(
          "the sender is idle", () -> kurir.gateway().messages().senderIdle(device.id()));
      assertThat(driver.sends()).hasSize(1);
    }
  }

  @Test
  void aSeveralNumberSendWhoseFirstNumberWentOutAnswersTheFailureStringNotAnHttpError() {
    try (TestGateway kurir = startScripted()) {
      Device device = kurir.newDevice("+6281100007905", "scripted", Map.of());
      String first = Numbers.fresh();
      String second = Numbers.fresh();
      // The first send takes longer than the 1 s wait (and than the 100 ms it is counted for), so
      // the second is still waiting its turn when the wait ends: it returns once the wait's end
      // withdrew the second (an event, not a 1.5 s sleep racing the 1 s wait and its 3 s grace).
      driver.then(
          first,
          m -> {
            Eventually.until(
                "the wait ended and withdrew the second",
                () ->
                    TestTables.of(kurir).messagesOf(device.id()).stream()
                            .filter(row -> row.state().equals("failed"))
                            .count()
                        == 1);
            return SendOutcome.Sent.of(ScriptedDriver.networkIdOf(m.id()), Instant.now());
          });

      TestGateway.Reply reply =
          kurir.postJson(
              "/api/send_message",
              ecoText(device, Numbers.national(first) + "," + Numbers.national(second)));

      assertThat(reply.status()).isEqualTo(200);
      assertThat(reply.body()).as("the first went out: not hidden").isEqualTo("Other error");
      Eventually.until(
          "the sender is idle", () -> kurir.gateway().messages().senderIdle(device.id()));
      assertThat(driver.sends()).extracting(c -> c.message().recipient()).containsExactly(first);
    }
  }

  @Test
  void everyFamilyThatSendsSyncRefusesABusyOnlineDeviceInItsOwnStyleAndSendsNothing() {
    try (TestGateway kurir = startScripted()) {
      Device device =
          kurir.newDevice(
              "+6281100007904",
              "scripted",
              Map.of("pacing.min-gap", "500ms", "pacing.jitter", "0ms"));
      Messages messages = kurir.gateway().messages();
      holdFirstSend(messages, device);
      // Two sync sends wait behind it: with this one, 3 × 500 ms is past the 1 s timeout.
      messages.accept(device, syncText(Numbers.fresh()));
      messages.accept(device, syncText(Numbers.fresh()));
      String to = Numbers.fresh();
      String license = kurir.licenseOf(device).code();

      TestGateway.Reply eco = kurir.postJson("/api/send_message", ecoText(device, to));
      TestGateway.Reply crm =
          kurir.postJson(
              "/send/message-text",
              "{\"deviceId\":\""
                  + device.crmDeviceId()
                  + "\",\"number\":\""
                  + to
                  + "\",\"message\":\"x\"}");
      TestGateway.Reply account =
          kurir.postForm(
              "/v2.0/send-message",
              "license=" + license + "&wa_number=" + to + "&text=x&mode=sync");
      driver.release();

      assertThat(List.of(eco.status(), crm.status(), account.status())).containsOnly(429);
      assertThat(eco.body()).isEqualTo("device_busy");
      assertThat(crm.body()).isEqualTo("{\"status\":false,\"message\":\"device_busy\"}");
      assertThat(account.body()).isEqualTo("{\"status\":\"failed\",\"message\":\"device_busy\"}");
      Eventually.until("the sender is idle", () -> messages.senderIdle(device.id()));
      assertThat(driver.sends()).as("the three accepted, none refused").hasSize(3);
      assertThat(driver.sends()).noneMatch(c -> c.message().recipient().equals(to));
    }
  }

  private static String ecoText(Device d, String to) {
    return "{\"key\":\"" + d.ecoKey() + "\",\"phone_no\":\"" + to + "\",\"message\":\"x\"}";
  }

  private final ScriptedDriver driver = new ScriptedDriver("scripted", false, Clock.systemUTC());

  /** A gateway with the scripted driver, whose sync callers wait 1 s. */
  private TestGateway startScripted() {
    return TestGateway.start(
        dir, Clock.systemUTC(), new ScriptedDriver.Factory(driver), "--send.sync-timeout=1s");
  }

  /** A sync send the driver holds until {@link ScriptedDriver#release}. */
  private Message holdFirstSend(Messages messages, Device device) {
    driver.holdSends();
    Message first = messages.accept(device, syncText(Numbers.fresh())).getFirst();
    Eventually.until("the first send is in the driver", () -> driver.sends().size() == 1);
    return first;
  }

  private static SendRequest syncText(String to) {
    return new SendRequest(
        List.of(Recipient.number(to)), "text", "hi", "test", true, false, Duration.ZERO);
  }
}
