package io.kurir.webhook;

import io.kurir.core.KurirException;

/** A webhook subscription the core will not make or find; each API family maps its reason. */
public final class SubscriptionRefused extends KurirException {
  /** Why. */
  public enum Reason implements KurirException.Reason {
    /** The URL is not an http(s) URL Kurir may call (a private address, unless allowed). */
    URL_NOT_VALID,
    /** An event type Kurir does not produce, or none at all. */
    EVENTS_NOT_VALID,
    /** A format Kurir does not write. */
    FORMAT_NOT_VALID,
    /**
     * An event type the subscription's format has no payload for ({@code device.status} in Meta's).
     */
    EVENT_NOT_IN_FORMAT,
    /** The license holds {@link WebhookSubscriptions#MAX_PER_LICENSE} already. */
    TOO_MANY,
    /** The license has no such subscription. */
    NOT_FOUND
  }

  private final Reason reason;

  SubscriptionRefused(Reason reason, String message) {
    super(message, false);
    this.reason = reason;
  }

  @Override
  public Reason reason() {
    return reason;
  }
}
