package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.kurir.device.DeviceEvent;
import io.kurir.device.DeviceState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.LogCapture;
import io.kurir.testing.ScriptedDriver;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * A device's sender that fails the same way again and again (here a driver whose attach keeps
 * throwing, as a WAHA device without {@code public.url} does) is one ERROR line with its trace,
 * then DEBUG lines, tries that back off on the gateway's clock (1 s, 2 s, 4 s, … at most 60 s), the
 * device recorded {@code failed} with the reason, one INFO line when it works again, and the queued
 * message sent; a failure that changes is told again.
 */
@Isolated("reads the io.kurir log (LogCapture), which every gateway in this JVM writes to")
class RepeatingSenderFailureTest {
  @TempDir Path dir;

  private final SettableClock clock = TestGateway.settableClock();
  private final ScriptedDriver driver = new ScriptedDriver("scripted", false, clock);

  private TestGateway start() {
    return TestGateway.start(dir, clock, new ScriptedDriver.Factory(driver));
  }

  private long attachTries(Device device) {
    return driver.events().stream().filter(e -> e.equals("attach-failed " + device.id())).count();
  }

  private static List<LogCapture.Line> senderLines(LogCapture logs, Level level) {
    return logs.lines(l -> l.logger().equals("DeviceSender") && l.level().equals(level));
  }

