package io.kurir.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.LogCapture;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * One schedule that cannot be sent never holds back the others due with it (issue 12, item 5): a
 * device that cannot send ends its schedule {@code failed} with a reason, a hand-over the database
 * refuses holds back only its own device and is tried again, and nothing is lost or sent twice.
 *
 * <p>Every schedule below is due at 2026-03-11 00:01 in the operator zone (UTC+7), the day after
 * the clock's start, so that a license can expire in between.
 */
// Not @Isolated: its LogCapture reads only its own device's schedule hand-over lines, which only a
// broken schedule database logs; the lock keeps it from another LogCapture, which would set the
// same loggers' levels.
@ResourceLock(LogCapture.LOG)
class UnsendableScheduleTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String DUE = "2026-03-11 00:01";
  static final Instant DUE_INSTANT = Instant.parse("2026-03-10T17:01:00Z");

  @TempDir Path dir;
  final SettableClock clock = TestGateway.settableClock();
  TestGateway kurir;

  @BeforeEach
  void start() {
    kurir = TestGateway.start(dir, clock);
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  /** A schedule of a text to a fresh number from {@code d}; its id and number. */
  record Scheduled(String id, String to, Device device) {}

  Scheduled schedule(Device d) {
    String to = Numbers.fresh();
    Reply r =
        kurir.postJson(
            "/api/scheduler",
            "{\"key\":\""
                + d.ecoKey()
                + "\",\"phone_no\":\""
                + to
                + "\",\"sch_date\":\""
                + DUE
                + "\",\"api_type\":\"text\",\"message\":\"Halo "
                + to
                + "\"}");
    assertThat(r.body()).as("a schedule id").matches("\\d+");
    return new Scheduled(r.body(), to, d);
  }

  /** Good devices with two schedules each, all due at {@link #DUE}. */
  List<Scheduled> goodSchedules(int devices) {
    List<Scheduled> good = new ArrayList<>();
    for (int i = 0; i < devices; i++) {
      Device d = kurir.newDevice(Numbers.fresh(), true);
      good.add(schedule(d));
      good.add(schedule(d));
    }
    return good;
  }

  void assertAllSentOnce(List<Scheduled> schedules) {
    assertAllSentOnce(schedules, () -> {});
  }

  /** {@link #assertAllSentOnce}, running {@code meanwhile} at each look. */
  void assertAllSentOnce(List<Scheduled> schedules, Runnable meanwhile) {
    Eventually.until(
        "every good schedule sent",
        () -> {
          meanwhile.run();
          return schedules.stream().allMatch(s -> !kurir.sandbox().inbox(s.to()).isEmpty());
        });
    for (Scheduled s : schedules) {
      assertThat(kurir.sandbox().inbox(s.to()))
          .as("sent to " + s.to() + " once")
          .extracting(InboxEntry::text)
          .containsExactly("Halo " + s.to());
      Eventually.until(
          "success of " + s.id(), () -> check(s).get("status").asText().equals("success"));
    }
  }

  /** The schedule's record from {@code /api/sch_check}, asked with its own device's key. */
  JsonNode check(Scheduled s) {
    try {
      Reply r =
          kurir.postJson(
              "/api/sch_check",
              "{\"key\":\"" + s.device().ecoKey() + "\",\"msg_id\":\"" + s.id() + "\"}");
      assertThat(r.status()).as(r.body()).isEqualTo(200);
      return JSON.readTree(r.body()).get("data").get(0);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  Schedule stored(Scheduled s) {
    return new ScheduleStore(kurir.gateway().database()).find(Long.parseLong(s.id())).orElseThrow();
  }

  void write(String sql, Object... args) {
    kurir
        .gateway()
        .database()
        .writes()
        .write(
            h -> {
              var update = h.createUpdate(sql);
              for (int i = 0; i < args.length; i++) {
                update.bind(i, args[i]);
              }
              return update.execute();
            });
  }

  @Test
  void aDeviceWhoseDriverIsNotLoadedFailsItsScheduleAndTheRestOfTheBatchGoesOut() {
    Device orphan = kurir.newDevice(Numbers.fresh(), true);
    Scheduled bad = schedule(orphan); // the earliest of the batch
    List<Scheduled> good = goodSchedules(3);
    // Created when another driver was loaded; the API refuses an unknown driver, the database
    // does not.
    write("UPDATE device SET driver = 'carrier-pigeon' WHERE id = ?", orphan.id());

    clock.set(DUE_INSTANT);

    assertAllSentOnce(good);
    Eventually.until(
        "the orphan's schedule failed", () -> stored(bad).state() == ScheduleState.FAILED);
    JsonNode record = check(bad);
    assertThat(record.get("status").asText()).isEqualTo("failed");
    assertThat(record.get("reason").asText()).isEqualTo("driver_not_loaded");
    assertThat(record.get("status_msg_id").asText()).isEmpty();
    assertThat(kurir.sandbox().inbox(bad.to())).isEmpty();
    // The runner goes on: a schedule due later is sent, and the failed one stays failed.
    SchedulerTest.runnerLooked(kurir, clock);
    assertThat(stored(bad).state()).isEqualTo(ScheduleState.FAILED);
    assertThat(SchedulerTest.scheduledMessagesTo(kurir, bad.to())).isZero();
  }

  @Test
  void devicesSwitchedOffExpiredOrDeletedFailTheirSchedulesAloneInTheBatch() {
    Device disabled = kurir.newDevice(Numbers.fresh(), true);
    Device licenseOff = kurir.newDevice(Numbers.fresh(), true);
    Device partnerOff = kurir.newDevice(Numbers.fresh(), true);
    Device expiring = kurir.newDevice(Numbers.fresh(), true);
    Device deleted = kurir.newDevice(Numbers.fresh(), true);
    Scheduled ofDisabled = schedule(disabled);
    Scheduled ofLicenseOff = schedule(licenseOff);
    List<Scheduled> good = goodSchedules(2);
    Scheduled ofPartnerOff = schedule(partnerOff);
    Scheduled ofExpiring = schedule(expiring);
    Scheduled ofDeleted = schedule(deleted);
    var tenants = kurir.gateway().tenants();
    tenants.setDeviceDisabled(disabled.id(), true);
    tenants.setLicenseDisabled(licenseOff.licenseId(), true);
    tenants.setPartnerDisabled(tenants.license(partnerOff.licenseId()).partnerId(), true);
    tenants.setLicenseExpiry(expiring.licenseId(), LocalDate.of(2026, 3, 10)); // its last day
    // Deleted by hand (sqlite3 does not enforce foreign keys unless told to).
    kurir
        .gateway()
        .database()
        .jdbi()
        .useHandle(
            h -> {
              h.execute("PRAGMA foreign_keys = OFF");
              try {
                h.execute("DELETE FROM device_event WHERE device_id = ?", deleted.id());
                h.execute("DELETE FROM device WHERE id = ?", deleted.id());
              } finally {
                h.execute("PRAGMA foreign_keys = ON");
              }
            });

    clock.set(DUE_INSTANT); // the next day: the expiring license's last day is over

    assertAllSentOnce(good);
    for (Scheduled bad : List.of(ofDisabled, ofLicenseOff, ofPartnerOff, ofExpiring, ofDeleted)) {
      Eventually.until(bad.id() + " failed", () -> stored(bad).state() == ScheduleState.FAILED);
      assertThat(kurir.sandbox().inbox(bad.to())).isEmpty();
    }
    assertThat(stored(ofDisabled).reason()).contains("device_disabled");
    assertThat(stored(ofLicenseOff).reason()).contains("device_disabled");
    assertThat(stored(ofPartnerOff).reason()).contains("device_disabled");
    assertThat(stored(ofExpiring).reason()).contains("license_expired");
    assertThat(stored(ofDeleted).reason()).contains("device_not_found");
    // An expired license's history stays readable, the reason included.
    assertThat(check(ofExpiring).get("status").asText()).isEqualTo("failed");
    assertThat(check(ofExpiring).get("reason").asText()).isEqualTo("license_expired");
  }

  @Test
  void aHandOverTheDatabaseRefusesHoldsBackOnlyItsDeviceAndIsRetried() {
    Device troubled = kurir.newDevice(Numbers.fresh(), true);
    Scheduled refused = schedule(troubled);
    Scheduled behindIt = schedule(troubled);
    List<Scheduled> good = goodSchedules(3);
    // A fault of the database for one row only: its insert aborts until the trigger is dropped.
    write(
        "CREATE TRIGGER refuse_one BEFORE INSERT ON message WHEN NEW.recipient = '"
            + refused.to()
            + "' BEGIN SELECT RAISE(ABORT, 'refused for the test'); END");

    try (io.kurir.testing.LogCapture logs = io.kurir.testing.LogCapture.of(ScheduleRunner.class)) {
      clock.set(DUE_INSTANT);

      assertAllSentOnce(good);
      assertThat(stored(refused).state())
          .as("still waiting: nothing lost")
          .isEqualTo(ScheduleState.WAITING);
      assertThat(stored(behindIt).state())
          .as("its device's later schedule waits behind it")
          .isEqualTo(ScheduleState.WAITING);
      assertThat(check(refused).get("status").asText()).isEqualTo("waiting");

      write("DROP TRIGGER refuse_one");

      assertAllSentOnce(List.of(refused, behindIt));
      assertThat(kurir.sandbox().inbox(refused.to()).getFirst().messageId())
          .as("in due order on its device")
          .isLessThan(kurir.sandbox().inbox(behindIt.to()).getFirst().messageId());
      // Told once however often it was refused, and once when it went.
      String device = "the hand-over of device " + troubled.id() + "'s schedules";
      assertThat(logs.lines(l -> l.message().startsWith(device)))
          .as(logs.lines().toString())
          .extracting(io.kurir.testing.LogCapture.Line::level)
          .filteredOn(level -> level.isGreaterOrEqual(ch.qos.logback.classic.Level.INFO))
          .containsExactly(ch.qos.logback.classic.Level.ERROR, ch.qos.logback.classic.Level.INFO);
    }
  }

  @Test
  void aDatabaseThatRefusesHandOversLosesNothingAndSendsThemOnceItRecovers() {
    List<Scheduled> refused = goodSchedules(5);
    // Scheduled last, so handed over last: once it is sent, the runner has tried every other.
    Scheduled marker = schedule(kurir.newDevice(Numbers.fresh(), true));
    write(
        "CREATE TRIGGER refuse_most BEFORE INSERT ON message WHEN NEW.recipient <> '"
            + marker.to()
            + "' BEGIN SELECT RAISE(ABORT, 'the disk says no'); END");

    clock.set(DUE_INSTANT);

    // A pass the database refuses is tried again after a wait on the gateway's clock: it moves.
    assertAllSentOnce(List.of(marker), clockMoving());
    for (Scheduled s : refused) {
      assertThat(stored(s).state()).as("waiting, not failed").isEqualTo(ScheduleState.WAITING);
    }

    write("DROP TRIGGER refuse_most");

    assertAllSentOnce(refused, clockMoving());
  }

  /** A check that moves the gateway's clock by a second each time it is asked. */
  private Runnable clockMoving() {
    return () -> clock.advance(java.time.Duration.ofSeconds(1));
  }
}
