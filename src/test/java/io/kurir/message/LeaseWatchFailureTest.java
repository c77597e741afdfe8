package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.kurir.testing.CoreNode;
import io.kurir.testing.Eventually;
import io.kurir.testing.LogCapture;
import io.kurir.testing.ScriptedDriver;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The lease watch looks at the leases every second, whatever happens; a look that fails the same
 * way each time (a database fault) is one ERROR line with the trace, not one line a second, and one
 * INFO line when a look works again.
 */
@Isolated("reads the io.kurir log (LogCapture), which every gateway in this JVM writes to")
class LeaseWatchFailureTest {
  @TempDir Path dir;

  private static List<LogCapture.Line> watch(LogCapture logs, Level level) {
    return logs.lines(l -> l.message().startsWith("the lease watch") && l.level().equals(level));
  }

  private static void rename(CoreNode node, String from, String to) {
    node.db().writes().write(h -> h.execute("ALTER TABLE " + from + " RENAME TO " + to));
  }

  @Test
  void aLookThatKeepsFailingIsToldOnceAndOnceWhenItWorksAgain() {
    try (CoreNode node =
            CoreNode.start(
                dir.resolve("k.db"), 0, Clock.systemUTC(), new ScriptedDriver("scripted", false));
        LogCapture logs = LogCapture.of(DeviceOwnership.class)) {
      node.messages().resume();
      rename(node, "device_lease", "lease_away");
      // The watch keeps its pace (a second): three failed looks take about three seconds.
      Eventually.until("three looks failed", () -> watch(logs, Level.DEBUG).size() >= 2);
      assertThat(watch(logs, Level.ERROR)).singleElement().matches(LogCapture.Line::stackTrace);
      assertThat(watch(logs, Level.WARN)).isEmpty();

      rename(node, "lease_away", "device_lease");
      Eventually.until("works again", () -> watch(logs, Level.INFO).size() == 1);
      assertThat(watch(logs, Level.INFO).getFirst().message()).contains("works again");
      assertThat(watch(logs, Level.ERROR)).hasSize(1);
    }
  }
}
