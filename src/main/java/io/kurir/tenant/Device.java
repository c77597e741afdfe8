package io.kurir.tenant;

import java.time.Instant;

/**
 * One linked messaging number of a license, with the credential each API family identifies it by:
 * the Eco {@code key}, the multi-agent {@code device-key} and the CRM {@code deviceId}.
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
    Instant createdAt) {}
