package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeWaha;
import io.kurir.testing.TestGateway.Reply;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sessions on the engine: adopted with {@code session=<name>} (its other webhooks kept), left as
 * they are by a restart of Kurir (no second create, no update), refused with a clear error when the
 * name is not one the engine takes.
 */
class WahaSessionsTest {
  @TempDir Path dir;

  @Test
  void anExistingSessionIsAdoptedWithItsOtherWebhooksKept() {
    try (WahaFixture f = new WahaFixture(dir)) {
      FakeWaha.Session shop = f.waha.existingSession("shop", "6281100008201");
      shop.config().withArray("webhooks").addObject().put("url", "http://127.0.0.1:9/crm");
      Device device = f.newDevice("+6281100008201", Map.of("session", "shop"));
      Eventually.until(
          "adopted", () -> f.waha.session("shop").config().path("webhooks").size() == 2);
      assertThat(f.waha.session("shop").config().path("webhooks").path(0).path("url").asText())
          .isEqualTo("http://127.0.0.1:9/crm");
      assertThat(f.waha.sessionNames()).containsExactly("shop");
      Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));
      assertThat(f.eco(device, "/api/generate_qr")).as("paired already").isEqualTo("success");
    }
  }

  @Test
  void aRestartOfKurirFindsTheSessionsOnTheEngineAndLeavesThemBe() {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = f.newDevice("+6281100008211", Map.of());
      String name = "kurir-" + device.id();
      f.awaitSession(name, "SCAN_QR_CODE");
      f.waha.scan(name, "6281100008211");
      Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));
      long creates = count(f, "POST /api/sessions");

      f.kurir.restart();
      Eventually.until("attached again", () -> count(f, "GET /api/sessions/" + name) >= 2);
      assertThat(count(f, "POST /api/sessions")).as("no second create").isEqualTo(creates);
      assertThat(count(f, "PUT /api/sessions/" + name)).as("nothing to update").isZero();
      Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));
      long id = f.sendAsync(device, "6281100008219", "setelah restart");
      f.awaitState(device, id, MessageState.SENT);
      // Events still reach Kurir with the same key.
      assertThat(f.waha.incoming(name, "R1", "6281100008219", "halo")).isEqualTo(200);
    }
  }

  @Test
  void aSessionNameTheEngineWouldRefuseIsRefusedAtCreation() {
    try (WahaFixture f = new WahaFixture(dir)) {
      var tenants = f.kurir.gateway().tenants();
      long license =
          tenants
              .createLicense(
                  tenants.createPartner("P", "").id(), "L", "", null, java.util.List.of())
              .id();
      Reply r =
          f.kurir.post(
              "/admin/devices",
              "{\"license\":\""
                  + license
                  + "\",\"number\":\"+6281100008221\",\"driver\":\"waha\","
                  + "\"config\":{\"session\":\"a b/c\"}}",
              "application/json",
              "Authorization",
              "Bearer " + io.kurir.testing.TestGateway.ADMIN_TOKEN);
      assertThat(r.body()).contains("is not a session name");
      assertThat(r.status()).as(r.body()).isEqualTo(400);
    }
  }

  @Test
  void aLinkCodeIsTheAlternativeToTheQrCode() {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = f.newDevice("+6281100008231", Map.of());
      String name = "kurir-" + device.id();
      f.awaitSession(name, "SCAN_QR_CODE");
      Reply code = linkCode(f, device);
      assertThat(code.status()).as(code.body()).isEqualTo(200);
      assertThat(code.body()).contains("\"code\":\"ABCD-EFGH\"");
      assertThat(f.waha.codeRequestedFor()).isEqualTo("6281100008231");

      f.waha.scan(name, "6281100008231");
      Eventually.until("online", () -> f.eco(device, "/api/qr_status").equals("online"));
      Reply paired = linkCode(f, device);
      assertThat(paired.status()).isEqualTo(409);
      assertThat(paired.body()).contains("already_paired");
    }
  }

  @Test
  void aDeviceMadeByAnotherProcessGetsItsSessionWhenItsQrCodeIsAskedFor() throws Exception {
    try (WahaFixture f = new WahaFixture(dir)) {
      // As ./kurir admin does it: its own Tenants on the database, no gateway told.
      var clock = java.time.Clock.systemUTC();
      var tenants =
          new io.kurir.tenant.Tenants(
              f.kurir.gateway().database(),
              new io.kurir.store.IdGenerator(clock, 7),
              clock,
              java.time.ZoneId.of("Asia/Jakarta"),
              new io.kurir.phone.PhoneNumbers("ID"),
              io.kurir.tenant.DeviceDrivers.of(io.kurir.driver.standard.StandardDrivers.catalog()));
      var license =
          tenants.createLicense(
              tenants.createPartner("Other", "").id(), "L", "", null, java.util.List.of());
      Device device = tenants.createDevice(license.id(), "+6281100008241", "waha", Map.of());
      assertThat(f.waha.session("kurir-" + device.id())).isNull();

      String qr = WahaLifecycleTest.decode(f.eco(device, "/api/generate_qr"));
      assertThat(qr).isEqualTo(f.waha.session("kurir-" + device.id()).qr());
    }
  }

  private static Reply linkCode(WahaFixture f, Device device) {
    return f.kurir.post(
        "/admin/devices/" + device.id() + "/link-code",
        "",
        "application/json",
        "Authorization",
        "Bearer " + io.kurir.testing.TestGateway.ADMIN_TOKEN);
  }

  private static long count(WahaFixture f, String call) {
    return f.waha.calls().stream().filter(call::equals).count();
  }
}
