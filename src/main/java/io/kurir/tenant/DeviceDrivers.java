package io.kurir.tenant;

import io.kurir.driver.DriverCatalog;
import java.util.Map;
import java.util.Set;

/**
 * What the tenant rules need to know of drivers when a device is created or configured: which
 * exist, which is the default, and which configuration each accepts. Answered by the driver catalog
 * ({@link #of}); the core names no driver.
 */
public interface DeviceDrivers {

  /** What {@code catalog} answers (the catalog itself knows nothing of tenants). */
  static DeviceDrivers of(DriverCatalog catalog) {
    return new DeviceDrivers() {
      @Override
      public java.util.Set<String> names() {
        return catalog.names();
      }

      @Override
      public String defaultName() {
        return catalog.defaultName();
      }

      @Override
      public Map<String, String> configure(
          String driver, Map<String, String> current, Map<String, String> changes) {
        return catalog.configure(driver, current, changes);
      }

      @Override
      public boolean isSecret(String driver, String key) {
        return catalog.isSecret(driver, key);
      }

      @Override
      public java.util.List<String> uniqueConfigKeys(String driver) {
        return catalog.uniqueConfigKeys(driver);
      }
    };
  }

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

  /** The keys of {@code driver}'s configuration no two of its devices may share a value of. */
  default java.util.List<String> uniqueConfigKeys(String driver) {
    return java.util.List.of();
  }
}
