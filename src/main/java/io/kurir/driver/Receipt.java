package io.kurir.driver;

import java.time.Instant;
import java.util.Optional;

/**
 * What the network reports of a message after it went out: delivered to the recipient's phone, read
 * there, or failed after all (a network that took a message may still fail to deliver it).
 *
 * @param deviceId the device that sent it
 * @param messageId Kurir's id of the message, when the driver knows it
 * @param networkId the network's id of the message ({@link SendOutcome.Sent#networkId}), when the
 *     driver knows only that: the core maps it to Kurir's id, also when the receipt arrives before
 *     the send's own outcome was recorded
 * @param status what happened
 * @param reason why it failed ({@link Status#FAILED}), a short token
 * @param at when it happened on the network
 */
public record Receipt(
    long deviceId,
    Optional<Long> messageId,
    Optional<String> networkId,
    Status status,
    Optional<String> reason,
    Instant at) {

  /**
   * The {@code reason} of a failed receipt whose recipient has no account on the network (as a send
   * that answered {@link SendOutcome.NotFound}); the core's reason of the same name.
   */
  public static final String NUMBER_NOT_FOUND = "number_not_found";

  /** The {@code reason} of a failed receipt for any other failure; the core's of the same name. */
  public static final String DRIVER_ERROR = "driver_error";

  /** Receipts, in the order they happen on a phone; {@code FAILED} ends a message that went out. */
  public enum Status {
    DELIVERED,
    READ,
    FAILED
  }

  public Receipt {
    if (messageId.isEmpty() && networkId.isEmpty()) {
      throw new IllegalArgumentException("a receipt names its message by one of the two ids");
    }
  }

  /** A receipt for a message the driver knows by Kurir's id. */
  public static Receipt of(long deviceId, long messageId, Status status, Instant at) {
    return new Receipt(
        deviceId, Optional.of(messageId), Optional.empty(), status, Optional.empty(), at);
  }

  /** A receipt for a message the driver knows by the network's id. */
  public static Receipt ofNetworkId(
      long deviceId, String networkId, Status status, Optional<String> reason, Instant at) {
    return new Receipt(deviceId, Optional.empty(), Optional.of(networkId), status, reason, at);
  }
}
