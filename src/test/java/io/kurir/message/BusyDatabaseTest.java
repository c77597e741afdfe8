package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A request that waited past its deadline for the commit is refused, and its message never goes out
 * later: retrying it is safe.
 */
class BusyDatabaseTest {
  @TempDir Path dir;

  @Test
  void aSendWhoseCommitComesTooLateIsRefusedAndNeverSent() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir)) {
      Device device = kurir.newDevice();
      String to = Numbers.fresh();
      CountDownLatch stalled = new CountDownLatch(1);
      CountDownLatch refusedSeen = new CountDownLatch(1);
      kurir
          .gateway()
          .database()
          .writes()
          .submit(
              h -> {
                stalled.countDown();
                // A disk or lock stall, longer than a caller waits: it lasts until the caller was
                // answered, not a fixed time that a busy machine could outlast between the
                // stall's start and the request's (the bound is a hang guard).
                refusedSeen.await(Eventually.GUARD.toSeconds(), TimeUnit.SECONDS);
                return null;
              });
      assertThat(stalled.await(Eventually.GUARD.toSeconds(), TimeUnit.SECONDS)).isTrue();

      // The caller's wait for the commit runs out at once instead of after 14 s: the stall
      // outlasts any wait, so how long it is does not matter.
      kurir.gateway().messages().commitWithin(Duration.ofMillis(100));
      Reply refused =
          kurir.postJson(
              "/api/async_send_message",
              "{\"key\":\""
                  + device.ecoKey()
                  + "\",\"phone_no\":\""
                  + to
                  + "\",\"message\":\"x\"}");
      refusedSeen.countDown(); // the database answers again
      kurir.gateway().messages().commitWithin(Duration.ofSeconds(14)); // as in production

      assertThat(refused.status()).isEqualTo(503);
      assertThat(refused.body()).isEqualTo("busy");
      // Once the database answers again, the stored message is withdrawn, not sent.
      Eventually.until(
          "withdrawn",
          () ->
              TestTables.of(kurir).messagesOf(device.id()).stream()
                      .filter(m -> m.state().equals("failed") && "timeout".equals(m.reason()))
                      .count()
                  == 1);
      // A marker sent afterwards arrives; the refused message before it never does.
      kurir.postJson(
          "/api/send_message",
          "{\"key\":\""
              + device.ecoKey()
              + "\",\"phone_no\":\""
              + to
              + "\",\"message\":\"after\"}");
      Eventually.until("the marker arrived", () -> kurir.sandbox().inbox(to).size() == 1);
      assertThat(kurir.sandbox().inbox(to).getFirst().text()).isEqualTo("after");
    }
  }
}
