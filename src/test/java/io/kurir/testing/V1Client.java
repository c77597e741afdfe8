package io.kurir.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.testing.TestGateway.Reply;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Calls to Kurir's API v1 of a test gateway with a bearer key, and checks of their replies. */
public final class V1Client {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final TestGateway kurir;

  public V1Client(TestGateway kurir) {
    this.kurir = kurir;
  }

  /** A new API key of {@code device}'s license with {@code scopes}. */
  public String key(Device device, ApiScope... scopes) {
    return kurir
        .gateway()
        .tenants()
        .apiKeys()
        .create(device.licenseId(), "test", Set.of(scopes))
        .key()
        .orElseThrow();
  }

  public Reply post(String key, String path, String body, String... headers) {
    List<String> h = new ArrayList<>(List.of("Authorization", "Bearer " + key));
    h.addAll(List.of(headers));
    return kurir.post(path, body, "application/json", h.toArray(String[]::new));
  }

  public Reply patch(String key, String path, String body) {
    return kurir.send(
        HttpRequest.newBuilder(URI.create(kurir.url(path)))
            .header("Authorization", "Bearer " + key)
            .header("Content-Type", "application/json")
            .method("PATCH", HttpRequest.BodyPublishers.ofString(body))
            .build(),
        body);
  }

  public Reply delete(String key, String path) {
    return kurir.send(
        HttpRequest.newBuilder(URI.create(kurir.url(path)))
            .header("Authorization", "Bearer " + key)
            .DELETE()
            .build());
  }

  public Reply get(String key, String path) {
    return kurir.send(
        HttpRequest.newBuilder(URI.create(kurir.url(path)))
            .header("Authorization", "Bearer " + key)
            .GET()
            .build());
  }

  /** A text message object to {@code to}. */
  public static String textTo(String to, String body) {
    return "{\"to\":\"" + to + "\",\"type\":\"text\",\"text\":{\"body\":\"" + body + "\"}}";
  }

  /** Sends and waits until the network has it: the id of a message that can be acted on. */
  public String sent(String key, String body) throws Exception {
    String id = json(post(key, "/v1/messages", body), 201).get("id").asText();
    Eventually.until(
        "message " + id + " sent",
        () -> {
          try {
            return json(get(key, "/v1/messages/" + id), 200).has("network_id");
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        });
    return id;
  }

  /** The reply's JSON, once its status is {@code status}. */
  public static JsonNode json(Reply r, int status) throws Exception {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    return JSON.readTree(r.body());
  }

  /** The reply is the JSON refusal {@code {"error": token, "message"}} with {@code status}. */
  public static void assertError(Reply r, int status, String token) throws Exception {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.get("error").asText()).as(r.body()).isEqualTo(token);
    assertThat(body.get("message").asText()).isNotEmpty();
  }
}
