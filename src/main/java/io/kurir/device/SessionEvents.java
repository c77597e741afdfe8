package io.kurir.device;

import io.kurir.driver.DriverListener;
import io.kurir.message.Messages;
import java.time.Instant;
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

  /** Where incoming messages go. */
  @FunctionalInterface
  public interface IncomingHandler {
    void received(long deviceId, String senderE164, String text, Instant at);
  }

  public SessionEvents(Messages messages, DeviceStates states, IncomingHandler incoming) {
    this.messages = messages;
    this.states = states;
    this.incoming = incoming;
  }

  @Override
  public void receipt(long messageId, Receipt receipt, Instant at) {
    messages.receipt(messageId, receipt, at);
  }

  @Override
  public void incoming(long deviceId, String senderE164, String text, Instant at) {
    // Not caught: a driver acknowledges an incoming message to its network only once stored.
    incoming.received(deviceId, senderE164, text, at);
  }

  @Override
  public void connectionChanged(long deviceId, boolean connected) {
    messages.connectionChanged(deviceId, connected);
  }

  @Override
  public void stateChanged(long deviceId, DeviceState state, String reason) {
    try {
      states
          .record(deviceId, state, reason)
          .ifPresent(
              e ->
                  log.info(
                      "device {}: {} → {} ({})",
                      deviceId,
                      e.from().wireName(),
                      state.wireName(),
                      reason));
    } catch (RuntimeException e) {
      log.error("device {}: cannot record state {}: {}", deviceId, state.wireName(), e.toString());
    }
  }
}
