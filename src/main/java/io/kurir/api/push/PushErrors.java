package io.kurir.api.push;

import io.kurir.api.ErrorCatalogue;

/** The push families' answers to the core's refusals, in each family's error style. */
final class PushErrors {
  private PushErrors() {}

  /**
   * A push key whose license expired (403 {@code license_expired}) and a refused send naming the
   * family's text field.
   */
  static ErrorCatalogue catalogue(String textField) {
    return ErrorCatalogue.builder().licenseExpired().sendRefusals(textField).build();
  }
}
