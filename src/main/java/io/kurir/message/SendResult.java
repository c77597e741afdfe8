package io.kurir.message;

/**
 * The outcome of a message's first attempt, which is what a sync caller is told. A {@code
 * flag_retry=on} message may still be retried after a failed first attempt.
 */
public enum SendResult {
  SENT,
  NUMBER_NOT_FOUND,
  PHONE_OFFLINE,
  FAILED,
  /** The sync wait ended before an outcome; the message was withdrawn if it had not gone out. */
  TIMEOUT,
  /**
   * The sync wait ended while the message was still waiting its turn on a device that is online
   * (more sync sends ahead of it than the device could send in time): it was withdrawn and never
   * goes out, so the caller may retry later.
   */
  DEVICE_BUSY;

  /**
   * Whether a sync request's results say "the device is busy" with nothing of it sent: then it
   * answers as a refusal (retrying cannot send twice); once a number went out, it answers as a
   * failure of the rest.
   */
  public static boolean busyWithNothingSent(java.util.List<SendResult> results) {
    return results.contains(DEVICE_BUSY) && !results.contains(SENT);
  }
}
