package io.kurir.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.driver.standard.StandardDrivers;
import io.kurir.phone.PhoneNumbers;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.tenant.Device;
import io.kurir.tenant.DeviceDrivers;
import io.kurir.tenant.TenantException;
import io.kurir.tenant.TenantViews;
import io.kurir.tenant.Tenants;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.ScriptedDriver;
import io.kurir.testing.TestDatabases;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.time.Timestamps;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A driver's secret configuration keys: stored, given to the driver through its context (a change
 * at once), never shown by the tenants' views, the Admin API or a listing; required keys are
 * enforced on create and on change, naming the key.
 */
class DeviceConfigSecretsTest {
  static final ZoneId ZONE = ZoneId.of("Asia/Jakarta");
  static final ConfigKey TOKEN = ConfigKey.secret("access-token", "the network's API token");
  static final ConfigKey ACCOUNT = ConfigKey.required("account-id", "the account on the network");
  static final ConfigKey LABEL = ConfigKey.optional("label", "a name for people");

  @TempDir Path dir;

  /** Tenants and loaded drivers over one database, wired as the gateway wires them. */
  private record Core(Database db, Tenants tenants, Drivers drivers) implements AutoCloseable {
    static Core of(Path dir, DriverCatalog catalog) {
      Clock clock = Clock.systemUTC();
      Database db = TestDatabases.open(TestDatabases.at(dir.resolve("k.db")));
      Tenants tenants =
          new Tenants(
              db,
              new IdGenerator(clock, 0),
              clock,
              ZONE,
              new PhoneNumbers("ID"),
              DeviceDrivers.of(catalog));
      Drivers drivers =
          Drivers.load(
              catalog,
              name -> new DriverSettings(name, Map.of()),
              id -> new DeviceConfig(tenants.deviceConfig(id)),
              db,
              clock,
              dir.resolve("data"),
              java.util.Optional.empty(),
              new MemoryContactDirectory());
      return new Core(db, tenants, drivers);
    }

    Device newDevice(String number, Map<String, String> config) {
      var partner = tenants.createPartner("P " + number, "");
      var license = tenants.createLicense(partner.id(), "L", "", null, List.of());
      return tenants.createDevice(license.id(), number, "vault", config);
    }

    @Override
    public void close() {
      drivers.close();
      db.close();
    }
  }

  private static DriverCatalog catalogWith(ScriptedDriver driver) {
    return new DriverCatalog(List.of(new ScriptedDriver.Factory(driver, TOKEN, ACCOUNT, LABEL)));
  }

  @Test
  void aSecretIsStoredAndGivenToTheDriverButNeverShown() {
    ScriptedDriver driver = new ScriptedDriver("vault", false);
    try (Core core = Core.of(dir, catalogWith(driver))) {
      Device device =
          core.newDevice(
              "+6281100007801",
              Map.of("access-token", "tok-SECRET-1", "account-id", "acc-1", "label", "shop"));

      assertThat(core.tenants().deviceConfig(device.id()))
          .isEqualTo(
              Map.of("access-token", "tok-SECRET-1", "account-id", "acc-1", "label", "shop"));
      assertThat(driver.configOf(device.id()).require("access-token")).isEqualTo("tok-SECRET-1");

      Map<String, String> shown = core.tenants().deviceConfigShown(device);
      assertThat(shown)
          .isEqualTo(
              Map.of("access-token", Tenants.SECRET_SHOWN, "account-id", "acc-1", "label", "shop"));
      Object viewed =
          new TenantViews(new Timestamps(ZONE)).of(device, core.tenants()).get("config");
      assertThat(viewed).isEqualTo(shown);
      assertThat(String.valueOf(viewed)).doesNotContain("tok-SECRET-1");

      // An expired token is replaced without a restart: the driver reads it when it needs it.
      core.tenants().configureDevice(device.id(), Map.of("access-token", "tok-SECRET-2"));
      assertThat(driver.configOf(device.id()).require("access-token")).isEqualTo("tok-SECRET-2");
      assertThat(core.tenants().deviceConfigShown(device).get("access-token"))
          .isEqualTo(Tenants.SECRET_SHOWN);
    }
  }

  @Test
  void requiredKeysAreEnforcedOnCreateAndOnChange() {
    ScriptedDriver driver = new ScriptedDriver("vault", false);
    try (Core core = Core.of(dir, catalogWith(driver))) {
      assertThatThrownBy(() -> core.newDevice("+6281100007802", Map.of("account-id", "acc-2")))
          .isInstanceOf(TenantException.class)
          .hasMessageContaining("'access-token'")
          .hasMessageContaining("the network's API token");
      assertThatThrownBy(() -> core.newDevice("+6281100007802", Map.of("access-token", "t")))
          .hasMessageContaining("'account-id'");
      assertThat(core.tenants().devices()).as("nothing created").isEmpty();

      Device device =
          core.newDevice("+6281100007802", Map.of("access-token", "tok", "account-id", "acc-2"));
      assertThatThrownBy(
              () -> core.tenants().configureDevice(device.id(), Map.of("access-token", "")))
          .isInstanceOf(TenantException.class)
          .hasMessageContaining("'access-token'");
      assertThatThrownBy(
              () -> core.tenants().configureDevice(device.id(), Map.of("acces-token", "new")))
          .hasMessageContaining("'acces-token'")
          .hasMessageContaining("access-token, account-id, label");
      assertThat(core.tenants().deviceConfig(device.id()))
          .as("unchanged")
          .isEqualTo(Map.of("access-token", "tok", "account-id", "acc-2"));

      core.tenants().configureDevice(device.id(), Map.of("label", "front desk"));
      core.tenants().configureDevice(device.id(), Map.of("label", ""));
      assertThat(core.tenants().deviceConfig(device.id()))
          .isEqualTo(Map.of("access-token", "tok", "account-id", "acc-2"));
    }
  }

