package io.kurir.schedule;

import static io.kurir.testing.TestFiles.PDF;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.kurir.Gateway;
import io.kurir.config.Settings;
import io.kurir.media.MediaFiles;
import io.kurir.media.SafeFetcher;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.LogCapture;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.time.SettableClock;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Edge cases of schedules found in review: odd dates, a schedule falling due while the runner
 * looks, a stop during a fetch, removing a handed schedule still queued, clocks finer than a
 * millisecond, and a commit slower than its caller's patience.
 */
@Isolated("reads the io.kurir log (LogCapture), which every gateway in this JVM writes to")
class ScheduleEdgeCasesTest {
  static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  static String textBody(Device d, String to, String date) {
    return "{\"key\":\""
        + d.ecoKey()
        + "\",\"phone_no\":\""
        + to
        + "\",\"sch_date\":\""
        + date
        + "\",\"api_type\":\"text\",\"message\":\"Halo\"}";
  }

  ScheduleState state(TestGateway kurir, String id) {
    return new ScheduleStore(kurir.gateway().database())
        .find(Long.parseLong(id))
        .orElseThrow()
        .state();
  }

  // ---------------------------------------------------------------------------------------------
  // 1. A sch_date far in the future gives a 500 (ArithmeticException in Instant.toEpochMilli).
  @Test
  void aHugeYearIsSchDateNotValidNotAServerError() {
    try (TestGateway kurir = TestGateway.start(dir, TestGateway.settableClock())) {
      Device d = kurir.newDevice();
      Reply r =
          kurir.postJson("/api/scheduler", textBody(d, Numbers.fresh(), "+999999999-12-31 23:59"));
      assertThat(r.status()).as(r.body()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("sch_date_not_valid");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 2. A schedule that falls due while the runner does an empty pass waits MAX_SLEEP (30 s).
  /** A clock the test moves, which (unlike SettableClock) wakes nobody: like the system clock. */
  static final class SteppingClock extends Clock {
    final AtomicReference<Instant> now;
    final ZoneId zone;
    volatile Instant jumpAfterNextRead;

    SteppingClock(Instant start) {
      this(new AtomicReference<>(start), ZoneOffset.UTC);
    }

    private SteppingClock(AtomicReference<Instant> now, ZoneId zone) {
      this.now = now;
      this.zone = zone;
    }

    @Override
    public Instant instant() {
      Instant n = now.get();
      Instant jump = jumpAfterNextRead;
      if (jump != null && Thread.currentThread().getName().equals("kurir-scheduler")) {
        jumpAfterNextRead = null;
        now.set(jump); // time passes while the pass runs
      }
      return n;
    }

    @Override
    public ZoneId getZone() {
      return zone;
    }

    /** The same time line in another zone (it moves with this one). */
    @Override
    public Clock withZone(ZoneId other) {
      return new SteppingClock(now, other);
    }
  }

  @Test
  void aScheduleThatFallsDueDuringAnEmptyPassIsNotLeftForThirtySeconds() {
    SettableClock gatewayClock = TestGateway.settableClock(); // never moved: its runner stays idle
    try (TestGateway kurir = TestGateway.start(dir, gatewayClock)) {
      Gateway g = kurir.gateway();
      Settings s = g.settings();
      Device d = kurir.newDevice();
      String id =
          kurir.postJson("/api/scheduler", textBody(d, Numbers.fresh(), "2026-03-10 10:01")).body();
      assertThat(id).matches("\\d+");
      Instant due = Instant.parse("2026-03-10T03:01:00Z");
      SteppingClock clock = new SteppingClock(due.minus(Duration.ofMinutes(10)));
      ScheduleRunner runner =
          new ScheduleRunner(
              g.database(),
              g.messages(),
              g.tenants(),
              new SafeFetcher(s.media()),
              new MediaFiles(s.dataDir(), java.time.Clock.systemUTC()),
              clock,
              1,
              s.media().maxKb(),
              late -> {});
      runner.start();
      try {
        // Whether its first pass has run yet or not, the next one reads 3 ms before due and its
        // sleep reads due: the race under test.
        clock.now.set(due.minusMillis(3)); // real time passes; nothing wakes the runner for it
        clock.jumpAfterNextRead = due; // the pass reads 3 ms before due, the sleep right at due
        runner.wake(); // e.g. another /api/scheduler request arrived
        Eventually.until(
            // Well inside the runner's 30 s sleep, with room for a busy machine.
            "handed within 15 s of falling due",
            Duration.ofSeconds(15),
            () -> state(kurir, id) == ScheduleState.HANDED);
      } finally {
        runner.close();
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 3. Closing the runner (first step of Gateway.stopCore, while the database stays open for
  //    messages.close(), up to 15 s) interrupts a fetch in progress, which then FAILS the schedule
  //    for good with "url_unreachable: interrupted" instead of leaving the claim for the next
  // start.
  @Test
  void stoppingTheRunnerDuringAFetchDoesNotFailTheSchedule() throws Exception {
    java.util.concurrent.CountDownLatch fetching = new java.util.concurrent.CountDownLatch(1);
    // The file server answers once the test is over: the fetch is under way until the runner's
    // close cuts it off.
    java.util.concurrent.CountDownLatch testOver = new java.util.concurrent.CountDownLatch(1);
    HttpServer files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    AtomicBoolean slow = new AtomicBoolean(false);
    files.createContext(
        "/",
        ex -> {
          try {
            if (slow.get()) {
              fetching.countDown();
              testOver.await(Eventually.GUARD.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
            }
          } catch (InterruptedException ignored) {
            // served anyway
          }
          ex.sendResponseHeaders(200, PDF.length);
          ex.getResponseBody().write(PDF);
          ex.close();
        });
    files.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
    files.start();
    String url = "http://127.0.0.1:" + files.getAddress().getPort() + "/report.pdf";
    SettableClock gatewayClock = TestGateway.settableClock(); // never moved
    try (TestGateway kurir =
        TestGateway.start(
            dir,
            gatewayClock,
            "--media.allow-private-addresses=true",
            "--media.fetch-timeout=10s")) {
      Gateway g = kurir.gateway();
      Settings s = g.settings();
      Device d = kurir.newDevice();
      String id =
          kurir
              .postForm(
                  "/api/scheduler",
                  "key="
                      + d.ecoKey()
                      + "&phone_no="
                      + Numbers.fresh()
                      + "&sch_date=2026-03-10+10:01&api_type=file&message=Laporan&url="
                      + url)
              .body();
      assertThat(id).matches("\\d+");
      slow.set(true);
      ScheduleRunner runner =
          new ScheduleRunner(
              g.database(),
              g.messages(),
              g.tenants(),
              new SafeFetcher(s.media()),
              new MediaFiles(s.dataDir(), java.time.Clock.systemUTC()),
              new SteppingClock(Instant.parse("2026-03-10T03:01:00Z")),
              1,
              s.media().maxKb(),
              late -> {});
      runner.start();
      Eventually.until("claimed", () -> state(kurir, id) == ScheduleState.CLAIMED);
      assertThat(
              fetching.await(Eventually.GUARD.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
          .as("the fetch is under way (the server answers once the test is over)")
          .isTrue();
      runner.close(); // what Gateway.stopCore does first; it waits for the fetch to end
      Schedule after = new ScheduleStore(g.database()).find(Long.parseLong(id)).orElseThrow();
      assertThat(after.state()).as("reason " + after.reason()).isNotEqualTo(ScheduleState.FAILED);
    } finally {
      testOver.countDown();
      files.stop(0);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 4. "Visible and cancellable until it goes out": a handed schedule queued behind an offline
  //    phone reports status "waiting" yet cannot be removed, and is sent later anyway.
  @Test
  void aScheduleThatHasNotGoneOutCanBeRemoved() throws Exception {
    SettableClock clock = TestGateway.settableClock();
    try (TestGateway kurir = TestGateway.start(dir, clock)) {
      Device d = kurir.newDevice();
      String to = Numbers.fresh();
      kurir.sandbox().setDeviceOnline(d.id(), false);
      String id = kurir.postJson("/api/scheduler", textBody(d, to, "2026-03-10 10:01")).body();
      clock.advance(Duration.ofMinutes(1));
      Eventually.until("handed", () -> state(kurir, id) == ScheduleState.HANDED);
      String call = "{\"key\":\"" + d.ecoKey() + "\",\"msg_id\":\"" + id + "\"}";
      JsonNode check = JSON.readTree(kurir.postJson("/api/sch_check", call).body());
      JsonNode remove = JSON.readTree(kurir.postJson("/api/sch_remove", call).body());
      assertThat(check.get("data").get(0).get("status").asText()).isEqualTo("waiting");
      assertThat(remove.get("status").asText()).isEqualTo("success");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 5. "The current minute still counts as now" fails on a real clock: Clock.systemUTC() has
  //    microseconds, and Schedules.schedule only strips whole milliseconds off `now`.
  @Test
  void theCurrentMinuteCountsAsNowOnAClockWithMicroseconds() {
    SettableClock clock = new SettableClock(Instant.parse("2026-03-10T03:00:40.000500Z"));
    try (TestGateway kurir = TestGateway.start(dir, clock)) {
      Device d = kurir.newDevice();
      Reply r = kurir.postJson("/api/scheduler", textBody(d, Numbers.fresh(), "2026-03-10 10:00"));
      assertThat(r.body()).matches("\\d+");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 6. A commit slower than the runner waits for it (Messages.commitWithin, 14 s in production):
  //    the runner gives up, but the guarded insert still commits later. The schedule is 'handed'
  //    and its message 'pending' in the database, yet it was never enqueued: nothing sends it
  //    until the next restart.
  @Test
  void aSlowCommitDoesNotStrandAHandedSchedule() throws Exception {
    SettableClock clock = TestGateway.settableClock();
    try (TestGateway kurir = TestGateway.start(dir, clock);
        LogCapture logs = LogCapture.of()) {
      Device d = kurir.newDevice();
      String to = Numbers.fresh();
      String id = kurir.postJson("/api/scheduler", textBody(d, to, "2026-03-10 10:01")).body();
      assertThat(id).matches("\\d+");
      java.util.concurrent.CountDownLatch stalled = new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.CountDownLatch gaveUp = new java.util.concurrent.CountDownLatch(1);
      // The runner's wait for the commit runs out at once instead of after 14 s: the stall
      // lasts until the runner gave up, however long that takes on a busy machine.
      kurir.gateway().messages().commitWithin(Duration.ofMillis(100));
      kurir
          .gateway()
          .database()
          .writes()
          .submit(
              h -> {
                stalled.countDown();
                // A disk or lock stall, until the runner gave up (the bound is a hang guard).
                gaveUp.await(Eventually.GUARD.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
                return null;
              });
      assertThat(stalled.await(Eventually.GUARD.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
          .isTrue();
      clock.advance(Duration.ofMinutes(1));
      String holding = "the hand-over of device " + d.id() + "'s schedules failed";
      Eventually.until(
          "the runner gave up waiting for the commit and holds the device back",
          () -> logs.saw(holding));
      gaveUp.countDown(); // the database answers again: the guarded insert commits now
      kurir.gateway().messages().commitWithin(Duration.ofSeconds(14)); // as in production
      Eventually.until(
          "sent once the commit went through", () -> kurir.sandbox().inbox(to).size() == 1);
      assertThat(kurir.sandbox().inbox(to)).as("sent once the commit went through").hasSize(1);
    }
  }
}
