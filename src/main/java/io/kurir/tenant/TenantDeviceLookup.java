package io.kurir.tenant;

import io.kurir.driver.DeviceLookup;
import io.kurir.driver.DeviceRef;
import java.util.List;
import java.util.Optional;

/**
 * The devices a driver's routes may find, over the tenants: as {@link DeviceRef}s, without the
 * devices' API credentials. Thread-safe (each call reads the store).
 */
public final class TenantDeviceLookup implements DeviceLookup {
  private final Tenants tenants;

  public TenantDeviceLookup(Tenants tenants) {
    this.tenants = tenants;
  }

  @Override
  public Optional<DeviceRef> byId(long id) {
    try {
      return Optional.of(tenants.device(id).ref());
    } catch (TenantException e) {
      return Optional.empty();
    }
  }

  @Override
  public Optional<DeviceRef> byNumber(String e164) {
    return tenants.devices().stream()
        .filter(d -> d.number().equals(e164))
        .findFirst()
        .map(Device::ref);
  }

  @Override
  public List<DeviceRef> ofDriver(String driver) {
    return tenants.devices().stream()
        .filter(d -> d.driver().equals(driver))
        .map(Device::ref)
        .toList();
  }

  @Override
  public List<DeviceRef> withConfig(String driver, String key, String value) {
    return ofDriver(driver).stream()
        .filter(d -> value.equals(tenants.deviceConfig(d.id()).get(key)))
        .toList();
  }
}
