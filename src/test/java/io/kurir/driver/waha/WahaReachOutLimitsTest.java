package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.kurir.driver.ContactDirectory;
import io.kurir.driver.DeviceConfig;
import io.kurir.driver.DeviceRef;
import io.kurir.driver.DeviceSessionStore;
import io.kurir.driver.DriverContext;
import io.kurir.driver.DriverSettings;
import io.kurir.driver.MemoryContactDirectory;
import io.kurir.driver.OutgoingMessage;
import io.kurir.driver.SendOutcome;
import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeWaha;
import io.kurir.testing.LogCapture;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * WhatsApp's newer limits as WAHA 2026.8.1 reports them: the reach-out time lock (sends to new
 * contacts refused with 463) holds those sends until the lock ends, on the gateway's clock, instead
 * of failing them; message capping is shown to the operator.
 */
@Isolated("reads the io.kurir log (LogCapture), which every gateway in this JVM writes to")
class WahaReachOutLimitsTest {
  @TempDir Path dir;

  @Test
  void sendsToNewContactsWaitForTheReachOutLockToEnd() {
    try (WahaFixture f = new WahaFixture(dir);
        LogCapture logs = LogCapture.of(WahaDriver.class)) {
      Device device = WahaEngineFlavoursTest.paired(f, "+6281100008801");
      Instant ends = f.clock.instant().plus(Duration.ofHours(2));
      f.waha.sending().reachOutLock(ends, false); // me.reachoutTimelock: null until a 463

      long fresh = f.sendAsync(device, "6281100008809", "halo, kenalan baru");
      Eventually.until("refused with 463", () -> f.waha.sending().refused463() == 1);
      f.awaitState(device, fresh, MessageState.PENDING); // back in the queue, not failed
      // It waits in the queue until the lock's end, not looked at again meanwhile.
      Eventually.until(
          "deferred to the lock's end",
          () -> f.message(device, fresh).notBefore().toEpochMilli() == ends.toEpochMilli());
      f.clock.advance(Duration.ofMinutes(1));
      f.awaitState(device, fresh, MessageState.PENDING);
      assertThat(f.waha.sending().refused463()).isOne();
      assertThat(logs.atLeast(Level.WARN))
          .extracting(LogCapture.Line::message)
          .filteredOn(m -> m.contains("reach-out time lock"))
          .singleElement()
          .satisfies(m -> assertThat(m).contains(ends.toString()));

      f.clock.advance(Duration.ofHours(2));
      f.awaitState(device, fresh, MessageState.SENT);
      assertThat(f.waha.sending().refused463()).isOne();
      assertThat(f.waha.sent())
          .extracting(s -> s.body().path("chatId").asText())
          .containsExactly("6281100008809@c.us");
    }
  }

