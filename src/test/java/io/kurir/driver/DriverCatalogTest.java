package io.kurir.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kurir.driver.sandbox.SandboxDriverFactory;
import io.kurir.driver.standard.StandardDrivers;
import io.kurir.phone.PhoneNumbers;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.tenant.Device;
import io.kurir.tenant.DeviceDrivers;
import io.kurir.tenant.Tenants;
import io.kurir.testing.ScriptedDriver;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registry of drivers, and the per-device session store each driver is given: which drivers
 * exist and which is the default, the full names of their settings, and state kept per device and
 * driver across restarts.
 */
class DriverCatalogTest {
  @TempDir Path dir;

  private static ScriptedDriver.Factory scripted(String name) {
    return new ScriptedDriver.Factory(new ScriptedDriver(name, false));
  }

  @Test
  void theStandardCatalogHasTheSandboxFirstAndWithAddsOrReplaces() {
    DriverCatalog standard = StandardDrivers.catalog();
    assertThat(standard.names()).containsExactly("sandbox", "cloud", "waha", "gowa");
    assertThat(standard.defaultName()).isEqualTo("sandbox");
    assertThat(standard.settings())
        .extracting(DriverCatalog.QualifiedSetting::fullKey)
        .contains(
            "drivers.sandbox.api",
            "drivers.sandbox.delivery-after",
            "drivers.sandbox.pacing.min-gap",
            "drivers.sandbox.pacing.jitter",
            "drivers.cloud.graph-url",
            "drivers.cloud.graph-version",
            "drivers.cloud.pacing.min-gap",
            "drivers.waha.url",
            "drivers.waha.api-key",
            "drivers.waha.pacing.min-gap",
            "drivers.waha.pacing.jitter",
            "drivers.gowa.url",
            "drivers.gowa.basic-auth",
            "drivers.gowa.webhook-secret",
            "drivers.gowa.pacing.min-gap");

    DriverCatalog more = standard.with(scripted("vault"));
    assertThat(more.names()).containsExactly("sandbox", "cloud", "waha", "gowa", "vault");
    assertThat(more.defaultName()).as("still the first").isEqualTo("sandbox");

    SandboxDriverFactory replacement = new SandboxDriverFactory();
    DriverCatalog replaced = more.with(replacement);
    assertThat(replaced.names()).containsExactly("sandbox", "cloud", "waha", "gowa", "vault");
    assertThat(replaced.find("sandbox")).containsSame(replacement);
  }

  @Test
  void twoDriversOfOneNameOrNoneAtAllAreRefused() {
    assertThatThrownBy(() -> new DriverCatalog(List.of(scripted("x"), scripted("x"))))
        .hasMessageContaining("x");
    assertThatThrownBy(() -> new DriverCatalog(List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void everyDriverTakesTheCommonPacingKeysBesideItsOwn() {
    DriverCatalog catalog =
        new DriverCatalog(
            List.of(
                new ScriptedDriver.Factory(
                    new ScriptedDriver("vault", false), ConfigKey.optional("label", "a name"))));
    assertThat(
            catalog.configure(
                "vault",
                Map.of(),
                Map.of("label", "x", "pacing.min-gap", "2s", "pacing.jitter", "0ms")))
        .isEqualTo(Map.of("label", "x", "pacing.min-gap", "2s", "pacing.jitter", "0ms"));
    assertThat(catalog.isSecret("vault", "pacing.min-gap")).isFalse();
    assertThatThrownBy(() -> catalog.configure("nobody", Map.of(), Map.of()))
        .hasMessageContaining("'nobody'");
  }

  @Test
  void aDriversSessionStateIsKeptPerDeviceAndDriverAcrossRestarts() {
    String url = "jdbc:sqlite:" + dir.resolve("k.db");
    Clock clock = Clock.systemUTC();
    Device device;
    try (Database db =
        io.kurir.testing.TestDatabases.open(io.kurir.store.DatabaseLocation.of(url))) {
      Tenants tenants =
          new Tenants(
              db,
              new IdGenerator(clock, 0),
              clock,
              ZoneId.of("Asia/Jakarta"),
              new PhoneNumbers("ID"),
              DeviceDrivers.of(StandardDrivers.catalog()));
      var partner = tenants.createPartner("P", "");
      var license = tenants.createLicense(partner.id(), "L", "", null, List.of());
      device = tenants.createDevice(license.id(), "+6281100007951", "sandbox");
      DeviceSessionStore waha = new DeviceSessionStore(db, clock, "waha");
      DeviceSessionStore cloud = new DeviceSessionStore(db, clock, "cloud");
      waha.put(device.id(), "session", "kurir-1");
      waha.put(device.id(), "session", "kurir-2");
      waha.put(device.id(), "pairing", "in progress");
      cloud.put(device.id(), "session", "other");
      waha.remove(device.id(), "pairing");
    }
    try (Database db =
        io.kurir.testing.TestDatabases.open(io.kurir.store.DatabaseLocation.of(url))) {
      DeviceSessionStore waha = new DeviceSessionStore(db, clock, "waha");
      assertThat(waha.get(device.id(), "session")).contains("kurir-2");
      assertThat(waha.get(device.id(), "pairing")).isEmpty();
      assertThat(new DeviceSessionStore(db, clock, "cloud").get(device.id(), "session"))
          .contains("other");
      assertThat(waha.get(device.id() + 1, "session")).isEmpty();
    }
  }
}
