package io.kurir.webhook;

import io.kurir.store.Database;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What operators see of the outbox: deliveries that ended {@code failed} or {@code dead}, and
 * replaying one (it goes back into the outbox as new, with a fresh retry period).
 *
 * <p>Thread-safe.
 */
public final class WebhookDeliveries {
  /** One delivery, as operators see it. */
  public record Delivery(
      long id,
      long deviceId,
      String url,
      String event,
      String payload,
      String state,
      int attempts,
      Optional<String> lastError,
      Instant createdAt,
      Optional<Instant> finishedAt) {}

  private final WebhookStore store;
  private final Clock clock;

  public WebhookDeliveries(Database db, Clock clock) {
    this.store = new WebhookStore(db);
    this.clock = clock;
  }

  /**
   * Deliveries in {@code state} (failed, dead, pending or delivered), newest first, at most 500.
   */
  public List<Delivery> list(String state) {
    return store.list(state);
  }

  /** How many deliveries are in each state (pending, delivered, failed, dead), by state name. */
  public java.util.Map<String, Long> countByState() {
    return store.countByState();
  }

  /**
   * Sends a failed or dead delivery again: pending, due now, with a new retry period, under its own
   * event id, sequence number and event time. False when there is no such delivery, or it is not
   * failed or dead.
   */
  public boolean replay(long id) {
    return store.replay(id, clock.instant());
  }
}
