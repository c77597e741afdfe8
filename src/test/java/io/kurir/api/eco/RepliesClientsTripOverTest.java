package io.kurir.api.eco;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.driver.sandbox.SandboxNetwork.FailureKind;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replies that real client code trips over: a PHP client that reads {@code message.messageId} of
 * every {@code deliveryFlag} answer, and texts with backslashes and line breaks.
 */
class RepliesClientsTripOverTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  static TestGateway kurir;
  static Device device;

  @BeforeAll
  static void start() {
    kurir = TestGateway.start(dir);
    device = kurir.newDevice();
  }

  @AfterAll
  static void stop() {
    kurir.close();
  }

  private Reply send(String phoneNo, String messageJson, boolean deliveryFlag) {
    return kurir.postJson(
        "/api/send_message",
        "{\"key\":\""
            + device.ecoKey()
            + "\",\"phone_no\":\""
            + phoneNo
            + "\",\"message\":"
            + messageJson
            + (deliveryFlag ? ",\"deliveryFlag\":true" : "")
            + "}");
  }

  private JsonNode checkDeliveryStatus(String messageId) throws Exception {
    Reply r =
        kurir.postJson(
            "/api/check_delivery_status",
            "{\"key\":\"" + device.ecoKey() + "\",\"messageId\":\"" + messageId + "\"}");
    assertThat(r.status()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  @Test
  void deliveryFlagToANumberThatCannotBeReadAnswersTheDeliveryObjectWithTheFailure()
      throws Exception {
    Reply r = send("bukan nomor", "\"x\"", true);

    assertThat(r.status()).isEqualTo(200);
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.get("status").asText()).matches("\\[\\d{14}] Number not found");
    JsonNode message = body.get("message");
    assertThat(message.isObject()).as("an object, not null: " + r.body()).isTrue();
    assertThat(message.get("messageId").asText()).isEqualTo("0");
    assertThat(message.get("status").asText()).isEqualTo("failed");
    assertThat(message.get("sentDate").isNull()).isTrue();
    assertThat(message.get("statusDate").asText())
        .matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d");
    // The PHP client asks about it next: a clear not_found, not an error about a missing field.
    JsonNode check = checkDeliveryStatus(message.get("messageId").asText());
    assertThat(check.get("status").asText()).isEqualTo("failed");
    assertThat(check.get("message").asText()).isEqualTo("not_found");
  }

  @Test
  void deliveryFlagToANumberNotOnTheNetworkAnswersNotExistsWithTheReason() throws Exception {
    String to = Numbers.fresh();
    kurir.sandbox().setRegistered(to, false);

    JsonNode body = JSON.readTree(send(to, "\"x\"", true).body());

    assertThat(body.get("status").asText()).matches("\\[\\d{14}] Number not found");
    assertThat(body.get("message").get("messageId").asText()).matches("\\d+");
    // The public client that files these answers filters on not_exists (issue 25, item 5).
    assertThat(body.get("message").get("status").asText()).isEqualTo("not_exists");
    assertThat(body.get("message").get("reason").asText()).isEqualTo("number_not_found");
    String id = body.get("message").get("messageId").asText();
    JsonNode check = checkDeliveryStatus(id).get("message");
    assertThat(check.get("status").asText()).isEqualTo("not_exists");
    assertThat(check.get("reason").asText()).isEqualTo("number_not_found");
    // status_msg_id keeps its three strings.
    Reply status =
        kurir.postJson(
            "/api/status_msg_id",
            "{\"key\":\"" + device.ecoKey() + "\",\"msg_id\":\"" + id + "\"}");
    assertThat(status.body()).isEqualTo("phone_offline");
  }

  @Test
  void aFailureThatIsNotAMissingNumberStaysFailed() throws Exception {
    String to = Numbers.fresh();
    kurir.sandbox().injectFailure(to, FailureKind.FAIL, 1);

    JsonNode body = JSON.readTree(send(to, "\"x\"", true).body());

    JsonNode message = body.get("message");
    assertThat(message.get("status").asText()).isEqualTo("failed");
    assertThat(message.get("reason").asText()).isNotEqualTo("number_not_found");
    JsonNode check = checkDeliveryStatus(message.get("messageId").asText()).get("message");
    assertThat(check.get("status").asText()).isEqualTo("failed");
  }

  @Test
  void textArrivesAsWrittenAndCheckDeliveryStatusShowsItAsDelivered() throws Exception {
    String to = Numbers.fresh();
    // JSON text: <ENTER> with a CRLF after it, backslash-n written out, a Windows path, JSON's own
    // \u00e9 escape, and a backslash-u that is text (JSON's \\ is one backslash).
    String message =
        "\"Baris 1<ENTER>\\r\\nBaris 2\\\\nC:\\\\Users\\\\budi\\\\dokumen.pdf caf\\u00e9"
            + " \\\\u00e9\"";

    JsonNode body = JSON.readTree(send(to, message, true).body());

    assertThat(body.get("status").asText()).isEqualTo("success");
    String delivered = kurir.sandbox().inbox(to).getFirst().text();
    assertThat(delivered).isEqualTo("Baris 1\nBaris 2\nC:\\Users\\budi\\dokumen.pdf café \\u00e9");
    JsonNode check = checkDeliveryStatus(body.get("message").get("messageId").asText());
    assertThat(check.get("message").get("content").asText()).isEqualTo(delivered);
    assertThat(kurir.sandbox().inbox(to)).extracting(InboxEntry::text).hasSize(1);
  }
}
