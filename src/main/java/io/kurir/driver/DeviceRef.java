package io.kurir.driver;

/**
 * A device as a driver sees it: what it sends for, asks about and reports on. It holds none of the
 * device's API credentials (the API families' keys stay with the core); a device's driver
 * configuration, secrets included, is read through {@link DriverContext#configOf} when it is
 * needed, so that a changed token applies at once. Immutable.
 *
 * @param id the device's id, the key of everything a driver keeps and reports
 * @param number its phone number in E.164 ({@code +62811…})
 * @param driver the name of its driver ({@link Driver#name})
 */
public record DeviceRef(long id, String number, String driver) {}
