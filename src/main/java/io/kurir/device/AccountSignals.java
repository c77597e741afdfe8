package io.kurir.device;

import io.kurir.driver.AccountLimit;
import io.kurir.store.Database;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What engines report of the limits WhatsApp put on an account ({@link AccountLimit}: message
 * capping, the reach-out time lock), stored so that a campaign running on any node sees it (the
 * automatic stop, docs/decisions.md "Safe sending: automatic stop"), and shown to the operator as a
 * step of the device's history with its device-status webhook (the device's state unchanged: it may
 * still send to known contacts).
 *
 * <p>Thread-safe.
 */
public final class AccountSignals {
  private static final Logger log = LoggerFactory.getLogger(AccountSignals.class);

  /** A limit reported: its kind ({@link AccountLimit#wireName}) and the engine's words. */
  public record Signal(String kind, String reason) {}

  private final DeviceStateStore store;
  private final DeviceStates states;
  private final Clock clock;

  public AccountSignals(Database db, DeviceStates states, Clock clock) {
    this.store = new DeviceStateStore(db);
    this.states = states;
    this.clock = clock;
  }

  /**
   * Stores the limit and records it as a step of the device's history (with its status webhook).
   * Called on a driver's thread: neither is waited for; the future completes after both commits.
   */
  public java.util.concurrent.CompletableFuture<Void> reached(
      long deviceId, AccountLimit limit, String reason) {
    // Read here, not on the writer's thread; the state is recorded unchanged, as a step.
    DeviceState now = states.current(deviceId);
    return java.util.concurrent.CompletableFuture.allOf(
            store.addSignal(deviceId, limit.wireName(), reason, clock.instant()),
            states.recordLater(deviceId, now, reason, true))
        .whenComplete(
            (done, error) -> {
              if (error != null) {
                log.warn("device {}: cannot record {}: {}", deviceId, reason, error.toString());
              }
            });
  }

  /** The first limit reported for the device at or after {@code since}. */
  public Optional<Signal> since(long deviceId, Instant since) {
    return store.firstSignal(deviceId, since).map(e -> new Signal(e.getKey(), e.getValue()));
  }
}
