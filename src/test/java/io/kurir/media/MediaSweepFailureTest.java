package io.kurir.media;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.kurir.store.Database;
import io.kurir.testing.LogCapture;
import io.kurir.testing.TestDatabases;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The hourly media sweep that fails the same way each hour (a database fault) says so once, with
 * the trace, and once when a sweep works again.
 */
@Isolated("reads the io.kurir log (LogCapture), which every gateway in this JVM writes to")
class MediaSweepFailureTest {
  @TempDir Path dir;

  @Test
  void aSweepThatKeepsFailingIsToldOnceAndOnceWhenItWorksAgain() throws Exception {
    SettableClock clock = TestGateway.settableClock();
    try (Database db = Database.open(TestDatabases.at(dir.resolve("kurir.db")));
        LogCapture logs = LogCapture.of(MediaSweep.class)) {
      MediaFiles files = new MediaFiles(dir, clock);
      Files.createDirectories(files.folder());
      MediaSweep sweep = new MediaSweep(files, db, clock, Duration.ZERO);
      db.writes().write(h -> h.execute("ALTER TABLE upload RENAME TO upload_away"));
      for (int hour = 0; hour < 4; hour++) {
        sweep.sweepAndLog();
        clock.advance(Duration.ofHours(1));
      }
      assertThat(logs.atLeast(Level.WARN))
          .as(logs.lines().toString())
          .singleElement()
          .satisfies(
              l -> {
                assertThat(l.level()).isEqualTo(Level.ERROR);
                assertThat(l.stackTrace()).isTrue();
                assertThat(l.message())
                    .startsWith("the media sweep failed:")
                    .endsWith("tried again every 3600 s");
              });
      assertThat(logs.lines(l -> l.level() == Level.DEBUG)).hasSize(3);

      db.writes().write(h -> h.execute("ALTER TABLE upload_away RENAME TO upload"));
      sweep.sweepAndLog();
      assertThat(logs.lines(l -> l.level() == Level.INFO))
          .extracting(LogCapture.Line::message)
          .containsExactly("the media sweep works again (it failed for 14400 s, 4 tries)");
      sweep.close();
    }
  }
}
