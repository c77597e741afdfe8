package io.kurir.device;

import io.kurir.driver.DeviceConfig;
import io.kurir.driver.Driver;
import io.kurir.driver.Drivers;
import io.kurir.message.Messages;
import io.kurir.tenant.Device;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds and resumes a device's queue when its network refuses the account (see {@link
 * io.kurir.driver.DriverListener#hold}): held, the device shows {@code failed} with the reason (its
 * history and status webhook say so) and its sender sends nothing, its messages staying queued;
 * resumed (a changed configuration, an operator's retry), the driver is told to forget the refusal,
 * the device's state is what its driver says now and the queue goes on. Any driver may hold a
 * device; nothing here knows which.
 *
 * <p>Thread-safe.
 */
public final class QueueHolds {
  private static final Logger log = LoggerFactory.getLogger(QueueHolds.class);

  private final DeviceHolds holds;
  private final DeviceStates states;
  private final Messages messages;
  private final Drivers drivers;

  public QueueHolds(DeviceHolds holds, DeviceStates states, Messages messages, Drivers drivers) {
    this.holds = holds;
    this.states = states;
    this.messages = messages;
    this.drivers = drivers;
  }

  /** The driver says the device cannot send until resumed, for {@code reason}. */
  public void hold(long deviceId, String reason) {
    held(deviceId, holds.hold(deviceId, reason), reason);
  }

  /**
   * The driver says the device cannot send with its configuration {@code checkedWith}. Stored
   * first, then compared with the configuration now: a change committed before the hold was stored
   * has already resumed the queue (finding nothing to resume), so a hold of a configuration that is
   * no longer the device's is let go here. A change committed after the store resumes it itself.
   */
  public void hold(long deviceId, DeviceConfig checkedWith, String reason) {
    boolean added = holds.hold(deviceId, reason);
    if (!drivers.configOf(deviceId).equals(checkedWith)) {
      if (added) {
        holds.release(deviceId);
        messages.connectionChanged(deviceId, true); // a sender that saw it looks again now
      }
      try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
        log.info(
            "device {}: a refusal of its former configuration is not held against the new one: {}",
            deviceId,
            reason);
      }
      return;
    }
    held(deviceId, added, reason);
  }

  /** The device is held ({@code added}: by this call): it shows failed and sends nothing. */
  private void held(long deviceId, boolean added, String reason) {
    if (added) {
      try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
        log.warn(
            "device {}: its queue is held until its configuration changes or an operator retries"
                + " it: {}",
            deviceId,
            reason);
      }
    }
    states.recordLater(deviceId, DeviceState.FAILED, reason);
    messages.connectionChanged(deviceId, false);
  }

  /** Why the device's queue is held, if it is. */
  public Optional<String> reason(long deviceId) {
    return holds.reason(deviceId);
  }

  /**
   * Resumes a held device ({@code why}: for its history); false when it was not held, and then
   * nothing is done.
   */
  public boolean resume(Device device, String why) {
    if (!holds.release(device.id())) {
      return false;
    }
    Driver driver = drivers.of(device.ref());
    driver.resume(device.ref());
    if (holds.isHeld(device.id())) {
      return true; // the driver checked again and the cause is still there: held again
    }
    DeviceState now =
        driver.isRunning() ? DeviceState.of(driver.state(device.ref())) : DeviceState.PORT_DOWN;
    states.record(device.id(), now, "resumed: " + why);
    try (var ids = io.kurir.logging.LogIds.device(device.id())) {
      log.info("device {}: its queue resumes ({})", device.id(), why);
    }
    messages.connectionChanged(device.id(), true);
    return true;
  }
}
