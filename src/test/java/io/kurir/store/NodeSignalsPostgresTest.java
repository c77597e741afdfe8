package io.kurir.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.testing.Eventually;
import io.kurir.testing.OnPostgreSQL;
import io.kurir.testing.TestDatabases;
import io.kurir.testing.TestPostgres;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Signals between two nodes on one database: heard by the other, never by the sender, and a node
 * that starts (or starts again) listening is told so, because what was signalled before was lost.
 */
@OnPostgreSQL
class NodeSignalsPostgresTest {
  @TempDir Path dir;

  @Test
  void aSignalIsHeardByTheOtherNodeOnlyAndEachStartOfListeningIsTold() throws Exception {
    DatabaseLocation where = TestDatabases.at(dir.resolve("t.db"));
    try (Database one = Database.open(where);
        Database two = Database.open(where)) {
      AtomicInteger listening = new AtomicInteger();
      List<Long> heardByOne = new CopyOnWriteArrayList<>();
      List<Long> heardByTwo = new CopyOnWriteArrayList<>();
      one.signals().whenListening(listening::incrementAndGet);
      one.signals().subscribe(NodeSignals.Topic.WORK, heardByOne::add);
      two.signals().subscribe(NodeSignals.Topic.WORK, heardByTwo::add);
      Eventually.until("node one listens", () -> listening.get() == 1);
      // Node two's listener may start later; what it misses is not asked of it here.
      two.signals().publish(NodeSignals.Topic.WORK, 7);
      Eventually.until("node one hears node two", () -> heardByOne.contains(7L));

      // The server cuts node one's listening connection: it listens again and is told.
      TestPostgres.hangUp(where, java.util.Optional.of("LISTEN%"));
      Eventually.until("node one listens again and is told", () -> listening.get() >= 2);
      two.signals().publish(NodeSignals.Topic.WORK, 8);
      Eventually.until("node one hears node two again", () -> heardByOne.contains(8L));
      assertThat(heardByTwo).doesNotContain(7L, 8L); // its own signals are not heard back
    }
  }
}
