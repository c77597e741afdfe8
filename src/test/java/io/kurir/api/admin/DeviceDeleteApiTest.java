package io.kurir.api.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.TestTables;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code DELETE /admin/devices/{id}} on a gateway with the sandbox: the device's key answers {@code
 * invalid_key} at once, its queue ends {@code failed} ({@code device_deleted}) and nothing of it is
 * sent afterwards, its history stays readable by the operator, and it is gone from the Admin API.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeviceDeleteApiTest {
  private static final String[] AUTH = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};

  TestGateway kurir;

  @BeforeAll
  void start(@TempDir Path dir) {
    kurir = TestGateway.start(dir);
  }

  @AfterAll
  void stop() {
    kurir.close();
  }

  private Reply delete(String id) {
    return kurir.send(
        HttpRequest.newBuilder(URI.create(kurir.url("/admin/devices/" + id)))
            .header(AUTH[0], AUTH[1])
            .DELETE()
            .build());
  }

  @Test
  void aDeletedDeviceEndsItsQueueAndItsKeyAnswersInvalidKey() throws Exception {
    Device device = kurir.newDevice("+6281100007301", true);
    String delivered = Numbers.fresh();
    assertThat(kurir.sendAsync(device, delivered, "before").body()).matches("\\d+");
    Eventually.until("the first delivered", () -> kurir.sandbox().inbox(delivered).size() == 1);
    kurir.sandbox().setDeviceOnline(device.id(), false); // what follows waits in the queue
    String waiting = Numbers.fresh();
    String queued = kurir.sendAsync(device, waiting, "queued").body();
    assertThat(queued).matches("\\d+");

    Reply deleted = delete(Long.toString(device.id()));
    assertThat(deleted.status()).as(deleted.body()).isEqualTo(204);

    assertThat(kurir.sendAsync(device, Numbers.fresh(), "after").body()).isEqualTo("invalid_key");
    Reply status =
        kurir.postJson(
            "/api/status_msg_id",
            "{\"key\":\"" + device.ecoKey() + "\",\"msg_id\":\"" + queued + "\"}");
    assertThat(status.body()).isEqualTo("invalid_key");
    Reply history = kurir.get("/admin/messages/" + queued, AUTH);
    assertThat(history.status()).as("the operator still reads its history").isEqualTo(200);
    assertThat(history.body()).contains("\"state\":\"failed\"").contains("device_deleted");

    kurir.sandbox().setDeviceOnline(device.id(), true);
    kurir.gateway().messages().connectionChanged(device.id(), true);
    assertThat(kurir.get("/admin/devices", AUTH).body()).doesNotContain(device.ecoKey());
    // Certain without waiting: the delete answered once the device's sender had stopped, and the
    // queued message is final (failed, read above), never handed to the sandbox: nothing is left
    // that could reach the inbox.
    assertThat(kurir.sandbox().inbox(waiting)).as("nothing sent after the delete").isEmpty();

    Reply again = delete(Long.toString(device.id()));
    assertThat(again.status()).isEqualTo(404);
    assertThat(again.body()).contains("\"error\":\"not_found\"");
    Reply disable =
        kurir.post("/admin/devices/" + device.id() + "/disable", "", "application/json", AUTH);
    assertThat(disable.status()).as("gone for every operation").isEqualTo(404);
  }

  @Test
  void aDeletedDevicesWaitingSchedulesEndFailedAndItsMobileCsEntriesGo() {
    Device device = kurir.newDevice("+6281100007302", true);
    String tomorrow =
        java.time.LocalDateTime.now(java.time.ZoneId.of("Asia/Jakarta"))
            .plusDays(1)
            .format(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm"));
    Reply scheduled =
        kurir.postJson(
            "/api/scheduler",
            "{\"key\":\""
                + device.ecoKey()
                + "\",\"phone_no\":\""
                + Numbers.fresh()
                + "\",\"sch_date\":\""
                + tomorrow
                + "\",\"api_type\":\"text\",\"message\":\"Halo\"}");
    assertThat(scheduled.body()).matches("\\d+");

    String mobileCs = "/admin/licenses/" + device.licenseId() + "/mobile-cs";
    Reply added =
        kurir.post(
            mobileCs,
            "{\"device\":\""
                + device.id()
                + "\",\"name\":\"CS\",\"playerId\":\"p-7302\",\"handsetId\":\"h-7302\"}",
            "application/json",
            AUTH);
    assertThat(added.status()).as(added.body()).isEqualTo(201);

    assertThat(delete(Long.toString(device.id())).status()).isEqualTo(204);

    assertThat(kurir.get(mobileCs, AUTH).body())
        .as("its mobile CS entries go with it")
        .isEqualTo("[]");
    var stored = TestTables.of(kurir).schedule(Long.parseLong(scheduled.body())).orElseThrow();
    assertThat(stored.state()).isEqualTo("failed");
    assertThat(stored.reason()).contains("device_deleted");
  }

  @Test
  void aDeletedDevicesContactsNumberChecksAndHoldGoWithIt() {
    Device device = kurir.newDevice("+6281100007304", true);
    Device other = kurir.newDevice("+6281100007305", true);
    var contacts =
        new io.kurir.contact.ContactIdentities(
            kurir.gateway().database(), java.time.Clock.systemUTC());
    for (Device d : java.util.List.of(device, other)) {
      contacts.learn(d.id(), "+6281234567001", io.kurir.driver.ContactId.lid("1234567001@lid"));
      contacts.recordCheck(
          d.id(),
          new io.kurir.driver.ContactDirectory.CheckedNumber(
              "+6281234567002", true, java.util.Optional.empty(), java.time.Instant.now()));
      kurir.gateway().queueHolds().hold(d.id(), "the network refused the account");
      new io.kurir.device.AccountSignals(
              kurir.gateway().database(),
              kurir.gateway().deviceStates(),
              java.time.Clock.systemUTC())
          .reached(d.id(), io.kurir.driver.AccountLimit.MESSAGE_CAPPED, "capped")
          .join();
    }
    for (String table : TABLES_OF_A_DEVICE) {
      assertThat(rows(table, device.id())).as(table + " before").isPositive();
    }

    assertThat(delete(Long.toString(device.id())).status()).isEqualTo(204);

    for (String table : TABLES_OF_A_DEVICE) {
      assertThat(rows(table, device.id())).as(table + " of the deleted device").isZero();
      assertThat(rows(table, other.id())).as(table + " of another device").isPositive();
    }
  }

  private static final java.util.List<String> TABLES_OF_A_DEVICE =
      java.util.List.of("contact_identity", "number_check", "device_hold", "device_signal");

  private int rows(String table, long deviceId) {
    return TestTables.of(kurir).rowsOfDevice(table, deviceId);
  }

  @Test
  void theLicensesPartnerStillLearnsHowTheDeletedDevicesMessagesEnded() {
    var tenants = kurir.gateway().tenants();
    var partner = tenants.createPartner("Reseller", "", "reseller-7303", "secret-7303-abcdefgh");
    var license = tenants.createLicense(partner.id(), "Shop", "", null, java.util.List.of());
    Device device = tenants.createDevice(license.id(), "+6281100007303", "sandbox");
    kurir.sandbox().pair(device.id(), device.number()); // paired, but its phone is away
    kurir.sandbox().setDeviceOnline(device.id(), false);
    String queued = kurir.sendAsync(device, Numbers.fresh(), "queued").body();
    assertThat(queued).matches("\\d+");

    assertThat(delete(Long.toString(device.id())).status()).isEqualTo(204);

    Reply check =
        kurir.post(
            "/v4.0/wa_partner/bulk_check_id",
            "license=" + license.code() + "&bulk_msg_id=" + queued,
            "application/x-www-form-urlencoded",
            "Authorization",
            "Basic "
                + java.util.Base64.getEncoder()
                    .encodeToString(
                        "reseller-7303:secret-7303-abcdefgh"
                            .getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    assertThat(check.status()).as(check.body()).isEqualTo(200);
    assertThat(check.body())
        .contains("\"status\":\"failed\"")
        .contains("\"reason\":\"device_deleted\"")
        .doesNotContain("not_found");
  }

  @Test
  void deletingAnUnknownOrMalformedIdAnswersAJsonError() {
    Reply unknown = delete("999999");
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(unknown.body()).contains("\"error\":\"not_found\"");
    Reply malformed = delete("abc");
    assertThat(malformed.status()).isEqualTo(400);
    assertThat(malformed.contentType()).startsWith("application/json");
    Reply noToken =
        kurir.send(
            HttpRequest.newBuilder(URI.create(kurir.url("/admin/devices/1"))).DELETE().build());
    assertThat(noToken.status()).isEqualTo(401);
  }
}
