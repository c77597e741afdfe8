package io.kurir.store;

/**
 * A stored secret sealed with another key than the running gateway's: the key was rotated, or
 * another node sealed with its own, while this gateway ran. Nothing a retry or the caller can fix,
 * so the API answers 503 {@code secrets_key_changed} and the log says it once ({@link #first}), not
 * a 500 and a stack trace per request and per sender loop.
 */
public final class SecretsKeyChanged extends IllegalStateException {
  private final boolean first;

  SecretsKeyChanged(String message, boolean first) {
    super(message);
    this.first = first;
  }

  /** Whether this is the first time this gateway's key met such a value: log it then only. */
  public boolean first() {
    return first;
  }

  /** No stack trace: the message says all, and one is made per request. */
  @Override
  public synchronized Throwable fillInStackTrace() {
    return this;
  }
}
