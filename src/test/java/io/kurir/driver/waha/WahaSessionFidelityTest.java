package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.TestGateway;
import io.kurir.testing.WebhookReceiver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's sessions and files as WAHA really keeps them: received files deleted after {@code
 * WHATSAPP_FILES_LIFETIME}, the mandatory API key, FAILED sessions brought back on a back-off, and
 * the passkey states shown to the operator.
 */
class WahaSessionFidelityTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private static List<String> events(WahaFixture f, Device device) {
    return f.events(device);
  }

  private static boolean hasEvent(WahaFixture f, Device device, String containing) {
    return events(f, device).stream().anyMatch(e -> e.contains(containing));
  }

  /**
   * Waits until Kurir has heard how restart {@code n} ended: FAILED again, recorded in the device's
   * history after that restart's step. Only then may the test move the clock to the next step: the
   * restart's STOPPED, STARTING and FAILED come by webhook, and a step that falls due while the
   * session is between STOPPED and FAILED is not taken (the session is not FAILED then) and waits a
   * whole back-off from the moved clock.
   */
  private static void awaitRestartFailed(WahaFixture f, Device device, int n) {
    Eventually.until(
        "restart " + n + " came back FAILED",
        () -> {
          List<String> all = events(f, device);
          int step = -1;
          for (int i = 0; i < all.size(); i++) {
            if (all.get(i).contains("restart " + n + " of " + FailedSessions.RESTARTS)) {
              step = i;
            }
          }
          return step >= 0
              && all.subList(step + 1, all.size()).stream()
                  .anyMatch(e -> e.startsWith("failed ") && e.contains("engine: FAILED ("));
        });
  }

  private static Device linked(WahaFixture f, String digits) {
    Device device = f.newDevice("+" + digits, Map.of());
    String name = "kurir-" + device.id();
    f.awaitSession(name, "SCAN_QR_CODE");
    f.waha.scan(name, digits);
    Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));
    return device;
  }

  @Test
  void aFileTheEngineDeletedBeforeKurirCameBackLeavesTheMessageKeptAndSaysSo() {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = linked(f, "6281100008801");
      String name = "kurir-" + device.id();
      // Kurir cannot be reached: the engine keeps retrying, and deletes the file after 180 s.
      f.waha.holdWebhooks();
      byte[] jpeg = {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, 0x00};
      assertThat(
              f.waha.incomingMedia(
                  name, "OLD1", "6281100008809", "Bukti transfer", "image/jpeg", "b.jpg", jpeg))
          .isZero();
      f.clock.advance(Duration.ofSeconds(181));
      f.waha.releaseWebhooks();
      Eventually.until("kept", () -> f.storedIncoming(device) == 1);
      String body = WahaWebhookTest.inbound(f, device).body();
      assertThat(body).startsWith("Bukti transfer\n").contains("image not received");
      assertThat(WahaWebhookTest.inbound(f, device).mediaPath().orElse("none")).isEqualTo("none");

      // Within the lifetime the file is fetched at once, as before.
      assertThat(
              f.waha.incomingMedia(
                  name, "NEW1", "6281100008809", "lagi", "image/jpeg", "c.jpg", jpeg))
          .isEqualTo(200);
      assertThat(f.storedIncoming(device)).isEqualTo(2);
    }
  }

  @Test
  void anEngineThatRefusesTheApiKeyPutsItsDevicesInFailedWithTheReasonAndNoRetryLoop() {
    try (WahaFixture f = new WahaFixture(dir, "--drivers.waha.api-key=not-the-engines-key")) {
      Device device = f.newDevice("+6281100008811", Map.of());
      Eventually.until("failed recorded", () -> hasEvent(f, device, "refused Kurir's API key"));
      assertThat(events(f, device).getLast())
          .startsWith("failed ")
          .contains("HTTP 401", "drivers.waha.api-key");
      assertThat(f.eco(device, "/api/qr_status")).isEqualTo("failed");
      long id = f.sendAsync(device, "6281100008819", "menunggu kunci");
      assertThat(f.message(device, id).state()).isEqualTo(MessageState.PENDING);
      long before = f.waha.calls().size();
      assertThat(f.eco(device, "/api/qr_status")).isEqualTo("failed");
      assertThat(f.waha.calls().size() - before).as("one call per question, no loop").isLessThan(3);
      assertThat(f.waha.sent()).isEmpty();
      assertThat(f.waha.violations()).allMatch(v -> v.contains("without the API key"));
      f.waha.violations().clear(); // Kurir sent a key: the engine's, as configured, was wrong
    }
  }

  @Test
  void aFailedSessionIsRestartedThenLoggedOutAndStartedWithBackOffEachStepRecorded() {
    try (WebhookReceiver receiver = new WebhookReceiver();
        WahaFixture f = new WahaFixture(dir, "--media.allow-private-addresses=true")) {
      Device device = linked(f, "6281100008821");
      String name = "kurir-" + device.id();
      f.kurir.gateway().deviceStates().setStatusWebhook(device.id(), receiver.url("/status"));

      f.waha.breakSession(name, -1); // every restart fails, until a logout
      Eventually.until("restarted at once", () -> f.waha.restarts(name) == 1);
      awaitRestartFailed(f, device, 1);
      f.clock.advance(FailedSessions.waitAfter(1));
      Eventually.until("second restart", () -> f.waha.restarts(name) == 2);
      awaitRestartFailed(f, device, 2);
      f.clock.advance(FailedSessions.waitAfter(2));
      Eventually.until("third restart", () -> f.waha.restarts(name) == 3);
      awaitRestartFailed(f, device, 3);
      assertThat(f.waha.logouts(name)).isZero();
      f.clock.advance(FailedSessions.waitAfter(3));
      Eventually.until("logged out", () -> f.waha.logouts(name) == 1);
      f.awaitSession(name, "SCAN_QR_CODE");
      Eventually.until("none recorded", () -> events(f, device).getLast().startsWith("none "));
      assertThat(events(f, device))
          .anyMatch(e -> e.startsWith("failed ") && e.contains("restart 2 of 3"))
          .anyMatch(e -> e.startsWith("failed ") && e.contains("restart 3 of 3"))
          .anyMatch(e -> e.contains("after 3 restarts; logged out"));
      assertThat(f.waha.restarts(name)).as("no restart after the logout").isEqualTo(3);
      Eventually.until(
          "the status webhook told each step",
          () ->
              receiver.ofEvent("device.status").stream()
                      .map(WebhookReceiver.Received::json)
                      .filter(j -> j.path("reason").asText().contains("restart "))
                      .count()
                  == 3);
    }
  }

  @Test
  void aSessionThatARestartCuresStopsBeingRestarted() {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = linked(f, "6281100008831");
      String name = "kurir-" + device.id();
      f.waha.breakSession(name, 1); // the second restart cures it
      Eventually.until("first restart", () -> f.waha.restarts(name) == 1);
      awaitRestartFailed(f, device, 1);
      f.clock.advance(FailedSessions.waitAfter(1));
      Eventually.until("online again", () -> f.eco(device, "/api/qr_status").equals("online"));
      assertThat(f.waha.restarts(name)).isEqualTo(2);
      f.clock.advance(FailedSessions.MAX_WAIT.multipliedBy(3));
      assertThat(f.eco(device, "/api/qr_status")).isEqualTo("online");
      assertThat(f.waha.logouts(name)).isZero();
    }
  }

  /**
   * The engine posts a new session's {@code session.status} webhooks before it answers the call
   * that created it: the session can be linked, and fail, while Kurir's attach still waits for that
   * answer. Its restart must come at once all the same, not a back-off later (the driver contract
   * suite's {@code sessionStatesAreReportedAsTheNetworkChangesThem} failed so, now and then).
   */
  @Test
  void aSessionThatFailsBeforeTheEngineAnsweredItsCreationIsRestartedAtOnce() {
    // A late answer, not an engine gone: the held creation must not time out meanwhile.
    try (WahaFixture f = new WahaFixture(dir, "--drivers.waha.timeout=60s")) {
      f.waha.holdSessionCreations();
      try {
        Device device = f.newDevice("+6281100008851", Map.of());
        String name = "kurir-" + device.id();
        f.awaitSession(name, "SCAN_QR_CODE");
        f.waha.scan(name, "6281100008851");
        Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));
        f.waha.breakSession(name, 1); // the second restart cures it
        Eventually.until("restarted at once", () -> f.waha.restarts(name) == 1);
        // The creation is answered once the restart is over: answered between the restart's
        // STOPPED and its FAILED, the attach would find the session STOPPED and start it (a cure
        // the test did not ask for).
        awaitRestartFailed(f, device, 1);
        f.waha.releaseSessionCreations();
        f.clock.advance(FailedSessions.waitAfter(1));
        Eventually.until("second restart", () -> f.waha.restarts(name) == 2);
        Eventually.until("online again", () -> f.eco(device, "/api/qr_status").equals("online"));
        assertThat(f.waha.logouts(name)).isZero();
      } finally {
        f.waha.releaseSessionCreations();
      }
    }
  }

  @Test
  void theWaitsBetweenStepsDoubleUpToFiveMinutes() {
    assertThat(
            List.of(1, 2, 3, 4, 5, 9).stream()
                .map(FailedSessions::waitAfter)
                .map(Duration::toSeconds))
        .containsExactly(30L, 60L, 120L, 240L, 300L, 300L);
  }

  @Test
  void passkeyStatesAreShownInTheAdminApiAndTheDeviceHistory() throws Exception {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = f.newDevice("+6281100008841", Map.of());
      String name = "kurir-" + device.id();
      f.awaitSession(name, "SCAN_QR_CODE");
      Eventually.until("attached", () -> f.eco(device, "/api/qr_status").equals("none"));

      f.waha.passkey(name, "PASSKEY_REQUIRED");
      Eventually.until("passkey recorded", () -> hasEvent(f, device, "PASSKEY_REQUIRED"));
      JsonNode shown = adminDevice(f, device);
      assertThat(shown.path("state").asText()).isEqualTo("none");
      assertThat(shown.path("stateReason").asText())
          .contains("PASSKEY_REQUIRED", "passkey", "phone");
      assertThat(WahaUnreachableEngineTest.consolePage(f, "/console/devices/" + device.id()))
          .as("the console's device history")
          .contains("PASSKEY_REQUIRED");

      f.waha.passkey(name, "PASSKEY_CONFIRMATION_REQUIRED");
      Eventually.until(
          "confirmation recorded", () -> hasEvent(f, device, "PASSKEY_CONFIRMATION_REQUIRED"));
      assertThat(adminDevice(f, device).path("stateReason").asText())
          .contains("PASSKEY_CONFIRMATION_REQUIRED");
      assertThat(f.eco(device, "/api/qr_status")).isEqualTo("none");
    }
  }

  private static JsonNode adminDevice(WahaFixture f, Device device) throws Exception {
    var r =
        f.kurir.get(
            "/admin/devices/" + device.id(), "Authorization", "Bearer " + TestGateway.ADMIN_TOKEN);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }
}
