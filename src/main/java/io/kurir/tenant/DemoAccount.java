package io.kurir.tenant;

import java.util.List;

/**
 * The demo partner, license and device that {@code ./kurir demo} creates, with fixed credentials
 * printed at start so that copy-pasted commands work. Seeding is idempotent.
 */
public final class DemoAccount {
  public static final String PARTNER_USER = "demo-partner";
  public static final String PARTNER_SECRET = "demo-partner-secret";
  public static final String LICENSE = "DEMO-LICENSE";
  public static final String DEVICE_NUMBER = "+6281100000001";
  public static final String KEY = "demo-key-kurir-0000000000000001";
  public static final String DEVICE_KEY = "demo-device-key-kurir-000000001";
  public static final String CRM_DEVICE_ID = "demo-crm-device-1";

  /** A second demo device, left unpaired, so that a person can watch one pair by QR code. */
  public static final String SECOND_NUMBER = "+6281100000002";

  public static final String SECOND_KEY = "demo-key-kurir-0000000000000002";

  private DemoAccount() {}

  /** Creates whatever part of the demo account is missing and returns the demo device. */
  public static Device seed(Tenants tenants) {
    Partner partner =
        tenants.partners().stream()
            .filter(p -> p.basicUser().equals(PARTNER_USER))
            .findFirst()
            .orElseGet(
                () ->
                    tenants.createPartner(
                        "Demo partner", "demo@kurir.local", PARTNER_USER, PARTNER_SECRET));
    License license =
        tenants
            .licenseByCode(LICENSE)
            .orElseGet(
                () ->
                    tenants.createLicense(
                        partner.id(),
                        "Demo customer",
                        "demo@kurir.local",
                        null,
                        List.of(),
                        LICENSE));
    // The demo device first: "the license's first device" (get_key, scripts) is the paired one.
    // Found by number, not key: an operator trying the console may have rotated its key.
    Device demo =
        byNumber(tenants, DEVICE_NUMBER)
            .orElseGet(
                () ->
                    tenants.createDevice(
                        license.id(),
                        DEVICE_NUMBER,
                        "sandbox",
                        java.util.Map.of(),
                        KEY,
                        DEVICE_KEY,
                        CRM_DEVICE_ID));
    if (byNumber(tenants, SECOND_NUMBER).isEmpty()) {
      tenants.createDevice(
          license.id(),
          SECOND_NUMBER,
          "sandbox",
          java.util.Map.of(),
          SECOND_KEY,
          "demo-device-key-kurir-000000002",
          "demo-crm-device-2");
    }
    return demo;
  }

  /** The paired demo device, once seeded, with its keys as they are now. */
  public static Device first(Tenants tenants) {
    return byNumber(tenants, DEVICE_NUMBER).orElseThrow();
  }

  /** The second demo device, once seeded, with its keys as they are now. */
  public static Device second(Tenants tenants) {
    return byNumber(tenants, SECOND_NUMBER).orElseThrow();
  }

  /** The demo partner, once seeded, with its secret as it is now. */
  public static Partner partner(Tenants tenants) {
    return tenants.partners().stream()
        .filter(p -> p.basicUser().equals(PARTNER_USER))
        .findFirst()
        .orElseThrow();
  }

  private static java.util.Optional<Device> byNumber(Tenants tenants, String number) {
    return tenants.devices().stream().filter(d -> d.number().equals(number)).findFirst();
  }
}
