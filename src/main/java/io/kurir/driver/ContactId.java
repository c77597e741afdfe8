package io.kurir.driver;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Who a contact is on a network: a phone number, or an id the network uses in its place. WhatsApp
 * hides a person's number behind a linked-device id ({@code LID}, written {@code <digits>@lid}) in
 * WAHA and GOWA, and Meta's Cloud API names a user who chose a username by a business-scoped user
 * id ({@code BSUID}, such as {@code US.13491208655302741918}).
 *
 * <p>{@link #address()} is the text form kept in a message's sender or recipient and shown to
 * callers when no phone number is known; {@link #parse} reads it back.
 *
 * @param kind what sort of id {@code value} is
 * @param value the id: E.164 digits for a phone, the digits of a LID (without {@code @lid}), a
 *     BSUID as Meta gives it
 */
public record ContactId(Kind kind, String value) {

  /** The sorts of id; the lower-case name is the kind's name in API payloads. */
  public enum Kind {
    PHONE,
    LID,
    BSUID;

    /** The name API payloads carry ({@code phone}, {@code lid}, {@code bsuid}). */
    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  private static final Pattern DIGITS = Pattern.compile("[0-9]{5,20}");
  private static final Pattern LID = Pattern.compile("([0-9]{5,30})@lid");
  // Meta: a two-letter country code, a period, up to 128 letters and digits; a parent BSUID shared
  // across portfolios has an ENT segment (US.ENT.118…).
  private static final Pattern BSUID = Pattern.compile("[A-Z]{2}\\.(ENT\\.)?[A-Za-z0-9]{1,128}");

  public ContactId {
    if (kind == null || value == null || value.isBlank()) {
      throw new IllegalArgumentException("a contact id has a kind and a value");
    }
    boolean valid =
        switch (kind) {
          case PHONE -> DIGITS.matcher(value).matches();
          case LID -> value.matches("[0-9]{5,30}");
          case BSUID -> BSUID.matcher(value).matches();
        };
    if (!valid) {
      throw new IllegalArgumentException("not a " + kind.wireName() + ": " + value);
    }
  }

  public static ContactId phone(String e164) {
    return new ContactId(Kind.PHONE, e164);
  }

  /** A LID from its digits or from {@code <digits>@lid}. */
  public static ContactId lid(String lid) {
    return new ContactId(Kind.LID, lid.endsWith("@lid") ? lid.substring(0, lid.length() - 4) : lid);
  }

  public static ContactId bsuid(String bsuid) {
    return new ContactId(Kind.BSUID, bsuid);
  }

  /**
   * Reads an {@link #address()}: {@code <digits>@lid} is a LID, {@code CC.<id>} a BSUID, plain
   * digits a phone; empty for anything else (a group id, a name).
   */
  public static Optional<ContactId> parse(String address) {
    if (address == null) {
      return Optional.empty();
    }
    var lid = LID.matcher(address);
    if (lid.matches()) {
      return Optional.of(new ContactId(Kind.LID, lid.group(1)));
    }
    if (BSUID.matcher(address).matches()) {
      return Optional.of(new ContactId(Kind.BSUID, address));
    }
    if (DIGITS.matcher(address).matches()) {
      return Optional.of(new ContactId(Kind.PHONE, address));
    }
    return Optional.empty();
  }

  /** The text kept and shown for this id: digits, {@code <digits>@lid}, or the BSUID. */
  public String address() {
    return kind == Kind.LID ? value + "@lid" : value;
  }

  public boolean isPhone() {
    return kind == Kind.PHONE;
  }
}
