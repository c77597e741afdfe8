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
  TIMEOUT
}
