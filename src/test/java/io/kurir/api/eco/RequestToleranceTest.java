package io.kurir.api.eco;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The request shapes real clients send (PHP curl, Laravel, axios, Apps Script, Python requests) and
 * the protocol errors of the Eco API: always a short plain token, never HTML or a stack trace.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RequestToleranceTest {
  TestGateway kurir;
  Device device;

  @BeforeAll
  void start(@TempDir Path dir) {
    kurir = TestGateway.start(dir);
    device = kurir.newDevice();
  }

  @AfterAll
  void stop() {
    kurir.close();
  }

  private String json(String to, String text) {
    return "{\"key\":\""
        + device.ecoKey()
        + "\",\"phone_no\":\""
        + to
        + "\",\"message\":\""
        + text
        + "\"}";
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private List<String> texts(String to) {
    return kurir.sandbox().inbox(to).stream().map(InboxEntry::text).toList();
  }

  @Test
  void jsonWithoutContentTypeWithCharsetOrAsTextPlain() {
    String to = Numbers.fresh();
    assertThat(kurir.post("/api/send_message", json(to, "none"), null).body()).isEqualTo("success");
    assertThat(
            kurir
                .post("/api/send_message", json(to, "charset"), "application/json; charset=utf-8")
                .body())
        .isEqualTo("success");
    assertThat(kurir.post("/api/send_message", json(to, "text"), "text/plain").body())
        .isEqualTo("success");
    assertThat(
            kurir
                .post(
                    "/api/send_message",
                    "  \n" + json(to, "spaces"),
                    "application/x-www-form-urlencoded")
                .body())
        .as("JSON sent with a form content type, as some PHP clients do")
        .isEqualTo("success");
    assertThat(texts(to)).containsExactly("none", "charset", "text", "spaces");
  }

  @Test
  void formEncodedAndMultipartBodies() {
    String to = Numbers.fresh();
    String form =
        "key="
            + enc(device.ecoKey())
            + "&phone_no="
            + enc(Numbers.national(to))
            + "&message="
            + enc("form ✓ & more");
    assertThat(kurir.postForm("/api/send_message", form).body()).isEqualTo("success");
    assertThat(kurir.post("/api/send_message", form, null).body())
        .as("form without content type")
        .isEqualTo("success");
    assertThat(
            kurir
                .postMultipart(
                    "/api/send_message",
                    Map.of("key", device.ecoKey(), "phone_no", to, "message", "multipart"))
                .body())
        .isEqualTo("success");
    assertThat(texts(to)).containsExactly("form ✓ & more", "form ✓ & more", "multipart");
  }

  /**
   * A body of no declared length (chunked, as a client streaming it sends) is read whole, as one of
   * a declared length is; an async answer is its id with its length, as any other.
   */
  @Test
  void aChunkedBodyIsReadWhole() throws Exception {
    String to = Numbers.fresh();
    byte[] body = json(to, "chunked").getBytes(StandardCharsets.UTF_8);
    java.net.http.HttpResponse<String> reply =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(kurir.gateway().baseUrl() + "/api/async_send_message"))
                    .header("Content-Type", "application/json")
                    .POST(
                        java.net.http.HttpRequest.BodyPublishers.ofInputStream(
                            () -> new java.io.ByteArrayInputStream(body)))
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(reply.statusCode()).as(reply.body()).isEqualTo(200);
    assertThat(reply.body()).matches("\\d+");
    assertThat(reply.headers().firstValue("Content-Length"))
        .hasValue(Integer.toString(reply.body().length()));
    assertThat(reply.headers().firstValue("Content-Type")).hasValue("text/plain;charset=utf-8");
  }

  @Test
  void strayHeadersAndUnknownFieldsAreIgnored() {
    String to = Numbers.fresh();
    Reply reply =
        kurir.post(
            "/api/send_message",
            "{\"key\":\""
                + device.ecoKey()
                + "\",\"phone_no\":\""
                + to
                + "\",\"message\":\"h\",\"extra\":1,\"token\":null}",
            "application/json",
            "Authorization",
            "Basic dXNlcjpwYXNz",
            "Accept",
            "application/json, text/plain, */*",
            "X-Requested-With",
            "XMLHttpRequest");
    assertThat(reply.body()).isEqualTo("success");
  }

  @Test
  void aTrailingSlashReachesTheSameHandlerWithoutRedirect() {
    String to = Numbers.fresh();
    Reply reply = kurir.postJson("/api/send_message/", json(to, "slash"));
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.body()).isEqualTo("success");
  }

  @Test
  void asyncBodyIsOnlyDigitsWithoutQuotesOrNewline() {
    Reply reply = kurir.postJson("/api/async_send_message", json(Numbers.fresh(), "x"));
    assertThat(reply.body()).matches("\\d+");
    assertThat(reply.contentType()).startsWith("text/plain");
  }

  @Test
  void missingFieldsAreNamed() {
    assertThat(kurir.postJson("/api/send_message", "{\"phone_no\":\"0812\",\"message\":\"x\"}"))
        .isEqualTo(new Reply(400, "key_empty", "text/plain;charset=utf-8"));
    Reply noPhone =
        kurir.postJson(
            "/api/send_message", "{\"key\":\"" + device.ecoKey() + "\",\"message\":\"x\"}");
    assertThat(noPhone.status()).isEqualTo(400);
    assertThat(noPhone.body()).isEqualTo("phone_no_empty");
    Reply noMessage =
        kurir.postJson(
            "/api/async_send_message",
            "{\"key\":\"" + device.ecoKey() + "\",\"phone_no\":\"0812\",\"message\":\"  \"}");
    assertThat(noMessage.body()).isEqualTo("message_empty");
    Reply noId = kurir.postJson("/api/status_msg_id", "{\"key\":\"" + device.ecoKey() + "\"}");
    assertThat(noId.body()).isEqualTo("msg_id_empty");
    Reply noMessageId =
        kurir.postJson("/api/check_delivery_status", "{\"key\":\"" + device.ecoKey() + "\"}");
    assertThat(noMessageId.body()).isEqualTo("messageId_empty");
    assertThat(kurir.postJson("/api/check_number", "{\"key\":\"" + device.ecoKey() + "\"}").body())
        .isEqualTo("phone_no_empty");
  }

  @Test
  void malformedBodies() {
    for (String body : List.of("{\"key\":", "{key: 1}", "[1,2]", "{\"key\":\"a\"}}")) {
      Reply reply = kurir.post("/api/send_message", body, "application/json");
      assertThat(reply.status()).as(body).isEqualTo(400);
      assertThat(reply.body()).as(body).isEqualTo("malformed_json");
    }
    Reply badForm = kurir.postForm("/api/send_message", "key=%zz&phone_no=1");
    assertThat(badForm.status()).isEqualTo(400);
    assertThat(badForm.body()).isEqualTo("malformed_body");
    assertThat(kurir.post("/api/send_message", "", null).body()).isEqualTo("key_empty");
  }

  @Test
  void unknownDisabledAndExpiredKeys() {
    assertThat(
            kurir.postJson(
                "/api/send_message", "{\"key\":\"nope\",\"phone_no\":\"0812\",\"message\":\"x\"}"))
        .isEqualTo(new Reply(401, "invalid_key", "text/plain;charset=utf-8"));

    Device disabled = kurir.newDevice("+6281100006666", true);
    kurir.gateway().tenants().setDeviceDisabled(disabled.id(), true);
    Reply d =
        kurir.postJson(
            "/api/send_message",
            "{\"key\":\"" + disabled.ecoKey() + "\",\"phone_no\":\"0812\",\"message\":\"x\"}");
    assertThat(d.status()).isEqualTo(403);
    assertThat(d.body()).isEqualTo("key_disabled");

    Partner p = kurir.gateway().tenants().createPartner("Old", "");
    License expired =
        kurir
            .gateway()
            .tenants()
            .createLicense(p.id(), "Old", "", LocalDate.now().minusDays(2), List.of());
    Device old = kurir.gateway().tenants().createDevice(expired.id(), "+6281100005555", "sandbox");
    Reply e =
        kurir.postJson(
            "/api/async_send_message",
            "{\"key\":\"" + old.ecoKey() + "\",\"phone_no\":\"0812\",\"message\":\"x\"}");
    assertThat(e.status()).isEqualTo(403);
    assertThat(e.body()).isEqualTo("license_expired");
    // An expired license still reads its history: lookups and reports answer as usual.
    Reply lookup =
        kurir.postJson("/api/status_msg_id", "{\"key\":\"" + old.ecoKey() + "\",\"msg_id\":\"1\"}");
    assertThat(lookup.status()).isEqualTo(200);
    assertThat(lookup.body()).isEqualTo("not_found");
    Reply report =
        kurir.postJson(
            "/api/report_json", "{\"key\":\"" + old.ecoKey() + "\",\"time_choose\":\"today\"}");
    assertThat(report.status()).isEqualTo(200);
    Reply schedule =
        kurir.postJson(
            "/api/scheduler",
            "{\"key\":\""
                + old.ecoKey()
                + "\",\"phone_no\":\"0812\",\"api_type\":\"text\","
                + "\"sch_date\":\"2099-01-01 10:00\",\"message\":\"x\"}");
    assertThat(schedule.status()).isEqualTo(403);
    assertThat(schedule.body()).isEqualTo("license_expired");
  }

  @Test
  void wrongMethodsAndPathsGetPlainTokens() throws Exception {
    assertThat(kurir.get("/api/send_message"))
        .isEqualTo(new Reply(405, "method_not_allowed", "text/plain;charset=utf-8"));
    assertThat(kurir.get("/api/nothing_here").body()).isIn("not_found", "method_not_allowed");
    java.net.http.HttpResponse<String> wrongMethod =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(kurir.gateway().baseUrl() + "/api/send_message"))
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(wrongMethod.headers().firstValue("Allow"))
        .as("a 405 names the methods the resource has")
        .hasValue("POST");
    Reply unknown = kurir.postJson("/api/nothing_here", "{}");
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(unknown.body()).isEqualTo("not_found");
    assertThat(kurir.get("/").body()).doesNotContain("<");
  }

  @Test
  void anOversizedBodyIsRefusedWithAToken() {
    String big =
        "{\"key\":\""
            + device.ecoKey()
            + "\",\"phone_no\":\"0812\",\"message\":\""
            + "x".repeat(17 * 1024 * 1024)
            + "\"}";
    Reply reply = kurir.postJson("/api/send_message", big);
    assertThat(reply.status()).isEqualTo(413);
    assertThat(reply.body()).isEqualTo("body_too_large");
  }

  @Test
  void phpArrayFieldsAndLookupFieldSpellings() {
    String a = Numbers.fresh();
    String b = Numbers.fresh();
    String form =
        "key="
            + enc(device.ecoKey())
            + "&phone_no[]="
            + enc(a)
            + "&phone_no[]="
            + enc(Numbers.national(b))
            + "&message=arr";
    assertThat(kurir.postForm("/api/send_message", form).body()).isEqualTo("success");
    assertThat(texts(a)).containsExactly("arr");
    assertThat(texts(b)).containsExactly("arr");

    String id = kurir.postJson("/api/async_send_message", json(Numbers.fresh(), "x")).body();
    for (String field : List.of("msg_id", "messageId", "message_id")) {
      assertThat(
              kurir
                  .postJson(
                      "/api/status_msg_id",
                      "{\"key\":\"" + device.ecoKey() + "\",\"" + field + "\":\"" + id + "\"}")
                  .body())
          .as(field)
          .isIn("success", "phone_offline");
    }
  }
}
