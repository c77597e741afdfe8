package io.kurir.contactbook;

import io.kurir.core.KurirException;

/** A contact-book change or look-up the core refuses; each API family maps its reason. */
public final class ContactRefused extends KurirException {
  /** Why. */
  public enum Reason implements KurirException.Reason {
    /** The phone is not a number Kurir can read (as the Eco API reads numbers). */
    PHONE_NOT_VALID,
    /**
     * A field of a contact is not what it must be (a tag, an attribute's name, a name too long).
     */
    FIELD_NOT_VALID,
    /** The CSV cannot be read as a contact list at all (no header, no phone column). */
    CSV_NOT_VALID,
    /** The CSV has more rows than one import takes. */
    CSV_TOO_LARGE,
    /** The license's book has no such contact. */
    NOT_FOUND
  }

  private final Reason reason;

  ContactRefused(Reason reason, String message) {
    super(message, false);
    this.reason = reason;
  }

  @Override
  public Reason reason() {
    return reason;
  }
}
