package io.kurir.core;

/**
 * The root of every refusal the core makes: a tenant's credential that may not be used, a send or a
 * schedule the core will not accept, a caller over its rate limit, a reused idempotency key. Each
 * subclass lives in the package that throws it and names why with a {@link Reason}, a stable value
 * (its own enum) that the HTTP layer's per-family catalogues map to a status and the family's token
 * or result string: the core never formats an HTTP reply, and no handler translates a refusal.
 *
 * <p>Not for faults (a lost database, a bug): those stay ordinary exceptions and answer 500.
 */
public abstract class KurirException extends RuntimeException {

  /**
   * Why the core refused: implemented by each subclass's enum of reasons, so that a catalogue can
   * be keyed by the reasons of every subclass at once. Its {@link #name} never changes meaning.
   */
  public interface Reason {
    /** The reason's constant name, e.g. {@code EXPIRED}. */
    String name();
  }

  protected KurirException(String message) {
    super(message);
  }

  /**
   * A refusal without a stack trace: for refusals that are a caller's everyday mistake and would
   * only cost the trace's filling-in.
   */
  protected KurirException(String message, boolean withStackTrace) {
    super(message, null, false, withStackTrace);
  }

  /** Why the core refused. */
  public abstract Reason reason();

  /**
   * When a retry may succeed, in whole seconds, for a {@code Retry-After}; 0 when it does not say.
   */
  public long retryAfterSeconds() {
    return 0;
  }
}
