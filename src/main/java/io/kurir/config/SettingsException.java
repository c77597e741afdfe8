package io.kurir.config;

/** A setting is missing, unknown or has a value that cannot be used; the message says which. */
public final class SettingsException extends RuntimeException {
  public SettingsException(String message) {
    super(message);
  }
}
