package io.kurir.tenant;

import io.kurir.driver.DeviceRef;
import java.time.Instant;

/**
 * One linked messaging number of a license, with the credential each API family identifies it by:
 * the Eco {@code key}, the multi-agent {@code device-key} and the CRM {@code deviceId}.
 *
 * <p>{@code deviceKey} and {@code crmDeviceId} are stored as hashes: a device read back carries
 * {@code sha256:…} there, and only the device answered by creation or rotation carries them
 * readable ({@link Credentials#shown}). {@code ecoKey} is kept encrypted and always readable (the
 * Partner API's {@code get_key} returns it).
 */
public record Device(
    long id,
    long licenseId,
    String number,
    String ecoKey,
    String deviceKey,
    String crmDeviceId,
    String driver,
    boolean disabled,
    Instant createdAt) {

  /** The device as its driver sees it: id, number and driver name, no credentials. */
  public DeviceRef ref() {
    return new DeviceRef(id, number, driver);
  }
}
