package io.kurir.limit;

import io.kurir.core.KurirException;
import java.time.Duration;

/**
 * A request over a caller's rate limit. Each API family answers it with HTTP 429 {@code
 * rate_limited} in its own error style and a {@code Retry-After} header.
 */
public final class RateLimited extends KurirException {
  /** Its one reason. */
  public enum Reason implements KurirException.Reason {
    RATE_LIMITED
  }

  private final Duration retryAfter;

  public RateLimited(String detail, Duration retryAfter) {
    super(detail);
    this.retryAfter = retryAfter;
  }

  /** How long until the caller's next request would be admitted. */
  public Duration retryAfter() {
    return retryAfter;
  }

  /**
   * {@link #retryAfter} in whole seconds, rounded up, at least 1: the {@code Retry-After} value.
   */
  @Override
  public long retryAfterSeconds() {
    long millis = retryAfter.toMillis();
    return Math.max(1, Math.ceilDiv(millis, 1000));
  }

  @Override
  public Reason reason() {
    return Reason.RATE_LIMITED;
  }
}
