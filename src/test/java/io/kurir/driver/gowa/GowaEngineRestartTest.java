package io.kurir.driver.gowa;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGowa;
import io.kurir.testing.LogCapture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Several numbers in one GOWA process, each sending through its own GOWA device; GOWA going away (a
 * crash, or its exit on a replaced stream, which takes every device with it) makes them {@code
 * port_down} with their messages waiting, tried again with back-off on the gateway's clock; back,
 * every message goes once.
 */
@Isolated("reads the io.kurir log (LogCapture), which every gateway in this JVM writes to")
class GowaEngineRestartTest {
  @TempDir Path dir;

  @Test
  void twoDevicesOnOneGowaEachSendThroughTheirOwnDevice() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device a = f.linked("+6281100027301");
      Device b = f.linked("+6281100027302");
      long fromA = f.sendAsync(a, "6281100027309", "dari A");
      long fromB = f.sendAsync(b, "6281100027309", "dari B");
      f.awaitState(a, fromA, MessageState.SENT);
      f.awaitState(b, fromB, MessageState.SENT);
      assertThat(f.gowa.sent())
          .extracting(s -> s.slot() + ": " + s.text())
          .containsExactlyInAnyOrder(
              GowaFixture.slot(a) + ": dari A", GowaFixture.slot(b) + ": dari B");

