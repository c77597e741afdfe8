package io.kurir.api.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.store.Database;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.TestTables;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** The sandbox control API drives the simulated network the way a tester or the demo would. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SandboxApiTest {
  private static final String[] AUTH = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};

  TestGateway kurir;
  Device device;

  @BeforeAll
  void start(@TempDir Path dir) {
    kurir = TestGateway.start(dir);
    device = kurir.newDevice("+6281100003001", false);
  }

  @AfterAll
  void stop() {
    kurir.close();
  }

  private Reply control(String path, String json) {
    return kurir.post(path, json, "application/json", AUTH);
  }

  private String send(String to, String text) {
    return kurir
        .postJson(
            "/api/send_message",
            "{\"key\":\""
                + device.ecoKey()
                + "\",\"phone_no\":\""
                + to
                + "\",\"message\":\""
                + text
                + "\"}")
        .body();
  }

  @Test
  void pairOfflineOnlineUnpairByNumberOrId() {
    String to = Numbers.fresh();
    Reply paired = control("/sandbox/devices/081100003001/pair", "");
    assertThat(paired.body()).contains("\"paired\":true", "\"online\":true");
    assertThat(send(to, "one")).isEqualTo("success");

    assertThat(control("/sandbox/devices/" + device.id() + "/offline", "").body())
        .contains("\"online\":false");
    assertThat(send(to, "two")).isEqualTo("phone_offline");
    control("/sandbox/devices/+6281100003001/online", "");
    assertThat(send(to, "three")).isEqualTo("success");

    assertThat(control("/sandbox/devices/" + device.id() + "/unpair", "").body())
        .contains("\"paired\":false");
    assertThat(send(to, "four")).isEqualTo("phone_offline");
    assertThat(control("/sandbox/devices/" + device.id() + "/online", "").status()).isEqualTo(409);
    control("/sandbox/devices/" + device.id() + "/pair", "");

    Reply inbox = kurir.get("/sandbox/phones/" + Numbers.digits(to) + "/inbox", AUTH);
    assertThat(inbox.body())
        .contains("\"text\":\"one\"", "\"text\":\"three\"")
        .doesNotContain("\"text\":\"two\"", "\"text\":\"four\"");
  }

  @Test
  void injectsTheNetworksRateLimitAndRefusals() {
    control("/sandbox/devices/" + device.id() + "/pair", "");
    String to = Numbers.fresh();
    assertThat(
            control("/sandbox/failures", "{\"target\":\"" + to + "\",\"kind\":\"refused\"}").body())
        .contains("\"kind\":\"refused\"");
    assertThat(send(to, "refused")).isNotEqualTo("success");
    assertThat(send(to, "taken")).isEqualTo("success");
    assertThat(
            control("/sandbox/failures", "{\"target\":\"" + to + "\",\"kind\":\"rate_limited\"}")
                .body())
        .contains("\"kind\":\"rate_limited\"");
    // What the driver answers then (RetryAfter) is checked by SandboxDriverContractTest.
  }

  @Test
  void marksNumbersUnregisteredAndInjectsFailures() {
    control("/sandbox/devices/" + device.id() + "/pair", "");
    String to = Numbers.fresh();
    control("/sandbox/phones/" + Numbers.national(to), "{\"registered\":false}");
    assertThat(send(to, "x")).matches("\\[\\d{14}] Number not found");
    control("/sandbox/phones/" + to, "{\"registered\":true}");
    assertThat(send(to, "x")).isEqualTo("success");

    Reply injected =
        control(
            "/sandbox/failures",
            "{\"target\":\"" + Numbers.national(to) + "\",\"kind\":\"fail\",\"count\":2}");
    assertThat(injected.body()).contains("\"target\":\"" + to + "\"", "\"count\":2");
    assertThat(send(to, "a")).isEqualTo("Other error");
    assertThat(send(to, "b")).isEqualTo("Other error");
    assertThat(send(to, "c")).isEqualTo("success");

    control("/sandbox/failures", "{\"target\":\"" + to + "\",\"kind\":\"not_found\"}");
    assertThat(send(to, "d")).matches("\\[\\d{14}] Number not found");
    assertThat(control("/sandbox/failures", "{\"kind\":\"explode\"}").body())
        .contains("kind_not_valid");
    assertThat(control("/sandbox/failures", "{\"count\":0}").body()).contains("count_not_valid");

    control("/sandbox/failures", "{\"target\":\"*\",\"count\":1000000}");
    assertThat(send(to, "e")).isEqualTo("Other error");
    Reply cleared =
        kurir.send(
            java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(kurir.url("/sandbox/failures")))
                .header(AUTH[0], AUTH[1])
                .DELETE()
                .build());
    assertThat(cleared.status()).isEqualTo(200);
    assertThat(send(to, "f")).isEqualTo("success");
  }

  @Test
  void groupsHaveMembersWhoReceiveGroupMessages() {
    Reply created =
        control(
            "/sandbox/groups",
            "{\"id\":\"6281100003001-1600000000\",\"name\":\"Kelas 7A\",\"members\":\"081234500001, 6281234500002\"}");
    assertThat(created.status()).isEqualTo(201);
    assertThat(created.body()).contains("\"members\":[\"+6281234500001\",\"+6281234500002\"]");
    assertThat(kurir.get("/sandbox/groups", AUTH).body()).contains("Kelas 7A");
  }

  @Test
  void incomingMessagesReachTheGatewayAndAreStored() throws Exception {
    control("/sandbox/devices/" + device.id() + "/pair", "");
    Reply reply =
        control(
            "/sandbox/devices/" + device.id() + "/incoming",
            "{\"from\":\"081234599999\",\"message\":\"INFO jadwal\"}");
    assertThat(reply.status()).isEqualTo(200);

    Database db = Database.open(kurir.settings().database());
    try (db) {
      Eventually.until(
          "stored",
          () ->
              TestTables.of(db).inboundOf(device.id()).stream()
                      .filter(r -> r.sender().equals("+6281234599999"))
                      .filter(r -> r.body().equals("INFO jadwal"))
                      .count()
                  == 1);
    }
  }

  @Test
  void outsideDemoModeTheSandboxApiNeedsTheAdminToken() {
    Reply reply = kurir.post("/sandbox/devices/" + device.id() + "/pair", "", null);
    assertThat(reply.status()).isEqualTo(401);
    assertThat(reply.body()).contains("invalid_admin_token");
    assertThat(kurir.get("/sandbox/phones/abc/inbox", AUTH).body()).contains("number_not_valid");
    assertThat(control("/sandbox/devices/999999/pair", "").status()).isEqualTo(404);
  }

  @Test
  void aDeviceCanBeMarkedNotMultiDevice() {
    control("/sandbox/devices/" + device.id() + "/pair", "");
    String groupId = "6281100003001-42";
    control(
        "/sandbox/groups",
        "{\"id\":\"" + groupId + "\",\"members\":\"6281100003001,081234500009\"}");
    String members = "{\"key\":\"" + device.ecoKey() + "\",\"group_id\":\"" + groupId + "\"}";
    assertThat(kurir.postJson("/api/getGroupMember", members).body())
        .isEqualTo("6281100003001,6281234500009");

    assertThat(
            control("/sandbox/devices/" + device.id() + "/multi-device", "{\"enabled\":false}")
                .body())
        .contains("\"multiDevice\":false");
    assertThat(kurir.postJson("/api/getGroupMember", members).body()).isEqualTo("failed");
    control("/sandbox/devices/" + device.id() + "/multi-device", "{\"enabled\":true}");
    assertThat(kurir.postJson("/api/getGroupMember", members).body()).startsWith("6281100003001");
  }
}
