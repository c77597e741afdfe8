package io.kurir.api.account;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /v2.0/send-message}, the legacy Account API send that public clients still call: each
 * body they build, the Account API's reply style, and the same pipeline as every send.
 */
class LegacySendMessageTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  static TestGateway kurir;
  static Device device;
  static String license;

  @BeforeAll
  static void start() {
    kurir = TestGateway.start(dir);
    device = kurir.newDevice("+6281100008301", true);
    license = kurir.licenseOf(device).code();
  }

  @AfterAll
  static void stop() {
    kurir.close();
  }

  private static JsonNode json(Reply r) throws Exception {
    assertThat(r.contentType()).startsWith("application/json");
    return JSON.readTree(r.body());
  }

  private static String texts(String e164) {
    return String.join("|", kurir.sandbox().inbox(e164).stream().map(InboxEntry::text).toList());
  }

  @Test
  void aFormSendIsQueuedAndAnsweredInTheAccountApiStyle() throws Exception {
    String to = Numbers.fresh();
    Reply r =
        kurir.postForm(
            "/v2.0/send-message",
            "license=" + license + "&wa_number=0" + to.substring(3) + "&text=Halo%20Sari");

    assertThat(r.status()).isEqualTo(200);
    JsonNode body = json(r);
    assertThat(body.get("status").asText()).isEqualTo("success");
    assertThat(body.get("message").asText()).isEqualTo("queued");
    assertThat(body.get("msg_id").asText()).matches("\\d+");
    Eventually.until("delivered", () -> texts(to).equals("Halo Sari"));
  }

  @Test
  void aHandBuiltFormKeepsUnescapedAmpersandsPlusesAndEqualsInTheText() throws Exception {
    String to = Numbers.fresh();
    // As PHP's string concatenation sends it: nothing escaped. + is a space, as a form decoder
    // reads it; an & not followed by a known field name is text.
    String body =
        "license="
            + license
            + "&wa_number="
            + to.substring(1)
            + "&text=Promo 2+1 & gratis ongkir: a=b&c&mode=sync";

    JsonNode reply = json(kurir.postForm("/v2.0/send-message", body));

    assertThat(reply.get("status").asText()).isEqualTo("success");
    assertThat(reply.get("message").asText()).isEqualTo("sent");
    assertThat(texts(to)).isEqualTo("Promo 2 1 & gratis ongkir: a=b&c");
  }

  @Test
  void multipartAndJsonBodiesWork() throws Exception {
    String to = Numbers.fresh();
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("license", license);
    fields.put("wa_number", to);
    fields.put("text", "lewat multipart & + =");
    fields.put("mode", "sync");
    JsonNode multipart = json(kurir.postMultipart("/v2.0/send-message", fields));
    assertThat(multipart.get("message").asText()).isEqualTo("sent");

    JsonNode viaJson =
        json(
            kurir.postJson(
                "/v2.0/send-message",
                "{\"license\":\""
                    + license
                    + "\",\"wa_number\":\""
                    + to
                    + "\",\"text\":\"lewat JSON<ENTER>baris dua\",\"mode\":\"sync\"}"));
    assertThat(viaJson.get("message").asText()).isEqualTo("sent");
    assertThat(texts(to)).isEqualTo("lewat multipart & + =|lewat JSON\nbaris dua");
  }

  @Test
  void syncModeWaitsForTheOutcomeLikeSendMessage() throws Exception {
    String gone = Numbers.fresh();
    kurir.sandbox().setRegistered(gone, false);

    JsonNode r =
        json(
            kurir.postForm(
                "/v2.0/send-message",
                "license=" + license + "&wa_number=" + gone + "&text=x&mode=sync"));

    assertThat(r.get("status").asText()).isEqualTo("failed");
    assertThat(r.get("message").asText()).isEqualTo("number_not_found");
    assertThat(r.get("msg_id").asText()).matches("\\d+");
  }

  @Test
  void badRequestsGetTheAccountApisErrors() throws Exception {
    Reply unknown =
        kurir.postForm("/v2.0/send-message", "license=nope&wa_number=0812345678&text=x");
    assertThat(unknown.status()).isEqualTo(401);
    assertThat(json(unknown).get("status").asText()).isEqualTo("failed");
    assertThat(json(unknown).get("message").asText()).isEqualTo("invalid_license");

    Reply noText =
        kurir.postForm(
            "/v2.0/send-message", "license=" + license + "&wa_number=" + Numbers.fresh());
    assertThat(noText.status()).isEqualTo(400);
    assertThat(json(noText).get("message").asText()).isEqualTo("text_empty");

    Reply badNumber =
        kurir.postForm("/v2.0/send-message", "license=" + license + "&wa_number=abc&text=x");
    assertThat(badNumber.status()).isEqualTo(400);
    assertThat(json(badNumber).get("message").asText()).isEqualTo("wa_number_not_valid");

    Reply oddPercent =
        kurir.postForm(
            "/v2.0/send-message",
            "license=" + license + "&wa_number=" + Numbers.fresh() + "&text=diskon 50%!");
    assertThat(oddPercent.status()).as("a lone %% is text, not a broken body").isEqualTo(200);
  }
}
