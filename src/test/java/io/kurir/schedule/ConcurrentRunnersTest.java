package io.kurir.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.Gateway;
import io.kurir.config.Settings;
import io.kurir.media.MediaFiles;
import io.kurir.media.SafeFetcher;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several runners on one database, as several gateway nodes would be: each due schedule is sent by
 * exactly one of them.
 */
class ConcurrentRunnersTest {
  @TempDir Path dir;

  @Test
  void threeRunnersRacingForTheSameDueSchedulesSendEachOnce() {
    SettableClock clock = TestGateway.settableClock();
    try (TestGateway kurir = TestGateway.start(dir, clock)) {
      Gateway g = kurir.gateway();
      Settings s = g.settings();
      List<ScheduleRunner> rivals = new ArrayList<>();
      for (int node = 1; node <= 2; node++) {
        rivals.add(
            new ScheduleRunner(
                g.database(),
                g.messages(),
                g.tenants(),
                new SafeFetcher(s.media()),
                new MediaFiles(s.dataDir(), java.time.Clock.systemUTC()),
                clock,
                node,
                s.media().maxKb(),
                late -> {}));
      }
      List<String> targets = new ArrayList<>();
      for (int d = 0; d < 20; d++) {
        Device device = kurir.newDevice("+62811000" + (10000 + d), true);
        for (int i = 0; i < 3; i++) {
          String to = Numbers.fresh();
          targets.add(to);
          String body =
              "{\"key\":\""
                  + device.ecoKey()
                  + "\",\"phone_no\":\""
                  + to
                  + "\",\"sch_date\":\"2026-03-10 10:01\",\"api_type\":\"text\","
                  + "\"message\":\"race\"}";
          assertThat(kurir.postJson("/api/scheduler", body).body()).matches("\\d+");
        }
      }
      rivals.forEach(ScheduleRunner::start);
      try {
        clock.advance(Duration.ofMinutes(1)); // wakes all three at once
        Eventually.until(
            "all sent", () -> targets.stream().allMatch(t -> !kurir.sandbox().inbox(t).isEmpty()));
        // Every schedule is handed over now, so no runner can make another message of one.
        for (String t : targets) {
          assertThat(SchedulerTest.scheduledMessagesTo(kurir, t)).as("made for " + t).isEqualTo(1);
          assertThat(kurir.sandbox().inbox(t)).as("sent to " + t + " once").hasSize(1);
        }
      } finally {
        rivals.forEach(ScheduleRunner::close);
      }
    }
  }
}
