package io.kurir.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.config.SettingsException;
import io.kurir.config.SettingsLoader;
import io.kurir.config.SettingsLoader.Profile;
import io.kurir.tenant.DemoAccount;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGraphApi;
import io.kurir.testing.Numbers;
import io.kurir.testing.WebhookReceiver;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log of a real {@code kurir demo} process: JSON lines with the ids of what they are about,
 * text lines at the level asked for, times with their offset, start-up lines on standard output and
 * the log on standard error, and none of the secrets the run used anywhere in the log.
 */
class LogsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ADMIN_TOKEN = "log-test-admin-token-9f3c2a71d5";

  /** A token a webhook receiver takes in its URL's query: a credential of the receiver's. */
  private static final String URL_TOKEN = "receiver-url-token-77e1b9c4";

  /** ISO-8601 with milliseconds or more and the offset from UTC. */
  private static final String ISO_WITH_OFFSET =
      "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3,9}(Z|[+-]\\d\\d:\\d\\d)";

  @TempDir Path dir;

  /**
   * What a run does that logs about a message, a device and a webhook: a send the network fails
   * (retried later), an incoming message whose webhook receiver refuses it for good.
   */
  private static String exercise(GatewayProcess kurir, WebhookReceiver receiver) throws Exception {
    String[] admin = {"Authorization", "Bearer " + ADMIN_TOKEN, "Content-Type", "application/json"};
    JsonNode licenses = JSON.readTree(kurir.call("GET", "/admin/licenses", null, admin).body());
    String webhookSecret = licenses.get(0).get("webhookSecret").asText();
    assertThat(webhookSecret).isNotBlank();

    receiver.answer(400); // refused for good: the outbox logs it at once
    kurir.call(
        "POST",
        "/v2.0/webhook",
        "license="
            + DemoAccount.LICENSE
            + "&no_wa="
            + DemoAccount.DEVICE_NUMBER.substring(1)
            + "&action=set&url="
            + receiver.url("/in?token=" + URL_TOKEN),
        "Content-Type",
        "application/x-www-form-urlencoded");
    kurir.call(
        "POST",
        "/sandbox/devices/" + DemoAccount.DEVICE_NUMBER.substring(1) + "/incoming",
        "{\"from\":\"" + Numbers.fresh() + "\",\"message\":\"halo\"}",
        admin);

    String to = Numbers.fresh();
    kurir.call("POST", "/sandbox/failures", "{\"target\":\"" + to + "\",\"kind\":\"fail\"}", admin);
    kurir.call(
        "POST",
        "/api/async_send_message",
        "{\"key\":\""
            + DemoAccount.KEY
            + "\",\"phone_no\":\""
            + to
            + "\",\"message\":\"hello\",\"flag_retry\":\"on\"}",
        "Content-Type",
        "application/json");
    return webhookSecret;
  }

  private static void assertNoSecretIn(List<String> log, String... moreSecrets) {
    String all = String.join("\n", log);
    List<String> secrets = new ArrayList<>(List.of(moreSecrets));
    secrets.addAll(
        List.of(
            ADMIN_TOKEN,
            DemoAccount.KEY,
            DemoAccount.SECOND_KEY,
            DemoAccount.DEVICE_KEY,
            DemoAccount.LICENSE,
            DemoAccount.PARTNER_SECRET,
            URL_TOKEN));
    for (String secret : secrets) {
      assertThat(all).as("the log holds a secret").doesNotContain(secret);
    }
  }

  @Test
  void jsonLinesCarryTheIdsTheZoneAndNoSecret() throws Exception {
    List<JsonNode> records = new ArrayList<>();
    String webhookSecret;
    List<String> stdout;
    List<String> stderr;
    String pushKey;
    try (WebhookReceiver receiver = new WebhookReceiver();
        FakeGraphApi graph = new FakeGraphApi(Clock.systemUTC());
        GatewayProcess kurir =
            GatewayProcess.demo(
                dir,
                "--log.format=json",
                "--admin.token=" + ADMIN_TOKEN,
                "--drivers.cloud.graph-url=" + graph.graphUrl(),
                "--drivers.cloud.pacing.min-gap=0ms")) {
      // A fresh demo answers the operations endpoints too (the "done when").
      assertThat(kurir.call("GET", "/health/live", null).body()).contains("\"up\"");
      assertThat(kurir.call("GET", "/health/ready", null).body()).contains("\"ready\"");
      assertThat(
              kurir.call("GET", "/metrics", null, "Authorization", "Bearer " + ADMIN_TOKEN).body())
          .contains("kurir_queue_messages{state=\"pending\"}");
      webhookSecret = exercise(kurir, receiver);
      pushKey = exerciseACloudDeviceWhoseTokenIsRevoked(kurir, graph);
      Eventually.until(
          "a retry, a refused webhook and a refused access token in the log",
          Eventually.GUARD, // another process: slow work
          () ->
              kurir.stderr().stream().anyMatch(l -> l.contains("retry 1"))
                  && kurir.stderr().stream().anyMatch(l -> l.contains("failed: HTTP 400"))
                  && kurir.stderr().stream().anyMatch(l -> l.contains("refused its access")));
      kurir.close();
      stdout = kurir.stdout();
      stderr = kurir.stderr();
    }
    assertThat(stdout).anyMatch(l -> l.startsWith("Kurir demo is running at "));
    assertThat(stdout).noneMatch(l -> l.startsWith("{"));
    assertThat(stderr).isNotEmpty();
    for (String line : stderr) {
      JsonNode record = JSON.readTree(line); // every line of the log is one JSON object
      assertThat(record.get("@timestamp").asText()).matches(ISO_WITH_OFFSET);
      assertThat(record.get("level").asText()).isNotBlank();
      assertThat(record.get("logger_name").asText()).isNotBlank();
      assertThat(record.get("message").asText()).isNotBlank();
      records.add(record);
    }
    JsonNode retry =
        records.stream()
            .filter(r -> r.get("message").asText().contains("retry 1"))
            .findFirst()
            .get();
    assertThat(retry.get("level").asText()).isEqualTo("INFO");
    assertThat(retry.get("message").asText()).contains(retry.get("message_id").asText());
    assertThat(retry.get("device_id").asText()).matches("\\d+");
    JsonNode refused =
        records.stream()
            .filter(r -> r.get("message").asText().contains("failed: HTTP 400"))
            .findFirst()
            .get();
    assertThat(refused.get("device_id").asText()).isEqualTo(retry.get("device_id").asText());
    assertThat(refused.get("webhook_delivery_id").asText()).matches("\\d+");
    // The receiver is named, its credential is not.
    assertThat(refused.get("message").asText()).contains("/in").doesNotContain("token=");
    JsonNode paired =
        records.stream()
            .filter(r -> r.get("message").asText().contains("online (paired)"))
            .findFirst()
            .get();
    assertThat(paired.has("device_id")).isTrue();
    assertNoSecretIn(stderr, webhookSecret, pushKey, FakeGraphApi.TOKEN, FakeGraphApi.APP_SECRET);
  }

  /**
   * A device on the cloud driver (its credentials in the device's configuration), whose access
   * token the network stops taking while a message goes out; the license's push key.
   */
  private static String exerciseACloudDeviceWhoseTokenIsRevoked(
      GatewayProcess kurir, FakeGraphApi graph) throws Exception {
    String[] admin = {"Authorization", "Bearer " + ADMIN_TOKEN, "Content-Type", "application/json"};
    JsonNode license =
        JSON.readTree(kurir.call("GET", "/admin/licenses", null, admin).body()).get(0);
    JsonNode device =
        JSON.readTree(
            kurir
                .call(
                    "POST",
                    "/admin/devices",
                    "{\"license\":\""
                        + license.get("id").asText()
                        + "\",\"number\":\"+6281100007499\",\"driver\":\"cloud\",\"config\":{"
                        + "\"phone-number-id\":\""
                        + FakeGraphApi.PHONE_NUMBER_ID
                        + "\",\"access-token\":\""
                        + FakeGraphApi.TOKEN
                        + "\",\"app-secret\":\""
                        + FakeGraphApi.APP_SECRET
                        + "\",\"verify-token\":\""
                        + FakeGraphApi.VERIFY_TOKEN
                        + "\"}}",
                    admin)
                .body());
    graph.revokeTokens();
    kurir.call(
        "POST",
        "/api/async_send_message",
        "{\"key\":\""
            + device.get("key").asText()
            + "\",\"phone_no\":\""
            + Numbers.fresh()
            + "\",\"message\":\"hello\"}",
        "Content-Type",
        "application/json");
    // A push key is stored as its hash and shown only when made or rotated: a new one, shown now.
    return JSON.readTree(
            kurir
                .call(
                    "POST",
                    "/admin/licenses/" + license.get("id").asText() + "/rotate-push-key",
                    null,
                    admin)
                .body())
        .get("pushKey")
        .asText();
  }

  @Test
  void textAtWarnWritesNothingLessSevereAndStatesTheOffset() throws Exception {
    List<String> stderr;
    String webhookSecret;
    try (WebhookReceiver receiver = new WebhookReceiver();
        GatewayProcess kurir =
            GatewayProcess.demo(
                dir, "--log.format=text", "--log.level=warn", "--admin.token=" + ADMIN_TOKEN)) {
      webhookSecret = exercise(kurir, receiver);
      Eventually.until(
          "the refused webhook in the log",
          Eventually.GUARD, // another process: slow work
          () -> kurir.stderr().stream().anyMatch(l -> l.contains("failed: HTTP 400")));
      kurir.close();
      stderr = kurir.stderr();
    }
    // The retry and the pairing were logged at info: not written at warn.
    assertThat(stderr).noneMatch(l -> l.contains("retry 1") || l.contains("online (paired)"));
    assertThat(stderr).allMatch(l -> l.matches(ISO_WITH_OFFSET + " (WARN |ERROR) .*"));
    assertThat(stderr).noneMatch(l -> l.endsWith(" []")); // no brackets without ids
    assertThat(stderr)
        .anyMatch(
            l ->
                l.contains("failed: HTTP 400")
                    && l.matches(".* \\[device_id=\\d+, webhook_delivery_id=\\d+]$"));
    assertNoSecretIn(stderr, webhookSecret);
  }

  @Test
  void badLogSettingsStopStartUpNamingTheSetting() {
    assertThatThrownBy(
            () ->
                SettingsLoader.load(
                    Profile.SERVE,
                    List.of("--log.level=loud", "--log.format=xml"),
                    Map.of(),
                    Path.of(".")))
        .isInstanceOf(SettingsException.class)
        .hasMessageContaining(
            "log.level: 'loud' is not one of trace, debug, info, warn, error, off")
        .hasMessageContaining("log.format: 'xml' is not one of text, json");
    assertThat(
            SettingsLoader.load(
                    Profile.SERVE,
                    List.of("--log.level=DEBUG", "--log.format=json"),
                    Map.of("KURIR_LOG_LEVEL", "error"),
                    Path.of("."))
                .logs())
        .isEqualTo(new io.kurir.config.Settings.Logs("json", "debug"));
  }
}
