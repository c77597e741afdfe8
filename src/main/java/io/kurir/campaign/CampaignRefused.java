package io.kurir.campaign;

import io.kurir.core.KurirException;

/** A campaign change or look-up the core refuses; each API family maps its reason. */
public final class CampaignRefused extends KurirException {
  /** Why. */
  public enum Reason implements KurirException.Reason {
    /** A field of the campaign is missing or not what it must be. */
    FIELD_NOT_VALID,
    /** A device of the pool is not a device of the license. */
    DEVICE_NOT_FOUND,
    /** The campaign is not in a status the action applies to (pausing a draft, starting twice). */
    STATUS_NOT_VALID,
    /** The license has no such campaign. */
    NOT_FOUND,
    /**
     * A Cloud API device of the pool would get a free-form message, which Meta delivers only inside
     * the customer's 24-hour window: the campaign names no template.
     */
    TEMPLATE_REQUIRED,
    /** The campaign's audience is an uploaded list, and no list is uploaded yet. */
    LIST_MISSING
  }

  private final Reason reason;

  CampaignRefused(Reason reason, String message) {
    super(message, false);
    this.reason = reason;
  }

  @Override
  public Reason reason() {
    return reason;
  }
}
