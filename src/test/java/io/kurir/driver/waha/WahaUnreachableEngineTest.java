package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.LogCapture;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestTables;
import io.kurir.testing.WebhookReceiver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * An engine that cannot be reached is the operator's problem, not a log flood: one line when it
 * goes, one when it is back, tries with back-off on the gateway's clock in between, and its devices
 * {@code port_down} (recorded, so status webhooks and the console show it); a sync send to such a
 * device is answered {@code phone_offline} at once.
 */
@Isolated("reads the io.kurir log (LogCapture), which every gateway in this JVM writes to")
class WahaUnreachableEngineTest {
  @TempDir Path dir;

  private static List<String> events(WahaFixture f, Device device) {
    return f.events(device);
  }

  private static String lastState(WahaFixture f, Device device) {
    List<String> events = events(f, device);
    return events.isEmpty() ? "none" : events.getLast().split(" ", 2)[0];
  }

  private static Device linked(WahaFixture f, String digits) {
    Device device = f.newDevice("+" + digits, Map.of());
    String name = "kurir-" + device.id();
    f.awaitSession(name, "SCAN_QR_CODE");
    f.waha.scan(name, digits);
    Eventually.until("online recorded", () -> lastState(f, device).equals("online"));
    return device;
  }

  /** A console page as the operator sees it, signed in with the admin token. */
  static String consolePage(WahaFixture f, String path) {
    HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    try {
      HttpResponse<String> signIn =
          http.send(
              HttpRequest.newBuilder(URI.create(f.kurir.url("/console/sign-in")))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "as=operator&secret=" + TestGateway.ADMIN_TOKEN))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      String cookie = signIn.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0];
      HttpResponse<String> page =
          http.send(
              HttpRequest.newBuilder(URI.create(f.kurir.url(path)))
                  .header("Cookie", cookie)
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(page.statusCode()).isEqualTo(200);
      return page.body();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } finally {
      http.close();
    }
  }

  private static long lines(LogCapture logs, String containing) {
    return logs.lines(l -> l.message().contains(containing)).size();
  }

  @Test
  void anEngineThatGoesIsOneLineBackOffOnTheClockAndPortDownUntilItIsBack() {
    try (WebhookReceiver receiver = new WebhookReceiver();
        WahaFixture f = new WahaFixture(dir, "--media.allow-private-addresses=true")) {
      Device device = linked(f, "6281100008501");
      f.kurir.gateway().deviceStates().setStatusWebhook(device.id(), receiver.url("/status"));
      try (LogCapture logs = LogCapture.of(WahaDriver.class)) {
        f.waha.down();
        Eventually.until("seen down", () -> f.eco(device, "/api/qr_status").equals("port_down"));
        Eventually.until("port_down recorded", () -> lastState(f, device).equals("port_down"));
        assertThat(events(f, device).getLast()).contains("cannot be reached", f.waha.url());
        Eventually.until(
            "the device-status webhook says port_down",
            () ->
                receiver.ofEvent("device.status").stream()
                    .map(r -> r.json())
                    .anyMatch(
                        j ->
                            j.path("newState").asText().equals("port_down")
                                && j.path("reason").asText().contains("cannot be reached")));

        // Everything that would call the engine, again and again: none of it reaches it, or logs.
        long id = f.sendAsync(device, "6281100008509", "menunggu mesin");
        for (int i = 0; i < 20; i++) {
          assertThat(f.eco(device, "/api/qr_status")).isEqualTo("port_down");
          assertThat(f.eco(device, "/api/generate_qr")).isEqualTo("port_down");
        }
        // Tried again after 1 s, then 2 s, 4 s… of the gateway's clock, not before.
        f.clock.advance(WahaDriver.RETRY_FIRST);
        Eventually.until("first try", () -> lines(logs, "still cannot be reached") == 1);
        f.clock.advance(Duration.ofSeconds(1)); // half of the next wait
        f.clock.advance(Duration.ofSeconds(1));
        Eventually.until("second try", () -> lines(logs, "still cannot be reached") == 2);
        f.clock.advance(Duration.ofSeconds(4));
        Eventually.until("third try", () -> lines(logs, "still cannot be reached") == 3);
        assertThat(logs.lines(l -> l.message().contains("next try in")))
            .extracting(LogCapture.Line::message)
            .anySatisfy(m -> assertThat(m).endsWith("next try in 8 s"));
        assertThat(f.message(device, id).state()).isIn(MessageState.PENDING, MessageState.SENDING);

        // Back: not asked until the next try is due, then online again and the message goes.
        f.waha.up();
        assertThat(f.eco(device, "/api/qr_status")).isEqualTo("port_down");
        f.clock.advance(WahaDriver.RETRY_MAX);
        Eventually.until("online again", () -> lastState(f, device).equals("online"));
        f.awaitState(device, id, MessageState.SENT);
        assertThat(f.eco(device, "/api/qr_status")).isEqualTo("online");

        assertThat(logs.atLeast(Level.WARN)).as(logs.lines().toString()).hasSize(1);
        assertThat(logs.atLeast(Level.WARN).getFirst().message())
            .contains("the WAHA engine at " + f.waha.url() + " cannot be reached");
        assertThat(lines(logs, "answers again")).isEqualTo(1);
        assertThat(logs.lines(LogCapture.Line::stackTrace)).isEmpty();
      }
      assertThat(events(f, device).stream().map(e -> e.split(" ", 2)[0]).toList())
          .as(events(f, device).toString())
          .containsSubsequence("online", "port_down", "online")
          .endsWith("online");
    }
  }

  @Test
  void aDeviceAttachedWhileItsEngineCannotBeReachedIsNoLogFloodAndIsSetUpOnceItAnswers() {
    try (WahaFixture f = new WahaFixture(dir)) {
      f.waha.down();
      try (LogCapture logs = LogCapture.of()) {
        Device device = f.newDevice("+6281100008511", Map.of());
        Eventually.until("port_down recorded", () -> lastState(f, device).equals("port_down"));
        for (int i = 0; i < 5; i++) {
          f.clock.advance(WahaDriver.RETRY_MAX);
        }
        assertThat(f.eco(device, "/api/qr_status")).isEqualTo("port_down");
        String page = consolePage(f, "/console/devices/" + device.id());
        assertThat(page).contains("port_down").contains("the WAHA engine at " + f.waha.url());
        String listed =
            f.kurir
                .get("/admin/devices", "Authorization", "Bearer " + TestGateway.ADMIN_TOKEN)
                .body();
        assertThat(listed)
            .contains("\"id\":\"" + device.id() + "\"")
            .contains("\"state\":\"port_down\"");
        assertThat(logs.atLeast(Level.ERROR)).as(logs.lines().toString()).isEmpty();
        assertThat(logs.lines(LogCapture.Line::stackTrace)).isEmpty();
        assertThat(logs.atLeast(Level.WARN)).as(logs.lines().toString()).hasSize(1);

        f.waha.up();
        f.clock.advance(WahaDriver.RETRY_MAX);
        f.awaitSession("kurir-" + device.id(), "SCAN_QR_CODE");
        Eventually.until("not linked yet", () -> lastState(f, device).equals("none"));
        assertThat(lines(logs, "answers again")).isEqualTo(1);
      }
    }
  }

  @Test
  void aSyncSendToADeviceWhoseEngineCannotBeReachedAnswersPhoneOfflineAtOnce() {
    try (WahaFixture f = new WahaFixture(dir)) {
      f.waha.down();
      Device device = f.newDevice("+6281100008521", Map.of());
      String reply =
          f.eco(device, "/api/send_message", "phone_no", "6281100008529", "message", "OTP 1234");
      assertThat(reply).isEqualTo("phone_offline");
      // Refused for the device, not answered after the sync wait ran out ("timeout").
      assertThat(f.tables().messagesOf(device.id()).stream().map(TestTables.MessageRow::reason))
          .containsExactly("phone_offline");
    }
  }

  @Test
  void aDeviceLinkedBeforeItsEngineWentAwayStaysTheLicensesPrimaryDevice() {
    try (WahaFixture f = new WahaFixture(dir)) {
      // The license's first device was never linked; its second one is, on a session the engine
      // holds already (no QR code to race with).
      Device neverLinked = f.newDevice("+6281100008531", Map.of());
      f.awaitSession("kurir-" + neverLinked.id(), "SCAN_QR_CODE");
      String name = "toko-2";
      f.waha.existingSession(name, "6281100008532");
      Device second =
          f.kurir
              .gateway()
              .tenants()
              .createDevice(f.license.id(), "+6281100008532", "waha", Map.of("session", name));
      Eventually.until("online recorded", () -> lastState(f, second).equals("online"));

      f.waha.down();
      Eventually.until("seen down", () -> f.eco(second, "/api/qr_status").equals("port_down"));
      Eventually.until(
          "port_down recorded for both",
          () ->
              lastState(f, second).equals("port_down")
                  && lastState(f, neverLinked).equals("port_down"));

      // The legacy send names no device: the linked one is still the primary device.
      TestGateway.Reply r =
          f.kurir.postForm(
              "/v2.0/send-message",
              "license=" + f.license.code() + "&wa_number=6281100008539&text=tetap+di+sini");
      assertThat(r.status()).as(r.body()).isEqualTo(200);
      long id = Long.parseLong(r.body().replaceAll(".*\"msg_id\":\"(\\d+)\".*", "$1"));
      assertThat(f.kurir.gateway().messages().find(second, id))
          .as("queued on the linked device")
          .isPresent();

      f.waha.up();
      f.clock.advance(WahaDriver.RETRY_MAX);
      Eventually.until("online again", () -> lastState(f, second).equals("online"));
      f.awaitState(second, id, MessageState.SENT);
      assertThat(f.waha.sent())
          .anySatisfy(
              sent -> {
                assertThat(sent.body().path("session").asText()).isEqualTo(name);
                assertThat(sent.body().path("text").asText()).isEqualTo("tetap di sini");
              });
    }
  }

  @Test
  void aSendSlowerThanTheTimeoutFailsAloneAndLeavesTheEngineReachable() {
    try (WahaFixture f = new WahaFixture(dir, "--drivers.waha.timeout=1s")) {
      // Linked on the engine already: no QR code whose late status webhook could race the scan.
      f.waha.existingSession("toko-1", "6281100008541");
      Device device = f.newDevice("+6281100008541", Map.of("session", "toko-1"));
      Eventually.until("online recorded", () -> lastState(f, device).equals("online"));
      try (LogCapture logs = LogCapture.of(WahaDriver.class)) {
        f.waha.holdSends(); // answered only after the driver's timeout ran out
        long id = f.sendAsync(device, "6281100008549", "berkas besar");
        Eventually.until(
            "the send timed out",
            () ->
                f.tables()
                    .message(id)
                    .map(TestTables.MessageRow::reason)
                    .equals(Optional.of("driver_error")));
        f.waha.releaseSends();

        assertThat(f.eco(device, "/api/qr_status")).isEqualTo("online");
        assertThat(lastState(f, device)).isEqualTo("online");
        assertThat(events(f, device)).noneMatch(e -> e.startsWith("port_down"));
        assertThat(lines(logs, "cannot be reached")).as(logs.lines().toString()).isZero();
        assertThat(logs.atLeast(Level.WARN)).as(logs.lines().toString()).isEmpty();

        // The engine is still called: the next send goes at once.
        long next = f.sendAsync(device, "6281100008549", "pesan kecil");
        f.awaitState(device, next, MessageState.SENT);
      }
    }
  }
}