  @Test
  void theConfigurationOfADriverNoLongerLoadedIsShownAsSecret() {
    ScriptedDriver driver = new ScriptedDriver("vault", false);
    Device device;
    try (Core core = Core.of(dir, catalogWith(driver))) {
      device =
          core.newDevice(
              "+6281100007803", Map.of("access-token", "tok", "account-id", "acc-3", "label", "x"));
    }
    // Opened by a gateway that does not load the driver: only the sandbox is known.
    try (Database db = TestDatabases.open(TestDatabases.at(dir.resolve("k.db")))) {
      Clock clock = Clock.systemUTC();
      Tenants without =
          new Tenants(
              db,
              new IdGenerator(clock, 0),
              clock,
              ZONE,
              new PhoneNumbers("ID"),
              DeviceDrivers.of(StandardDrivers.catalog()));
      assertThat(without.deviceConfigShown(device))
          .as("whether a key was secret is not known any more")
          .containsOnlyKeys("access-token", "account-id", "label")
          .allSatisfy((k, v) -> assertThat(v).isEqualTo(Tenants.SECRET_SHOWN));
    }
  }

  @Test
  void theAdminApiNeverShowsASecretAndTheDriverSendsWithTheCurrentOne() throws Exception {
    ObjectMapper json = new ObjectMapper();
    String[] auth = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};
    ScriptedDriver driver = new ScriptedDriver("vault", false);
    try (TestGateway kurir =
        TestGateway.start(
            dir, Clock.systemUTC(), new ScriptedDriver.Factory(driver, TOKEN, ACCOUNT, LABEL))) {
      var partner = kurir.gateway().tenants().createPartner("P", "");
      var license = kurir.gateway().tenants().createLicense(partner.id(), "L", "", null, List.of());
      Reply missing =
          kurir.post(
              "/admin/devices",
              "{\"license\":\""
                  + license.id()
                  + "\",\"number\":\"+6281100007804\",\"driver\":\"vault\","
                  + "\"config\":{\"account-id\":\"acc-4\"}}",
              "application/json",
              auth);
      assertThat(missing.status()).isEqualTo(400);
      assertThat(missing.body()).contains("access-token");

      Reply created =
          kurir.post(
              "/admin/devices",
              "{\"license\":\""
                  + license.id()
                  + "\",\"number\":\"+6281100007804\",\"driver\":\"vault\","
                  + "\"config\":{\"access-token\":\"tok-SECRET-A\",\"account-id\":\"acc-4\"}}",
              "application/json",
              auth);
      assertThat(created.status()).as(created.body()).isEqualTo(201);
      assertThat(created.body()).doesNotContain("tok-SECRET-A");
      JsonNode device = json.readTree(created.body());
      assertThat(device.get("config").get("access-token").asText()).isEqualTo("(secret)");
      assertThat(device.get("config").get("account-id").asText()).isEqualTo("acc-4");
      String id = device.get("id").asText();

      Reply patched =
          kurir.send(
              HttpRequest.newBuilder(URI.create(kurir.url("/admin/devices/" + id)))
                  .header("Content-Type", "application/json")
                  .header(auth[0], auth[1])
                  .method(
                      "PATCH",
                      HttpRequest.BodyPublishers.ofString(
                          "{\"config\":{\"access-token\":\"tok-SECRET-B\"}}"))
                  .build());
      assertThat(patched.status()).as(patched.body()).isEqualTo(200);
      assertThat(patched.body()).doesNotContain("tok-SECRET-B").contains("(secret)");
      Reply list = kurir.get("/admin/devices", auth);
      assertThat(list.body()).doesNotContain("tok-SECRET").contains("(secret)");

      String to = Numbers.fresh();
      Reply sent =
          kurir.postJson(
              "/api/async_send_message",
              "{\"key\":\""
                  + device.get("key").asText()
                  + "\",\"phone_no\":\""
                  + to
                  + "\",\"message\":\"hi\"}");
      assertThat(sent.body()).matches("\\d+");
      Eventually.until("sent", () -> driver.sends().size() == 1);
      assertThat(driver.sends().getFirst().config().require("access-token"))
          .as("the driver is given the token, the latest one")
          .isEqualTo("tok-SECRET-B");
    }
  }
}
