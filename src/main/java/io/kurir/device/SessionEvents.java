package io.kurir.device;

import io.kurir.driver.DriverListener;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What drivers report, fanned out: messages to the message pipeline, session states to {@link
 * DeviceStates}, which stores every change.
 */
public final class SessionEvents implements DriverListener {
  private static final Logger log = LoggerFactory.getLogger(SessionEvents.class);

  private final DriverListener messages;
  private final DeviceStates states;

  public SessionEvents(DriverListener messages, DeviceStates states) {
    this.messages = messages;
    this.states = states;
  }

  @Override
  public void receipt(long messageId, Receipt receipt, Instant at) {
    messages.receipt(messageId, receipt, at);
  }

  @Override
  public void incoming(long deviceId, String senderE164, String text, Instant at) {
    messages.incoming(deviceId, senderE164, text, at);
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
