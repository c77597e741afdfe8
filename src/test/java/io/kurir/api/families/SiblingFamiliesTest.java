package io.kurir.api.families;

import static io.kurir.testing.TestFiles.PDF;
import static io.kurir.testing.TestFiles.PNG;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.MobileCs;
import io.kurir.tenant.Partner;
import io.kurir.tenant.Tenants;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.TestTables;
import io.kurir.testing.WebhookReceiver;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * CRM, multi-agent, push v1 and push v2 over HTTP: good and bad credentials, each encoding, group
 * sends, and every family's message visible in the Eco report and on the outgoing webhook.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SiblingFamiliesTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String APP_ID = "6b757269-7200-4000-8000-707573680001";

  TestGateway kurir;
  Tenants tenants;
  License license;
  Device device;
  HttpServer files;
  String base;
  WebhookReceiver receiver;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    serve("/promo.png", PNG);
    serve("/invoice.pdf", PDF);
    files.start();
    base = "http://127.0.0.1:" + files.getAddress().getPort();
    receiver = new WebhookReceiver();
    kurir = TestGateway.start(dir, "--media.allow-private-addresses=true");
    tenants = kurir.gateway().tenants();
    Partner p = tenants.createPartner("Reseller", "");
    license = tenants.createLicense(p.id(), "Toko", "", LocalDate.of(2099, 1, 1), List.of());
    device = tenants.createDevice(license.id(), "+6281100008401", "sandbox");
    kurir.sandbox().pair(device.id(), device.number());
    kurir.postForm(
        "/v2.0/webhook",
        "license="
            + license.code()
            + "&no_wa=6281100008401&action=set_outgoing&url="
            + receiver.url("/out"));
  }

  void serve(String path, byte[] body) {
    files.createContext(
        path,
        ex -> {
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
  }

  @AfterAll
  void stop() {
    kurir.close();
    files.stop(0);
    receiver.close();
  }

  JsonNode json(Reply r) throws Exception {
    return JSON.readTree(r.body());
  }

  List<InboxEntry> inbox(String number) {
    Eventually.until("a message for " + number, () -> !kurir.sandbox().inbox(number).isEmpty());
    return kurir.sandbox().inbox(number);
  }

  // --- CRM

  @Test
  void crmSendsTextAndImagesByDeviceId() throws Exception {
    String to = Numbers.fresh();
    JsonNode text =
        json(
            kurir.postJson(
                "/send/message-text",
                "{\"deviceId\":\""
                    + device.crmDeviceId()
                    + "\",\"number\":\""
                    + Numbers.national(to)
                    + "\",\"message\":\"Halo dari CRM\"}"));
    assertThat(text.get("status").asBoolean()).isTrue();
    assertThat(text.get("data").get("number").asText()).isEqualTo(to.substring(1));
    assertThat(text.get("data").get("message").asText()).isEqualTo("Halo dari CRM");
    assertThat(text.get("data").get("deviceId").asText()).isEqualTo(device.crmDeviceId());

    JsonNode image =
        json(
            kurir.postJson(
                "/send/message-image",
                "{\"deviceId\":\""
                    + device.crmDeviceId()
                    + "\",\"number\":\""
                    + to
                    + "\",\"message\":\"Promo\",\"imageUrl\":\""
                    + base
                    + "/promo.png\"}"));
    assertThat(image.get("status").asBoolean()).isTrue();
    assertThat(image.get("data").get("imageUrl").asText()).isEqualTo(base + "/promo.png");
    JsonNode file =
        json(
            kurir.postJson(
                "/send/message-image",
                "{\"deviceId\":\""
                    + device.crmDeviceId()
                    + "\",\"number\":\""
                    + to
                    + "\",\"message\":\"Tagihan\",\"imageUrl\":\""
                    + base
                    + "/invoice.pdf\"}"));
    assertThat(file.get("status").asBoolean()).isTrue();
    Eventually.until("three", () -> kurir.sandbox().inbox(to).size() == 3);
    assertThat(kurir.sandbox().inbox(to))
        .extracting(InboxEntry::kind)
        .containsExactly("text", "image", "file");
  }

  @Test
  void crmRefusalsAreStatusFalse() throws Exception {
    Reply unknown =
        kurir.postJson(
            "/send/message-text", "{\"deviceId\":\"nope\",\"number\":\"0812\",\"message\":\"x\"}");
    assertThat(unknown.status()).isEqualTo(401);
    assertThat(json(unknown).get("status").asBoolean()).isFalse();
    assertThat(json(unknown).get("message").asText()).isEqualTo("invalid_device_id");

    Reply badJson = kurir.postJson("/send/message-text", "{\"deviceId\":");
    assertThat(badJson.status()).isEqualTo(400);
    assertThat(json(badJson).get("status").asBoolean()).isFalse();

    Reply badNumber =
        kurir.postJson(
            "/send/message-text",
            "{\"deviceId\":\"" + device.crmDeviceId() + "\",\"number\":\"abc\",\"message\":\"x\"}");
    assertThat(badNumber.status()).isEqualTo(400);
    assertThat(json(badNumber).get("message").asText()).isEqualTo("number_not_valid");

    String gone = Numbers.fresh();
    kurir.sandbox().setRegistered(gone, false);
    JsonNode notFound =
        json(
            kurir.postJson(
                "/send/message-text",
                "{\"deviceId\":\""
                    + device.crmDeviceId()
                    + "\",\"number\":\""
                    + gone
                    + "\",\"message\":\"x\"}"));
    assertThat(notFound.get("status").asBoolean()).isFalse();
    assertThat(notFound.get("message").asText()).isEqualTo("Number not found");

    Reply unreachable =
        kurir.postJson(
            "/send/message-image",
            "{\"deviceId\":\""
                + device.crmDeviceId()
                + "\",\"number\":\"0812345678\","
                + "\"imageUrl\":\""
                + base
                + "/missing.png\"}");
    assertThat(unreachable.status()).isEqualTo(400);
    assertThat(json(unreachable).get("message").asText()).isEqualTo("imageUrl_unreachable");
  }

  // --- multi-agent

  Reply multiAgent(String path, String form, String key) {
    return key == null
        ? kurir.postForm("/api/srv1/" + path, form)
        : kurir.post(
            "/api/srv1/" + path, form, "application/x-www-form-urlencoded", "device-key", key);
  }

  @Test
  void multiAgentSendsTextMediaAndToGroups() throws Exception {
    String to = Numbers.fresh();
    JsonNode text =
        json(
            multiAgent(
                "send-text",
                "number=" + to.substring(1) + "&message=Halo+agen&group=0",
                device.deviceKey()));
    assertThat(text.get("status").asInt()).isEqualTo(200);
    assertThat(text.get("message").asText()).isEqualTo("Success!");
    JsonNode data = text.get("data");
    assertThat(data.get("id").asText()).matches("\\d+");
    assertThat(data.get("device_id").asText()).isEqualTo(Long.toString(device.id()));
    assertThat(data.get("number").asText()).isEqualTo(to.substring(1));
    assertThat(data.get("type").asText()).isEqualTo("text");
    assertThat(data.get("chat_id").asText()).isEqualTo(to.substring(1) + "@c.us");
    assertThat(data.get("from_me").asBoolean()).isTrue();
    assertThat(data.get("from_group").asBoolean()).isFalse();
    assertThat(data.get("created_at").asText())
        .matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d");

    JsonNode image =
        json(
            multiAgent(
                "send-media-url",
                "number=" + to + "&message=Promo&type=image&media_url=" + base + "/promo.png",
                device.deviceKey()));
    assertThat(image.get("data").get("type").asText()).isEqualTo("image");
    JsonNode doc =
        json(
            multiAgent(
                "send-media-url",
                "number="
                    + to
                    + "&message=Tagihan&type=document&media_url="
                    + base
                    + "/invoice.pdf",
                device.deviceKey()));
    assertThat(doc.get("data").get("type").asText()).isEqualTo("document");

    HttpRequest multipart = multipartRequest(to);
    JsonNode uploaded = json(kurir.send(multipart));
    assertThat(uploaded.get("status").asInt()).isEqualTo(200);
    assertThat(uploaded.get("data").get("type").asText()).isEqualTo("document");
    Eventually.until("four", () -> kurir.sandbox().inbox(to).size() == 4);
    assertThat(kurir.sandbox().inbox(to))
        .extracting(InboxEntry::kind)
        .containsExactly("text", "image", "file", "file");

    kurir.sandbox().createGroup("6281100008401-1700000000", "Agen", List.of(to));
    JsonNode group =
        json(
            multiAgent(
                "send-text",
                "number=6281100008401-1700000000&message=Rapat&group=1",
                device.deviceKey()));
    assertThat(group.get("data").get("from_group").asBoolean()).isTrue();
    assertThat(group.get("data").get("chat_id").asText())
        .isEqualTo("6281100008401-1700000000@g.us");
  }

  HttpRequest multipartRequest(String to) {
    String boundary = "----kurir-test-boundary";
    String head =
        "--"
            + boundary
            + "\r\nContent-Disposition: form-data; name=\"number\"\r\n\r\n"
            + to
            + "\r\n"
            + "--"
            + boundary
            + "\r\nContent-Disposition: form-data; name=\"message\"\r\n\r\nFile\r\n"
            + "--"
            + boundary
            + "\r\nContent-Disposition: form-data; name=\"type\"\r\n\r\ndocument\r\n"
            + "--"
            + boundary
            + "\r\nContent-Disposition: form-data; name=\"media\"; filename=\"a.pdf\"\r\n"
            + "Content-Type: application/pdf\r\n\r\n";
    byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
    byte[] h = head.getBytes(StandardCharsets.UTF_8);
    byte[] body = new byte[h.length + PDF.length + tail.length];
    System.arraycopy(h, 0, body, 0, h.length);
    System.arraycopy(PDF, 0, body, h.length, PDF.length);
    System.arraycopy(tail, 0, body, h.length + PDF.length, tail.length);
    return HttpRequest.newBuilder(URI.create(kurir.url("/api/srv1/send-media")))
        .header("Content-Type", "multipart/form-data; boundary=" + boundary)
        .header("device-key", device.deviceKey())
        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
        .build();
  }

  @Test
  void multiAgentRefusalsCarryTheirStatus() throws Exception {
    Reply none = multiAgent("send-text", "number=0812&message=x", null);
    assertThat(none.status()).isEqualTo(401);
    assertThat(json(none).get("status").asInt()).isEqualTo(401);
    Reply wrong = multiAgent("send-text", "number=0812&message=x", "wrong-key");
    assertThat(json(wrong).get("message").asText()).isEqualTo("invalid_device_key");
    Reply badType =
        multiAgent(
            "send-media-url",
            "number=081234567&message=x&type=video&media_url=" + base,
            device.deviceKey());
    assertThat(badType.status()).isEqualTo(400);
    assertThat(json(badType).get("status").asInt()).isEqualTo(400);
    Reply badGroup = multiAgent("send-text", "number=0812&message=x&group=1", device.deviceKey());
    assertThat(json(badGroup).get("message").asText()).isEqualTo("number_not_valid");
  }

  // --- push

  MobileCs.Entry handset(String player, String handset) {
    return new MobileCs(
            kurir.gateway().database(),
            new io.kurir.store.IdGenerator(java.time.Clock.systemUTC(), 3),
            java.time.Clock.systemUTC(),
            tenants)
        .add(license.id(), device.id(), "CS " + player, player, handset);
  }

  @Test
  void pushV1SendsThroughTheHandsetsOfTheLicense() throws Exception {
    handset("player-v1", "handset-v1");
    String to = Numbers.fresh();
    String body =
        "{\"app_id\":\""
            + APP_ID
            + "\",\"include_player_ids\":[\"player-v1\",\"nobody\"],"
            + "\"data\":{\"type\":\"text\",\"message\":\"Pesanan siap\",\"no_wa\":\""
            + to
            + "\"},"
            + "\"contents\":{\"en\":\"Pesanan siap\"},\"headings\":{\"en\":\"Toko\"}}";
    for (String auth :
        List.of(
            "Basic " + license.pushKey(),
            "Basic "
                + Base64.getEncoder()
                    .encodeToString((license.code() + ":" + license.pushKey()).getBytes()))) {
      Reply r =
          kurir.post("/api/v1/notifications", body, "application/json", "Authorization", auth);
      assertThat(r.status()).as(r.body()).isEqualTo(200);
      JsonNode reply = json(r);
      assertThat(reply.get("id").asText()).isNotEmpty();
      assertThat(reply.get("recipients").asInt()).isEqualTo(1);
      assertThat(reply.get("external_id").isNull()).isTrue();
      assertThat(reply.get("errors").get("invalid_player_ids").get(0).asText()).isEqualTo("nobody");
    }
    Eventually.until("two", () -> kurir.sandbox().inbox(to).size() == 2);
    assertThat(inbox(to).getFirst().text()).isEqualTo("Pesanan siap");

    Reply wrongKey =
        kurir.post(
            "/api/v1/notifications", body, "application/json", "Authorization", "Basic nope");
    assertThat(wrongKey.status()).isEqualTo(401);
    assertThat(json(wrongKey).get("errors").get(0).asText()).isEqualTo("invalid_push_key");
    Reply wrongApp =
        kurir.post(
            "/api/v1/notifications",
            body.replace(APP_ID, "other-app"),
            "application/json",
            "Authorization",
            "Basic " + license.pushKey());
    assertThat(wrongApp.status()).isEqualTo(400);
    assertThat(json(wrongApp).get("errors").get(0).asText()).isEqualTo("app_id_not_valid");
  }

  @Test
  void pushV2SendsNowOrLaterAndAnswersLikeFcm() throws Exception {
    MobileCs.Entry cs = handset("player-v2", "handset-v2");
    String to = Numbers.fresh();
    String bearer = "Bearer " + license.pushKey();
    JsonNode text =
        json(
            kurir.post(
                "/send",
                "{\"to\":\"handset-v2\",\"data\":{\"message\":\"Halo\",\"number\":\""
                    + to
                    + "\",\"send_form\":\"kasir\"}}",
                "application/json",
                "Authorization",
                bearer));
    assertThat(text.get("success").asInt()).isEqualTo(1);
    assertThat(text.get("failure").asInt()).isZero();
    assertThat(text.get("canonical_ids").asInt()).isZero();
    assertThat(text.get("multicast_id").isIntegralNumber()).isTrue();
    assertThat(text.get("results").get(0).get("message_id").asText()).matches("\\d+");

    JsonNode image =
        json(
            kurir.post(
                "/send",
                "{\"to\":\""
                    + cs.playerId()
                    + "\",\"data\":{\"message\":\"Promo\",\"number\":\""
                    + to
                    + "\",\"img_url\":\""
                    + base
                    + "/promo.png\"}}",
                "application/json",
                "Authorization",
                "key=" + license.pushKey()));
    assertThat(image.get("success").asInt()).isEqualTo(1);
    Eventually.until("two", () -> kurir.sandbox().inbox(to).size() == 2);
    assertThat(kurir.sandbox().inbox(to))
        .extracting(InboxEntry::kind)
        .containsExactly("text", "image");

    JsonNode later =
        json(
            kurir.post(
                "/send",
                "{\"to\":\"handset-v2\",\"data\":{\"message\":\"Nanti\",\"number\":\""
                    + to
                    + "\",\"schedule\":\"2099-01-01 08:00:00\"}}",
                "application/json",
                "Authorization",
                bearer));
    String scheduleId = later.get("results").get(0).get("message_id").asText();
    JsonNode check =
        json(
            kurir.postJson(
                "/api/sch_check",
                "{\"key\":\"" + device.ecoKey() + "\",\"msg_id\":\"" + scheduleId + "\"}"));
    assertThat(check.get("data").get(0).get("sch_date").asText()).isEqualTo("2099-01-01 08:00:00");

    JsonNode unknownTarget =
        json(
            kurir.post(
                "/send",
                "{\"to\":\"nobody\",\"data\":{\"message\":\"x\",\"number\":\"0812345678\"}}",
                "application/json",
                "Authorization",
                bearer));
    assertThat(unknownTarget.get("failure").asInt()).isEqualTo(1);
    assertThat(unknownTarget.get("results").get(0).get("error").asText())
        .isEqualTo("NotRegistered");
    JsonNode past =
        json(
            kurir.post(
                "/send",
                "{\"to\":\"handset-v2\",\"data\":{\"message\":\"x\",\"number\":\"0812345678\","
                    + "\"schedule\":\"2001-01-01 08:00:00\"}}",
                "application/json",
                "Authorization",
                bearer));
    assertThat(past.get("results").get(0).get("error").asText()).isEqualTo("ScheduleInPast");

    Reply noAuth = kurir.post("/send", "{\"to\":\"handset-v2\"}", "application/json");
    assertThat(noAuth.status()).isEqualTo(401);
    assertThat(json(noAuth).get("error").asText()).isEqualTo("invalid_push_key");
  }

  @Test
  void aPushKeyReachesOnlyItsOwnLicensesHandsets() throws Exception {
    handset("player-own", "handset-own");
    License other =
        tenants.createLicense(
            tenants.partners().getFirst().id(), "Lain", "", LocalDate.of(2099, 1, 1), List.of());
    JsonNode foreign =
        json(
            kurir.post(
                "/send",
                "{\"to\":\"handset-own\",\"data\":{\"message\":\"x\",\"number\":\"0812345678\"}}",
                "application/json",
                "Authorization",
                "Bearer " + other.pushKey()));
    assertThat(foreign.get("results").get(0).get("error").asText()).isEqualTo("NotRegistered");
    JsonNode byDeviceId =
        json(
            kurir.post(
                "/send",
                "{\"to\":\""
                    + device.id()
                    + "\",\"data\":{\"message\":\"x\",\"number\":\"0812345678\"}}",
                "application/json",
                "Authorization",
                "Bearer " + other.pushKey()));
    assertThat(byDeviceId.get("results").get(0).get("error").asText()).isEqualTo("NotRegistered");
  }

  /** A million player ids are counted before they are split or looked up. */
  @Test
  void aMillionPlayerIdsAreRefusedWithTheLimitsAnswer() throws Exception {
    Reply r =
        kurir.post(
            "/api/v1/notifications",
            "{\"app_id\":\""
                + APP_ID
                + "\",\"include_player_ids\":\""
                + "player-x,".repeat(1_000_000)
                + "\",\"data\":{\"message\":\"x\",\"no_wa\":\"0812345678\"}}",
            "application/json",
            "Authorization",
            "Basic " + license.pushKey());
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body()).contains("include_player_ids_too_many");
  }

  @Test
  void aSwitchedOffDeviceSendsThroughNoPushFamily() throws Exception {
    Device off = tenants.createDevice(license.id(), "+6281100008498", "sandbox");
    kurir.sandbox().pair(off.id(), off.number());
    new MobileCs(
            kurir.gateway().database(),
            new io.kurir.store.IdGenerator(java.time.Clock.systemUTC(), 3),
            java.time.Clock.systemUTC(),
            tenants)
        .add(license.id(), off.id(), "CS off", "player-off", "handset-off");
    tenants.setDeviceDisabled(off.id(), true);
    JsonNode v2 =
        json(
            kurir.post(
                "/send",
                "{\"to\":\"player-off\",\"data\":{\"message\":\"x\",\"number\":\"0812345678\"}}",
                "application/json",
                "Authorization",
                "Bearer " + license.pushKey()));
    assertThat(v2.get("results").get(0).get("error").asText()).isEqualTo("NotRegistered");
    JsonNode v1 =
        json(
            kurir.post(
                "/api/v1/notifications",
                "{\"app_id\":\""
                    + APP_ID
                    + "\",\"include_player_ids\":[\""
                    + off.id()
                    + "\"],"
                    + "\"data\":{\"message\":\"x\",\"no_wa\":\"0812345678\"}}",
                "application/json",
                "Authorization",
                "Basic " + license.pushKey()));
    assertThat(v1.get("recipients").asInt()).isZero();
  }

  @Test
  void idsNamingOneHandsetSendOnce() throws Exception {
    MobileCs.Entry cs = handset("player-once", "handset-once");
    String to = Numbers.fresh();
    JsonNode v1 =
        json(
            kurir.post(
                "/api/v1/notifications",
                "{\"app_id\":\""
                    + APP_ID
                    + "\",\"include_player_ids\":[\"player-once\","
                    + "\"player-once\",\"handset-once\"],"
                    + "\"data\":{\"message\":\"sekali\",\"no_wa\":\""
                    + to
                    + "\"}}",
                "application/json",
                "Authorization",
                "Basic " + license.pushKey()));
    assertThat(v1.get("recipients").asInt()).isEqualTo(1);
    long made = TestTables.of(kurir).messagesTo(to).size();
    assertThat(made).as("messages made for the three ids").isEqualTo(1);
    Eventually.until("arrived", () -> !kurir.sandbox().inbox(to).isEmpty());
    assertThat(kurir.sandbox().inbox(to)).hasSize(1);
    assertThat(cs.deviceId()).isEqualTo(device.id());
  }

  @Test
  void multiAgentRefusesATextThatIsBlankOnceRead() throws Exception {
    Reply blank =
        multiAgent("send-text", "number=0812345678&message=%3CENTER%3E", device.deviceKey());
    assertThat(blank.status()).isEqualTo(400);
    assertThat(json(blank).get("message").asText()).isEqualTo("message_empty");
  }

  @Test
  void aRotatedPushKeyStopsTheOldOne() throws Exception {
    License own =
        tenants.createLicense(
            tenants.partners().getFirst().id(), "Rotasi", "", LocalDate.of(2099, 1, 1), List.of());
    String[] admin = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};
    Reply rotated = kurir.post("/admin/licenses/" + own.id() + "/rotate-push-key", "", null, admin);
    assertThat(rotated.status()).isEqualTo(200);
    String fresh = json(rotated).get("pushKey").asText();
    assertThat(fresh).isNotEqualTo(own.pushKey());
    String body = "{\"to\":\"nobody\",\"data\":{\"message\":\"x\",\"number\":\"0812345678\"}}";
    assertThat(
            kurir
                .post("/send", body, "application/json", "Authorization", "Bearer " + own.pushKey())
                .status())
        .isEqualTo(401);
    assertThat(
            kurir
                .post("/send", body, "application/json", "Authorization", "Bearer " + fresh)
                .status())
        .isEqualTo(200);
  }

  @Test
  void pushV2TextVariant() throws Exception {
    String to = Numbers.fresh();
    JsonNode sent =
        json(
            kurir.post(
                "/push/send-text",
                "key="
                    + device.ecoKey()
                    + "&message=Teks&phone_no="
                    + to.substring(1)
                    + "&whatsapp=bisnis",
                "application/x-www-form-urlencoded",
                "Authorization",
                "Bearer " + license.pushKey()));
    assertThat(sent.get("success").asInt()).isEqualTo(1);
    assertThat(inbox(to).getFirst().text()).isEqualTo("Teks");
    Reply badWhatsapp =
        kurir.post(
            "/push/send-text",
            "key=" + device.ecoKey() + "&message=x&phone_no=0812345678&whatsapp=telegram",
            "application/x-www-form-urlencoded",
            "Authorization",
            "Bearer " + license.pushKey());
    assertThat(badWhatsapp.status()).isEqualTo(400);
    assertThat(json(badWhatsapp).get("error").asText()).isEqualTo("whatsapp_not_valid");
  }

  @Test
  void anExpiredLicenseIsRefusedByEveryFamily() throws Exception {
    License old =
        tenants.createLicense(
            tenants.partners().getFirst().id(),
            "Lama",
            "",
            LocalDate.now().minusDays(1),
            List.of());
    Device d = tenants.createDevice(old.id(), "+6281100008499", "sandbox");
    Reply crm =
        kurir.postJson(
            "/send/message-text",
            "{\"deviceId\":\""
                + d.crmDeviceId()
                + "\",\"number\":\"0812345678\",\"message\":\"x\"}");
    Reply agent = multiAgent("send-text", "number=0812345678&message=x", d.deviceKey());
    Reply v1 =
        kurir.post(
            "/api/v1/notifications",
            "{\"app_id\":\""
                + APP_ID
                + "\",\"include_player_ids\":[\""
                + d.id()
                + "\"],"
                + "\"data\":{\"message\":\"x\",\"no_wa\":\"0812345678\"}}",
            "application/json",
            "Authorization",
            "Basic " + old.pushKey());
    Reply v2 =
        kurir.post(
            "/send",
            "{\"to\":\"" + d.id() + "\",\"data\":{\"message\":\"x\",\"number\":\"0812345678\"}}",
            "application/json",
            "Authorization",
            "Bearer " + old.pushKey());
    assertThat(List.of(crm.status(), agent.status(), v1.status(), v2.status())).containsOnly(403);
    assertThat(json(crm).get("message").asText()).isEqualTo("license_expired");
    assertThat(json(agent).get("message").asText()).isEqualTo("license_expired");
    assertThat(json(v1).get("errors").get(0).asText()).isEqualTo("license_expired");
    assertThat(json(v2).get("error").asText()).isEqualTo("license_expired");
  }

  @Test
  void everyFamilysMessageIsInTheReportAndOnTheOutgoingWebhook() throws Exception {
    handset("player-all", "handset-all");
    String to = Numbers.fresh();
    kurir.postJson(
        "/send/message-text",
        "{\"deviceId\":\""
            + device.crmDeviceId()
            + "\",\"number\":\""
            + to
            + "\",\"message\":\"via crm\"}");
    multiAgent("send-text", "number=" + to + "&message=via+multiagent", device.deviceKey());
    kurir.post(
        "/api/v1/notifications",
        "{\"app_id\":\""
            + APP_ID
            + "\",\"include_player_ids\":[\"player-all\"],"
            + "\"data\":{\"message\":\"via push v1\",\"no_wa\":\""
            + to
            + "\"}}",
        "application/json",
        "Authorization",
        "Basic " + license.pushKey());
    kurir.post(
        "/send",
        "{\"to\":\"handset-all\",\"data\":{\"message\":\"via push v2\",\"number\":\"" + to + "\"}}",
        "application/json",
        "Authorization",
        "Bearer " + license.pushKey());
    List<String> texts = List.of("via crm", "via multiagent", "via push v1", "via push v2");
    Eventually.until("all four arrived", () -> kurir.sandbox().inbox(to).size() == 4);

    String report =
        kurir
            .postJson(
                "/api/report_json",
                "{\"key\":\""
                    + device.ecoKey()
                    + "\",\"time_choose\":\"today\",\"keyword\":\"via \"}")
            .body();
    for (String t : texts) {
      assertThat(report).contains(t);
    }
    Eventually.until(
        "each on the outgoing webhook",
        () -> {
          List<String> seen =
              receiver.received().stream()
                  .map(r -> r.json())
                  .filter(j -> j.get("status").asText().equals("sent"))
                  .map(j -> j.get("message").asText())
                  .toList();
          return seen.containsAll(texts);
        });
    Map<String, String> apis =
        receiver.received().stream()
            .map(r -> r.json())
            .filter(j -> texts.contains(j.get("message").asText()))
            .collect(
                java.util.stream.Collectors.toMap(
                    j -> j.get("message").asText(), j -> j.get("api").asText(), (a, b) -> a));
    assertThat(apis)
        .containsEntry("via crm", "crm")
        .containsEntry("via multiagent", "multiagent")
        .containsEntry("via push v1", "push.v1")
        .containsEntry("via push v2", "push.v2");
  }
}
