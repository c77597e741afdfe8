package io.kurir.message;

import io.kurir.driver.Receipt;
import io.kurir.driver.SendOutcome;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What drivers report after a send: receipts (delivered, read, failed after all) and the later
 * outcome of a send they had answered "accepted".
 *
 * <p>Thread-safe: drivers' threads call it at once.
 */
final class DriverReports {
  private static final Logger log = LoggerFactory.getLogger(Messages.class);

  private final MessageStores stores;
  private final Attempts attempts;
  private final SenderRegistry senders;
  private final Clock clock;
  private final java.util.function.Supplier<SendObserver> observer;

  DriverReports(
      MessageStores stores,
      Attempts attempts,
      SenderRegistry senders,
      Clock clock,
      java.util.function.Supplier<SendObserver> observer) {
    this.stores = stores;
    this.attempts = attempts;
    this.senders = senders;
    this.clock = clock;
    this.observer = observer;
  }

  /**
   * A message that went out was delivered, read, or failed after all. Keyed by the network's id, it
   * moves the message that carries that id, or waits for the send's outcome that brings it.
   */
  void receipt(Receipt receipt) {
    MessageState state =
        switch (receipt.status()) {
          case DELIVERED -> MessageState.DELIVERY;
          case READ -> MessageState.READ;
          case FAILED -> MessageState.FAILED;
        };
    String reason =
        state == MessageState.FAILED ? receipt.reason().orElse(FailureReason.DRIVER_ERROR) : null;
    DeviceSender sender = senders.get(receipt.deviceId());
    if (sender != null) { // every device that sent has one, on the node that holds it
      observer.get().receipt(sender.driverName(), receipt.status());
    }
    // Not waited for: the driver's receipt thread must not stall on a commit per receipt.
    if (receipt.messageId().isPresent()) {
      stores
          .outcomes()
          .moveLater(
              receipt.messageId().get(),
              state,
              ReceiptStore.receiptFrom(state),
              receipt.at(),
              reason,
              false);
    } else {
      stores
          .receipts()
          .receiptByNetworkId(
              receipt.deviceId(),
              receipt.networkId().orElseThrow(),
              state,
              reason,
              receipt.at(),
              clock.instant());
    }
  }

  /**
   * The outcome of a send a driver had answered "accepted", reported now. One that puts the message
   * back in the queue (not sent after all, a retry) wakes the device's sender once recorded: it may
   * be idle, its queue empty when it last looked.
   */
  void outcome(long deviceId, long messageId, SendOutcome outcome) {
    stores
        .reads()
        .find(messageId)
        .filter(m -> m.deviceId() == deviceId && m.state() == MessageState.SENDING)
        .ifPresentOrElse(
            m ->
                attempts
                    .record(m, outcome)
                    .whenComplete(
                        (done, error) -> {
                          DeviceSender s = senders.get(deviceId);
                          if (s != null) {
                            s.wake();
                          }
                        }),
            () -> {
              try (var ids = io.kurir.logging.LogIds.message(deviceId, messageId)) {
                log.info(
                    "device {}: outcome of message {} ignored: not sending", deviceId, messageId);
              }
            });
  }
}
