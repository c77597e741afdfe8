package io.kurir.message;

/** A send request the core will not accept; dialects turn {@link #reason} into their own error. */
public final class SendRefused extends RuntimeException {

  public enum Reason {
    /**
     * More recipients than {@link Messages#MAX_RECIPIENTS} (sync: {@link
     * Messages#MAX_SYNC_RECIPIENTS}).
     */
    TOO_MANY_RECIPIENTS,
    /** A text longer than {@link Messages#MAX_TEXT_LENGTH} characters. */
    TEXT_TOO_LONG,
    /** The gateway is stopping. */
    STOPPING,
    /**
     * The database did not commit the request in time. The request's messages were withdrawn in the
     * same queue of writes, so nothing of it goes out: retrying is safe.
     */
    BUSY,
    /**
     * The device's driver is not loaded by this gateway (a driver since switched off): nothing can
     * be sent through it.
     */
    DRIVER_NOT_LOADED
  }

  private final Reason reason;

  public SendRefused(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
