package io.kurir;

import io.kurir.driver.DriverCatalog;

/**
 * The drivers that ship with Kurir, for the wiring in this package ({@code Gateway}, the admin
 * commands): the list itself is {@link io.kurir.driver.standard.StandardDrivers}, where the
 * settings loader reads it too without importing this package (it once did: a package cycle).
 */
public final class StandardDrivers {
  private StandardDrivers() {}

  /** {@link io.kurir.driver.standard.StandardDrivers#catalog()}. */
  public static DriverCatalog catalog() {
    return io.kurir.driver.standard.StandardDrivers.catalog();
  }
}
