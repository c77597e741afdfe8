package io.kurir.message;

import io.kurir.core.KurirException;

/** A send request the core will not accept; dialects turn {@link #reason} into their own error. */
public final class SendRefused extends KurirException {

  public enum Reason implements KurirException.Reason {
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
    DRIVER_NOT_LOADED,
    /**
     * A sync send to an online device that already has more sync sends waiting than it can send
     * before this caller's timeout: nothing was stored, so retrying after {@link
     * #retryAfterSeconds} is safe.
     */
    DEVICE_BUSY,
    /**
     * The image or file is of a type the device's network does not take ({@link
     * io.kurir.driver.Driver#mediaTypes}): refused at once instead of failing at the network.
     */
    MEDIA_TYPE_NOT_SUPPORTED,
    /**
     * A kind of message the device's driver does not carry ({@link
     * io.kurir.driver.Driver#capabilities}): refused before anything is stored, never accepted and
     * failed later. The sentence names the driver and the kind.
     */
    KIND_NOT_SUPPORTED,
    /**
     * A message of Kurir's own API asks what the device's driver does not do: a reply, mentions, a
     * group recipient. Refused before anything is stored; the sentence names the driver.
     */
    CAPABILITY_NOT_SUPPORTED
  }

  private final Reason reason;
  private final long retryAfterSeconds;

  public SendRefused(Reason reason, String message) {
    this(reason, message, 0);
  }

  /** A refusal that says when a retry may succeed ({@code retryAfterSeconds} above 0). */
  public SendRefused(Reason reason, String message, long retryAfterSeconds) {
    super(message);
    this.reason = reason;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** When a retry may succeed, in whole seconds; 0 when the refusal does not say. */
  @Override
  public long retryAfterSeconds() {
    return retryAfterSeconds;
  }

  @Override
  public Reason reason() {
    return reason;
  }
}