  /**
   * The driver on its own, beside the gateway's, with a contact directory that knows whom the
   * device has written with: during the lock, a send to a known contact goes, one to a new contact
   * is held without a call to the engine, and goes once the lock has ended.
   */
  @Test
  void duringTheLockKnownContactsGoOnAndNewOnesAreHeldWithoutTheEngine() {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = WahaEngineFlavoursTest.paired(f, "+6281100008821");
      MemoryContactDirectory contacts = new MemoryContactDirectory();
      contacts.talkedTo(device.id(), "+6281100008822");
      f.waha.sending().talkedWith("6281100008822");
      Instant ends = f.clock.instant().plus(Duration.ofHours(1));
      f.waha.sending().reachOutLock(ends, true);
      WahaDriver driver = driverBeside(f, dir, device, contacts);
      try {
        DeviceRef ref = new DeviceRef(device.id(), device.number(), "waha");
        assertThat(driver.send(ref, new OutgoingMessage(1, "+6281100008829", false, "text", "a")))
            .as("this message alone waits, until the lock's end")
            .isEqualTo(
                new SendOutcome.Deferred(
                    ends, "WhatsApp's reach-out time lock (463) lasts until " + ends));
        assertThat(f.waha.sending().refused463()).isOne();
        assertThat(driver.send(ref, new OutgoingMessage(2, "+6281100008828", false, "text", "b")))
            .as("held by the lock already known")
            .isInstanceOf(SendOutcome.Deferred.class);
        assertThat(f.waha.sending().refused463()).isOne();
        assertThat(driver.send(ref, new OutgoingMessage(3, "+6281100008822", false, "text", "c")))
            .as("a known contact")
            .isInstanceOf(SendOutcome.Sent.class);

        // Taken for known by the gateway, new to WhatsApp: refused once, then held too.
        contacts.talkedTo(device.id(), "+6281100008827");
        assertThat(driver.send(ref, new OutgoingMessage(4, "+6281100008827", false, "text", "d")))
            .isInstanceOf(SendOutcome.Deferred.class);
        assertThat(driver.send(ref, new OutgoingMessage(4, "+6281100008827", false, "text", "d")))
            .isInstanceOf(SendOutcome.Deferred.class);
        assertThat(f.waha.sending().refused463()).isEqualTo(2);

        f.clock.advance(Duration.ofHours(1));
        assertThat(driver.send(ref, new OutgoingMessage(1, "+6281100008829", false, "text", "a")))
            .isInstanceOf(SendOutcome.Sent.class);
        assertThat(driver.send(ref, new OutgoingMessage(4, "+6281100008827", false, "text", "d")))
            .isInstanceOf(SendOutcome.Sent.class);
        assertThat(f.waha.sent())
            .extracting(x -> x.body().path("chatId").asText())
            .containsExactly("6281100008822@c.us", "6281100008829@c.us", "6281100008827@c.us");
      } finally {
        driver.close();
      }
    }
  }

  /**
   * A second waha driver on the gateway's database and engine, not started (no listener, no probe),
   * whose contact directory the test holds and teaches directly ({@code talkedTo}): simpler than
   * making the gateway's directory (the {@code contact_identity} table of ContactIdentities) learn
   * a conversation by sending and receiving through the engine.
   */
  static WahaDriver driverBeside(
      WahaFixture f, Path dir, Device device, ContactDirectory contacts) {
    // The driver beside reads the session's status from the store once and keeps it: wait until
    // the gateway's driver has stored WORKING (it keeps it in memory first, then stores it).
    DeviceSessionStore store =
        new DeviceSessionStore(f.kurir.gateway().database(), f.clock, "waha");
    Eventually.until(
        "the session's WORKING is stored",
        () ->
            store.get(device.id(), WahaSessions.KEY_STATUS).filter("WORKING"::equals).isPresent());
    return new WahaDriver(
        new DriverContext(
            new DriverSettings(
                "waha",
                Map.of(
                    io.kurir.driver.EngineSettings.URL,
                    f.waha.url(),
                    WahaDriverFactory.API_KEY,
                    FakeWaha.API_KEY,
                    io.kurir.driver.EngineSettings.HEALTH_EVERY,
                    "0ms")),
            id -> DeviceConfig.EMPTY,
            new DeviceSessionStore(f.kurir.gateway().database(), f.clock, "waha"),
            f.clock,
            dir.resolve("driver"),
            Optional.of("http://127.0.0.1:9"),
            contacts));
  }

  @Test
  void messageCappingIsShownToTheOperator() {
    try (WahaFixture f = new WahaFixture(dir);
        LogCapture logs = LogCapture.of(WahaDriver.class)) {
      Device device = WahaEngineFlavoursTest.paired(f, "+6281100008811");
      f.waha.capping(
          "kurir-" + device.id(),
          "FIRST_WARNING",
          80,
          100,
          f.clock.instant().plus(Duration.ofDays(3)));
      Eventually.until(
          "a warning",
          () ->
              logs.atLeast(Level.WARN).stream()
                  .anyMatch(
                      l ->
                          l.message().contains("FIRST_WARNING")
                              && l.message().contains("80 of 100 new chats")));
    }
  }
}
