package io.kurir.metrics;

import io.kurir.store.Database;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The gauges read from the database: messages waiting per state, webhook deliveries waiting or
 * dead, and the age of the oldest of each; devices by driver and state. Read at scrape time, and at
 * most once per {@code metrics.gauges-fresh-for} however many gauges and scrapers ask: no request
 * path and no loop counts anything. The queries read the partial queue indexes, so a long history
 * costs nothing here. The age is real time ({@code nanoTime}), not the gateway's clock: a scrape's
 * cost is bounded by how often scrapers come, whatever time the clock says it is.
 *
 * <p>Thread-safe: scrapes may overlap.
 */
final class QueueFigures {
  /** Message states that are a queue: waiting for the sender, or in the driver's hands. */
  static final String[] MESSAGE_STATES = {"pending", "sending"};

  /**
   * Webhook delivery states that are a backlog ({@code pending}) or need a person ({@code dead}).
   */
  static final String[] DELIVERY_STATES = {"pending", "dead"};

  /** What the tables held at {@code readAt}. */
  record Figures(
      Map<String, Long> messages,
      Map<String, Instant> oldestMessage,
      Map<String, Long> deliveries,
      Map<String, Instant> oldestDelivery,
      Map<DriverState, Long> devices) {}

  /** A device's driver and its state: the stored state's name, or {@code disabled}. */
  record DriverState(String driver, String state) {}

  private final QueueFigureStore store;
  private final Clock clock;
  private final LongSupplier nanoTime;
  private final Duration freshFor;
  private Figures figures;
  private long readAtNanos;

  /**
   * {@code freshFor}: a scrape sees figures at most this old ({@code metrics.gauges-fresh-for}).
   */
  QueueFigures(Database db, Clock clock, LongSupplier nanoTime, Duration freshFor) {
    this.store = new QueueFigureStore(db);
    this.clock = clock;
    this.nanoTime = nanoTime;
    this.freshFor = freshFor;
  }

  /** Messages in {@code state} now. */
  double messages(String state) {
    return current().messages().getOrDefault(state, 0L);
  }

  /** Seconds since the oldest message in {@code state} was accepted; 0 when there is none. */
  double oldestMessageAge(String state) {
    return ageOf(current().oldestMessage().get(state));
  }

  /** Devices (not deleted) by driver and state now. */
  Map<DriverState, Long> devices() {
    return current().devices();
  }

  double deliveries(String state) {
    return current().deliveries().getOrDefault(state, 0L);
  }

  double oldestDeliveryAge(String state) {
    return ageOf(current().oldestDelivery().get(state));
  }

  private double ageOf(Instant oldest) {
    if (oldest == null) {
      return 0;
    }
    return Math.max(0, Duration.between(oldest, clock.instant()).toMillis() / 1000.0);
  }

  private synchronized Figures current() {
    long now = nanoTime.getAsLong();
    if (figures == null || now - readAtNanos >= freshFor.toNanos()) {
      try {
        figures = read();
      } catch (RuntimeException e) {
        // A database that does not answer: the last figures stand (health says it is down), and
        // it is asked again at the next scrape.
        if (figures == null) {
          return new Figures(Map.of(), Map.of(), Map.of(), Map.of(), Map.of());
        }
        return figures;
      }
      readAtNanos = now;
    }
    return figures;
  }

  private Figures read() {
    return store.read();
  }
}