  /** A console page as the operator sees it, signed in with the admin token. */
  private static String consolePage(TestGateway kurir, String path) {
    java.net.http.HttpClient http =
        java.net.http.HttpClient.newBuilder()
            .followRedirects(java.net.http.HttpClient.Redirect.NEVER)
            .build();
    try (http) {
      var signIn =
          http.send(
              java.net.http.HttpRequest.newBuilder(
                      java.net.URI.create(kurir.url("/console/sign-in")))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .POST(
                      java.net.http.HttpRequest.BodyPublishers.ofString(
                          "as=operator&secret=" + TestGateway.ADMIN_TOKEN))
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofString());
      String cookie = signIn.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0];
      var page =
          http.send(
              java.net.http.HttpRequest.newBuilder(java.net.URI.create(kurir.url(path)))
                  .header("Cookie", cookie)
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(page.statusCode()).isEqualTo(200);
      return page.body();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Moves the clock by {@code by} and waits for try number {@code tries}. */
  private void nextTry(Device device, Duration by, long tries) {
    clock.advance(by);
    Eventually.until("try " + tries, () -> attachTries(device) == tries);
  }

  @Test
  void anAttachThatKeepsThrowingIsOneErrorThenBacksOffOnTheClockAndRecoversWithOneInfo() {
    try (TestGateway kurir = start();
        LogCapture logs = LogCapture.of(DeviceSender.class)) {
      // Before the device exists: its sender may attach as soon as it is made.
      driver.failAttach(Integer.MAX_VALUE);
      Device device = kurir.newDevice("+6281100007951", "scripted", Map.of());
      kurir.sendAsync(device, "6281234579501", "menunggu");
      Eventually.until("the first try", () -> attachTries(device) == 1);
      Eventually.until("told", () -> senderLines(logs, Level.ERROR).size() == 1);

      // Each wait is twice the last, on the gateway's clock, up to a minute: moving the clock
      // by less than the wait gives no try; moving it by the rest gives exactly one.
      long tries = 1;
      for (long wait : new long[] {1, 2, 4, 8, 16, 32, 60, 60}) {
        if (wait > 1) {
          clock.advance(Duration.ofSeconds(wait - 1));
        }
        nextTry(device, Duration.ofSeconds(1), ++tries);
      }
      assertThat(attachTries(device)).as("no try before its time").isEqualTo(9);
      assertThat(senderLines(logs, Level.DEBUG))
          .extracting(LogCapture.Line::message)
          .anySatisfy(m -> assertThat(m).endsWith("next try in 60 s"))
          .anySatisfy(m -> assertThat(m).endsWith("next try in 8 s"));

      List<LogCapture.Line> loud = logs.atLeast(Level.WARN);
      assertThat(loud).as(logs.lines().toString()).hasSize(1);
      assertThat(loud.getFirst().level()).isEqualTo(Level.ERROR);
      assertThat(loud.getFirst().stackTrace()).isTrue();
      assertThat(loud.getFirst().message())
          .contains("the sender of device " + device.id(), "the engine cannot be reached");

      // An operator sees the stuck device without the log: its recorded state and history.
      Eventually.until(
          "recorded failed",
          () -> kurir.gateway().deviceStates().current(device.id()) == DeviceState.FAILED);
      DeviceEvent stuck = kurir.gateway().deviceStates().history(device.id()).getLast();
      assertThat(stuck.reason().orElseThrow())
          .contains("sender keeps failing", "the engine cannot be reached");
      assertThat(
              kurir
                  .get("/admin/devices", "Authorization", "Bearer " + TestGateway.ADMIN_TOKEN)
                  .body())
          .contains("\"state\":\"failed\"");
      assertThat(
              kurir
                  .get(
                      "/admin/devices/" + device.id(),
                      "Authorization",
                      "Bearer " + TestGateway.ADMIN_TOKEN)
                  .body())
          .as("its driver says online, but it sends nothing")
          .contains("\"state\":\"failed\"");
      assertThat(consolePage(kurir, "/console/devices/" + device.id()))
          .as("the console's device page: its state, and why in its history")
          .contains("<section><p><span class=\"badge s-failed\">failed</span>")
          .contains("the device's sender keeps failing");
      assertThat(driver.sentIds()).isEmpty();

      // Fixed: the next try attaches, the queued message goes, and one INFO line says so.
      driver.failAttach(0);
      clock.advance(Duration.ofSeconds(60));
      Eventually.until("the queued message sent", () -> driver.sentIds().size() == 1);
      Eventually.until("one INFO line", () -> senderLines(logs, Level.INFO).size() == 1);
      assertThat(senderLines(logs, Level.INFO).getFirst().message())
          .contains("works again", "failed for 243 s", "9 tries");
      Eventually.until(
          "its driver's state recorded again",
          () -> kurir.gateway().deviceStates().current(device.id()) == DeviceState.ONLINE);
      assertThat(
              kurir
                  .get(
                      "/admin/devices/" + device.id(),
                      "Authorization",
                      "Bearer " + TestGateway.ADMIN_TOKEN)
                  .body())
          .contains("\"state\":\"online\"");
      assertThat(logs.atLeast(Level.WARN)).hasSize(1);
    }
  }

  @Test
  void aSyncCallerOfADeviceThatCannotBeAttachedIsAnsweredPhoneOfflineAtOnce() {
    try (TestGateway kurir = start();
        LogCapture logs = LogCapture.of(DeviceSender.class)) {
      // Before the device exists: its sender may attach as soon as it is made.
      driver.failAttach(Integer.MAX_VALUE);
      Device device = kurir.newDevice("+6281100007954", "scripted", Map.of());
      kurir.sendAsync(device, "6281234579504", "menunggu");
      Eventually.until("the first try", () -> attachTries(device) == 1);
      Eventually.until("told", () -> senderLines(logs, Level.ERROR).size() == 1);

      // The clock does not move: the caller is not kept waiting for the next try (nor its own
      // timeout), as for a device that is not connected; the async message waits.
      TestGateway.Reply sync =
          kurir.postJson(
              "/api/send_message",
              "{\"key\":\""
                  + device.ecoKey()
                  + "\",\"phone_no\":\"6281234579505\",\"message\":\"OTP 1234\"}");
      assertThat(sync.body()).isEqualTo("phone_offline");
      assertThat(attachTries(device)).as("not a try per caller").isEqualTo(1);
      assertThat(driver.sentIds()).isEmpty();
    }
  }

  @Test
  void aFailureThatChangesIsToldAgainOneThatComesBackIsNot() {
    try (TestGateway kurir = start();
        LogCapture logs = LogCapture.of(DeviceSender.class)) {
      // Before the device exists: its sender may attach as soon as it is made.
      driver.failAttach(Integer.MAX_VALUE, "public.url is not set");
      Device device = kurir.newDevice("+6281100007952", "scripted", Map.of());
      kurir.sendAsync(device, "6281234579502", "menunggu");
      Eventually.until("the first try", () -> attachTries(device) == 1);
      Eventually.until("told", () -> senderLines(logs, Level.ERROR).size() == 1);
      nextTry(device, Duration.ofSeconds(1), 2);

      driver.failAttach(Integer.MAX_VALUE, "a driver bug");
      nextTry(device, Duration.ofSeconds(2), 3);
      nextTry(device, Duration.ofSeconds(4), 4);
      driver.failAttach(Integer.MAX_VALUE, "public.url is not set");
      nextTry(device, Duration.ofSeconds(8), 5);

      List<LogCapture.Line> errors = senderLines(logs, Level.ERROR);
      assertThat(errors).as(logs.lines().toString()).hasSize(2);
      assertThat(errors.get(0).message()).contains("public.url is not set");
      assertThat(errors.get(1).message()).contains("fails differently now", "a driver bug");
      assertThat(errors).allMatch(LogCapture.Line::stackTrace);
      assertThat(logs.atLeast(Level.WARN)).hasSize(2);
    }
  }

  @Test
  void aChangedDeviceIsTriedAtOnceTheBackOffGoesOnAndAStopEndsTheWait() {
    TestGateway kurir = start();
    try (LogCapture logs = LogCapture.of(DeviceSender.class)) {
      // Before the device exists: its sender may attach as soon as it is made.
      driver.failAttach(Integer.MAX_VALUE);
      Device device = kurir.newDevice("+6281100007953", "scripted", Map.of());
      kurir.sendAsync(device, "6281234579503", "menunggu");
      Eventually.until("the first try", () -> attachTries(device) == 1);
      Eventually.until("told", () -> senderLines(logs, Level.ERROR).size() == 1);
      long tries = 1;
      for (long wait : new long[] {1, 2, 4, 8, 16}) {
        nextTry(device, Duration.ofSeconds(wait), ++tries);
      }

      // The operator changes the device (its configuration, a switch): tried again at once, not
      // after the 32 s the clock has not moved; still failing, the next wait is longer still.
      kurir.gateway().tenants().setDeviceDisabled(device.id(), true);
      kurir.gateway().tenants().setDeviceDisabled(device.id(), false);
      // Two changes: the second may come during the try the first caused, and end its wait too
      // (seen beside two CPU hogs: tries 7 and 8 at once).
      Eventually.until("tried again at once", () -> attachTries(device) >= 7);
      Eventually.until(
          "the wait after it",
          () ->
              senderLines(logs, Level.DEBUG).stream()
                  .anyMatch(
                      l -> l.message().contains("(try 7)") && l.message().endsWith("in 60 s")));
    } finally {
      long started = System.nanoTime();
      kurir.close(); // the sender waits for a clock that does not move: the stop ends the wait
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .as("a stop does not wait out the back-off")
          .isLessThan(Duration.ofSeconds(10));
    }
  }
}
