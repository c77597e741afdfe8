package io.kurir.driver;

/**
 * What a driver tells the core. Calls may come from any thread and return quickly: none of them
 * waits for a database commit, except {@link #incoming}, whose caller acknowledges the message to
 * its network only once it is stored, and {@link #hold}, which is stored before the device's next
 * send is looked at.
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

  /**
   * The device cannot send until it is resumed, for {@code reason} (the network refused the
   * account, its token or its number id): the core shows it {@link DeviceState#FAILED} with the
   * reason and holds its queue (messages stay queued, none fails) until the device's configuration
   * changes or an operator retries it, and then calls {@link Driver#resume}. A driver that reports
   * this answers the send that found it {@link SendOutcome.DeviceUnavailable}.
   */
  default void hold(long deviceId, String reason) {}

  /**
   * As {@link #hold(long, String)}, for a refusal of the device's configuration {@code checkedWith}
   * (its token, its number id, its template): the core lets it go when the configuration is no
   * longer that one, since a change made while the network was asked resumes the queue before the
   * refusal of the old configuration comes back.
   */
  default void hold(long deviceId, DeviceConfig checkedWith, String reason) {
    hold(deviceId, reason);
  }

  /**
   * The network put a limit on the device's account for reaching new contacts ({@code reason} for
   * people: the engine's words, when it ends). Told once when the limit is first seen (a driver
   * that restarts may tell it again); the device may go on sending to known contacts, so its state
   * is not changed. Not waited for.
   */
  default void limitReached(long deviceId, AccountLimit limit, String reason) {}

  /**
   * A line for the history of message {@code messageId} that changes none of its states: a status
   * the network gives that is not a failure ({@code paused}, {@code held_for_quality_assessment}),
   * a resend in another form. Not waited for.
   */
  default void note(long deviceId, long messageId, String note) {}
}
