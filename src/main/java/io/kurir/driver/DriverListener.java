package io.kurir.driver;

import io.kurir.device.DeviceState;
import java.time.Instant;

/** What a driver tells the core. Calls may come from any thread and must return quickly. */
public interface DriverListener {

  /** A sent message was delivered to, or read on, the recipient's phone. */
  void receipt(long messageId, Receipt receipt, Instant at);

  /** A message arrived at a device from {@code senderE164}. */
  void incoming(long deviceId, String senderE164, String text, Instant at);

  /** A device became able, or unable, to send. */
  void connectionChanged(long deviceId, boolean connected);

  /** A device's session changed state ({@code reason} for people: logs, webhooks). */
  default void stateChanged(long deviceId, DeviceState state, String reason) {}

  /** Delivery receipts, in the order they happen on a phone. */
  enum Receipt {
    DELIVERED,
    READ
  }
}
