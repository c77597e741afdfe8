package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.CoreNode;
import io.kurir.testing.Eventually;
import io.kurir.testing.ScriptedDriver;
import io.kurir.testing.TestTables;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A claim takes a sender's window in one statement per list of 1, 4, 16 or 64 ids (the last list
 * padded with its last id): it moves exactly the listed messages of its device that are still
 * pending, each with its history line, whatever lists the window is cut into; and nothing while
 * another node holds the lease or the device is switched off.
 */
class ClaimWindowStatementTest {
  @TempDir Path dir;

  @Test
  void aWindowClaimsItsDevicesPendingMessagesAndNothingElse() throws Exception {
    ScriptedDriver driver = new ScriptedDriver("scripted", false);
    try (CoreNode node = CoreNode.start(dir.resolve("k.db"), 0, Clock.systemUTC(), driver)) {
      driver.setConnected(false); // its sender claims nothing: the test claims
      Device device = node.newDevice("+6281100007311");
      Device other = node.newDevice("+6281100007312");
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < 21; i++) {
        ids.add(node.send(device, String.format("+62812345731%02d", i), "message " + i).id());
      }
      long othersMessage = node.send(other, "+6281234573199", "another device's").id();
      Eventually.until("the sender holds the lease", () -> holder(node, device).isPresent());
      String holder = holder(node, device).orElseThrow();
      MessageStore store = new MessageStore(node.db());

      // Not by an owner without the device's lease (one whose lease moved to another node).
      assertThat(claim(store, device, "node-elsewhere", ids.subList(0, 3))).isEmpty();
      assertThat(node.stateOf(device, ids.getFirst())).isEqualTo(MessageState.PENDING);
      // Nor by the owner once the device's switch-off is committed, before its sender has seen it
      // and paused (the row is changed behind the node's back: its sender keeps the lease).
      switchedOff(node, device, true);
      assertThat(claim(store, device, holder, ids.subList(0, 3))).isEmpty();
      assertThat(node.stateOf(device, ids.getFirst())).isEqualTo(MessageState.PENDING);
      // Nor is a message handed over to it: stored, but pending.
      Message handedOver =
          SenderParts.message(9_500_000L, device.id(), "+6281234573198", false, Instant.now());
      assertThat(
              store
                  .insertClaimed(List.of(handedOver), holder, Instant.now())
                  .get(Eventually.GUARD.toSeconds(), TimeUnit.SECONDS))
          .isEmpty();
      assertThat(node.stateOf(device, handedOver.id())).isEqualTo(MessageState.PENDING);
      switchedOff(node, device, false);
      // Three claimed first (a list of 4, padded): then no longer pending.
      assertThat(claim(store, device, holder, ids.subList(0, 3))).hasSize(3);
      // All 21 with the other device's message (16 + 4 + 1 + 1... as the sizes fall): only the
      // 18 still pending of this device move.
      List<Long> window = new ArrayList<>(ids);
      window.add(othersMessage);
      Set<Long> claimed = claim(store, device, holder, window);

      assertThat(claimed).containsExactlyInAnyOrderElementsOf(ids.subList(3, 21));
      for (long id : ids) {
        assertThat(node.stateOf(device, id)).isEqualTo(MessageState.SENDING);
      }
      assertThat(node.stateOf(other, othersMessage)).isEqualTo(MessageState.PENDING);
      TestTables tables = TestTables.of(node.db());
      for (long id : ids) {
        assertThat(tables.historyLines(id, "sending")).as("one history line per claim").isOne();
      }
    }
  }

  private static Set<Long> claim(MessageStore store, Device device, String holder, List<Long> ids)
      throws Exception {
    return store
        .claim(device.id(), holder, ids, Instant.now())
        .get(Eventually.GUARD.toSeconds(), TimeUnit.SECONDS);
  }

  private static void switchedOff(CoreNode node, Device device, boolean off) {
    node.db()
        .writes()
        .write(
            h ->
                h.execute("UPDATE device SET disabled = ? WHERE id = ?", off ? 1 : 0, device.id()));
  }

  private static java.util.Optional<String> holder(CoreNode node, Device device) {
    return TestTables.of(node.db()).leaseOwner(device.id());
  }
}
