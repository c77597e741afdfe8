package io.kurir.driver;

import io.kurir.tenant.Device;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** The drivers of this gateway by name. */
public final class Drivers implements AutoCloseable {
  private final Map<String, Driver> byName = new LinkedHashMap<>();

  public Drivers(Driver... drivers) {
    for (Driver d : drivers) {
      byName.put(d.name(), d);
    }
  }

  public Set<String> names() {
    return byName.keySet();
  }

  public Driver of(Device device) {
    Driver driver = byName.get(device.driver());
    if (driver == null) {
      throw new IllegalStateException(
          "device " + device.id() + " uses driver '" + device.driver() + "', which is not loaded");
    }
    return driver;
  }

  public void start(DriverListener listener) {
    byName.values().forEach(d -> d.start(listener));
  }

  @Override
  public void close() {
    byName.values().forEach(Driver::close);
  }
}
