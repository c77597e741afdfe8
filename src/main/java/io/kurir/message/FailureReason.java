package io.kurir.message;

/** The reasons stored with a failed message; dialects turn them into their own result strings. */
public final class FailureReason {
  public static final String NUMBER_NOT_FOUND = "number_not_found";
  public static final String PHONE_OFFLINE = "phone_offline";
  public static final String TIMEOUT = "timeout";
  public static final String DRIVER_ERROR = "driver_error";

  /**
   * A crash cut the attempt off before its outcome was recorded, on a network that does not
   * de-duplicate: sending it again could deliver it twice.
   */
  public static final String INTERRUPTED = "interrupted";

  /** Taken back before it went out (a removed schedule). */
  public static final String CANCELLED = "cancelled";

  private FailureReason() {}
}
