package io.kurir.driver;

/**
 * What the network answered to an action on a chat or a sent message ({@link Driver#revoke}, {@link
 * Driver#edit}, {@link Driver#markRead}, {@link Driver#typing}). Actions are not queued: the caller
 * is told the network's answer.
 */
public sealed interface ActionOutcome {

  /** The network did it. */
  record Done() implements ActionOutcome {}

  /**
   * The network refused it for a reason of the request (a message it does not know, one too old to
   * edit or revoke, one not sent by this device); {@code reason} is the network's own words.
   */
  record Refused(String reason) implements ActionOutcome {}

  /**
   * The device cannot act now (not connected, its engine not reachable): nothing was done, and
   * trying again later may work.
   */
  record Unavailable(String reason) implements ActionOutcome {}

  /** {@link Done}, shared. */
  ActionOutcome DONE = new Done();

  /**
   * The answer of a driver asked for an action its {@link Capabilities} do not declare; the core
   * never asks, so this only guards the default methods of {@link Driver}.
   */
  static ActionOutcome notSupported(Driver driver, String action) {
    return new Refused("the " + driver.name() + " driver cannot " + action);
  }
}
