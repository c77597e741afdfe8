package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.SendOutcome;
import io.kurir.tenant.Device;
import io.kurir.testing.CoreNode;
import io.kurir.testing.Eventually;
import io.kurir.testing.ScriptedDriver;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A driver call that does not return (a network that stopped answering mid-send) holds up its own
 * device only: another device of the same driver sends on, and the database writer commits what
 * callers wait for.
 */
class BlockedDriverCallTest {
  @TempDir Path dir;

  @Test
  void aDriverCallThatHangsHoldsUpNeitherAnotherDeviceNorTheWriter() throws Exception {
    ScriptedDriver driver = new ScriptedDriver("scripted", true);
    CountDownLatch network = new CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean returned =
        new java.util.concurrent.atomic.AtomicBoolean();
    String hangs = "+6281234579300";
    driver.then(
        hangs,
        m -> {
          try {
            // Until the test lets it go; the bound is only a hang guard.
            network.await(120, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          returned.set(true);
          return SendOutcome.Sent.of(ScriptedDriver.networkIdOf(m.id()), Instant.now());
        });
    try (CoreNode node = CoreNode.start(dir.resolve("k.db"), 0, Clock.systemUTC(), driver)) {
      Device stuck = node.newDevice("+6281100009301");
      Device free = node.newDevice("+6281100009302");
      Message hung = node.send(stuck, hangs, "into a network that stopped answering");
      Eventually.until(
          "the call is under way",
          () -> driver.sends().stream().anyMatch(c -> c.message().id() == hung.id()));

      Message other = node.send(free, "+6281234579301", "another device");
      Message queued = node.send(stuck, "+6281234579302", "behind the hung call");
      // Not timed: a writer held up by the call would return only once the call did.
      assertThat(returned).as("both accepts committed while the call hangs").isFalse();
      Eventually.until("the other device sends", () -> node.stateOf(free, other.id()).wentOut());
      assertThat(returned).as("the other device sent while the call hangs").isFalse();
      assertThat(node.stateOf(stuck, queued.id()).wentOut())
          .as("the hung device's next message waits for its call")
          .isFalse();

      network.countDown();
      Eventually.until(
          "the hung device goes on once its call returns",
          () -> node.stateOf(stuck, queued.id()).wentOut());
      assertThat(node.stateOf(stuck, hung.id()).wentOut()).isTrue();
    }
  }
}
