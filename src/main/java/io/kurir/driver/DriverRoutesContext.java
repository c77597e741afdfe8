package io.kurir.driver;

import io.kurir.phone.PhoneNumbers;
import io.kurir.tenant.Tenants;
import io.kurir.time.Timestamps;
import java.util.Optional;

/**
 * What a driver's own HTTP routes may use: the tenants (to find a device), numbers and times as the
 * rest of the gateway reads and writes them, and the admin token that guards control routes.
 *
 * @param adminToken the operators' token, when one is set
 * @param demo whether the gateway runs as {@code ./kurir demo}
 */
public record DriverRoutesContext(
    Tenants tenants,
    PhoneNumbers phones,
    Timestamps timestamps,
    Optional<String> adminToken,
    boolean demo) {}
