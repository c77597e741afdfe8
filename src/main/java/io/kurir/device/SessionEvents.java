package io.kurir.device;

import io.kurir.driver.DriverListener;
import io.kurir.driver.IncomingMessage;
import io.kurir.driver.Receipt;
import io.kurir.driver.SendOutcome;
import io.kurir.message.Messages;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What drivers report, fanned out: receipts and connections to the message pipeline, incoming
 * messages to {@link IncomingHandler} (stored, auto-replied, pushed to webhooks), session states to
 * {@link DeviceStates}, which stores every change.
 */
public final class SessionEvents implements DriverListener {
  private static final Logger log = LoggerFactory.getLogger(SessionEvents.class);

  private final Messages messages;
  private final DeviceStates states;
  private final IncomingHandler incoming;
  private final QueueHolds holds; // null: a hold only shows the device failed
  private final AccountSignals signals;

  /** Where incoming messages go: stored (a redelivery dropped) before it returns. */
  @FunctionalInterface
  public interface IncomingHandler {
    void received(IncomingMessage message);
  }

  /** Events of drivers whose holds only show the device {@code failed} (tests of one node). */
  public SessionEvents(Messages messages, DeviceStates states, IncomingHandler incoming) {
    this(messages, states, incoming, null);
  }

  /** Events of drivers; a device a driver holds has its queue held by {@code holds}. */
  public SessionEvents(
      Messages messages, DeviceStates states, IncomingHandler incoming, QueueHolds holds) {
    this(messages, states, incoming, holds, null);
  }

  /**
   * Events of drivers; a device a driver holds has its queue held by {@code holds}; the limits an
   * engine reports of an account are stored by {@code signals} (null: only drivers' logs say them).
   */
  public SessionEvents(
      Messages messages,
      DeviceStates states,
      IncomingHandler incoming,
      QueueHolds holds,
      AccountSignals signals) {
    this.messages = messages;
    this.signals = signals;
    this.states = states;
    this.incoming = incoming;
    this.holds = holds;
  }

  @Override
  public void limitReached(long deviceId, io.kurir.driver.AccountLimit limit, String reason) {
    if (signals != null) {
      signals.reached(deviceId, limit, reason);
    }
  }

  @Override
  public void hold(long deviceId, String reason) {
    if (holds != null) {
      holds.hold(deviceId, reason);
    } else {
      failed(deviceId, reason);
    }
  }

  @Override
  public void hold(long deviceId, io.kurir.driver.DeviceConfig checkedWith, String reason) {
    if (holds != null) {
      holds.hold(deviceId, checkedWith, reason);
    } else {
      failed(deviceId, reason);
    }
  }

  private void failed(long deviceId, String reason) {
    stateChanged(deviceId, io.kurir.driver.DeviceState.FAILED, reason);
    messages.connectionChanged(deviceId, false);
  }

  @Override
  public void note(long deviceId, long messageId, String note) {
    messages.note(deviceId, messageId, note);
  }

  @Override
  public void receipt(Receipt receipt) {
    messages.receipt(receipt);
  }

  @Override
  public void outcome(long deviceId, long messageId, SendOutcome outcome) {
    messages.outcome(deviceId, messageId, outcome);
  }

  @Override
  public void incoming(IncomingMessage message) {
    // Not caught: a driver acknowledges an incoming message to its network only once stored.
    incoming.received(message);
  }

  @Override
  public void connectionChanged(long deviceId, boolean connected) {
    messages.connectionChanged(deviceId, connected);
  }

  @Override
  public void stateChanged(long deviceId, io.kurir.driver.DeviceState reported, String reason) {
    record(deviceId, DeviceState.of(reported), reason, false);
  }

  @Override
  public void stateStep(long deviceId, io.kurir.driver.DeviceState reported, String reason) {
    record(deviceId, DeviceState.of(reported), reason, true);
  }

  private void record(long deviceId, DeviceState state, String reason, boolean evenIfSame) {
    // Not waited for: a driver's thread must not stall on a commit.
    states
        .recordLater(deviceId, state, reason, evenIfSame)
        .whenComplete(
            (change, error) -> {
              if (error != null) {
                try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
                  log.error(
                      "device {}: cannot record state {}: {}",
                      deviceId,
                      state.wireName(),
                      error.toString());
                }
              } else {
                change.ifPresent(
                    e -> {
                      try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
                        log.info(
                            "device {}: {} → {} ({})",
                            deviceId,
                            e.from().wireName(),
                            state.wireName(),
                            reason);
                      }
                    });
              }
            });
  }
}
