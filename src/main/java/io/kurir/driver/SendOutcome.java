package io.kurir.driver;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What a driver reports for one send. The core records it before anyone is told: a sync caller, the
 * outgoing webhook, reports.
 */
public sealed interface SendOutcome {

  /**
   * The network took the message. {@code networkId} is the network's own id of it, when it has one:
   * receipts may name the message by it ({@link DriverListener#receipt}).
   */
  record Sent(Optional<String> networkId, Instant at) implements SendOutcome {
    public Sent {
      networkId = networkId.filter(id -> !id.isBlank());
    }

    public static Sent of(String networkId, Instant at) {
      return new Sent(Optional.ofNullable(networkId), at);
    }
  }

  /**
   * The network took the request and will tell later whether it went out: the driver then reports
   * the outcome through {@link DriverListener#outcome}, or a receipt keyed by {@code networkId}.
   * The message stays {@code sending} until then.
   */
  record Accepted(Optional<String> networkId) implements SendOutcome {}

  /** The recipient has no account on the network (or the group does not exist). */
  record NotFound() implements SendOutcome {}

  /**
   * The sending device cannot send now (not connected, logged out): nothing was sent, the message
   * waits in the queue for the device.
   */
  record DeviceUnavailable() implements SendOutcome {}

  /**
   * The network asks to be called again later (a rate limit): not an attempt; the device's queue
   * waits {@code after} before its next send.
   */
  record RetryAfter(Duration after, String detail) implements SendOutcome {}

  /**
   * This message cannot go before {@code until} (a limit of the network on it alone: WhatsApp's
   * reach-out lock on new contacts, the pace of number checks): not an attempt; it waits in the
   * queue until then, and the device's other messages go on meanwhile. Unlike {@link RetryAfter},
   * which pauses the device's whole queue.
   */
  record Deferred(Instant until, String detail) implements SendOutcome {}

  /**
   * A failure that may pass (a timeout, a 5xx): retried with backoff under {@code flag_retry=on},
   * else final. {@code detail} is for operators, not for API replies.
   */
  record Failed(String detail) implements SendOutcome {}

  /**
   * A failure that another attempt cannot mend (the network refused the message itself, the 24-hour
   * window closed): final, never retried. {@code reason} is a short token stored with the message.
   */
  record Permanent(String reason, String detail) implements SendOutcome {}
}
