package io.kurir.contact;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.sandbox.SandboxNetwork;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Network ids (a LID, a BSUID) the device has met, through the sandbox: {@code check_number}
 * answers {@code exists} for them (the core answers, the driver checks phones only), the Eco
 * scheduler takes one as Eco sends do, and the sandbox's incoming route refuses a sender kind or a
 * {@code reveal} of the wrong type. The clock starts at 10:00 in the operator zone (UTC+7).
 */
class MetNetworkIdsTest {
  @TempDir Path dir;
  final SettableClock clock = TestGateway.settableClock();
  TestGateway kurir;
  Device device;

  @BeforeEach
  void start() {
    kurir = TestGateway.start(dir, clock);
    device = kurir.newDevice();
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  private Reply incoming(String json) {
    return kurir.post(
        "/sandbox/devices/" + device.id() + "/incoming",
        json,
        "application/json",
        "Authorization",
        "Bearer " + TestGateway.ADMIN_TOKEN);
  }

  /** A message from {@code customer} whom the network names by {@code as} alone; kept. */
  private void hiddenMessage(String customer, String as) {
    int before = kurir.storedIncoming(device.id());
    Reply r = incoming("{\"from\":\"" + customer + "\",\"message\":\"hai\",\"as\":\"" + as + "\"}");
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    Eventually.until("kept", () -> kurir.storedIncoming(device.id()) == before + 1);
  }

  private String checkNumber(String number) {
    return kurir
        .postJson(
            "/api/check_number",
            "{\"key\":\"" + device.ecoKey() + "\",\"phone_no\":\"" + number + "\"}")
        .body();
  }

  @Test
  void checkNumberOfAMetLidOrBsuidAnswersExists() {
    String byLid = Numbers.fresh();
    String byBsuid = Numbers.fresh();
    String lid = SandboxNetwork.lidOf(byLid).address();
    String bsuid = SandboxNetwork.bsuidOf(byBsuid).address();
    assertThat(checkNumber(lid)).as("never met").isEqualTo("not_exists");

    hiddenMessage(byLid, "lid");
    hiddenMessage(byBsuid, "bsuid");

    assertThat(checkNumber(lid)).isEqualTo("exists");
    assertThat(checkNumber(bsuid)).isEqualTo("exists");
    assertThat(checkNumber(SandboxNetwork.lidOf(Numbers.fresh()).address()))
        .as("another id, never met")
        .isEqualTo("not_exists");
  }

  @Test
  void aScheduleToAMetNetworkIdGoesOutThere() {
    String customer = Numbers.fresh();
    String lid = SandboxNetwork.lidOf(customer).address();
    String never = SandboxNetwork.lidOf(Numbers.fresh()).address();
    Reply refused = schedule(never);
    assertThat(refused.status()).as(refused.body()).isEqualTo(400);
    assertThat(refused.body()).contains("phone_no_not_valid");

    hiddenMessage(customer, "lid");
    Reply r = schedule(lid);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    assertThat(r.body()).as("a schedule id").matches("\\d+");

    clock.advance(Duration.ofHours(1));
    Eventually.until(
        "delivered to the phone behind the LID",
        () ->
            kurir.sandbox().inbox(customer).stream()
                .map(InboxEntry::text)
                .anyMatch("Pengingat"::equals));
  }

  private Reply schedule(String to) {
    return kurir.postJson(
        "/api/scheduler",
        "{\"key\":\""
            + device.ecoKey()
            + "\",\"phone_no\":\""
            + to
            + "\",\"sch_date\":\"2026-03-10 11:00\",\"api_type\":\"text\","
            + "\"message\":\"Pengingat\"}");
  }

  @Test
  void theSandboxRefusesASenderKindOrARevealOfTheWrongType() {
    String customer = Numbers.fresh();
    Reply list = incoming("{\"from\":\"" + customer + "\",\"message\":\"x\",\"as\":[\"lid\"]}");
    assertThat(list.status()).as(list.body()).isEqualTo(400);
    assertThat(list.body()).contains("as_not_valid");
    for (String reveal : new String[] {"\"yes\"", "1", "[true]", "\"1\""}) {
      Reply r =
          incoming(
              "{\"from\":\""
                  + customer
                  + "\",\"message\":\"x\",\"as\":\"bsuid\",\"reveal\":"
                  + reveal
                  + "}");
      assertThat(r.status()).as(reveal + ": " + r.body()).isEqualTo(400);
      assertThat(r.body()).contains("reveal_not_valid");
    }
    assertThat(kurir.storedIncoming(device.id())).isZero();
    Reply ok =
        incoming(
            "{\"from\":\"" + customer + "\",\"message\":\"x\",\"as\":\"bsuid\",\"reveal\":true}");
    assertThat(ok.status()).as(ok.body()).isEqualTo(200);
  }
}
