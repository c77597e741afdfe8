package io.kurir.tenant;

import io.kurir.core.KurirException;

/** A tenant operation was refused; {@link #reason} says why, the message says it to a person. */
public final class TenantException extends KurirException {

  public enum Reason implements KurirException.Reason {
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

  @Override
  public Reason reason() {
    return reason;
  }
}
