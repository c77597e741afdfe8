package io.kurir.api.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.device.DeviceState;
import io.kurir.testing.Eventually;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A device as the Admin API shows it: in the list with its state, and alone ({@code GET
 * /admin/devices/{id}}) with its state, its webhook URLs and the secret that signs their calls.
 */
class AdminDeviceViewTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] AUTH = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};

  TestGateway kurir;

  @BeforeEach
  void start(@TempDir Path dir) {
    kurir = TestGateway.start(dir, "--media.allow-private-addresses=true");
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  private JsonNode get(String path, int expectedStatus) throws Exception {
    Reply reply = kurir.get(path, AUTH);
    assertThat(reply.status()).as(path + " → " + reply.body()).isEqualTo(expectedStatus);
    return JSON.readTree(reply.body());
  }

  private JsonNode listed(long id) throws Exception {
    for (JsonNode d : get("/admin/devices", 200)) {
      if (d.get("id").asText().equals(Long.toString(id))) {
        return d;
      }
    }
    throw new AssertionError("device " + id + " is not listed");
  }

  @Test
  void theListShowsEachDevicesStateAsItChanges() throws Exception {
    var device = kurir.newDevice("+6281100006201", false);
    var other = kurir.newDevice("+6281100006202", true);
    Eventually.until(
        "the pairing is recorded",
        () -> kurir.gateway().deviceStates().current(other.id()) == DeviceState.ONLINE);

    assertThat(listed(device.id()).get("state").asText()).isEqualTo("none");
    assertThat(listed(other.id()).get("state").asText()).isEqualTo("online");

    kurir.sandbox().pair(device.id(), device.number());
    Eventually.until(
        "the pairing is recorded",
        () -> kurir.gateway().deviceStates().current(device.id()) == DeviceState.ONLINE);
    assertThat(listed(device.id()).get("state").asText()).isEqualTo("online");
  }

  @Test
  void oneDeviceShowsItsStateItsWebhooksAndTheirSigningSecret() throws Exception {
    var device = kurir.newDevice("+6281100006203", true);
    String url = "http://127.0.0.1:9/status-hook";
    assertThat(
            kurir
                .postJson(
                    "/api/webhook_status",
                    "{\"key\":\""
                        + device.ecoKey()
                        + "\",\"action\":\"add\",\"url\":\""
                        + url
                        + "\"}")
                .body())
        .contains("\"status\":\"success\"");
    kurir.postForm(
        "/v2.0/webhook",
        "license="
            + kurir.licenseOf(device).code()
            + "&no_wa="
            + device.number().substring(1)
            + "&action=set&url=http://127.0.0.1:9/in");

    JsonNode shown = get("/admin/devices/" + device.id(), 200);

    assertThat(shown.get("id").asText()).isEqualTo(Long.toString(device.id()));
    assertThat(shown.get("key").asText()).isEqualTo(device.ecoKey());
    assertThat(shown.get("state").asText()).isEqualTo("online");
    assertThat(shown.get("config").isObject()).isTrue();
    JsonNode webhooks = shown.get("webhooks");
    assertThat(webhooks.get("status").asText()).isEqualTo(url);
    assertThat(webhooks.get("incoming").asText()).isEqualTo("http://127.0.0.1:9/in");
    assertThat(webhooks.get("outgoing").isNull()).isTrue();
    assertThat(webhooks.get("secret").asText())
        .isEqualTo(kurir.gateway().tenants().license(device.licenseId()).webhookSecret())
        .isNotBlank();

    kurir.gateway().tenants().setDeviceDisabled(device.id(), true);
    assertThat(get("/admin/devices/" + device.id(), 200).get("disabled").asBoolean()).isTrue();
  }

  @Test
  void anUnknownOrDeletedDeviceIsNotFound() throws Exception {
    var device = kurir.newDevice("+6281100006204", false);
    kurir.gateway().tenants().deleteDevice(device.id());

    JsonNode gone = get("/admin/devices/" + device.id(), 404);
    assertThat(gone.get("error").asText()).isEqualTo("not_found");
    assertThat(get("/admin/devices/12x", 400).get("error").asText()).isEqualTo("id_not_valid");
  }
}
