package io.kurir.message;

import io.kurir.device.DeviceState;

/**
 * Told when a device's sender keeps failing (its driver cannot attach the device, or any error of
 * its loop repeats) and when it works again, so that an operator sees a stuck device without
 * reading the log: the gateway records it as the device's state ({@code failed} with the reason),
 * in its history, status webhook, Admin API and console. Called on the sender's thread; an
 * implementation must be quick and must not wait for a commit.
 */
public interface SenderTrouble {
  /** Records nothing. */
  SenderTrouble NONE =
      new SenderTrouble() {
        @Override
        public void stuck(long deviceId, String why) {}

        @Override
        public void worksAgain(long deviceId, DeviceState driverSays) {}
      };

  /** The device's sender failed several tries in a row, the last with {@code why}. */
  void stuck(long deviceId, String why);

  /** The device's sender works again; {@code driverSays} is its driver's state of the device. */
  void worksAgain(long deviceId, DeviceState driverSays);
}