      // Receipts and incoming messages reach the device whose GOWA device they are for.
      FakeGowa.Sent sentB =
          f.gowa.sent().stream().filter(s -> s.text().equals("dari B")).findFirst().orElseThrow();
      assertThat(f.gowa.ack(GowaFixture.slot(b), "read", sentB.id())).isEqualTo(200);
      f.awaitState(b, fromB, MessageState.READ);
      assertThat(f.message(a, fromA).state()).isEqualTo(MessageState.SENT);
      assertThat(f.gowa.incoming(GowaFixture.slot(a), "3EB0A1", "6281100027309", "untuk A"))
          .isEqualTo(200);
      assertThat(f.kurir.storedIncoming(a.id())).isOne();
      assertThat(f.kurir.storedIncoming(b.id())).isZero();
    }
  }

  @Test
  void gowaRestartsWithMessagesQueuedAndEachGoesOnce() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device a = f.linked("+6281100027311");
      Device b = f.linked("+6281100027312");
      try (LogCapture logs = LogCapture.of(GowaDriver.class)) {
        f.gowa.down();
        Eventually.until("a port_down", () -> f.eco(a, "/api/qr_status").equals("port_down"));
        Eventually.until("b port_down recorded", () -> f.lastEvent(b).startsWith("port_down "));
        assertThat(f.lastEvent(b)).contains("cannot be reached", f.gowa.url());
        // Sync callers hear phone_offline at once; queued messages wait.
        assertThat(f.eco(a, "/api/send_message", "phone_no", "6281100027319", "message", "sync"))
            .isEqualTo("phone_offline");
        List<Long> queued =
            List.of(
                f.sendAsync(a, "6281100027319", "antre A1"),
                f.sendAsync(a, "6281100027319", "antre A2"),
                f.sendAsync(b, "6281100027318", "antre B1"));
        f.clock.advance(GowaDriver.RETRY_FIRST);
        Eventually.until(
            "first try", () -> !logs.lines(l -> l.message().contains("still cannot")).isEmpty());
        assertThat(f.message(a, queued.get(0)).state())
            .isIn(MessageState.PENDING, MessageState.SENDING);

        // GOWA is back with its store: its devices log in again; Kurir sees it on its next try.
        f.gowa.up();
        f.clock.advance(GowaDriver.RETRY_MAX);
        Eventually.until("a online", () -> f.lastEvent(a).startsWith("online "));
        Eventually.until("b online", () -> f.lastEvent(b).startsWith("online "));
        f.awaitState(a, queued.get(0), MessageState.SENT);
        f.awaitState(a, queued.get(1), MessageState.SENT);
        f.awaitState(b, queued.get(2), MessageState.SENT);
        assertThat(f.gowa.sent())
            .extracting(FakeGowa.Sent::text)
            .containsExactlyInAnyOrder("antre A1", "antre A2", "antre B1");
        assertThat(logs.lines(l -> l.message().contains("answers again"))).hasSize(1);
      }
      // A later probe changes nothing: nothing is sent twice.
      String probeOfA = "GET /devices/" + GowaFixture.slot(a);
      long probes = f.gowa.calls().stream().filter(probeOfA::equals).count();
      f.clock.advance(Duration.ofSeconds(30));
      Eventually.until(
          "the probe ran", () -> f.gowa.calls().stream().filter(probeOfA::equals).count() > probes);
      assertThat(f.gowa.sent()).hasSize(3);
    }
  }

  @Test
  void aGowaThatLostItsStoreMakesTheDevicesAgainToBeLinkedAgain() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device a = f.linked("+6281100027321");
      String slot = GowaFixture.slot(a);
      f.gowa.removeSlot(slot); // a GOWA started on an empty volume
      long id = f.sendAsync(a, "6281100027329", "setelah volume hilang");
      Eventually.until("made again", () -> f.gowa.slot(slot) != null);
      Eventually.until("none", () -> f.eco(a, "/api/qr_status").equals("none"));
      assertThat(f.message(a, id).state()).isIn(MessageState.PENDING, MessageState.SENDING);
      f.eco(a, "/api/generate_qr");
      f.gowa.scan(slot, "6281100027321");
      Eventually.until("online", () -> f.eco(a, "/api/qr_status").equals("online"));
      f.awaitState(a, id, MessageState.SENT);
      assertThat(f.gowa.sent()).hasSize(1);
    }
  }

  @Test
  void aDeviceWhosePhoneUnlinkedItWhileGowaWasAwayIsToldLoggedOut() {
    try (GowaFixture f = new GowaFixture(dir)) {
      Device a = f.linked("+6281100027331");
      f.gowa.down();
      Eventually.until("port_down", () -> f.eco(a, "/api/qr_status").equals("port_down"));
      f.gowa.loggedOutFromPhone(GowaFixture.slot(a));
      f.gowa.up();
      f.clock.advance(GowaDriver.RETRY_MAX);
      Eventually.until("back", () -> f.lastEvent(a).startsWith("none "));
      assertThat(f.lastEvent(a)).contains("logged out").doesNotContain("not paired yet");
    }
  }

  @Test
  void aGowaThatRefusesKurirsLoginFailsTheDeviceAndHoldsItsQueue() {
    try (GowaFixture f = new GowaFixture(dir, "--drivers.gowa.basic-auth=kurir:not-the-password")) {
      Device a = f.kurir.newDevice("+6281100027341", "gowa", Map.of());
      Eventually.until(
          "held",
          () -> f.lastEvent(a).startsWith("failed ") && f.lastEvent(a).contains("basic-auth"));
      long id = f.sendAsync(a, "6281100027349", "menunggu login");
      assertThat(f.message(a, id).state()).isEqualTo(MessageState.PENDING);
      assertThat(f.gowa.sent()).isEmpty();
      // Held, as an account-level refusal: an operator's retry asks GOWA again (still refused).
      long triesBefore = f.gowa.calls().size();
      var retry = f.admin("/admin/devices/" + a.id() + "/retry");
      assertThat(retry.status()).as(retry.body()).isEqualTo(200);
      Eventually.until("asked again", () -> f.gowa.calls().size() > triesBefore);
      assertThat(f.message(a, id).state()).isEqualTo(MessageState.PENDING);
      assertThat(f.gowa.violations()).isNotEmpty().allMatch(v -> v.contains("Basic credentials"));
      f.gowa.violations().clear(); // refused on purpose
    }
  }
}
