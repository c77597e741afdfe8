package io.kurir.message;

import io.kurir.driver.Receipt;
import io.kurir.driver.SendOutcome;
import java.time.Duration;

/**
 * Told what the pipeline does with messages, for counting (the gateway's metrics): messages
 * accepted, each attempt at the driver with its outcome and how long the driver took, each receipt
 * a driver reported. Called on the caller's, the sender's or the driver's thread, so an
 * implementation must be thread-safe and quick; it must not throw.
 */
public interface SendObserver {
  /** Counts nothing. */
  SendObserver NONE = new SendObserver() {};

  /** {@code messages} were accepted for a device of {@code driver} (committed, or handed over). */
  default void accepted(String driver, int messages) {}

  /** The driver answered a send with {@code outcome} after {@code took}. */
  default void attempted(String driver, SendOutcome outcome, Duration took) {}

  /** The driver reported a receipt (a network may report one twice). */
  default void receipt(String driver, Receipt.Status status) {}
}
