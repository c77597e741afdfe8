package io.kurir.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.kurir.testing.LogCapture;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The rule every background loop follows for a failure that repeats (docs/decisions.md). */
@Isolated("reads the io.kurir log (LogCapture), which every gateway in this JVM writes to")
class RepeatingFailureTest {
  private static final Logger log = LoggerFactory.getLogger(RepeatingFailureTest.class);

  private final SettableClock clock = TestGateway.settableClock();
  private final RepeatingFailure failures = new RepeatingFailure(log, "the job", clock);

  private static List<LogCapture.Line> mine(LogCapture logs) {
    return logs.lines(l -> l.logger().equals("RepeatingFailureTest"));
  }

  @Test
  void oneFaultMetByTwoStatementsIsTheSameFailure() {
    // PostgreSQL names the statement's position on a second line: one missing table, met by two
    // statements, is one failure, not a new one at every other pass.
    var first =
        new IllegalStateException(
            "wrapped",
            new java.sql.SQLException(
                "ERROR: relation \"webhook_delivery\" does not exist\n  Position: 42"));
    var second =
        new RuntimeException(
            new java.sql.SQLException(
                "ERROR: relation \"webhook_delivery\" does not exist\n  Position: 317"));
    org.assertj.core.api.Assertions.assertThat(RepeatingFailure.signature(first))
        .isEqualTo(RepeatingFailure.signature(second));
    org.assertj.core.api.Assertions.assertThat(RepeatingFailure.signature(first))
        .isNotEqualTo(
            RepeatingFailure.signature(new java.sql.SQLException("ERROR: deadlock detected")));
  }

  @Test
  void oneErrorWithItsTraceThenDebugWithWaitsThatDoubleUpToAMinuteThenOneInfo() {
    try (LogCapture logs = LogCapture.of(RepeatingFailureTest.class)) {
      List<Long> waits = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        Duration wait = failures.failed(new IllegalStateException("the database is locked"));
        waits.add(wait.toSeconds());
        clock.advance(wait);
      }
      assertThat(waits).containsExactly(1L, 2L, 4L, 8L, 16L, 32L, 60L, 60L, 60L, 60L);
      assertThat(failures.failing()).isTrue();
      assertThat(failures.tries()).isEqualTo(10);

      assertThat(failures.succeeded()).isTrue();
      assertThat(failures.succeeded()).as("told once").isFalse();

      List<LogCapture.Line> lines = mine(logs);
      assertThat(lines).hasSize(11);
      assertThat(lines.getFirst().level()).isEqualTo(Level.ERROR);
      assertThat(lines.getFirst().stackTrace()).isTrue();
      assertThat(lines.getFirst().message())
          .isEqualTo(
              "the job failed: java.lang.IllegalStateException: the database is locked; tried"
                  + " again in 1 s, then less often (at most every 60 s)");
      assertThat(lines.subList(1, 10))
          .allSatisfy(l -> assertThat(l.level()).isEqualTo(Level.DEBUG))
          .noneMatch(LogCapture.Line::stackTrace);
      assertThat(lines.getLast().level()).isEqualTo(Level.INFO);
      assertThat(lines.getLast().message())
          .isEqualTo("the job works again (it failed for 303 s, 10 tries)");

      // A new run of failures starts over: told again, waits from the first one.
      assertThat(failures.failed(new IllegalStateException("the database is locked")))
          .isEqualTo(RepeatingFailure.FIRST_WAIT);
      assertThat(mine(logs).getLast().level()).isEqualTo(Level.ERROR);
    }
  }

  @Test
  void aChangedFailureIsToldAgainOnceAndTheWaitGoesOnGrowing() {
    try (LogCapture logs = LogCapture.of(RepeatingFailureTest.class)) {
      failures.failed(new IllegalStateException("A"));
      failures.failed(new IllegalStateException("A"));
      Duration afterB = failures.failed(new IllegalArgumentException("A"));
      failures.failed(new IllegalStateException("B"));
      failures.failed(new IllegalStateException("A")); // seen in this run: not told again
      failures.failed(new IllegalStateException("B"));
      // The same root fault as another library's message that names the time: the same failure.
      failures.failed(new RuntimeException("at 10:00:01", new IllegalStateException("B")));

      assertThat(afterB).as("alternating failures still back off").isEqualTo(Duration.ofSeconds(4));
      List<LogCapture.Line> loud = logs.atLeast(Level.WARN);
      assertThat(loud).extracting(LogCapture.Line::level).containsOnly(Level.ERROR);
      assertThat(loud)
          .extracting(LogCapture.Line::message)
          .satisfiesExactly(
              m -> assertThat(m).contains("failed: java.lang.IllegalStateException: A"),
              m ->
                  assertThat(m)
                      .contains("fails differently now (try 3", "IllegalArgumentException: A"),
              m ->
                  assertThat(m)
                      .contains("fails differently now (try 4", "IllegalStateException: B"));
      assertThat(loud).allMatch(LogCapture.Line::stackTrace);
    }
  }

  @Test
  void aFailureWhoseMessageNeverRepeatsIsToldAFewTimesNotEveryTime() {
    try (LogCapture logs = LogCapture.of(RepeatingFailureTest.class)) {
      for (int i = 0; i < 100; i++) {
        failures.failed(new IllegalStateException("request " + i + " failed"));
      }
      assertThat(logs.atLeast(Level.WARN)).hasSize(16);
      assertThat(mine(logs)).hasSize(100);
    }
  }

  @Test
  void aJobAtAFixedPaceIsToldTheSameWayAndKeepsItsPace() {
    RepeatingFailure renewals =
        RepeatingFailure.atFixedPace(log, "lease renewal", clock, Duration.ofSeconds(5));
    try (LogCapture logs = LogCapture.of(RepeatingFailureTest.class)) {
      for (int i = 0; i < 4; i++) {
        assertThat(renewals.failed(new IllegalStateException("locked"))).hasSeconds(5);
      }
      assertThat(logs.atLeast(Level.WARN))
          .singleElement()
          .satisfies(
              l ->
                  assertThat(l.message())
                      .isEqualTo(
                          "lease renewal failed: java.lang.IllegalStateException: locked; tried"
                              + " again every 5 s"));
      assertThat(mine(logs)).hasSize(4);
    }
  }

  @Test
  void aConditionWithoutAnExceptionIsOneWarnLineWithoutATrace() {
    try (LogCapture logs = LogCapture.of(RepeatingFailureTest.class)) {
      for (int i = 0; i < 5; i++) {
        failures.failed("leases not renewed lately; sending paused");
      }
      failures.succeeded();
      assertThat(logs.atLeast(Level.WARN))
          .singleElement()
          .satisfies(
              l -> {
                assertThat(l.level()).isEqualTo(Level.WARN);
                assertThat(l.stackTrace()).isFalse();
                assertThat(l.message()).startsWith("the job failed: leases not renewed lately");
              });
      assertThat(logs.lines(l -> l.level() == Level.INFO)).hasSize(1);
    }
  }
}
