package io.kurir.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class EventuallyTest {
  @Test
  void returnsAsSoonAsTheConditionHolds() {
    AtomicInteger asked = new AtomicInteger();
    Eventually.until("the third question", () -> asked.incrementAndGet() == 3);
    assertThat(asked).hasValue(3);
  }

  @Test
  void aTimeoutSaysWhatItWaitedForAndWhereTheThreadsWereDumped() {
    Thread parked = Thread.ofVirtual().name("parked-witness").start(() -> sleepForever());
    try {
      assertThatThrownBy(() -> Eventually.until("never", Duration.ZERO, () -> false))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("waiting until never")
          .hasMessageContaining("MiB used")
          .satisfies(
              e -> {
                String message = e.getMessage();
                Path dump = Path.of(message.substring(message.indexOf("dumped to ") + 10));
                // Virtual threads are in it: they are the gateway's loops.
                assertThat(Files.readString(dump)).contains("parked-witness");
              });
    } finally {
      parked.interrupt();
    }
  }

  private static void sleepForever() {
    try {
      new java.util.concurrent.CountDownLatch(1).await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
