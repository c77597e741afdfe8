package io.kurir.driver.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGraphApi;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A campaign on a Cloud API device sends the campaign's template, its text parameters filled per
 * recipient, as the fake Graph API (Meta's rules: approved templates only, with their number of
 * body parameters) receives it; in a pool with a sandbox device the sandbox sends the free-form
 * message; a pool with a Cloud API device and no template is refused; a template Meta refuses fails
 * each recipient with Meta's reason, and the device goes on sending. The safe-sending policy is
 * off: these tests are about what is sent, not its pacing.
 */
class CloudCampaignTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private static final String TEMPLATE =
      "{\"name\":\"promo_bulan\",\"language\":{\"code\":\"id\"},\"components\":[{\"type\":"
          + "\"body\",\"parameters\":[{\"type\":\"text\",\"text\":\"{name|Kak}\"},"
          + "{\"type\":\"text\",\"text\":\"Diskon di {kota}\"}]}]}";

  @Test
  void theCloudDeviceSendsTheTemplateFilledPerRecipientAndTheSandboxTheMessage() throws Exception {
    try (CloudFixture f = new CloudFixture(dir, TestGateway.safeSendingOff())) {
      f.graph.approveTemplate("promo_bulan", "id", 2);
      Device sandbox =
          f.kurir
              .gateway()
              .tenants()
              .createDevice(f.device.licenseId(), Numbers.fresh(), "sandbox");
      f.kurir.sandbox().pair(sandbox.id(), sandbox.number());
      String key = key(f);
      List<String> phones = contacts(f, 6, "promo");

      // A Cloud API device in the pool, and no template: refused before anything is stored.
      String noTemplate =
          "{\"name\":\"P\",\"audience\":{\"tags\":[\"promo\"]},"
              + "\"message\":{\"type\":\"text\",\"text\":{\"body\":\"Halo {name|Kak}\"}},"
              + "\"devices\":[\""
              + f.device.id()
              + "\",\""
              + sandbox.id()
              + "\"]}";
      Reply refused = post(f, key, "/v1/campaigns", noTemplate);
      assertThat(refused.status()).as(refused.body()).isEqualTo(422);
      JsonNode error = JSON.readTree(refused.body());
      assertThat(error.get("error").asText()).isEqualTo("template_required");
      assertThat(error.get("message").asText()).contains(f.device.number()).contains("24 hours");
      // Without devices the pool is every enabled device, the Cloud one among them: refused too.
      assertThat(
              post(f, key, "/v1/campaigns", noTemplate.replaceAll(",\"devices\":\\[[^]]*]", ""))
                  .status())
          .isEqualTo(422);

      String body =
          noTemplate.replace(
              ",\"devices\"", ",\"template\":" + TEMPLATE + ",\"quiet_hours\":null,\"devices\"");
      JsonNode created = JSON.readTree(post(f, key, "/v1/campaigns", body).body());
      assertThat(created.path("template").path("name").asText())
          .as(created.toString())
          .isEqualTo("promo_bulan");
      String id = created.get("id").asText();
      assertThat(post(f, key, "/v1/campaigns/" + id + "/start", "").status()).isEqualTo(200);
      awaitStatus(f, key, id, "done");

      Map<String, String[]> report = report(f, key, id);
      int byCloud = 0;
      for (int i = 0; i < phones.size(); i++) {
        String phone = phones.get(i);
        String[] row = report.get(phone);
        String name = i == 0 ? "Kak" : "Siti " + i;
        List<FakeGraphApi.Sent> atMeta = f.graph.sentTo(phone.substring(1));
        if (row[3].equals(Long.toString(f.device.id()))) {
          byCloud++;
          assertThat(atMeta).hasSize(1);
          assertThat(atMeta.getFirst().type()).isEqualTo("template");
          JsonNode expected =
              JSON.readTree(
                  "{\"name\":\"promo_bulan\",\"language\":{\"code\":\"id\"},\"components\":["
                      + "{\"type\":\"body\",\"parameters\":[{\"type\":\"text\",\"text\":\""
                      + name
                      + "\"},{\"type\":\"text\",\"text\":\"Diskon di Kota "
                      + i
                      + "\"}]}]}");
          assertThat(atMeta.getFirst().body().get("template")).isEqualTo(expected);
          assertThat(f.kurir.sandbox().inbox(phone)).isEmpty();
        } else {
          assertThat(row[3]).isEqualTo(Long.toString(sandbox.id()));
          assertThat(atMeta).isEmpty();
          assertThat(f.kurir.sandbox().inbox(phone)).hasSize(1);
          assertThat(f.kurir.sandbox().inbox(phone).getFirst().text()).isEqualTo("Halo " + name);
        }
      }
      // Round-robin over the two devices' windows: each sends some.
      assertThat(byCloud).isBetween(1, phones.size() - 1);
    }
  }

  @Test
  void aTemplateMetaRefusesFailsEachRecipientWithMetasReasonAndTheDeviceGoesOn() throws Exception {
    try (CloudFixture f = new CloudFixture(dir, TestGateway.safeSendingOff())) {
      String key = key(f);
      List<String> phones = contacts(f, 3, "ortu");
      String unknown =
          "{\"name\":\"Rapat\",\"audience\":{\"tags\":[\"ortu\"]},\"quiet_hours\":null,"
              + "\"message\":{\"type\":\"text\",\"text\":{\"body\":\"Rapat {name}\"}},"
              + "\"template\":"
              + TEMPLATE.replace("promo_bulan", "rapat_ortu")
              + "}";
      String id = JSON.readTree(post(f, key, "/v1/campaigns", unknown).body()).get("id").asText();
      post(f, key, "/v1/campaigns/" + id + "/start", "");
      awaitStatus(f, key, id, "done");
      JsonNode counts = JSON.readTree(get(f, key, "/v1/campaigns/" + id).body()).path("counts");
      assertThat(counts.get("failed").asInt()).as(counts.toString()).isEqualTo(3);
      assertThat(counts.get("sent").asInt()).isZero();
      Map<String, String[]> report = report(f, key, id);
      for (String phone : phones) {
        assertThat(report.get(phone)[5]).isEqualTo("failed");
        assertThat(report.get(phone)[6]).isEqualTo(CloudDriver.TEMPLATE_REFUSED);
      }
      assertThat(f.graph.sent()).isEmpty();

      // The device was not held for the campaign's template: an approved one goes next.
      f.graph.approveTemplate("promo_bulan", "id", 2);
      String good =
          JSON.readTree(
                  post(f, key, "/v1/campaigns", unknown.replace("rapat_ortu", "promo_bulan"))
                      .body())
              .get("id")
              .asText();
      post(f, key, "/v1/campaigns/" + good + "/start", "");
      awaitStatus(f, key, good, "done");
      assertThat(f.graph.sent()).hasSize(3);
    }
  }

  @Test
  void aCloudNumberEnabledAfterTheCampaignWasMadeTakesNoShareWithoutATemplate() throws Exception {
    try (CloudFixture f = new CloudFixture(dir, TestGateway.safeSendingOff())) {
      var tenants = f.kurir.gateway().tenants();
      Device sandbox = tenants.createDevice(f.device.licenseId(), Numbers.fresh(), "sandbox");
      f.kurir.sandbox().pair(sandbox.id(), sandbox.number());
      String key = key(f);
      List<String> phones = contacts(f, 12, "promo");
      // Made while the Cloud API number was disabled: every enabled device is the sandbox.
      tenants.setDeviceDisabled(f.device.id(), true);
      String noTemplate =
          "{\"name\":\"P\",\"audience\":{\"tags\":[\"promo\"]},\"quiet_hours\":null,"
              + "\"message\":{\"type\":\"text\",\"text\":{\"body\":\"Halo {name|Kak}\"}}}";
      Reply made = post(f, key, "/v1/campaigns", noTemplate);
      assertThat(made.status()).as(made.body()).isEqualTo(201);
      String id = JSON.readTree(made.body()).get("id").asText();
      // Another, whose quiet hours (09:00 to 11:00 in Jakarta) hold it until the clock moves.
      String quiet =
          noTemplate.replace(
              "\"quiet_hours\":null", "\"quiet_hours\":{\"from\":\"09:00\",\"to\":\"11:00\"}");
      String other = JSON.readTree(post(f, key, "/v1/campaigns", quiet).body()).get("id").asText();
      tenants.setDeviceDisabled(f.device.id(), false);

      // Only the Cloud API number can send now: the start is refused, naming it.
      tenants.setDeviceDisabled(sandbox.id(), true);
      Reply refused = post(f, key, "/v1/campaigns/" + id + "/start", "");
      assertThat(refused.status()).as(refused.body()).isEqualTo(422);
      assertThat(JSON.readTree(refused.body()).get("error").asText())
          .isEqualTo("template_required");
      assertThat(refused.body()).contains(f.device.number());

      // With the sandbox enabled again it starts, and the Cloud API number takes no share.
      tenants.setDeviceDisabled(sandbox.id(), false);
      assertThat(post(f, key, "/v1/campaigns/" + id + "/start", "").status()).isEqualTo(200);
      awaitStatus(f, key, id, "done");
      Map<String, String[]> report = report(f, key, id);
      for (String phone : phones) {
        assertThat(report.get(phone)[3]).isEqualTo(Long.toString(sandbox.id()));
        assertThat(report.get(phone)[5]).isNotEqualTo("failed");
      }
      assertThat(f.graph.sent()).isEmpty();

      // The sandbox disabled while a campaign runs: at the end of its quiet hours it pauses, the
      // Cloud API number left out of its pool rather than sending it free-form.
      assertThat(post(f, key, "/v1/campaigns/" + other + "/start", "").status()).isEqualTo(200);
      awaitStatus(f, key, other, "running");
      tenants.setDeviceDisabled(sandbox.id(), true);
      f.clock.set(java.time.Instant.parse("2026-03-10T04:00:00Z")); // 11:00 in Jakarta
      awaitStatus(f, key, other, "paused");
      assertThat(get(f, key, "/v1/campaigns/" + other).body())
          .contains("\"stop_reason\":\"no_usable_device\"");
      assertThat(f.graph.sent()).isEmpty();
    }
  }

  /** {@code n} contacts with {@code tag} and a city; the first has no name. By phone. */
  private static List<String> contacts(CloudFixture f, int n, String tag) {
    StringBuilder csv = new StringBuilder("phone,name,tags,kota\n");
    List<String> phones = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String p = Numbers.fresh();
      phones.add(p);
      csv.append(p).append(',').append(i == 0 ? "" : "Siti " + i).append(',').append(tag);
      csv.append(",Kota ").append(i).append('\n');
    }
    f.kurir.gateway().contactBook().importCsv(f.device.licenseId(), csv.toString(), false);
    return phones;
  }

  private static String key(CloudFixture f) {
    return f.kurir
        .gateway()
        .tenants()
        .apiKeys()
        .create(f.device.licenseId(), "test", Set.of(ApiScope.CAMPAIGNS))
        .key()
        .orElseThrow();
  }

  private static void awaitStatus(CloudFixture f, String key, String id, String status) {
    Eventually.until(
        "campaign " + id + " " + status,
        () -> get(f, key, "/v1/campaigns/" + id).body().contains("\"status\":\"" + status + "\""));
  }

  private static Map<String, String[]> report(CloudFixture f, String key, String id) {
    String[] lines = get(f, key, "/v1/campaigns/" + id + "/report.csv").body().split("\r\n");
    Map<String, String[]> rows = new HashMap<>();
    for (int i = 1; i < lines.length; i++) {
      String[] cells = lines[i].split(",", -1);
      rows.put(cells[0], cells);
    }
    return rows;
  }

  private static Reply post(CloudFixture f, String key, String path, String body) {
    return f.kurir.send(
        HttpRequest.newBuilder(URI.create(f.kurir.url(path)))
            .header("Authorization", "Bearer " + key)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build());
  }

  private static Reply get(CloudFixture f, String key, String path) {
    return f.kurir.send(
        HttpRequest.newBuilder(URI.create(f.kurir.url(path)))
            .header("Authorization", "Bearer " + key)
            .GET()
            .build());
  }
}
