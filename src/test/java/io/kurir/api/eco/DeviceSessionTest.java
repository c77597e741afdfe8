package io.kurir.api.eco;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.device.DeviceEvent;
import io.kurir.device.DeviceState;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /api/info}, {@code /api/qr_status}, {@code /api/logout} and the allowed addresses. */
class DeviceSessionTest {
  @TempDir Path dir;
  TestGateway kurir;
  Device device;

  @BeforeEach
  void start() {
    kurir = TestGateway.start(dir);
    device = kurir.newDevice("+6281100005001", false);
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  private Reply call(Device d, String path) {
    return kurir.postJson(path, "{\"key\":\"" + d.ecoKey() + "\"}");
  }

  @Test
  void theSessionMovesThroughItsStatesAndEveryChangeIsRecorded() throws Exception {
    assertThat(call(device, "/api/qr_status").body()).isEqualTo("none");
    kurir.sandbox().pair(device.id(), device.number());
    assertThat(call(device, "/api/qr_status").body()).isEqualTo("online");
    kurir.sandbox().setDeviceOnline(device.id(), false);
    assertThat(call(device, "/api/qr_status").body()).isEqualTo("offline");
    kurir.sandbox().setDeviceOnline(device.id(), true);
    kurir.sandbox().takeOver(device.id());
    assertThat(call(device, "/api/qr_status").body()).isEqualTo("refresh_it");
    kurir.sandbox().pair(device.id(), device.number());

    JsonNode info = new ObjectMapper().readTree(call(device, "/api/info").body());
    assertThat(info.get("status").asText()).isEqualTo("online");
    assertThat(info.get("number").asText()).isEqualTo("6281100005001");
    assertThat(info.get("account").asText()).isEqualTo(Long.toString(device.id()));
    assertThat(info.get("version").asText()).isNotBlank();

    assertThat(call(device, "/api/logout").body()).isEqualTo("success");
    assertThat(call(device, "/api/qr_status").body()).isEqualTo("none");
    assertThat(call(device, "/api/logout").body()).as("nothing to log out").isEqualTo("failed");

    // Recorded in the background: a driver's report does not wait for the commit.
    io.kurir.testing.Eventually.until(
        "every change recorded",
        () -> kurir.gateway().deviceStates().history(device.id()).size() == 6);
    List<DeviceEvent> history = kurir.gateway().deviceStates().history(device.id());
    assertThat(history)
        .extracting(DeviceEvent::to)
        .containsExactly(
            DeviceState.ONLINE,
            DeviceState.OFFLINE,
            DeviceState.ONLINE,
            DeviceState.REFRESH_IT,
            DeviceState.ONLINE,
            DeviceState.NONE);
    assertThat(history.getLast().reason()).contains("logged out");
    assertThat(history.get(3).from()).isEqualTo(DeviceState.ONLINE);
  }

  @Test
  void deviceOperationsAnswerNotValidIpFromAnAddressTheLicenseDoesNotList() {
    Partner p = kurir.gateway().tenants().createPartner("Strict", "");
    License strict =
        kurir
            .gateway()
            .tenants()
            .createLicense(p.id(), "Strict", "", null, List.of("203.0.113.5", "10.0.0.0/8"));
    Device guarded =
        kurir.gateway().tenants().createDevice(strict.id(), "+6281100005002", "sandbox");
    kurir.sandbox().pair(guarded.id(), guarded.number());

    for (String path : List.of("/api/info", "/api/qr_status", "/api/logout", "/api/generate_qr")) {
      assertThat(call(guarded, path).body()).as(path).isEqualTo("not_valid_ip");
    }
    assertThat(kurir.sandbox().session(guarded.id())).as("logout was refused").isPresent();

    License local =
        kurir
            .gateway()
            .tenants()
            .createLicense(p.id(), "Local", "", null, List.of("127.0.0.0/8", "::1"));
    Device allowed =
        kurir.gateway().tenants().createDevice(local.id(), "+6281100005003", "sandbox");
    kurir.sandbox().pair(allowed.id(), allowed.number());
    assertThat(call(allowed, "/api/qr_status").body()).isEqualTo("online");
  }

  @Test
  void aSessionThatDidNotSurviveARestartIsRecordedAsEnded() {
    kurir.sandbox().pair(device.id(), device.number());
    kurir.stop();
    kurir.sandbox().unpair(device.id()); // gone while the gateway was down: nobody heard it
    kurir.startAgain();

    assertThat(kurir.gateway().deviceStates().current(device.id())).isEqualTo(DeviceState.NONE);
    assertThat(kurir.gateway().deviceStates().history(device.id()).getLast().reason())
        .hasValue("found none when the gateway started");
  }

  @Test
  void forwardedAddressesCountOnlyBehindATrustedProxy() {
    kurir.close();
    kurir = TestGateway.start(dir.resolve("proxied"), "--http.trusted-proxies=127.0.0.1");
    Partner p = kurir.gateway().tenants().createPartner("Proxied", "");
    License license =
        kurir
            .gateway()
            .tenants()
            .createLicense(p.id(), "Proxied", "", null, List.of("203.0.113.0/24"));
    Device behind =
        kurir.gateway().tenants().createDevice(license.id(), "+6281100005004", "sandbox");
    String body = "{\"key\":\"" + behind.ecoKey() + "\"}";

    assertThat(kurir.post("/api/qr_status", body, "application/json").body())
        .isEqualTo("not_valid_ip");
    assertThat(
            kurir
                .post("/api/qr_status", body, "application/json", "X-Forwarded-For", "203.0.113.9")
                .body())
        .isEqualTo("none");
    assertThat(
            kurir
                .post(
                    "/api/qr_status",
                    body,
                    "application/json",
                    "X-Forwarded-For",
                    "203.0.113.9, 198.51.100.1")
                .body())
        .as("the hop the trusted proxy saw is the client")
        .isEqualTo("not_valid_ip");
  }

  @Test
  void withoutTrustedProxiesTheForwardedHeaderIsIgnored() {
    Partner p = kurir.gateway().tenants().createPartner("Spoof", "");
    License license =
        kurir
            .gateway()
            .tenants()
            .createLicense(p.id(), "Spoof", "", null, List.of("203.0.113.0/24"));
    Device guarded =
        kurir.gateway().tenants().createDevice(license.id(), "+6281100005005", "sandbox");
    assertThat(
            kurir
                .post(
                    "/api/qr_status",
                    "{\"key\":\"" + guarded.ecoKey() + "\"}",
                    "application/json",
                    "X-Forwarded-For",
                    "203.0.113.9")
                .body())
        .isEqualTo("not_valid_ip");
  }
}
