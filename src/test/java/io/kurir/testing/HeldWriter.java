package io.kurir.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.store.Database;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A database's writer held by a task that waits: what is submitted meanwhile waits for it, and is
 * taken as one batch once the writer is let go.
 */
public final class HeldWriter {
  private HeldWriter() {}

  /** Holds {@code db}'s writer until the returned latch is counted down. */
  public static CountDownLatch hold(Database db) throws InterruptedException {
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    db.writes()
        .submit(
            h -> {
              held.countDown();
              release.await();
              return null;
            });
    assertThat(held.await(10, TimeUnit.SECONDS)).as("the writer held").isTrue();
    return release;
  }
}
