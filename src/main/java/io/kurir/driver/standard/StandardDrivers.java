package io.kurir.driver.standard;

import io.kurir.driver.DriverCatalog;
import io.kurir.driver.cloud.CloudDriverFactory;
import io.kurir.driver.gowa.GowaDriverFactory;
import io.kurir.driver.sandbox.SandboxDriverFactory;
import io.kurir.driver.waha.WahaDriverFactory;
import java.util.List;

/**
 * The drivers that ship with Kurir. The driver interface's package ({@link DriverCatalog}) names
 * none of its implementations; this package names them all, for the settings loader (each driver's
 * section, {@code drivers.<name>.…}) and the gateway's wiring. The first is the default of a device
 * created without one.
 */
public final class StandardDrivers {
  private StandardDrivers() {}

  /** The sandbox, the Cloud API, the WAHA engine and GOWA, in that order. */
  public static DriverCatalog catalog() {
    return new DriverCatalog(
        List.of(
            new SandboxDriverFactory(),
            new CloudDriverFactory(),
            new WahaDriverFactory(),
            new GowaDriverFactory()));
  }
}
