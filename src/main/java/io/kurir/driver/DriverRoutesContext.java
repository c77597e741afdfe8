package io.kurir.driver;

import io.kurir.phone.PhoneNumbers;
import io.kurir.time.Timestamps;

/**
 * What a driver's own HTTP routes may use: a narrow lookup of devices, and numbers and times as the
 * rest of the gateway reads and writes them. Guards are not the routes' business: a route declares
 * its {@link DriverRoute.Access}, and the HTTP layer applies the admin token.
 */
public record DriverRoutesContext(
    DeviceLookup devices, PhoneNumbers phones, Timestamps timestamps) {}
