package io.kurir.driver;

/**
 * What a driver tells the core. Calls may come from any thread and return quickly: none of them
 * waits for a database commit, except {@link #incoming}, whose caller acknowledges the message to
 * its network only once it is stored.
 */
public interface DriverListener {

  /** A message that went out was delivered, read, or failed after all. */
  void receipt(Receipt receipt);

  /** The outcome of a send that answered {@link SendOutcome.Accepted}, now that it is known. */
  void outcome(long deviceId, long messageId, SendOutcome outcome);

  /**
   * A message arrived at a device. Returns once it is stored (or found to be a redelivery of one
   * stored before); throws when it could not be stored, so the driver does not acknowledge it.
   */
  void incoming(IncomingMessage message);

  /** A device became able, or unable, to send. */
  void connectionChanged(long deviceId, boolean connected);

  /** A device's session changed state ({@code reason} for people: logs, webhooks). */
  default void stateChanged(long deviceId, DeviceState state, String reason) {}

  /**
   * A step in a device's session that the operator must see though its state may not change (an
   * engine restarting a failed session, a passkey asked for on the phone): recorded in the device's
   * history and status webhook even when {@code state} is the one it is in already.
   */
  default void stateStep(long deviceId, DeviceState state, String reason) {
    stateChanged(deviceId, state, reason);
  }
}
