package io.kurir.message;

import io.kurir.tenant.Device;
import java.time.Duration;

/**
 * Whether a device has room for another sync send: the sync messages already waiting on it could
 * all go out, with the new ones, before the caller's timeout at the device's sync pace.
 *
 * <p>Thread-safe.
 */
final class SyncBusy {
  private final MessageStores stores;
  private final Duration syncTimeout;

  /**
   * @param syncTimeout the sync timeout ({@code send.sync-timeout}) the families give their
   *     callers: a sync send that could not go out within it on an online device is refused at once
   *     ({@link SendRefused.Reason#DEVICE_BUSY})
   */
  SyncBusy(MessageStores stores, Duration syncTimeout) {
    this.stores = stores;
    this.syncTimeout = syncTimeout;
  }

  /**
   * Refuses a sync send to an online device when the sync messages already waiting on it (those
   * this node's sender holds claimed and has not started, and those queued in the database) could
   * not all go out, with this request's, before the caller's timeout at the device's sync pace.
   * Nothing is stored, so a caller told to retry never finds this request sent as well.
   */
  void refuseIfBusy(Device device, DeviceSender sender, int adding) {
    if (!sender.deviceConnected()) {
      return; // an offline device answers phone_offline, as before
    }
    long perSend = sender.pacing().syncSendNanos();
    int ahead = sender.handOvers().syncOutstanding();
    if ((long) (ahead + adding) * perSend <= syncTimeout.toNanos()) {
      // Only when the hand-overs alone fit; a count at most PENDING_SYNC_RECHECK old will do.
      ahead += sender.pacing().pendingSyncCount(() -> stores.queue().pendingSyncCount(device.id()));
    }
    if ((long) (ahead + adding) * perSend > syncTimeout.toNanos()) {
      long seconds = retryAfterSeconds(ahead, perSend);
      throw new SendRefused(
          SendRefused.Reason.DEVICE_BUSY,
          ahead
              + " sync sends are waiting on this device, more than it can send within "
              + syncTimeout.toMillis()
              + " ms; nothing was sent, retry after "
              + seconds
              + " s",
          seconds);
    }
  }

  private static long retryAfterSeconds(int ahead, long perSendNanos) {
    return Math.max(1, (long) Math.ceil(ahead * (double) perSendNanos / 1_000_000_000d));
  }

  /**
   * When a sync send to {@code device} may find room again, in whole seconds (at least 1), given
   * its sender here ({@code null} when it has none).
   */
  long busyForSeconds(Device device, DeviceSender sender) {
    if (sender == null) {
      return 1;
    }
    int ahead =
        sender.handOvers().syncOutstanding()
            + sender.pacing().pendingSyncCount(() -> stores.queue().pendingSyncCount(device.id()));
    return retryAfterSeconds(ahead, sender.pacing().syncSendNanos());
  }
}
