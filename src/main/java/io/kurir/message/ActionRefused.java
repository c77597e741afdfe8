package io.kurir.message;

import io.kurir.core.KurirException;

/**
 * An action on a message or a chat ({@link MessageActions}) that the core or the network would not
 * do; each family's catalogue turns {@link #reason} into its own error.
 */
public final class ActionRefused extends KurirException {

  public enum Reason implements KurirException.Reason {
    /** No such message within the caller's devices (or not in the chat named). */
    MESSAGE_NOT_FOUND,
    /** A message received, not sent: only its sender can revoke or edit it. */
    MESSAGE_RECEIVED,
    /**
     * The message has not reached the network (still being sent, or failed), or the network gave no
     * id for it: there is nothing on the network to revoke, edit or react to.
     */
    MESSAGE_NOT_SENT,
    /** The message was revoked already. */
    MESSAGE_REVOKED,
    /** An edit of a message that is not a text. */
    MESSAGE_NOT_TEXT,
    /**
     * The device's driver does not declare the action ({@link io.kurir.driver.Capabilities}); the
     * sentence names the driver.
     */
    CAPABILITY_NOT_SUPPORTED,
    /** The network refused the action (a message too old to edit, say); its words follow. */
    NETWORK_REFUSED,
    /** The device cannot act now (not connected, its engine unreachable). */
    DEVICE_UNAVAILABLE
  }

  private final Reason reason;

  public ActionRefused(Reason reason, String message) {
    super(message, false);
    this.reason = reason;
  }

  @Override
  public Reason reason() {
    return reason;
  }
}
