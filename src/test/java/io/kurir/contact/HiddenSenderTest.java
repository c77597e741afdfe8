package io.kurir.contact;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.driver.ContactId;
import io.kurir.driver.sandbox.SandboxNetwork;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.TestTables;
import io.kurir.testing.WebhookReceiver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Senders the network names by a LID or a BSUID alone, end to end through the sandbox: their
 * messages are stored, answered (the reply reaches the phone behind the id), pushed with the id and
 * its kind, and reported; once the phone is learned (a lookup, a message that reveals it) it is
 * shown instead. A caller may send to an id the device knows, not to one it never met.
 */
class HiddenSenderTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SECRET = "reseller-secret-0123456789abcdef";

  @TempDir Path dir;

  /** A paired device whose license answers "harga" and pushes what arrives to {@code receiver}. */
  private static Device deviceWithBotAndWebhook(TestGateway kurir, WebhookReceiver receiver) {
    var tenants = kurir.gateway().tenants();
    String number = Numbers.fresh();
    Partner partner = tenants.createPartner("Reseller", "", "reseller", SECRET);
    License license = tenants.createLicense(partner.id(), "Toko", "", null, List.of());
    Device device = tenants.createDevice(license.id(), number, "sandbox");
    kurir.sandbox().pair(device.id(), device.number());
    Reply bot =
        kurir.post(
            "/v4.0/wa_partner/add_bot",
            "license="
                + license.code()
                + "&bot_keyword=harga&bot_response=Mulai+10rb&bot_type=match",
            "application/x-www-form-urlencoded",
            "Authorization",
            "Basic "
                + Base64.getEncoder()
                    .encodeToString(("reseller:" + SECRET).getBytes(StandardCharsets.UTF_8)));
    assertThat(bot.status()).as(bot.body()).isEqualTo(200);
    Reply hook =
        kurir.postForm(
            "/v2.0/webhook",
            "license="
                + license.code()
                + "&no_wa="
                + Numbers.digits(number)
                + "&action=set&url="
                + receiver.url("/in"));
    assertThat(hook.status()).as(hook.body()).isEqualTo(200);
    return device;
  }

  private static Reply incoming(TestGateway kurir, Device device, String json) {
    return kurir.post(
        "/sandbox/devices/" + device.id() + "/incoming",
        json,
        "application/json",
        "Authorization",
        "Bearer " + TestGateway.ADMIN_TOKEN);
  }

  /** The device's incoming messages' senders as stored, in the order received, comma-joined. */
  private static String senders(TestGateway kurir, long deviceId) {
    return TestTables.of(kurir).inboundOf(deviceId).stream()
        .sorted(
            java.util.Comparator.comparingLong(TestTables.InboundRow::receivedAt)
                .thenComparingLong(TestTables.InboundRow::id))
        .map(TestTables.InboundRow::sender)
        .collect(java.util.stream.Collectors.joining(","));
  }

  /** The device's incoming messages' sender and sender id, as {@code sender/id}, comma-joined. */
  private static String sendersWithIds(TestGateway kurir, long deviceId) {
    return TestTables.of(kurir).inboundOf(deviceId).stream()
        .map(r -> r.sender() + "/" + r.senderId().orElse(null))
        .collect(java.util.stream.Collectors.joining(","));
  }

  /** The recipients of the device's auto-replies, comma-joined. */
  private static String botRecipients(TestGateway kurir, long deviceId) {
    return TestTables.of(kurir).messagesOf(deviceId).stream()
        .filter(m -> m.api().equals("bot"))
        .map(TestTables.MessageRow::recipient)
        .collect(java.util.stream.Collectors.joining(","));
  }

  private static String recipientOf(TestGateway kurir, long messageId) {
    return TestTables.of(kurir).message(messageId).orElseThrow().recipient();
  }

  private static List<String> reportedRecipients(TestGateway kurir, Device device)
      throws Exception {
    Reply report =
        kurir.postJson(
            "/api/report_json", "{\"key\":\"" + device.ecoKey() + "\",\"time_choose\":\"today\"}");
    assertThat(report.status()).as(report.body()).isEqualTo(200);
    List<String> recipients = new ArrayList<>();
    JSON.readTree(report.body())
        .get("data")
        .forEach(r -> recipients.add(r.get("penerima").asText()));
    return recipients;
  }

  @Test
  void aLidSenderIsStoredAnsweredPushedAndReportedThenShownByPhoneOnceLearned() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver();
        TestGateway kurir = TestGateway.start(dir, "--media.allow-private-addresses=true")) {
      Device device = deviceWithBotAndWebhook(kurir, receiver);
      String customer = Numbers.fresh();
      String lid = SandboxNetwork.lidOf(customer).address();

      Reply in =
          incoming(
              kurir,
              device,
              "{\"from\":\"" + customer + "\",\"message\":\"harga\",\"as\":\"lid\"}");
      assertThat(in.status()).as(in.body()).isEqualTo(200);

      assertThat(sendersWithIds(kurir, device.id()))
          .as("stored, by its LID")
          .isEqualTo(lid + "/" + lid);
      Eventually.until(
          "the auto-reply reached the phone behind the LID",
          () ->
              kurir.sandbox().inbox(customer).stream()
                  .anyMatch(e -> e.text().equals("Mulai 10rb")));
      assertThat(botRecipients(kurir, device.id())).isEqualTo(lid);
      Eventually.until("pushed", () -> receiver.ofEvent("message.incoming").size() == 1);
      JsonNode pushed = receiver.ofEvent("message.incoming").getFirst().json();
      assertThat(pushed.get("contact_name").asText()).isEqualTo(lid);
      assertThat(pushed.get("contact_type").asText()).isEqualTo("lid");
      assertThat(pushed.get("keyword").asText()).isEqualTo("harga");
      assertThat(reportedRecipients(kurir, device)).containsExactly(lid);

      // A lookup of the number answers with its LID: the phone is shown from now on.
      Reply check =
          kurir.postJson(
              "/api/check_number",
              "{\"key\":\"" + device.ecoKey() + "\",\"phone_no\":\"" + customer + "\"}");
      assertThat(check.body()).isEqualTo("exists");
      assertThat(reportedRecipients(kurir, device)).containsExactly(customer);
      assertThat(senders(kurir, device.id())).isEqualTo(customer);

      // The next message by the LID alone is the phone's, and is pushed as a phone sender's is.
      assertThat(
              incoming(
                      kurir,
                      device,
                      "{\"from\":\"" + customer + "\",\"message\":\"halo\",\"as\":\"lid\"}")
                  .status())
          .isEqualTo(200);
      Eventually.until("pushed", () -> receiver.ofEvent("message.incoming").size() == 2);
      JsonNode second = receiver.ofEvent("message.incoming").get(1).json();
      assertThat(second.get("contact_name").asText()).isEqualTo(Numbers.digits(customer));
      assertThat(second.has("contact_type")).as("a phone sender's five fields").isFalse();
      assertThat(second.size()).isEqualTo(5);
    }
  }

  @Test
  void aBsuidSenderIsPushedWithItsKindAndLearnedWhenTheNetworkRevealsTheNumber() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver();
        TestGateway kurir = TestGateway.start(dir, "--media.allow-private-addresses=true")) {
      Device device = deviceWithBotAndWebhook(kurir, receiver);
      String customer = Numbers.fresh();
      String bsuid = SandboxNetwork.bsuidOf(customer).address();

      assertThat(
              incoming(
                      kurir,
                      device,
                      "{\"from\":\"" + customer + "\",\"message\":\"a\",\"as\":\"bsuid\"}")
                  .status())
          .isEqualTo(200);
      assertThat(
              incoming(
                      kurir,
                      device,
                      "{\"from\":\""
                          + customer
                          + "\",\"message\":\"b\",\"as\":\"bsuid\",\"reveal\":true}")
                  .status())
          .isEqualTo(200);

      Eventually.until("pushed", () -> receiver.ofEvent("message.incoming").size() == 2);
      List<WebhookReceiver.Received> pushed = receiver.ofEvent("message.incoming");
      assertThat(pushed.get(0).json().get("contact_name").asText()).isEqualTo(bsuid);
      assertThat(pushed.get(0).json().get("contact_type").asText()).isEqualTo("bsuid");
      assertThat(pushed.get(1).json().get("contact_name").asText())
          .isEqualTo(Numbers.digits(customer));
      assertThat(pushed.get(1).json().has("contact_type")).isFalse();
      assertThat(senders(kurir, device.id()))
          .as("the first message's row shows the phone learned from the second")
          .isEqualTo(customer + "," + customer);
    }
  }

  @Test
  void anEcoSendToANetworkIdTheDeviceKnowsIsAcceptedAndAnUnknownOneRefused() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver();
        TestGateway kurir = TestGateway.start(dir, "--media.allow-private-addresses=true")) {
      Device device = deviceWithBotAndWebhook(kurir, receiver);
      String customer = Numbers.fresh();
      String lid = SandboxNetwork.lidOf(customer).address();
      assertThat(
              incoming(
                      kurir,
                      device,
                      "{\"from\":\"" + customer + "\",\"message\":\"hai\",\"as\":\"lid\"}")
                  .status())
          .isEqualTo(200);
      Eventually.until("pushed", () -> receiver.ofEvent("message.incoming").size() == 1);

      // A CRM replies to the contact_name it got.
      String replyTo =
          receiver.ofEvent("message.incoming").getFirst().json().get("contact_name").asText();
      Reply sent = kurir.sendAsync(device, replyTo, "Pesanan siap");
      assertThat(sent.status()).as(sent.body()).isEqualTo(200);
      assertThat(sent.body()).matches("\\d+");
      Eventually.until(
          "delivered to the phone behind the LID",
          () ->
              kurir.sandbox().inbox(customer).stream()
                  .map(InboxEntry::text)
                  .anyMatch("Pesanan siap"::equals));
      assertThat(recipientOf(kurir, Long.parseLong(sent.body()))).isEqualTo(lid);

      // An id this device never met is refused as a bad number is, and nothing is stored.
      long before = kurir.storedMessages(device.id());
      String stranger = ContactId.lid("12345678901234").address();
      Reply async = kurir.sendAsync(device, stranger, "Halo");
      assertThat(async.status()).isEqualTo(400);
      assertThat(async.body()).contains("phone_no_not_valid");
      Reply sync =
          kurir.postJson(
              "/api/send_message",
              "{\"key\":\""
                  + device.ecoKey()
                  + "\",\"phone_no\":\"US.13491208655302741918\",\"message\":\"Halo\"}");
      assertThat(sync.status()).isEqualTo(200);
      assertThat(sync.body()).matches("\\[\\d{14}] Number not found");
      assertThat(kurir.storedMessages(device.id())).isEqualTo(before);

      // Known by BSUID with its number revealed: a send to the BSUID goes to the number.
      String other = Numbers.fresh();
      assertThat(
              incoming(
                      kurir,
                      device,
                      "{\"from\":\""
                          + other
                          + "\",\"message\":\"x\",\"as\":\"bsuid\",\"reveal\":\"true\"}")
                  .status())
          .isEqualTo(200);
      Reply toBsuid =
          kurir.sendAsync(device, SandboxNetwork.bsuidOf(other).address(), "Terima kasih");
      assertThat(toBsuid.status()).as(toBsuid.body()).isEqualTo(200);
      assertThat(recipientOf(kurir, Long.parseLong(toBsuid.body()))).isEqualTo(other);

      Reply badKind =
          incoming(
              kurir, device, "{\"from\":\"" + other + "\",\"message\":\"x\",\"as\":\"email\"}");
      assertThat(badKind.status()).isEqualTo(400);
      assertThat(badKind.body()).contains("as_not_valid");
    }
  }

  @Test
  void theCrmAndMultiAgentFamiliesSendToANetworkIdTheDeviceKnows() {
    try (TestGateway kurir = TestGateway.start(dir)) {
      Device device = kurir.newDevice(Numbers.fresh(), true);
      String customer = Numbers.fresh();
      String lid = SandboxNetwork.lidOf(customer).address();
      String stranger = ContactId.lid("12345678901234").address();
      assertThat(
              kurir
                  .sandbox()
                  .injectHiddenIncoming(
                      device.id(), customer, SandboxNetwork.HiddenAs.LID, false, "hai"))
          .isTrue();

      Reply crm =
          kurir.postJson(
              "/send/message-text",
              "{\"deviceId\":\""
                  + device.crmDeviceId()
                  + "\",\"number\":\""
                  + lid
                  + "\",\"message\":\"dari CRM\"}");
      assertThat(crm.status()).as(crm.body()).isEqualTo(200);
      assertThat(crm.body()).contains("\"status\":true", "\"number\":\"" + lid + "\"");
      Reply agent =
          kurir.post(
              "/api/srv1/send-text",
              "number=" + lid + "&message=dari+agen",
              "application/x-www-form-urlencoded",
              "device-key",
              device.deviceKey());
      assertThat(agent.status()).as(agent.body()).isEqualTo(200);
      assertThat(agent.body())
          .contains("\"number\":\"" + lid + "\"", "\"chat_id\":\"" + lid + "\"");
      Eventually.until(
          "both reached the phone behind the LID",
          () -> kurir.sandbox().inbox(customer).size() == 2);
      assertThat(kurir.sandbox().inbox(customer))
          .extracting(InboxEntry::text)
          .containsExactlyInAnyOrder("dari CRM", "dari agen");

      Reply crmStranger =
          kurir.postJson(
              "/send/message-text",
              "{\"deviceId\":\""
                  + device.crmDeviceId()
                  + "\",\"number\":\""
                  + stranger
                  + "\",\"message\":\"x\"}");
      assertThat(crmStranger.status()).isEqualTo(400);
      assertThat(crmStranger.body())
          .isEqualTo("{\"status\":false,\"message\":\"number_not_valid\"}");
      Reply agentStranger =
          kurir.post(
              "/api/srv1/send-text",
              "number=" + stranger + "&message=x",
              "application/x-www-form-urlencoded",
              "device-key",
              device.deviceKey());
      assertThat(agentStranger.status()).isEqualTo(400);
      assertThat(agentStranger.body()).contains("\"number_not_valid\"");
    }
  }

  @Test
  void aSendToTheNumberOfAHiddenSenderTeachesTheIdItHidesBehind() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver();
        TestGateway kurir = TestGateway.start(dir, "--media.allow-private-addresses=true")) {
      Device device = deviceWithBotAndWebhook(kurir, receiver);
      String customer = Numbers.fresh();
      String lid = SandboxNetwork.lidOf(customer).address();
      assertThat(
              incoming(
                      kurir,
                      device,
                      "{\"from\":\"" + customer + "\",\"message\":\"harga\",\"as\":\"lid\"}")
                  .status())
          .isEqualTo(200);
      Eventually.until("answered", () -> kurir.sandbox().inbox(customer).size() == 1);
      assertThat(reportedRecipients(kurir, device)).containsExactly(lid);

      // The network answers a send to the number with the chat's LID: the driver learns it.
      assertThat(kurir.sendAsync(device, customer, "Tagihan").status()).isEqualTo(200);
      Eventually.until(
          "the LID's rows show the number", () -> senders(kurir, device.id()).equals(customer));
      assertThat(reportedRecipients(kurir, device)).containsExactly(customer, customer);
    }
  }
}
