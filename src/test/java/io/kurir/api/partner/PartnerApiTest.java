package io.kurir.api.partner;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.tenant.Tenants;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.TestTables;
import io.kurir.testing.WebhookReceiver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Partner API over HTTP, and the keyword bots it manages answering real incoming messages on
 * the sandbox network.
 */
class PartnerApiTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String SECRET = "reseller-secret-0123456789abcdef";

  @TempDir Path dir;
  TestGateway kurir;
  Tenants tenants;
  License license;
  Device device;
  String auth;

  @BeforeEach
  void start() {
    kurir = TestGateway.start(dir, "--media.allow-private-addresses=true");
    tenants = kurir.gateway().tenants();
    Partner partner = tenants.createPartner("Reseller", "", "reseller", SECRET);
    license =
        tenants.createLicense(
            partner.id(), "Toko Maju", "toko@example.com", LocalDate.of(2099, 1, 1), List.of());
    device = tenants.createDevice(license.id(), "+6281100008301", "sandbox");
    kurir.sandbox().pair(device.id(), device.number());
    auth = basic("reseller", SECRET);
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  static String basic(String user, String secret) {
    return "Basic "
        + Base64.getEncoder()
            .encodeToString((user + ":" + secret).getBytes(StandardCharsets.UTF_8));
  }

  Reply call(String path, String form, String authorization) {
    return authorization == null
        ? kurir.postForm("/v4.0/wa_partner/" + path, form)
        : kurir.post(
            "/v4.0/wa_partner/" + path,
            form,
            "application/x-www-form-urlencoded",
            "Authorization",
            authorization);
  }

  JsonNode ok(String path, String form) throws Exception {
    Reply r = call(path, form, auth);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  String addBot(String keyword, String response, String type) throws Exception {
    JsonNode added =
        ok(
            "add_bot",
            "license="
                + license.code()
                + "&bot_keyword="
                + keyword
                + "&bot_response="
                + response
                + "&bot_type="
                + type);
    assertThat(added.get("status").asText()).isEqualTo("success");
    return added.get("id").asText();
  }

  @Test
  void botsAreAddedListedAndDeleted() throws Exception {
    String id = addBot("harga", "Harga+mulai+10rb", "partial_all");
    JsonNode bots = ok("get_bot", "license=" + license.code());
    assertThat(bots.get("status").asText()).isEqualTo("success");
    JsonNode rule = bots.get("data").get(id);
    assertThat(rule.get("keyword").asText()).isEqualTo("harga");
    assertThat(rule.get("match_type").asText()).isEqualTo("partial_all");
    assertThat(rule.get("text").asText()).isEqualTo("Harga mulai 10rb");
    assertThat(rule.get("action_type").asText()).isEqualTo("reply");
    assertThat(rule.get("text_type").asText()).isEqualTo("text");

    assertThat(ok("delete_bot", "license=" + license.code() + "&id=" + id).get("status").asText())
        .isEqualTo("success");
    assertThat(ok("get_bot", "license=" + license.code()).get("data")).isEmpty();
    Reply again = call("delete_bot", "license=" + license.code() + "&id=" + id, auth);
    assertThat(again.status()).isEqualTo(404);
    assertThat(JSON.readTree(again.body()).get("status").asText()).isEqualTo("failed");

    Reply badType =
        call(
            "add_bot",
            "license=" + license.code() + "&bot_keyword=x&bot_response=y&bot_type=fuzzy",
            auth);
    assertThat(badType.status()).isEqualTo(400);
    assertThat(JSON.readTree(badType.body()).get("message").asText())
        .isEqualTo("bot_type_not_valid");
    Reply noKeyword =
        call("add_bot", "license=" + license.code() + "&bot_response=y&bot_type=match", auth);
    assertThat(JSON.readTree(noKeyword.body()).get("message").asText())
        .isEqualTo("bot_keyword_empty");
  }

  @Test
  void jsonAndMultipartBodiesWorkLikeForms() throws Exception {
    Reply json =
        kurir.post(
            "/v4.0/wa_partner/add_bot",
            "{\"license\":\""
                + license.code()
                + "\",\"bot_keyword\":\"jam\","
                + "\"bot_response\":\"08-17\",\"bot_type\":\"match\"}",
            "application/json",
            "Authorization",
            auth);
    assertThat(json.status()).as(json.body()).isEqualTo(200);
    java.net.http.HttpRequest multipart =
        java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(kurir.url("/v4.0/wa_partner/get_bot")))
            .header("Authorization", auth)
            .header("Content-Type", "multipart/form-data; boundary=b0undary")
            .POST(
                java.net.http.HttpRequest.BodyPublishers.ofString(
                    "--b0undary\r\nContent-Disposition: form-data; name=\"license\"\r\n\r\n"
                        + license.code()
                        + "\r\n--b0undary--\r\n"))
            .build();
    JsonNode bots = JSON.readTree(kurir.send(multipart).body());
    assertThat(bots.get("data").toString()).contains("\"keyword\":\"jam\"");
  }

  @Test
  void credentialsAndLicenseOwnershipAreChecked() throws Exception {
    String form = "license=" + license.code();
    Reply none = call("get_bot", form, null);
    assertThat(none.status()).isEqualTo(401);
    assertThat(JSON.readTree(none.body()).get("message").asText()).isEqualTo("invalid_credentials");
    assertThat(call("get_bot", form, basic("reseller", "wrong")).status()).isEqualTo(401);
    assertThat(call("get_bot", form, "Basic !!!not-base64").status()).isEqualTo(401);

    Partner other = tenants.createPartner("Other", "", "other", "other-secret-0123456789abcdefgh");
    Reply foreign = call("get_bot", form, basic("other", "other-secret-0123456789abcdefgh"));
    assertThat(foreign.status()).isEqualTo(404);
    assertThat(JSON.readTree(foreign.body()).get("message").asText())
        .isEqualTo("license_not_found");

    tenants.setPartnerDisabled(other.id(), true);
    assertThat(call("get_bot", form, basic("other", "other-secret-0123456789abcdefgh")).status())
        .isEqualTo(403);
  }

  @Test
  void getKeyReturnsTheKeyOfTheLicensesAccount() throws Exception {
    JsonNode key = ok("get_key", "license=" + license.code() + "&email=TOKO@example.com");
    assertThat(key.get("status").asText()).isEqualTo("success");
    assertThat(key.get("key").asText()).isEqualTo(device.ecoKey());

    Reply wrongEmail = call("get_key", "license=" + license.code() + "&email=x@example.com", auth);
    assertThat(wrongEmail.status()).isEqualTo(403);

    Partner other = tenants.createPartner("Other", "", "other2", "other-secret-0123456789abcdefgh");
    Reply notMine =
        call(
            "get_key",
            "license=" + license.code() + "&email=toko@example.com",
            basic("other2", "other-secret-0123456789abcdefgh"));
    JsonNode failed = JSON.readTree(notMine.body());
    assertThat(failed.get("status").asText()).isEqualTo("failed");
    assertThat(failed.get("message").asText()).isEqualTo("6281100008301 is not your client");
    assertThat(failed.has("key")).isFalse();
    assertThat(other.id()).isPositive();
  }

  /** A million ids are counted before the list is split, and refused with the limit's answer. */
  @Test
  void bulkCheckIdRefusesAMillionIdsWithTheLimitsAnswer() throws Exception {
    Reply r =
        call(
            "bulk_check_id",
            "license=" + license.code() + "&bulk_msg_id=" + "1234567,".repeat(1_000_000),
            auth);
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body()).contains("bulk_msg_id_too_many");
  }

  @Test
  void bulkCheckIdGivesEachMessagesOutcome() throws Exception {
    String to = Numbers.fresh();
    String gone = Numbers.fresh();
    kurir.sandbox().setRegistered(gone, false);
    String sent = send(to);
    String notFound = send(gone);
    Eventually.until(
        "both done",
        () -> {
          try {
            String body =
                ok(
                        "bulk_check_id",
                        "license=" + license.code() + "&bulk_msg_id=" + sent + "," + notFound)
                    .toString();
            return body.contains("\"success\"") && body.contains("number_not_found");
          } catch (Exception e) {
            return false;
          }
        });
    JsonNode reply =
        ok(
            "bulk_check_id",
            "license=" + license.code() + "&bulk_msg_id=" + sent + ",%20" + notFound + ",42,abc");
    assertThat(reply.get("status").asText()).isEqualTo("success");
    List<Map<String, String>> rows =
        JSON.convertValue(
            reply.get("data"),
            new com.fasterxml.jackson.core.type.TypeReference<List<Map<String, String>>>() {});
    assertThat(rows)
        .containsExactly(
            Map.of("msg_id", sent, "status", "success"),
            Map.of("msg_id", notFound, "status", "number_not_found", "reason", "number_not_found"),
            Map.of("msg_id", "42", "status", "not_found"),
            Map.of("msg_id", "abc", "status", "not_found"));
  }

  String send(String to) {
    return kurir
        .postJson(
            "/api/async_send_message",
            "{\"key\":\"" + device.ecoKey() + "\",\"phone_no\":\"" + to + "\",\"message\":\"x\"}")
        .body();
  }

  // --- the bots at work

  /** Sends {@code text} from a fresh number to the device; the auto-replies it got. */
  List<String> replies(String text) throws Exception {
    String from = Numbers.fresh();
    kurir.sandbox().injectIncoming(device.id(), from, text);
    // The message and its reply, if any, are stored before injectIncoming returns.
    long replies = repliesStoredFor(from);
    Eventually.until("replies sent", () -> kurir.sandbox().inbox(from).size() == replies);
    return kurir.sandbox().inbox(from).stream().map(InboxEntry::text).toList();
  }

  /** Auto-replies stored for the messages from {@code sender}. */
  long repliesStoredFor(String sender) {
    return TestTables.of(kurir).inboundFrom(sender).stream()
        .filter(r -> r.replyMessageId().isPresent())
        .count();
  }

  @Test
  void eachBotTypeAnswersWhereItShouldAndNowhereElse() throws Exception {
    addBot("info", "Menu:+1.+Harga+2.+Alamat", "match");
    addBot("daftar", "Silakan+isi+formulir", "partial");
    addBot("ongkir", "Ongkir+flat+10rb", "partial_all");

    assertThat(replies("INFO")).containsExactly("Menu: 1. Harga 2. Alamat");
    assertThat(replies("  info  ")).containsExactly("Menu: 1. Harga 2. Alamat");
    assertThat(replies("info dong")).isEmpty();

    assertThat(replies("Daftar kelas 7")).containsExactly("Silakan isi formulir");
    assertThat(replies("mau daftar")).isEmpty();

    assertThat(replies("berapa ongkir ke Bogor?")).containsExactly("Ongkir flat 10rb");
    assertThat(replies("ongkos kirim")).isEmpty();
  }

  @Test
  void theIncomingWebhookSaysWhichKeywordMatched() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver()) {
      kurir.postForm(
          "/v2.0/webhook",
          "license="
              + license.code()
              + "&no_wa=6281100008301&action=set&url="
              + receiver.url("/in"));
      addBot("Promo", "Diskon+50%25", "partial_all");
      replies("ada promo hari ini?");
      replies("halo");
      Eventually.until("both pushed", () -> receiver.received().size() == 2);
      assertThat(receiver.received())
          .extracting(r -> r.json().get("keyword").asText())
          .containsExactly("Promo", "default");
    }
  }

  @Test
  void addingTheSameKeywordAndTypeAgainChangesTheReply() throws Exception {
    String first = addBot("info", "Buka+jam+8", "match");
    JsonNode again =
        ok(
            "add_bot",
            "license="
                + license.code()
                + "&bot_keyword=INFO&bot_response=Buka+jam+9&bot_type=match");
    assertThat(again.get("message").asText()).isEqualTo("bot updated");
    assertThat(again.get("id").asText()).isEqualTo(first);
    assertThat(ok("get_bot", "license=" + license.code()).get("data").size()).isEqualTo(1);
    assertThat(replies("info")).containsExactly("Buka jam 9");
  }

  @Test
  void getKeyPicksTheDeviceByNumberWhenAsked() throws Exception {
    Device second = tenants.createDevice(license.id(), "+6281100008302", "sandbox");
    JsonNode key =
        ok("get_key", "license=" + license.code() + "&email=toko@example.com&no_wa=081100008302");
    assertThat(key.get("key").asText()).isEqualTo(second.ecoKey());
    Reply none =
        call(
            "get_key",
            "license=" + license.code() + "&email=toko@example.com&no_wa=081100009999",
            auth);
    assertThat(none.status()).isEqualTo(404);
  }

  /**
   * {@code no_wa} is read as every number is, in {@code phone.default-region}: a German operator's
   * {@code 0151…} is +49151…, not an Indonesian number.
   */
  @Test
  void getKeyReadsNoWaInTheConfiguredDefaultRegion() throws Exception {
    kurir.close();
    kurir =
        TestGateway.start(
            dir.resolve("de"), "--media.allow-private-addresses=true", "--phone.default-region=DE");
    tenants = kurir.gateway().tenants();
    Partner partner = tenants.createPartner("Reseller", "", "reseller", SECRET);
    License german =
        tenants.createLicense(
            partner.id(), "Laden", "laden@example.com", LocalDate.of(2099, 1, 1), List.of());
    tenants.createDevice(german.id(), "+4915100000001", "sandbox");
    Device second = tenants.createDevice(german.id(), "+4915123456789", "sandbox");

    JsonNode key =
        ok(
            "get_key",
            "license=" + german.code() + "&email=laden@example.com&no_wa=0151%2023456789");

    assertThat(key.get("key").asText()).isEqualTo(second.ecoKey());
  }

  @Test
  void anExpiredLicensesBotsStaySilentThoughItsPartnerStillManagesThem() throws Exception {
    License expired =
        tenants.createLicense(
            tenants.partners().getFirst().id(),
            "Lama",
            "",
            LocalDate.now().minusDays(1),
            List.of());
    Device old = tenants.createDevice(expired.id(), "+6281100008399", "sandbox");
    kurir.sandbox().pair(old.id(), old.number());
    JsonNode added =
        ok(
            "add_bot",
            "license=" + expired.code() + "&bot_keyword=info&bot_response=Menu&bot_type=match");
    assertThat(added.get("status").asText()).isEqualTo("success");
    String from = Numbers.fresh();
    kurir.sandbox().injectIncoming(old.id(), from, "info");
    assertThat(repliesStoredFor(from)).as("no reply stored with the message").isZero();
    assertThat(kurir.sandbox().inbox(from)).isEmpty();
  }

  @Test
  void twoBotsCannotTalkToEachOtherForever() throws Exception {
    addBot("halo", "halo+juga", "partial_all");
    String from = Numbers.fresh();
    for (int i = 0; i < 15; i++) {
      kurir.sandbox().injectIncoming(device.id(), from, "halo");
    }
    assertThat(repliesStoredFor(from)).as("replies stored for the 15 messages").isEqualTo(10);
    Eventually.until("ten replies", () -> kurir.sandbox().inbox(from).size() == 10);
    assertThat(kurir.sandbox().inbox(from)).hasSize(10);
  }
}
