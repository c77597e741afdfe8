package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.CoreNode;
import io.kurir.testing.Eventually;
import io.kurir.testing.OnPostgreSQL;
import io.kurir.testing.ScriptedDriver;
import io.kurir.testing.TestTables;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On PostgreSQL a claim takes messages with {@code FOR UPDATE SKIP LOCKED}: a message another
 * transaction holds (a cancel or withdrawal under way, on this node or another) is passed over at
 * once instead of holding up the claim, and is claimed by a later look if it is still pending.
 */
@OnPostgreSQL
class ClaimSkipLockedPostgresTest {
  @TempDir Path dir;

  @Test
  void aMessageAnotherTransactionHoldsIsPassedOverNotWaitedFor() throws Exception {
    ScriptedDriver driver = new ScriptedDriver("scripted", false);
    try (CoreNode node = CoreNode.start(dir.resolve("k.db"), 0, Clock.systemUTC(), driver)) {
      driver.setConnected(false); // its sender claims nothing: the test claims
      Device device = node.newDevice("+6281100007301");
      Message held = node.send(device, "+6281234573001", "held by another transaction");
      Message free = node.send(device, "+6281234573002", "free");
      Eventually.until("the sender holds the lease", () -> leaseHolder(node, device).isPresent());
      String holder = leaseHolder(node, device).orElseThrow();
      MessageStore store = new MessageStore(node.db());
      try (var other = node.db().jdbi().open()) {
        other.begin();
        other
            .createQuery("SELECT id FROM message WHERE id = ? FOR UPDATE")
            .bind(0, held.id())
            .mapTo(Long.class)
            .one();

        Set<Long> claimed =
            store
                .claim(device.id(), holder, List.of(held.id(), free.id()), Instant.now())
                // Waiting for the lock would never end (it is released after this): the bound is
                // a hang guard, not a speed test.
                .get(Eventually.GUARD.toSeconds(), TimeUnit.SECONDS);
        assertThat(claimed).containsExactly(free.id());
        other.rollback();
      }
      assertThat(node.stateOf(device, held.id())).isEqualTo(MessageState.PENDING);
      assertThat(node.stateOf(device, free.id())).isEqualTo(MessageState.SENDING);
    }
  }

  private static java.util.Optional<String> leaseHolder(CoreNode node, Device device) {
    return TestTables.of(node.db()).leaseOwner(device.id());
  }
}
