package io.kurir.api.v1;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Campaigns through Kurir API v1 for a test, with one license's campaigns key: contacts imported
 * into the book, campaigns made, started and read back as JSON.
 */
final class CampaignCalls {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final TestGateway kurir;
  private final Device device;
  private final String key;

  CampaignCalls(TestGateway kurir, Device device) {
    this.kurir = kurir;
    this.device = device;
    this.key =
        kurir
            .gateway()
            .tenants()
            .apiKeys()
            .create(device.licenseId(), "test", Set.of(ApiScope.CAMPAIGNS))
            .key()
            .orElseThrow();
  }

  /** Another paired sandbox device of the same license. */
  Device device() {
    Device d =
        kurir.gateway().tenants().createDevice(device.licenseId(), Numbers.fresh(), "sandbox");
    kurir.sandbox().pair(d.id(), d.number());
    return d;
  }

  /** {@code n} new contacts of the book with {@code tag}, their phones in order. */
  List<String> contacts(int n, String tag) {
    StringBuilder csv = new StringBuilder("phone,name,tags\n");
    List<String> phones = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String p = Numbers.fresh();
      phones.add(p);
      csv.append(p).append(",C").append(i).append(',').append(tag).append('\n');
    }
    kurir.gateway().contactBook().importCsv(device.licenseId(), csv.toString(), false);
    return phones;
  }

  /** Makes and starts a campaign to {@code tag}, at any hour; its id. */
  long start(String name, String tag) throws Exception {
    JsonNode made =
        json(
            call(
                "POST",
                "/v1/campaigns",
                "{\"name\":\""
                    + name
                    + "\",\"audience\":{\"tags\":[\""
                    + tag
                    + "\"]},\"message\":{\"type\":\"text\",\"text\":{\"body\":\"Halo {name}\"}},"
                    + "\"quiet_hours\":null}"),
            201);
    String id = made.get("id").asText();
    assertThat(json(call("POST", "/v1/campaigns/" + id + "/start", ""), 200).get("status").asText())
        .isEqualTo("running");
    return Long.parseLong(id);
  }

  void pause(long id) throws Exception {
    json(call("POST", "/v1/campaigns/" + id + "/pause", ""), 200);
  }

  void resume(long id) throws Exception {
    json(call("POST", "/v1/campaigns/" + id + "/resume", ""), 200);
  }

  /** {@code GET /v1/campaigns/{id}}. */
  JsonNode get(long id) {
    try {
      return json(call("GET", "/v1/campaigns/" + id, null), 200);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** How many of the campaign's recipients still wait to be handed over. */
  int waiting(long id) {
    return get(id).get("counts").get("waiting").asInt();
  }

  /** Waits until exactly {@code n} of the campaign's recipients wait. */
  void awaitWaiting(long id, int n) {
    Eventually.until("campaign " + id + " with " + n + " waiting", () -> waiting(id) == n);
  }

  void awaitStatus(long id, String status) {
    Eventually.until(
        "campaign " + id + " " + status, () -> get(id).get("status").asText().equals(status));
  }

  private Reply call(String method, String path, String body) {
    return kurir.send(
        HttpRequest.newBuilder(URI.create(kurir.url(path)))
            .header("Authorization", "Bearer " + key)
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .build());
  }

  private static JsonNode json(Reply r, int status) throws Exception {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    return JSON.readTree(r.body());
  }
}
