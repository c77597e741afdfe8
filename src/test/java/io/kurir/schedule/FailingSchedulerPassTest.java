package io.kurir.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.kurir.testing.Eventually;
import io.kurir.testing.LogCapture;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * A scheduler pass that fails the same way every time (here its table is gone: a database fault) is
 * one ERROR line with the trace, then DEBUG lines while the passes back off on the gateway's clock,
 * and one INFO line when a pass works again.
 */
@Isolated("reads the io.kurir log (LogCapture), which every gateway in this JVM writes to")
class FailingSchedulerPassTest {
  @TempDir Path dir;

  private static List<LogCapture.Line> runner(LogCapture logs, Level level) {
    return logs.lines(l -> l.logger().equals("ScheduleRunner") && l.level().equals(level));
  }

  private static void rename(TestGateway kurir, String from, String to) {
    kurir
        .gateway()
        .database()
        .writes()
        .write(h -> h.execute("ALTER TABLE " + from + " RENAME TO " + to));
  }

  @Test
  void aPassThatKeepsFailingIsOneErrorThenBacksOffOnTheClockThenOneInfo() {
    SettableClock clock = TestGateway.settableClock();
    try (TestGateway kurir = TestGateway.start(dir, clock);
        LogCapture logs = LogCapture.of(ScheduleRunner.class)) {
      rename(kurir, "schedule", "schedule_away");
      clock.advance(Duration.ZERO); // wakes the runner: a pass now
      Eventually.until("the first failed pass", () -> runner(logs, Level.ERROR).size() == 1);

      int debug = 0;
      for (long wait : new long[] {1, 2, 4, 8}) {
        if (wait > 1) {
          clock.advance(Duration.ofSeconds(wait - 1)); // not yet: no pass
        }
        clock.advance(Duration.ofSeconds(1));
        int passes = ++debug;
        Eventually.until("pass " + (passes + 1), () -> runner(logs, Level.DEBUG).size() == passes);
      }
      assertThat(runner(logs, Level.DEBUG))
          .as("one pass per wait, each wait twice the last")
          .hasSize(4)
          .last()
          .satisfies(l -> assertThat(l.message()).contains("(try 5)").endsWith("next try in 16 s"));
      assertThat(logs.atLeast(Level.WARN)).as(logs.lines().toString()).hasSize(1);
      assertThat(runner(logs, Level.ERROR).getFirst().stackTrace()).isTrue();
      assertThat(runner(logs, Level.ERROR).getFirst().message())
          .startsWith("the scheduler's pass failed:")
          .contains("schedule");

      rename(kurir, "schedule_away", "schedule");
      clock.advance(Duration.ofSeconds(16));
      Eventually.until("works again", () -> runner(logs, Level.INFO).size() == 1);
      assertThat(runner(logs, Level.INFO).getFirst().message())
          .isEqualTo("the scheduler's pass works again (it failed for 31 s, 5 tries)");
      assertThat(logs.atLeast(Level.WARN)).hasSize(1);
    }
  }
}
