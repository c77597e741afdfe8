package io.kurir.tenant;

/** A tenant operation was refused; {@link #reason} says why, the message says it to a person. */
public final class TenantException extends RuntimeException {

  public enum Reason {
    NOT_FOUND,
    DISABLED,
    EXPIRED,
    INVALID,
    CONFLICT
  }

  private final Reason reason;

  public TenantException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
