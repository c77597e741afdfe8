package io.kurir.device;

import io.kurir.message.SenderTrouble;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device whose sender keeps failing is {@code failed}, with the failure as the reason, in its
 * recorded state (history, device-status webhook, Admin API, console) until the sender works again;
 * then its driver's state is recorded. Not logged here: the sender told the log already (once).
 */
public final class SenderTroubleAsState implements SenderTrouble {
  private static final Logger log = LoggerFactory.getLogger(SenderTroubleAsState.class);

  /** The start of the reason recorded for a stuck sender. */
  public static final String STUCK = "the device's sender keeps failing: ";

  private final DeviceStates states;

  public SenderTroubleAsState(DeviceStates states) {
    this.states = states;
  }

  @Override
  public void stuck(long deviceId, String why) {
    record(deviceId, DeviceState.FAILED, STUCK + why);
  }

  @Override
  public void worksAgain(long deviceId, DeviceState driverSays) {
    record(deviceId, driverSays, "the device's sender works again");
  }

  private void record(long deviceId, DeviceState state, String reason) {
    // Not waited for: the sender's thread must not stall on a commit.
    states
        .recordLater(deviceId, state, reason)
        .whenComplete(
            (change, error) -> {
              if (error != null) {
                try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
                  log.warn(
                      "device {}: cannot record state {}: {}",
                      deviceId,
                      state.wireName(),
                      error.toString());
                }
              }
            });
  }
}
