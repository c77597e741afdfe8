package io.kurir.message;

import io.kurir.core.KurirException;

/**
 * An idempotency key that the device's first request with it used for a different request (other
 * recipients, text, media or options). Every family answers it with the token {@code
 * idempotency_key_reused}; nothing was stored.
 */
public final class IdempotencyKeyReused extends KurirException {
  /** Its one reason. */
  public enum Reason implements KurirException.Reason {
    KEY_REUSED
  }

  public IdempotencyKeyReused(String key) {
    super("the idempotency key " + key + " was used for a different request on this device");
  }

  @Override
  public Reason reason() {
    return Reason.KEY_REUSED;
  }
}
