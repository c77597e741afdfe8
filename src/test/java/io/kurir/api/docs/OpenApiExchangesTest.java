package io.kurir.api.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGraphApi;
import io.kurir.testing.Numbers;
import io.kurir.testing.OpenApiDocument;
import io.kurir.testing.OpenApiDocument.Exchange;
import io.kurir.testing.TestFiles;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.WebhookReceiver;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real requests and replies against the API document: every documented endpoint is called with its
 * canonical request (JSON, or form fields where the contract says so) and the request and its reply
 * must be what {@code /openapi.json} says; refusals in each family's error style are checked too.
 * (Every other end-to-end suite has its replies checked when its {@link TestGateway} closes.)
 */
class OpenApiExchangesTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String ADMIN = "Bearer " + TestGateway.ADMIN_TOKEN;

  /**
   * Operations that this suite reaches only with a refusal: a delivery to replay needs a receiver
   * that failed for hours; a WAHA or GOWA event and a link code need an engine's session (the
   * sandbox gives no link code); a retry needs a device whose network refused its account. Their
   * successes are in the webhook, WAHA, GOWA and Cloud API suites (CloudAccountHoldTest), whose
   * replies are checked against the document when their gateway closes.
   */
  static final Set<String> REFUSALS_ONLY =
      Set.of(
          "POST /admin/webhooks/{id}/replay",
          "POST /drivers/waha/events/{device}",
          "POST /drivers/gowa/webhook",
          "POST /admin/devices/{id}/link-code",
          "POST /admin/devices/{id}/retry");

  @TempDir Path dir;
  TestGateway kurir;
  FakeGraphApi graph;
  HttpServer files;
  WebhookReceiver receiver;
  String filesUrl;
  final OpenApiDocument document = OpenApiDocument.served();
  final List<String> problems = new ArrayList<>();
  final Set<String> succeeded = new TreeSet<>();
  final Set<String> reached = new TreeSet<>();

  // What the earlier steps made, for the later ones.
  String partnerBasic;
  String licenseId;
  String code;
  String pushKey;
  String number;
  String deviceId;
  String spare;
  String key;
  String deviceKey;
  String crmId;
  String to;
  String groupId;
  String messageId;
  String png;
  String pdf;

  @BeforeEach
  void start() throws Exception {
    files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    serve("/promo.png", TestFiles.PNG);
    serve("/invoice.pdf", TestFiles.PDF);
    files.start();
    filesUrl = "http://127.0.0.1:" + files.getAddress().getPort();
    receiver = new WebhookReceiver();
    graph = new FakeGraphApi(TestGateway.settableClock());
    kurir =
        TestGateway.start(
            dir,
            "--media.allow-private-addresses=true",
            "--public.url=https://kurir.example.com",
            "--drivers.cloud.graph-url=" + graph.graphUrl());
  }

  @AfterEach
  void stop() {
    kurir.close();
    files.stop(0);
    receiver.close();
    graph.close();
  }

  @Test
  void everyEndpointAnswersAsDocumented() throws Exception {
    assertThat(canonical("GET", "/openapi.json", null, null).status()).isEqualTo(200);
    adminApi();
    sandboxApi();
    ecoApi();
    accountApi();
    partnerApi();
    crmApi();
    multiAgentApi();
    pushApis();
    driverWebhooks();
    v1Api();
    v1Events();
    v1Contacts();
    v1Campaigns();
    graphDoor();

    // Every documented operation was called, and all but a few answered a success.
    List<String> documented = document.documentedRoutes();
    assertThat(problems).as("exchanges the API document does not describe").isEmpty();
    assertThat(reached).as("documented operations this suite called").containsAll(documented);
    assertThat(succeeded)
        .as("documented operations that answered a success")
        .containsAll(documented.stream().filter(r -> !REFUSALS_ONLY.contains(r)).toList());
  }

  /** Admin API: a partner, a license and two devices, made as an operator does. */
  private void adminApi() throws Exception {
    JsonNode partner =
        json(
            canonical(
                "POST", "/admin/partners", json("name", "Reseller", "email", "r@x.id"), ADMIN));
    String partnerId = partner.get("id").asText();
    canonical("GET", "/admin/partners", null, ADMIN);
    partner =
        json(canonical("POST", "/admin/partners/" + partnerId + "/rotate-secret", null, ADMIN));
    partnerBasic =
        "Basic "
            + Base64.getEncoder()
                .encodeToString(
                    (partner.get("basicUser").asText() + ":" + partner.get("basicSecret").asText())
                        .getBytes(StandardCharsets.UTF_8));
    JsonNode license =
        json(
            canonical(
                "POST",
                "/admin/licenses",
                json(
                    "partner",
                    partnerId,
                    "name",
                    "Toko",
                    "email",
                    "toko@x.id",
                    "expires",
                    "2099-01-01"),
                ADMIN));
    licenseId = license.get("id").asText();
    code = license.get("code").asText();
    canonical("GET", "/admin/licenses", null, ADMIN);
    canonical(
        "POST", "/admin/licenses/" + licenseId + "/expires", json("expires", "2099-12-31"), ADMIN);
    canonical("POST", "/admin/licenses/" + licenseId + "/rotate-webhook-secret", null, ADMIN);
    code =
        json(canonical("POST", "/admin/licenses/" + licenseId + "/rotate-code", null, ADMIN))
            .get("code")
            .asText();
    pushKey =
        json(canonical("POST", "/admin/licenses/" + licenseId + "/rotate-push-key", null, ADMIN))
            .get("pushKey")
            .asText();
    number = "+6281100007701";
    JsonNode device =
        json(
            canonical(
                "POST",
                "/admin/devices",
                json("license", licenseId, "number", number, "driver", "sandbox"),
                ADMIN));
    deviceId = device.get("id").asText();
    // The CRM id is stored as its hash: readable only in the answer that made it.
    crmId = device.get("crmDeviceId").asText();
    canonical("GET", "/admin/devices", null, ADMIN);
    canonical("GET", "/admin/devices/" + deviceId, null, ADMIN);
    refused("POST", "/admin/partners", json("name", "R", "nmae", "R"), ADMIN); // unknown_field
    device =
        json(
            canonical(
                "POST",
                "/admin/devices/" + deviceId + "/rotate",
                json("credential", "device-key"),
                ADMIN));
    key = device.get("key").asText();
    deviceKey = device.get("deviceKey").asText();
    for (String what :
        List.of("partners/" + partnerId, "licenses/" + licenseId, "devices/" + deviceId)) {
      canonical("POST", "/admin/" + what + "/disable", null, ADMIN);
      canonical("POST", "/admin/" + what + "/enable", null, ADMIN);
    }

    // Pairing: the QR payload the Admin API shows, scanned by a sandbox phone.
    JsonNode pairing =
        json(canonical("POST", "/admin/devices/" + deviceId + "/pairing", null, ADMIN));
    canonical("POST", "/sandbox/scan", json("code", pairing.get("payload").asText()), ADMIN);
    assertThat(
            json(canonical("GET", "/sandbox/devices/" + deviceId, null, ADMIN))
                .get("paired")
                .asBoolean())
        .isTrue();
    spare =
        json(canonical(
                "POST",
                "/admin/devices",
                json("license", licenseId, "number", "+6281100007702", "driver", "sandbox"),
                ADMIN))
            .get("id")
            .asText();
    refused("POST", "/admin/devices/" + spare + "/link-code", null, ADMIN); // link_code_unavailable
    refused("POST", "/admin/devices/" + deviceId + "/link-code", null, ADMIN); // already_paired
    refused("POST", "/admin/devices/" + deviceId + "/retry", null, ADMIN); // device_not_held

    // A cloud device: its configuration is patched through the Admin API.
    String cloud =
        json(canonical(
                "POST",
                "/admin/devices",
                json(
                    "license",
                    licenseId,
                    "number",
                    "+6281100007703",
                    "driver",
                    "cloud",
                    "config",
                    Map.of(
                        "phone-number-id", FakeGraphApi.PHONE_NUMBER_ID,
                        "access-token", FakeGraphApi.TOKEN,
                        "app-secret", FakeGraphApi.APP_SECRET)),
                ADMIN))
            .get("id")
            .asText();
    canonical(
        "PATCH",
        "/admin/devices/" + cloud,
        json("config", Map.of("verify-token", FakeGraphApi.VERIFY_TOKEN)),
        ADMIN);

    // A device created to be deleted: 204, then 404 for it.
    String gone =
        json(canonical(
                "POST",
                "/admin/devices",
                json("license", licenseId, "number", "+6281100007704"),
                ADMIN))
            .get("id")
            .asText();
    canonical("DELETE", "/admin/devices/" + gone, null, ADMIN);
    refused("DELETE", "/admin/devices/" + gone, null, ADMIN); // not_found

    // Mobile CS entries, for the push families and the spreadsheet script.
    Map<String, Object> handset =
        json(
            "device", deviceId, "name", "CS Ani", "playerId", "player-1", "handsetId", "handset-1");
    canonical("POST", "/admin/licenses/" + licenseId + "/mobile-cs", handset, ADMIN);
    String extra =
        json(canonical(
                "POST",
                "/admin/licenses/" + licenseId + "/mobile-cs",
                json("device", deviceId, "name", "CS Budi", "playerId", "p-2", "handsetId", "h-2"),
                ADMIN))
            .get("id")
            .asText();
    canonical("GET", "/admin/licenses/" + licenseId + "/mobile-cs", null, ADMIN);
    canonical("DELETE", "/admin/mobile-cs/" + extra, null, ADMIN);
    canonical(
        "GET",
        "/admin/devices/" + deviceId + "/script?script=eco-async&kolom_no_wa=2&template=Halo",
        null,
        ADMIN);
    refused("GET", "/admin/partners", null, "Bearer wrong"); // 401 in Kurir's own style
  }

  /** Sandbox: phones, groups, sessions, failures. */
  private void sandboxApi() throws Exception {
    to = Numbers.fresh();
    canonical("POST", "/sandbox/phones/" + to, json("registered", true, "online", true), ADMIN);
    groupId = "6281100007701-1700000000";
    canonical(
        "POST",
        "/sandbox/groups",
        json("id", groupId, "name", "Team", "members", number + "," + to),
        ADMIN);
    canonical("GET", "/sandbox/groups", null, ADMIN);
    canonical(
        "POST", "/sandbox/devices/" + deviceId + "/multi-device", json("enabled", true), ADMIN);
    canonical("POST", "/sandbox/devices/" + spare + "/pair", null, ADMIN);
    canonical("POST", "/sandbox/devices/" + spare + "/offline", null, ADMIN);
    canonical("POST", "/sandbox/devices/" + spare + "/online", null, ADMIN);
    canonical("POST", "/sandbox/devices/" + spare + "/take-over", null, ADMIN);
    canonical("POST", "/sandbox/devices/" + spare + "/unpair", null, ADMIN);
    refused("POST", "/sandbox/devices/" + spare + "/offline", null, ADMIN); // not paired
    canonical(
        "POST",
        "/sandbox/devices/" + deviceId + "/incoming",
        json("from", to, "message", "halo"),
        ADMIN);
    canonical(
        "POST", "/sandbox/failures", json("target", "*", "kind", "offline", "count", 1), ADMIN);
    canonical("DELETE", "/sandbox/failures", null, ADMIN);
  }

  /** Eco API. */
  private void ecoApi() throws Exception {
    png = filesUrl + "/promo.png";
    pdf = filesUrl + "/invoice.pdf";
    canonical(
        "POST", "/api/send_message", json("key", key, "phone_no", to, "message", "Halo"), null);
    canonical(
        "POST",
        "/api/send_message",
        json("key", key, "phone_no", to, "message", "Halo", "deliveryFlag", true),
        null);
    messageId =
        canonical(
                "POST",
                "/api/async_send_message",
                json(
                    "key",
                    key,
                    "phone_no",
                    to,
                    "message",
                    "Hi",
                    "skip_link",
                    true,
                    "flag_retry",
                    "on",
                    "pendingTime",
                    0),
                null)
            .body();
    canonical(
        "POST",
        "/api/send_image_url",
        json("key", key, "phone_no", to, "url", png, "message", "cap"),
        null);
    canonical(
        "POST", "/api/async_send_image_url", json("key", key, "phone_no", to, "url", png), null);
    canonical("POST", "/api/send_file_url", json("key", key, "phone_no", to, "url", pdf), null);
    canonical(
        "POST", "/api/async_send_file_url", json("key", key, "phone_no", to, "url", pdf), null);
    assertThat(upload("/api/upload/" + key, null).body()).isEqualTo("success");
    assertThat(upload("/api/upload", key).body()).matches("\\d+");
    canonical(
        "POST",
        "/api/send_image",
        json("key", key, "phone_no", to, "filename", "/media/promo.png", "message", "cap"),
        null);
    canonical(
        "POST",
        "/api/send_group",
        json("key", key, "group_name", "Team", "message", "Halo tim"),
        null);
    canonical(
        "POST",
        "/api/async_send_group",
        json("key", key, "group_name", "Team", "message", "Hi"),
        null);
    canonical(
        "POST",
        "/api/send_message_group_id",
        json("key", key, "group_id", groupId, "message", "x"),
        null);
    canonical(
        "POST",
        "/api/async_send_message_group_id",
        json("key", key, "group_id", groupId, "message", "y"),
        null);
    canonical(
        "POST",
        "/api/send_image_url_group_id",
        json("key", key, "group_id", groupId, "url", png),
        null);
    canonical(
        "POST",
        "/api/async_send_image_url_group_id",
        json("key", key, "group_id", groupId, "url", png),
        null);
    canonical(
        "POST",
        "/api/send_file_url_group_id",
        json("key", key, "group_id", groupId, "url", pdf),
        null);
    canonical(
        "POST",
        "/api/async_send_file_url_group_id",
        json("key", key, "group_id", groupId, "url", pdf),
        null);
    assertThat(
            canonical("POST", "/api/getGroupMember", json("key", key, "group_id", groupId), null)
                .body())
        .contains(Numbers.digits(to));
    String due = "2099-01-01 10:00";
    String schedule =
        canonical(
                "POST",
                "/api/scheduler",
                json(
                    "key",
                    key,
                    "phone_no",
                    to,
                    "sch_date",
                    due,
                    "api_type",
                    "text",
                    "message",
                    "later"),
                null)
            .body();
    canonical("POST", "/api/sch_check", json("key", key, "msg_id", schedule), null);
    canonical("POST", "/api/sch_remove", json("key", key, "msg_id", schedule), null);
    canonical("POST", "/api/sch_check", json("key", key, "msg_id", "1"), null); // not_found
    canonical("POST", "/api/status_msg_id", json("key", key, "msg_id", messageId), null);
    canonical("POST", "/api/check_number", json("key", key, "phone_no", to), null);
    canonical("POST", "/api/check_delivery_status", json("key", key, "messageId", messageId), null);
    canonical("POST", "/api/check_delivery_status", json("key", key, "messageId", "1"), null);
    canonical("POST", "/api/report_json", json("key", key, "time_choose", "today"), null);
    canonical(
        "POST",
        "/api/report_json",
        json("key", key, "time_choose", "month", "keyword", "zzz"),
        null);
    canonical("POST", "/api/info", json("key", key), null);
    canonical("POST", "/api/qr_status", json("key", key), null);
    canonical(
        "POST",
        "/api/webhook_status",
        json("key", key, "action", "add", "url", receiver.url("/status")),
        null);
    canonical("POST", "/api/webhook_status", json("key", key, "action", "status"), null);
    canonical("POST", "/api/generate_qr", json("key", key), null); // success: paired already
    canonical("POST", "/api/logout", json("key", key), null);
    assertThat(canonical("POST", "/api/generate_qr", json("key", key), null).body())
        .startsWith("data:image/png;base64,");
    canonical("POST", "/sandbox/devices/" + deviceId + "/pair", null, ADMIN);
    refused(
        "POST",
        "/api/send_message",
        json("key", "no-such-key", "phone_no", to, "message", "x"),
        null);
    refused("POST", "/api/send_message", json("key", key, "message", "x"), null); // phone_no_empty
    Eventually.until("the sends went out", () -> !kurir.sandbox().inbox(to).isEmpty());
    canonical("GET", "/sandbox/phones/" + to + "/inbox", null, ADMIN);
    canonical("GET", "/admin/messages/" + messageId, null, ADMIN);
    canonical("GET", "/admin/webhooks?state=delivered", null, ADMIN);
    refused("POST", "/admin/webhooks/1/replay", null, ADMIN);
  }

  /** Account API. */
  private void accountApi() throws Exception {
    canonical(
        "POST",
        "/v2.0/webhook",
        form("license", code, "no_wa", number, "action", "set", "url", receiver.url("/in")),
        null);
    canonical(
        "POST", "/v2.0/webhook", form("license", code, "no_wa", number, "action", "get_all"), null);
    canonical(
        "POST", "/v2.0/webhook", form("license", code, "no_wa", number, "action", "unset"), null);
    refused(
        "POST", "/v2.0/webhook", form("license", "nope", "no_wa", number, "action", "get"), null);
    canonical("GET", "/v3.0/license/expired/" + code, null, null);
    canonical("GET", "/v3.0/license/expired/unknown-license", null, null);
    canonical("GET", "/v2.0/mobile/get-cs-id-all/" + code, null, null);
    canonical("POST", "/v2.0/mobile/get-cs-id-all/" + code, null, null);
    canonical(
        "POST", "/v2.0/demo", json("key", key, "phone_no", to, "message", "demo"), partnerBasic);
    canonical(
        "POST",
        "/v2.0/send-message",
        form("license", code, "wa_number", to, "text", "legacy", "no_wa", number),
        null);
  }

  /** Partner API. */
  private void partnerApi() throws Exception {
    String bot =
        json(canonical(
                "POST",
                "/v4.0/wa_partner/add_bot",
                form(
                    "license",
                    code,
                    "bot_keyword",
                    "harga",
                    "bot_response",
                    "Rp 10.000",
                    "bot_type",
                    "partial"),
                partnerBasic))
            .get("id")
            .asText();
    canonical("POST", "/v4.0/wa_partner/get_bot", form("license", code), partnerBasic);
    canonical(
        "POST", "/v4.0/wa_partner/delete_bot", form("license", code, "id", bot), partnerBasic);
    canonical(
        "POST",
        "/v4.0/wa_partner/bulk_check_id",
        form("license", code, "bulk_msg_id", messageId + ",1"),
        partnerBasic);
    canonical(
        "POST",
        "/v4.0/wa_partner/get_key",
        form("license", code, "email", "toko@x.id", "no_wa", number),
        partnerBasic);
    refused("POST", "/v4.0/wa_partner/get_bot", form("license", code), "Basic bm9wZTpub3Bl");
  }

  /** CRM API. */
  private void crmApi() throws Exception {
    canonical(
        "POST",
        "/send/message-text",
        json("deviceId", crmId, "number", to, "message", "crm"),
        null);
    canonical(
        "POST",
        "/send/message-image",
        json("deviceId", crmId, "number", to, "message", "c", "imageUrl", png),
        null);
    refused(
        "POST", "/send/message-text", json("deviceId", "nope", "number", to, "message", "x"), null);
  }

  /** Multi-agent API. */
  private void multiAgentApi() throws Exception {
    String[] agent = {"device-key", deviceKey};
    canonical("POST", "/api/srv1/send-text", form("number", to, "message", "agent"), null, agent);
    canonical(
        "POST",
        "/api/srv1/send-text",
        form("number", groupId, "message", "grp", "group", "1"),
        null,
        agent);
    canonical(
        "POST",
        "/api/srv1/send-media-url",
        form("number", to, "media_url", pdf, "type", "document"),
        null,
        agent);
    multipartMedia(deviceKey, to);
    refused("POST", "/api/srv1/send-text", form("number", to, "message", "x"), null);
  }

  /** Push families. */
  private void pushApis() throws Exception {
    canonical(
        "POST",
        "/api/v1/notifications",
        json(
            "app_id", kurir.settings().pushAppId(),
            "include_player_ids", List.of("player-1", "nobody"),
            "data", Map.of("type", "text", "message", "push", "no_wa", to),
            "contents", Map.of("en", "push"),
            "headings", Map.of("en", "Kurir")),
        "Basic " + pushKey);
    refused("POST", "/api/v1/notifications", json("app_id", "x"), "Basic wrong");
    canonical(
        "POST",
        "/send",
        json("to", "handset-1", "data", Map.of("message", "p2", "number", to, "send_from", "form")),
        "Bearer " + pushKey);
    canonical(
        "POST",
        "/send",
        json("to", "nobody", "data", Map.of("message", "p2", "number", to)),
        "Bearer " + pushKey);
    canonical(
        "POST",
        "/push/send-text",
        json("key", key, "message", "p2 text", "phone_no", to, "whatsapp", "auto"),
        "Bearer " + pushKey);
    refused("POST", "/send", json("to", "x", "data", Map.of()), "Bearer wrong");
  }

  /** Drivers' webhooks. */
  private void driverWebhooks() throws Exception {
    canonical(
        "GET",
        "/drivers/cloud/webhook?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token="
            + FakeGraphApi.VERIFY_TOKEN,
        null,
        null);
    String notification =
        JSON.writeValueAsString(
            Map.of(
                "object",
                "whatsapp_business_account",
                "entry",
                List.of(
                    Map.of(
                        "id",
                        "1",
                        "changes",
                        List.of(
                            Map.of(
                                "field",
                                "messages",
                                "value",
                                Map.of(
                                    "messaging_product", "whatsapp",
                                    "metadata",
                                        Map.of("phone_number_id", FakeGraphApi.PHONE_NUMBER_ID),
                                    "statuses", List.of())))))));
    canonical(
        "POST",
        "/drivers/cloud/webhook",
        notification,
        null,
        "X-Hub-Signature-256",
        "sha256=" + hmac("HmacSHA256", FakeGraphApi.APP_SECRET, notification));
    refused("POST", "/drivers/cloud/webhook", notification, null); // signature_missing
    refused(
        "POST",
        "/drivers/waha/events/" + deviceId,
        "{\"event\":\"session.status\",\"payload\":{\"status\":\"WORKING\"}}",
        null,
        "X-Webhook-Hmac",
        "00");
    refused(
        "POST",
        "/drivers/gowa/webhook",
        "{\"event\":\"message\",\"session_id\":\"kurir-1\",\"payload\":{}}",
        null,
        "X-Hub-Signature-256",
        "sha256=00"); // GOWA's successes are in the gowa suites, checked when their gateway closes
  }

  @Test
  void aReplyThatDiffersFromTheDocumentIsFound() {
    Exchange extraField =
        new Exchange(
            "POST",
            "/api/info",
            "application/json",
            "{\"key\":\"k\"}",
            200,
            "application/json",
            "{\"status\":\"online\",\"number\":\"62811\",\"account\":\"1\",\"version\":\"x\",\"extra\":1}");
    Exchange wrongResult =
        new Exchange(
            "POST",
            "/api/check_number",
            "application/json",
            "{\"key\":\"k\",\"phone_no\":\"0811\"}",
            200,
            "text/plain; charset=utf-8",
            "unknown");
    Exchange wrongErrorStyle =
        new Exchange(
            "POST",
            "/send/message-text",
            "application/json",
            "{}",
            401,
            "application/json",
            "{\"status\":\"failed\",\"message\":\"invalid_device_id\"}");
    Exchange undocumentedStatus =
        new Exchange("GET", "/openapi.json", "", "", 301, "text/plain", "moved");
    Exchange badRequest =
        new Exchange(
            "POST",
            "/api/send_message",
            "application/json",
            "{\"key\":\"k\",\"message\":1}",
            200,
            "text/plain",
            "success");

    assertThat(document.problems(extraField, false)).singleElement().asString().contains("extra");
    assertThat(document.problems(wrongResult, false)).isNotEmpty();
    assertThat(document.problems(wrongErrorStyle, false)).isNotEmpty();
    assertThat(document.problems(undocumentedStatus, false))
        .singleElement()
        .asString()
        .contains("301");
    assertThat(document.problems(badRequest, false)).isEmpty();
    assertThat(document.problems(badRequest, true))
        .isNotEmpty(); // no phone_no, message not a string

    Exchange otherCredentialToken =
        new Exchange(
            "POST",
            "/api/info",
            "application/json",
            "{\"key\":\"k\"}",
            401,
            "text/plain; charset=utf-8",
            "bad_key");
    assertThat(document.problems(otherCredentialToken, false)).isNotEmpty();
    Exchange badParameters =
        new Exchange(
            "GET",
            "/admin/devices/not-an-id/script?script=eco-async",
            "",
            "",
            200,
            "application/javascript",
            "// a script");
    assertThat(document.problems(badParameters, false)).isEmpty();
    assertThat(document.problems(badParameters, true))
        .anyMatch(p -> p.contains("path parameter id"))
        .anyMatch(p -> p.contains("kolom_no_wa is missing"));
  }

  /** Kurir's own API, events: the pull and webhook subscriptions, with a license key. */
  private void v1Events() throws Exception {
    String bearer =
        "Bearer "
            + kurir
                .gateway()
                .tenants()
                .apiKeys()
                .create(
                    Long.parseLong(licenseId),
                    "docs",
                    java.util.Set.of(
                        io.kurir.tenant.ApiScope.READ, io.kurir.tenant.ApiScope.WEBHOOKS))
                .key()
                .orElseThrow();
    canonical("GET", "/v1/events?after=0&limit=10", null, bearer);
    refused("GET", "/v1/events?after=x", null, bearer);
    JsonNode made =
        JSON.readTree(
            canonical(
                    "POST",
                    "/v1/webhooks",
                    Map.of("url", receiver.url("/v1"), "events", List.of("message.status")),
                    bearer)
                .body());
    refused("POST", "/v1/webhooks", Map.of("url", "ftp://x", "events", List.of()), bearer);
    canonical("GET", "/v1/webhooks", null, bearer);
    canonical("DELETE", "/v1/webhooks/" + made.get("id").asText(), null, bearer);
    refused("DELETE", "/v1/webhooks/1", null, bearer);
  }

  /** The contact book: an import and its preview, the book read and exported, one contact. */
  private void v1Contacts() throws Exception {
    String bearer =
        "Bearer "
            + kurir
                .gateway()
                .tenants()
                .apiKeys()
                .create(
                    Long.parseLong(licenseId),
                    "docs",
                    java.util.Set.of(io.kurir.tenant.ApiScope.CONTACTS))
                .key()
                .orElseThrow();
    String csv = "phone,name,tags,kelas\n081234567890,Siti,parents;7a,7A\n12,Nobody,,\n";
    canonical("POST", "/v1/contacts/import?preview=true", new Csv(csv), bearer);
    canonical("POST", "/v1/contacts/import", new Csv(csv), bearer);
    refused("POST", "/v1/contacts/import", new Csv("name\nSiti\n"), bearer);
    canonical("GET", "/v1/contacts?tag=parents&limit=10", null, bearer);
    refused("GET", "/v1/contacts?cursor=x", null, bearer);
    canonical("GET", "/v1/contacts/tags", null, bearer);
    canonical("GET", "/v1/contacts/export", null, bearer);
    canonical(
        "POST",
        "/v1/contacts",
        Map.of("phone", "081234567891", "name", "Rina", "tags", List.of("vip")),
        bearer);
    refused("POST", "/v1/contacts", Map.of("phone", "12"), bearer);
    canonical("GET", "/v1/contacts/+6281234567891", null, bearer);
    canonical("PATCH", "/v1/contacts/+6281234567891", Map.of("unsubscribed", true), bearer);
    refused("PATCH", "/v1/contacts/+6281234567891", Map.of("phone", "1"), bearer);
    // Subscribed again first: removed, an unsubscribed contact would keep its opt-out.
    canonical("PATCH", "/v1/contacts/+6281234567891", Map.of("unsubscribed", false), bearer);
    canonical("DELETE", "/v1/contacts/+6281234567891", null, bearer);
    refused("GET", "/v1/contacts/+6281234567891", null, bearer);
  }

  /**
   * Campaigns over the contacts {@link #v1Contacts} imported: each one starts in the future, so
   * that pause, resume and cancel find it where they apply whatever the hour in Jakarta.
   */
  private void v1Campaigns() throws Exception {
    String bearer =
        "Bearer "
            + kurir
                .gateway()
                .tenants()
                .apiKeys()
                .create(
                    Long.parseLong(licenseId),
                    "docs",
                    java.util.Set.of(io.kurir.tenant.ApiScope.CAMPAIGNS))
                .key()
                .orElseThrow();
    Map<String, Object> body =
        Map.of(
            "name",
            "Promo",
            "audience",
            Map.of("tags", List.of("parents")),
            "message",
            Map.of("type", "text", "text", Map.of("body", "Halo {name|Kak}")),
            "start_at",
            java.time.Instant.now().plus(java.time.Duration.ofDays(1)).toString(),
            "quiet_hours",
            Map.of("from", "21:00", "to", "06:00"));
    // The license has a Cloud API device: without a template the pool is refused (422).
    refused("POST", "/v1/campaigns", body, bearer);
    body = new java.util.HashMap<>(body);
    body.put(
        "template",
        Map.of(
            "name",
            "promo_bulan",
            "language",
            Map.of("code", "id"),
            "components",
            List.of(
                Map.of(
                    "type",
                    "body",
                    "parameters",
                    List.of(Map.of("type", "text", "text", "{name|Kak}"))))));
    String first = id(canonical("POST", "/v1/campaigns", body, bearer));
    refused("POST", "/v1/campaigns", Map.of("name", "No audience"), bearer);
    refused("POST", "/v1/campaigns/" + first + "/pause", null, bearer);
    canonical("POST", "/v1/campaigns/" + first + "/start", null, bearer);
    canonical("POST", "/v1/campaigns/" + first + "/pause", null, bearer);
    canonical("POST", "/v1/campaigns/" + first + "/resume", null, bearer);
    canonical("POST", "/v1/campaigns/" + first + "/cancel", null, bearer);
    canonical("GET", "/v1/campaigns", null, bearer);
    canonical("GET", "/v1/campaigns/" + first, null, bearer);
    canonical("GET", "/v1/campaigns/" + first + "/report.csv", null, bearer);
    refused("GET", "/v1/campaigns/1", null, bearer);
    // A campaign whose audience is an uploaded list: refused at start until its list is there.
    String listed =
        id(
            canonical(
                "POST",
                "/v1/campaigns",
                Map.of(
                    "name",
                    "Parents 7",
                    "audience",
                    Map.of("list", true),
                    "message",
                    Map.of("type", "text", "text", Map.of("body", "Halo {name|Bapak/Ibu}")),
                    "template",
                    body.get("template")),
                bearer));
    refused("POST", "/v1/campaigns/" + listed + "/start", null, bearer);
    String list = "phone,name,kelas\n081234567890,Siti,7A\n12,Budi,7B\n";
    canonical("POST", "/v1/campaigns/" + listed + "/audience?preview=true", new Csv(list), bearer);
    canonical("POST", "/v1/campaigns/" + listed + "/audience", new Csv(list), bearer);
    refused("POST", "/v1/campaigns/" + first + "/audience", new Csv(list), bearer);
  }

  private static String id(Reply r) throws Exception {
    return new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body()).get("id").asText();
  }

  /** A CSV body, posted as {@code text/csv}. */
  private record Csv(String text) {}

  /** The Cloud API's door: a send, a refused read mark, media uploaded, described, fetched. */
  private void graphDoor() throws Exception {
    String bearer = "Bearer " + key;
    String base = "/graph/v23.0/";
    canonical(
        "POST",
        base + deviceId + "/messages",
        json(
            "messaging_product",
            "whatsapp",
            "to",
            to.replace("+", ""),
            "type",
            "text",
            "text",
            json("body", "From Meta's code")),
        bearer);
    refused(
        "POST",
        base + deviceId + "/messages",
        json("messaging_product", "whatsapp", "status", "read", "message_id", "1"),
        bearer);
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("messaging_product", "whatsapp");
    fields.put("type", "image/png");
    fields.put("file", TestFiles.PNG);
    Reply up = multipart(base + deviceId + "/media", fields, "promo.png", "Authorization", bearer);
    canonicalReply(base + deviceId + "/media");
    String mediaId = json(up).path("id").asText();
    String url = json(canonical("GET", base + mediaId, null, bearer)).path("url").asText();
    canonical("GET", url.substring(url.indexOf("/graph/")), null, null);
    refused("GET", base + mediaId + "/file", null, null);
    canonical("DELETE", base + mediaId, null, bearer);
  }

  // --- helpers

  /** A canonical request: it and its reply must be as documented, and the reply a success. */
  private Reply canonical(String method, String path, Object body, String auth, String... headers) {
    Reply r = call(method, path, body, auth, headers);
    Exchange e = last();
    problems.addAll(document.problems(e, true));
    assertThat(r.status()).as(e.toString()).isBetween(200, 299);
    document
        .operationOf(method, path)
        .ifPresent(op -> succeeded.add(method + " " + template(method, path)));
    return r;
  }

  /** A refused request: its reply must be a documented error, in the family's style. */
  private Reply refused(String method, String path, Object body, String auth, String... headers) {
    Reply r = call(method, path, body, auth, headers);
    Exchange e = last();
    problems.addAll(document.problems(e, false));
    assertThat(r.status()).as(e.toString()).isBetween(400, 499);
    return r;
  }

  private Reply call(String method, String path, Object body, String auth, String... headers) {
    List<String> all = new ArrayList<>(List.of(headers));
    if (auth != null) {
      all.addAll(List.of("Authorization", auth));
    }
    String[] h = all.toArray(String[]::new);
    reached.add(method + " " + template(method, path));
    if (body instanceof Form f) {
      return kurir.post(path, f.encoded(), "application/x-www-form-urlencoded", h);
    }
    if (body instanceof Csv c) {
      return kurir.post(path, c.text(), "text/csv", h);
    }
    String text;
    try {
      text = body == null ? null : body instanceof String s ? s : JSON.writeValueAsString(body);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    if (method.equals("POST") && text != null) {
      return kurir.post(path, text, "application/json", h);
    }
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(kurir.url(path)));
    if (h.length > 0) {
      b.headers(h);
    }
    b.method(
        method,
        text == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(text, StandardCharsets.UTF_8));
    if (text != null) {
      b.header("Content-Type", "application/json");
    }
    return kurir.send(b.build(), text);
  }

  private Exchange last() {
    List<Exchange> all = kurir.exchanges();
    return all.getLast();
  }

  /** The documented path that {@code path} is an instance of. */
  private String template(String method, String path) {
    String bare = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    for (String route : document.documentedRoutes()) {
      String[] parts = route.split(" ", 2);
      if (parts[0].equals(method) && bare.matches(parts[1].replaceAll("\\{[^/]+}", "[^/]+"))) {
        return parts[1];
      }
    }
    return bare;
  }

  private Reply upload(String path, String key) {
    Map<String, Object> fields = new LinkedHashMap<>();
    if (key != null) {
      fields.put("key", key);
    }
    fields.put("file", TestFiles.PNG);
    Reply r = multipart(path, fields, "promo.png");
    canonicalReply(path);
    return r;
  }

  private void multipartMedia(String deviceKey, String to) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("number", to);
    fields.put("message", "file");
    fields.put("type", "image");
    fields.put("media", TestFiles.PNG);
    multipart("/api/srv1/send-media", fields, "promo.png", "device-key", deviceKey);
    canonicalReply("/api/srv1/send-media");
  }

  private void canonicalReply(String path) {
    Exchange e = last();
    problems.addAll(document.problems(e, false));
    assertThat(e.status()).as(e.toString()).isBetween(200, 299);
    reached.add("POST " + template("POST", path));
    succeeded.add("POST " + template("POST", path));
  }

  private Reply multipart(
      String path, Map<String, Object> fields, String filename, String... headers) {
    String boundary = "----kurirdocs" + System.nanoTime();
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    fields.forEach(
        (name, value) -> {
          String head =
              "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"";
          if (value instanceof byte[] bytes) {
            body.writeBytes(
                (head + "; filename=\"" + filename + "\"\r\nContent-Type: image/png\r\n\r\n")
                    .getBytes(StandardCharsets.UTF_8));
            body.writeBytes(bytes);
          } else {
            body.writeBytes((head + "\r\n\r\n" + value).getBytes(StandardCharsets.UTF_8));
          }
          body.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        });
    body.writeBytes(("--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(kurir.url(path)))
            .header("Content-Type", "multipart/form-data; boundary=" + boundary)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return kurir.send(b.build());
  }

  private static JsonNode json(Reply r) throws Exception {
    return JSON.readTree(r.body());
  }

  /** Kurir API v1: a key made by the Admin API, a send of each kind, reads, a refusal. */
  private void v1Api() throws Exception {
    String made =
        json(canonical(
                "POST",
                "/admin/licenses/" + licenseId + "/api-keys",
                json("name", "backend", "scopes", List.of("send", "read")),
                ADMIN))
            .get("key")
            .asText();
    String bearer = "Bearer " + made;
    canonical("GET", "/admin/licenses/" + licenseId + "/api-keys", null, ADMIN);
    String id =
        json(canonical(
                "POST",
                "/v1/messages",
                json("device", deviceId, "to", to, "type", "text", "text", json("body", "v1")),
                bearer))
            .get("id")
            .asText();
    String image =
        json(canonical(
                "POST",
                "/v1/messages?wait=10s",
                json("device", number, "to", to, "type", "image", "image", json("link", png)),
                bearer))
            .get("id")
            .asText();
    canonical(
        "POST",
        "/v1/messages",
        json(
            "device",
            deviceId,
            "to",
            to,
            "type",
            "document",
            "document",
            json("link", pdf, "filename", "invoice.pdf")),
        bearer);
    canonical("GET", "/v1/messages/" + id, null, bearer);
    canonical("GET", "/v1/messages?limit=1", null, bearer);
    canonical("GET", "/v1/devices", null, bearer);
    canonical("GET", "/v1/devices/" + deviceId, null, bearer);
    // Conversations: the device's chats, the chat's messages, the sent image's kept file.
    canonical("GET", "/v1/chats?device=" + deviceId, null, bearer);
    canonical(
        "GET",
        "/v1/chats/"
            + java.net.URLEncoder.encode(to, java.nio.charset.StandardCharsets.UTF_8)
            + "/messages?device="
            + deviceId
            + "&limit=2",
        null,
        bearer);
    canonical("GET", "/v1/media/" + image, null, bearer);
    refused("GET", "/v1/media/" + id, null, bearer);
    refused("POST", "/v1/messages", json("to", to, "type", "location"), bearer);
    refused("GET", "/v1/devices", null, "Bearer kurir_nobody");
    // Actions: a reaction (queued), an edit and a revoke of a sent text, a read mark, typing.
    String sent =
        json(canonical(
                "POST",
                "/v1/messages?wait=10s",
                json("device", deviceId, "to", to, "type", "text", "text", json("body", "9am")),
                bearer))
            .get("id")
            .asText();
    canonical("POST", "/v1/messages/" + sent + "/reactions", json("emoji", "\uD83D\uDC4D"), bearer);
    canonical("PATCH", "/v1/messages/" + sent, json("text", json("body", "10am")), bearer);
    refused("PATCH", "/v1/messages/" + image, json("text", json("body", "x")), bearer);
    canonical("DELETE", "/v1/messages/" + sent, null, bearer);
    refused("DELETE", "/v1/messages/" + sent, null, bearer);
    String chat = java.net.URLEncoder.encode(to, java.nio.charset.StandardCharsets.UTF_8);
    kurir.sandbox().injectIncoming(Long.parseLong(deviceId), to, "thanks");
    Eventually.until(
        "the customer's message stored", () -> kurir.storedIncoming(Long.parseLong(deviceId)) > 0);
    canonical("POST", "/v1/chats/" + chat + "/read", json("device", deviceId), bearer);
    canonical(
        "POST",
        "/v1/chats/" + chat + "/typing",
        json("device", deviceId, "state", "typing"),
        bearer);
    refused(
        "POST", "/v1/chats/" + chat + "/typing", json("device", deviceId, "state", "x"), bearer);
    String revoked =
        json(canonical(
                "POST",
                "/admin/licenses/" + licenseId + "/api-keys",
                json("name", "old", "scopes", "read"),
                ADMIN))
            .get("id")
            .asText();
    canonical("DELETE", "/admin/licenses/" + licenseId + "/api-keys/" + revoked, null, ADMIN);
  }

  /** A JSON object of name/value pairs, in order. */
  private static Map<String, Object> json(Object... pairs) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      m.put((String) pairs[i], pairs[i + 1]);
    }
    return m;
  }

  /** Form fields, URL-encoded. */
  private record Form(List<String> pairs) {
    String encoded() {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i + 1 < pairs.size(); i += 2) {
        if (!b.isEmpty()) {
          b.append('&');
        }
        b.append(URLEncoder.encode(pairs.get(i), StandardCharsets.UTF_8))
            .append('=')
            .append(URLEncoder.encode(pairs.get(i + 1), StandardCharsets.UTF_8));
      }
      return b.toString();
    }
  }

  private static Form form(String... pairs) {
    return new Form(List.of(pairs));
  }

  private void serve(String path, byte[] body) {
    files.createContext(
        path,
        ex -> {
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
  }

  private static String hmac(String algorithm, String secret, String body) throws Exception {
    Mac mac = Mac.getInstance(algorithm);
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), algorithm));
    return HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
  }
}
