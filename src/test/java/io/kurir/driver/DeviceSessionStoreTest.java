package io.kurir.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.CoreNode;
import io.kurir.testing.Eventually;
import io.kurir.testing.HeldWriter;
import io.kurir.testing.ScriptedDriver;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A driver's put-if-absent (the sandbox's record of each id it received): the first value of a key
 * is kept and every later put is told it, whether the puts wait for the writer together or not. (On
 * PostgreSQL: {@link DeviceSessionStorePostgresTest}.)
 */
class DeviceSessionStoreTest {
  @TempDir Path dir;

  @Test
  void theFirstValueOfAKeyIsKeptAndEveryLaterPutIsToldIt() throws Exception {
    try (CoreNode node =
        CoreNode.start(
            dir.resolve("k.db"), 0, Clock.systemUTC(), new ScriptedDriver("scripted", false))) {
      Device device = node.newDevice("+6281100007701");
      DeviceSessionStore store = new DeviceSessionStore(node.db(), Clock.systemUTC(), "scripted");
      assertThat(store.putIfAbsent(device.id(), "id:1", "first")).isEqualTo("first");
      assertThat(store.putIfAbsent(device.id(), "id:1", "second")).isEqualTo("first");

      // Seventy puts wait for the writer together (more than one statement's 64): key id:1
      // again, key id:2 twice among them (one wins, both are told its value), the rest new.
      CountDownLatch writer = HeldWriter.hold(node.db());
      List<CompletableFuture<String>> told = new ArrayList<>();
      List<Thread> callers = new ArrayList<>();
      for (int i = 0; i < 70; i++) {
        String key = i == 0 ? "id:1" : i == 5 || i == 6 ? "id:2" : "id:" + (100 + i);
        String value = "v" + i;
        CompletableFuture<String> answer = new CompletableFuture<>();
        told.add(answer);
        callers.add(
            Thread.ofPlatform()
                .start(() -> answer.complete(store.putIfAbsent(device.id(), key, value))));
      }
      // Each caller waits for the commit (its put is in the group to come) before the writer goes.
      Eventually.until(
          "70 puts waiting",
          () -> callers.stream().allMatch(t -> t.getState() == Thread.State.TIMED_WAITING));
      writer.countDown();
      String kept = told.get(5).get(10, TimeUnit.SECONDS);
      assertThat(kept).as("one of the two puts of id:2 wins").isIn("v5", "v6");
      for (int i = 0; i < 70; i++) {
        String expected = i == 0 ? "first" : i == 5 || i == 6 ? kept : "v" + i;
        assertThat(told.get(i).get(10, TimeUnit.SECONDS)).as("put %d", i).isEqualTo(expected);
      }
      assertThat(store.get(device.id(), "id:2")).contains(kept);
      assertThat(store.get(device.id(), "id:169")).contains("v69");
    }
  }
}
