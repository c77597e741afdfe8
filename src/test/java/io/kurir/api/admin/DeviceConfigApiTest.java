package io.kurir.api.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A device's driver and driver configuration through the Admin API: {@code driver} and {@code
 * config} on {@code POST /admin/devices}, {@code PATCH /admin/devices/{id}} to change or remove
 * keys, {@code config} shown by {@code GET /admin/devices}; every mistake refused with a 400 that
 * names what is wrong, and nothing stored by a refused request.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeviceConfigApiTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String[] AUTH = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};
  static final AtomicInteger NEXT_NUMBER = new AtomicInteger(7600);

  TestGateway kurir;
  String license;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    kurir = TestGateway.start(dir);
    JsonNode partner = JSON.readTree(post("/admin/partners", "{\"name\":\"P\"}").body());
    license =
        JSON.readTree(
                post(
                        "/admin/licenses",
                        "{\"partner\":\"" + partner.get("id").asText() + "\",\"name\":\"L\"}")
                    .body())
            .get("id")
            .asText();
  }

  @AfterAll
  void stop() {
    kurir.close();
  }

  private Reply post(String path, String json) {
    return kurir.post(path, json, "application/json", AUTH);
  }

  private Reply patch(String path, String json) {
    return kurir.send(
        HttpRequest.newBuilder(URI.create(kurir.url(path)))
            .header("Content-Type", "application/json")
            .header(AUTH[0], AUTH[1])
            .method("PATCH", HttpRequest.BodyPublishers.ofString(json))
            .build());
  }

  private static String newNumber() {
    return "+628110000" + NEXT_NUMBER.getAndIncrement();
  }

  /** {@code POST /admin/devices} with a new number and {@code fields} (a JSON fragment). */
  private Reply create(String number, String fields) {
    return post(
        "/admin/devices",
        "{\"license\":\"" + license + "\",\"number\":\"" + number + "\"" + fields + "}");
  }

  private static JsonNode json(Reply r) throws Exception {
    assertThat(r.contentType()).startsWith("application/json");
    return JSON.readTree(r.body());
  }

  private JsonNode refused(Reply r, String error) throws Exception {
    assertThat(r.status()).as(r.body()).isEqualTo(400);
    JsonNode body = json(r);
    assertThat(body.get("error").asText()).isEqualTo(error);
    return body;
  }

  private JsonNode listed(String id) throws Exception {
    Reply list = kurir.get("/admin/devices", AUTH);
    assertThat(list.status()).isEqualTo(200);
    for (JsonNode d : json(list)) {
      if (d.get("id").asText().equals(id)) {
        return d;
      }
    }
    throw new AssertionError("device " + id + " not listed");
  }

  private boolean numberListed(String number) throws Exception {
    for (JsonNode d : json(kurir.get("/admin/devices", AUTH))) {
      if (d.get("number").asText().equals(number)) {
        return true;
      }
    }
    return false;
  }

  @Test
  void aDeviceIsCreatedWithItsDriverAndConfigurationAndListedWithThem() throws Exception {
    Reply created =
        create(
            newNumber(),
            ",\"driver\":\"sandbox\",\"config\":{\" pacing.min-gap \":\" 2s \","
                + "\"pacing.jitter\":\"500ms\"}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    JsonNode device = json(created);
    assertThat(device.get("driver").asText()).isEqualTo("sandbox");
    assertThat(device.get("config").toString())
        .isEqualTo("{\"pacing.jitter\":\"500ms\",\"pacing.min-gap\":\"2s\"}");
    assertThat(listed(device.get("id").asText()).get("config").toString())
        .isEqualTo("{\"pacing.jitter\":\"500ms\",\"pacing.min-gap\":\"2s\"}");

    JsonNode plain = json(create(newNumber(), ""));
    assertThat(plain.get("driver").asText()).as("the default driver").isEqualTo("sandbox");
    assertThat(plain.get("config").toString()).isEqualTo("{}");
  }

  @Test
  void anUnknownDriverIsRefusedByName() throws Exception {
    String number = newNumber();
    JsonNode body = refused(create(number, ",\"driver\":\"carrier-pigeon\""), "invalid");
    assertThat(body.get("message").asText()).contains("carrier-pigeon").contains("sandbox");
    assertThat(numberListed(number)).isFalse();
  }

  @Test
  void anUnknownConfigurationKeyIsRefusedByNameWithTheKnownOnes() throws Exception {
    String number = newNumber();
    JsonNode body =
        refused(
            create(number, ",\"config\":{\"pacing.min-gap\":\"1s\",\"acess-token\":\"x\"}"),
            "invalid");
    assertThat(body.get("message").asText())
        .contains("'acess-token'")
        .contains("sandbox")
        .contains("known: pacing.min-gap, pacing.jitter");
    assertThat(numberListed(number)).as("nothing stored").isFalse();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "\"pacing.min-gap=1s\"",
        "[\"pacing.min-gap\",\"1s\"]",
        "{\"pacing.min-gap\":{\"value\":\"1s\"}}",
        "{\"pacing.min-gap\":[\"1s\"]}"
      })
  void aConfigurationThatIsNotAnObjectOfStringsIsRefused(String config) throws Exception {
    String number = newNumber();
    refused(create(number, ",\"config\":" + config), "config_not_valid");
    assertThat(numberListed(number)).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"soon", "1.5s", "10", "-1s", "2 weeks", "400d", "9000h"})
  void aPacingGapThatIsNotADurationIsRefused(String gap) throws Exception {
    String number = newNumber();
    JsonNode body =
        refused(create(number, ",\"config\":{\"pacing.min-gap\":\"" + gap + "\"}"), "invalid");
    assertThat(body.get("message").asText()).contains("pacing.min-gap").contains(gap);
    assertThat(numberListed(number)).isFalse();

    JsonNode jitter =
        refused(create(number, ",\"config\":{\"pacing.jitter\":\"" + gap + "\"}"), "invalid");
    assertThat(jitter.get("message").asText()).contains("pacing.jitter");
  }

  @Test
  void patchChangesAddsAndRemovesKeysAndLeavesTheRest() throws Exception {
    String id =
        json(create(newNumber(), ",\"config\":{\"pacing.min-gap\":\"2s\"}")).get("id").asText();

    Reply added = patch("/admin/devices/" + id, "{\"config\":{\"pacing.jitter\":\"1s\"}}");
    assertThat(added.status()).as(added.body()).isEqualTo(200);
    assertThat(json(added).get("config").toString())
        .isEqualTo("{\"pacing.jitter\":\"1s\",\"pacing.min-gap\":\"2s\"}");

    Reply changed = patch("/admin/devices/" + id, "{\"config\":{\"pacing.min-gap\":\"750ms\"}}");
    assertThat(json(changed).get("config").toString())
        .isEqualTo("{\"pacing.jitter\":\"1s\",\"pacing.min-gap\":\"750ms\"}");

    Reply removedByNull = patch("/admin/devices/" + id, "{\"config\":{\"pacing.min-gap\":null}}");
    assertThat(json(removedByNull).get("config").toString())
        .isEqualTo("{\"pacing.jitter\":\"1s\"}");

    Reply removedByEmpty = patch("/admin/devices/" + id, "{\"config\":{\"pacing.jitter\":\"\"}}");
    assertThat(json(removedByEmpty).get("config").toString()).isEqualTo("{}");
    assertThat(listed(id).get("config").toString()).isEqualTo("{}");
  }

  @Test
  void aRefusedPatchChangesNothing() throws Exception {
    String id =
        json(create(newNumber(), ",\"config\":{\"pacing.min-gap\":\"2s\"}")).get("id").asText();

    refused(patch("/admin/devices/" + id, "{}"), "config_empty");
    refused(patch("/admin/devices/" + id, "{\"config\":{}}"), "config_empty");
    refused(
        patch("/admin/devices/" + id, "{\"config\":\"pacing.min-gap=1s\"}"), "config_not_valid");
    JsonNode unknown =
        refused(
            patch(
                "/admin/devices/" + id,
                "{\"config\":{\"pacing.min-gap\":\"1s\",\"pacing.gap\":\"1s\"}}"),
            "invalid");
    assertThat(unknown.get("message").asText()).contains("'pacing.gap'").contains("known:");
    JsonNode bad =
        refused(
            patch("/admin/devices/" + id, "{\"config\":{\"pacing.min-gap\":\"soon\"}}"), "invalid");
    assertThat(bad.get("message").asText()).contains("pacing.min-gap").contains("soon");

    assertThat(listed(id).get("config").toString()).isEqualTo("{\"pacing.min-gap\":\"2s\"}");

    Reply missing = patch("/admin/devices/987654321", "{\"config\":{\"pacing.min-gap\":\"1s\"}}");
    assertThat(missing.status()).isEqualTo(404);
    assertThat(json(missing).get("error").asText()).isEqualTo("not_found");
  }
}
