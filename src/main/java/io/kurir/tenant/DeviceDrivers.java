package io.kurir.tenant;

import java.util.Map;
import java.util.Set;

/**
 * What the tenant rules need to know of drivers when a device is created or configured: which
 * exist, which is the default, and which configuration each accepts. Implemented by the driver
 * catalog; the core names no driver.
 */
public interface DeviceDrivers {

  /** Every driver a device may name. */
  Set<String> names();

  /** The driver of a device created without one. */
  String defaultName();

  /**
   * The configuration a device of {@code driver} would have after {@code changes} are applied to
   * {@code current} (an empty value removes a key); throws {@link IllegalArgumentException} naming
   * the key when a key is unknown, a value is not valid or a required key is missing.
   */
  Map<String, String> configure(
      String driver, Map<String, String> current, Map<String, String> changes);

  /** Whether {@code key} of {@code driver}'s configuration is a secret, never shown. */
  boolean isSecret(String driver, String key);
}
