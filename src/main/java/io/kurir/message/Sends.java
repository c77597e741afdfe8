package io.kurir.message;

import io.kurir.tenant.Device;
import java.time.Duration;
import java.util.List;

/**
 * The one send operation every family calls: accepts a {@link SendCommand}, waits for a sync caller
 * until the sync timeout from its request's arrival, and reports the messages and their outcomes. A
 * sync send whose device stayed busy with other sync sends, with nothing of it sent, is refused
 * ({@link SendRefused.Reason#DEVICE_BUSY}, with when to retry), so no family checks it.
 *
 * <p>Thread-safe: it holds no state of its own.
 */
public final class Sends {
  private final Messages messages;
  private final Duration syncTimeout;

  /**
   * @param syncTimeout how long a sync caller may wait in all, from its request's arrival ({@code
   *     send.sync-timeout})
   */
  public Sends(Messages messages, Duration syncTimeout) {
    this.messages = messages;
    this.syncTimeout = syncTimeout;
  }

  /** How long a sync caller may wait in all; a sync media fetch gets half of it. */
  public Duration syncTimeout() {
    return syncTimeout;
  }

  /**
   * Accepts the command's messages for {@code device} and, for a waiting caller, waits for their
   * outcomes.
   *
   * @throws SendRefused when the core refuses the send, or a sync send found its device busy
   * @throws IdempotencyKeyReused when the key was used for a different request
   */
  public Sent send(Device device, SendCommand command) {
    return send(device, command, syncTimeout);
  }

  /**
   * {@link #send}, for a caller that names how long it waits ({@code /v1}'s {@code ?wait=}): at
   * most {@code maxWait} from its request's arrival, and never longer than the sync timeout.
   */
  public Sent send(Device device, SendCommand command, Duration maxWait) {
    List<Message> accepted = messages.accept(device, command.toRequest());
    if (command.callerWaitingSince().isEmpty()) {
      return new Sent(accepted, List.of());
    }
    var started = command.callerWaitingSince().get();
    Duration wait = maxWait.compareTo(syncTimeout) < 0 ? maxWait : syncTimeout;
    List<SendResult> outcomes = messages.awaitAll(accepted, started.plus(wait), started);
    if (SendResult.busyWithNothingSent(outcomes)) {
      long retryAfter = messages.busyForSeconds(device);
      throw new SendRefused(
          SendRefused.Reason.DEVICE_BUSY,
          "the device is online but busy with other sync sends; nothing was sent, retry after "
              + retryAfter
              + " s",
          retryAfter);
    }
    return new Sent(accepted, outcomes);
  }

  /**
   * What {@link #send} did: the messages in recipient order and, when the caller waited, each one's
   * first outcome (else no outcomes).
   */
  public record Sent(List<Message> messages, List<SendResult> outcomes) {
    /** The first recipient's message. */
    public Message first() {
      return messages.getFirst();
    }

    /** The first recipient's outcome; only for a caller that waited. */
    public SendResult firstOutcome() {
      return outcomes.getFirst();
    }
  }
}
