package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a sync caller learns the outcome, whichever comes first: the send or the wait. */
class SyncOutcomeTest {
  @TempDir Path dir;

  private static SendRequest syncText(String to) {
    return new SendRequest(
        List.of(Recipient.number(to)), "text", "hi", "test", true, false, Duration.ZERO);
  }

  @Test
  void anOutcomeReportedBeforeTheCallerWaitsIsNotLost() {
    try (TestGateway kurir = TestGateway.start(dir)) {
      Device device = kurir.newDevice();
      String to = Numbers.fresh();
      Messages messages = kurir.gateway().messages();

      Message m = messages.accept(device, syncText(to)).getFirst();
      Eventually.until("sent before anyone waits", () -> kurir.sandbox().inbox(to).size() == 1);
      Eventually.until(
          "recorded", () -> messages.find(device, m.id()).orElseThrow().state().wentOut());

      long started = System.nanoTime();
      SendResult result =
          messages.awaitFirstOutcome(m, Instant.now().plusSeconds(5), Instant.now());

      assertThat(result).isEqualTo(SendResult.SENT);
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
    }
  }

  @Test
  void aMessageStillQueuedWhenTheWaitEndsIsWithdrawnAndNeverSent() {
    try (TestGateway kurir = TestGateway.start(dir)) {
      Device device = kurir.newDevice();
      Messages messages = kurir.gateway().messages();
      String second = Numbers.fresh();
      // Held in the queue for an hour: the caller's 300 ms wait ends first, however busy the
      // machine (with 10 s, a stall that long let the sender send it).
      SendRequest held =
          new SendRequest(
              List.of(Recipient.number(second)),
              "text",
              "hi",
              "test",
              true,
              false,
              Duration.ofHours(1));
      Message waiting = messages.accept(device, held).getFirst();
      SendResult result =
          messages.awaitFirstOutcome(waiting, Instant.now().plusMillis(300), Instant.now());

      assertThat(result).isEqualTo(SendResult.TIMEOUT);
      assertThat(messages.queued(device.id())).isZero();
      Message stored = messages.find(device, waiting.id()).orElseThrow();
      assertThat(stored.state()).isEqualTo(MessageState.FAILED);
      assertThat(stored.reason()).contains(FailureReason.TIMEOUT);
      assertThat(stored.attempts()).as("never handed to the driver").isZero();
    }
  }
}
