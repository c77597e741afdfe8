package io.kurir.api;

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
import io.kurir.time.SettableClock;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Idempotency-Key} (or the {@code idempotency_key} field) over HTTP, in every family that
 * sends: a repeat answers what the first request answered and sends nothing, the same key on
 * another request is refused, keys are per device, concurrent repeats store one message, sync
 * repeats answer the first's outcome, and keys survive a restart and last a day.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IdempotencyTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String APP_ID = "6b757269-7200-4000-8000-707573680001";
  static final String HEADER = "Idempotency-Key";
  static final AtomicInteger KEYS = new AtomicInteger();

  TestGateway kurir;
  Tenants tenants;
  Partner partner;
  License license;
  Device device;
  HttpServer files;
  String base;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    files = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    files.createContext(
        "/promo.png",
        ex -> {
          ex.sendResponseHeaders(200, PNG.length);
          ex.getResponseBody().write(PNG);
          ex.close();
        });
    files.start();
    base = "http://127.0.0.1:" + files.getAddress().getPort();
    kurir = TestGateway.start(dir, "--media.allow-private-addresses=true");
    tenants = kurir.gateway().tenants();
    partner = tenants.createPartner("Reseller", "");
    license = tenants.createLicense(partner.id(), "Toko", "", null, List.of());
    device = newDevice();
  }

  @AfterAll
  void stop() {
    kurir.close();
    files.stop(0);
  }

  // --- helpers

  Device newDevice() {
    Device d = tenants.createDevice(license.id(), Numbers.fresh(), "sandbox");
    kurir.sandbox().pair(d.id(), d.number());
    return d;
  }

  static String newKey() {
    return "order-" + KEYS.incrementAndGet() + "-" + System.nanoTime();
  }

  static JsonNode json(Reply r) throws Exception {
    return JSON.readTree(r.body());
  }

  static String ecoText(Device d, String to, String text) {
    return "{\"key\":\""
        + d.ecoKey()
        + "\",\"phone_no\":\""
        + to
        + "\",\"message\":\""
        + text
        + "\"}";
  }

  Reply eco(String path, String json, String key) {
    return kurir.post(path, json, "application/json", HEADER, key);
  }

  static long stored(TestGateway gateway, Device d) {
    return gateway.storedMessages(d.id());
  }

  long stored(Device d) {
    return stored(kurir, d);
  }

  /** The phone received {@code count} messages; with the counts of stored messages, "sent once". */
  List<InboxEntry> received(String to, int count) {
    return received(kurir, to, count);
  }

  static List<InboxEntry> received(TestGateway gateway, String to, int count) {
    Eventually.until(
        count + " message(s) for " + to, () -> gateway.sandbox().inbox(to).size() >= count);
    assertThat(gateway.sandbox().inbox(to)).hasSize(count);
    return gateway.sandbox().inbox(to);
  }

  String basic(String user, String secret) {
    return "Basic "
        + Base64.getEncoder()
            .encodeToString((user + ":" + secret).getBytes(StandardCharsets.UTF_8));
  }

  MobileCs.Entry handset(Device d, String player) {
    return new MobileCs(
            kurir.gateway().database(),
            new io.kurir.store.IdGenerator(java.time.Clock.systemUTC(), 3),
            java.time.Clock.systemUTC(),
            tenants)
        .add(license.id(), d.id(), "CS " + player, player, player + "-handset");
  }

  /** A time in the operator zone (Asia/Jakarta), {@code days} from now, to the minute. */
  static String jakarta(int days, String pattern) {
    return ZonedDateTime.now(ZoneId.of("Asia/Jakarta"))
        .plusDays(days)
        .format(DateTimeFormatter.ofPattern(pattern));
  }

  // --- Eco

  @Test
  void ecoAsyncRepeatAnswersTheFirstIdAndSendsOnce() {
    Device d = newDevice();
    String to = Numbers.fresh();
    String key = newKey();
    Reply first = eco("/api/async_send_message", ecoText(d, to, "Pesanan 1001"), key);
    assertThat(first.status()).as(first.body()).isEqualTo(200);
    assertThat(first.body()).matches("\\d+");
    received(to, 1);

    Reply again = eco("/api/async_send_message", ecoText(d, to, "Pesanan 1001"), key);
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(stored(d)).isEqualTo(1);
    // The number written another way is the same request: the key compares normalised requests.
    Reply national =
        eco("/api/async_send_message", ecoText(d, Numbers.national(to), "Pesanan 1001"), key);
    assertThat(national.body()).isEqualTo(first.body());
    assertThat(stored(d)).isEqualTo(1);
    assertThat(kurir.sandbox().inbox(to)).hasSize(1);

    Reply other = eco("/api/async_send_message", ecoText(d, to, "Pesanan 1001"), newKey());
    assertThat(other.body()).isNotEqualTo(first.body()); // another key is another request
    received(to, 2);
  }

  @Test
  void theKeyIsReadFromTheHeaderAndFromTheFieldInEveryBodyShape() {
    Device d = newDevice();
    String to = Numbers.fresh();
    String path = "/api/async_send_message";
    String json = newKey();
    String form = newKey();
    String multipart = newKey();
    String query = newKey();
    String header = newKey();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      String text = "bentuk";
      ids.add(
          kurir
              .postJson(
                  path,
                  "{\"key\":\""
                      + d.ecoKey()
                      + "\",\"phone_no\":\""
                      + to
                      + "\",\"message\":\"json\",\"idempotency_key\":\""
                      + json
                      + "\"}")
              .body());
      ids.add(
          kurir
              .postForm(
                  path,
                  "key="
                      + d.ecoKey()
                      + "&phone_no="
                      + to.substring(1)
                      + "&message=form&idempotency_key="
                      + URLEncoder.encode(form, StandardCharsets.UTF_8))
              .body());
      ids.add(
          kurir
              .postMultipart(
                  path,
                  Map.of(
                      "key",
                      d.ecoKey(),
                      "phone_no",
                      to,
                      "message",
                      "multipart",
                      "idempotency_key",
                      multipart))
              .body());
      ids.add(
          kurir
              .postJson(
                  path + "?idempotency_key=" + query,
                  "{\"key\":\"" + d.ecoKey() + "\",\"phone_no\":\"" + to + "\",\"message\":\"q\"}")
              .body());
      ids.add(
          kurir
              .post(
                  path,
                  "key=" + d.ecoKey() + "&phone_no=" + to.substring(1) + "&message=" + text,
                  "application/x-www-form-urlencoded",
                  HEADER,
                  header)
              .body());
    }
    assertThat(ids).allMatch(id -> id.matches("\\d+"));
    assertThat(ids.subList(5, 10)).containsExactlyElementsOf(ids.subList(0, 5));
    assertThat(new HashSet<>(ids)).hasSize(5);
    assertThat(stored(d)).isEqualTo(5);
    received(to, 5);
  }

  @Test
  void theHeaderWinsOverTheField() {
    Device d = newDevice();
    String to = Numbers.fresh();
    String key = newKey();
    String body =
        "{\"key\":\""
            + d.ecoKey()
            + "\",\"phone_no\":\""
            + to
            + "\",\"message\":\"m\",\"idempotency_key\":\"";
    Reply first = eco("/api/async_send_message", body + newKey() + "\"}", key);
    Reply second = eco("/api/async_send_message", body + newKey() + "\"}", key);
    assertThat(second.body()).isEqualTo(first.body());
    assertThat(stored(d)).isEqualTo(1);
  }

  @Test
  void ecoSyncRepeatAnswersTheFirstOutcome() throws Exception {
    Device d = newDevice();
    String to = Numbers.fresh();
    String key = newKey();
    Reply first = eco("/api/send_message", ecoText(d, to, "OTP 1234"), key);
    assertThat(first.body()).isEqualTo("success");
    Reply again = eco("/api/send_message", ecoText(d, to, "OTP 1234"), key);
    assertThat(again.body()).isEqualTo("success");
    received(to, 1);

    String nobody = Numbers.fresh();
    kurir.sandbox().setRegistered(nobody, false);
    String missing = newKey();
    Reply notFound = eco("/api/send_message", ecoText(d, nobody, "Halo"), missing);
    assertThat(notFound.body()).endsWith("] Number not found");
    Reply notFoundAgain = eco("/api/send_message", ecoText(d, nobody, "Halo"), missing);
    assertThat(notFoundAgain.body()).matches("\\[\\d{14}] Number not found");
    assertThat(stored(d)).isEqualTo(2);

    // With deliveryFlag, the repeat shows the first's message as it is now.
    String flagged = newKey();
    String body =
        "{\"key\":\""
            + d.ecoKey()
            + "\",\"phone_no\":\""
            + to
            + "\",\"message\":\"Resi\",\"deliveryFlag\":true}";
    JsonNode one = json(eco("/api/send_message", body, flagged));
    JsonNode two = json(eco("/api/send_message", body, flagged));
    assertThat(one.get("status").asText()).isEqualTo("success");
    assertThat(two.get("status").asText()).isEqualTo("success");
    assertThat(two.get("message").get("messageId").asText())
        .isEqualTo(one.get("message").get("messageId").asText());
    assertThat(two.get("message").get("sentDate").asText())
        .isEqualTo(one.get("message").get("sentDate").asText());
    assertThat(stored(d)).isEqualTo(3);
    received(to, 2);
  }

  @Test
  void ecoGroupAndMediaSendsRepeat() {
    Device d = newDevice();
    String member = Numbers.fresh();
    String group = d.number().substring(1) + "-1600000001";
    kurir.sandbox().createGroup(group, "Keluarga " + d.id(), List.of(d.number(), member));
    String asyncGroup =
        "{\"key\":\"" + d.ecoKey() + "\",\"group_id\":\"" + group + "\",\"message\":\"Rapat\"}";
    String key = newKey();
    Reply first = eco("/api/async_send_message_group_id", asyncGroup, key);
    assertThat(first.body()).matches("\\d+");
    assertThat(eco("/api/async_send_message_group_id", asyncGroup, key).body())
        .isEqualTo(first.body());
    String syncKey = newKey();
    String syncGroup = asyncGroup.replace("Rapat", "Rapat jam 9");
    assertThat(eco("/api/send_message_group_id", syncGroup, syncKey).body()).isEqualTo("success");
    assertThat(eco("/api/send_message_group_id", syncGroup, syncKey).body()).isEqualTo("success");

    String to = Numbers.fresh();
    String image =
        "{\"key\":\""
            + d.ecoKey()
            + "\",\"phone_no\":\""
            + to
            + "\",\"url\":\""
            + base
            + "/promo.png\",\"message\":\"Promo\"}";
    String imageKey = newKey();
    Reply img = eco("/api/async_send_image_url", image, imageKey);
    assertThat(img.body()).matches("\\d+");
    assertThat(eco("/api/async_send_image_url", image, imageKey).body()).isEqualTo(img.body());
    String syncImageKey = newKey();
    assertThat(eco("/api/send_image_url", image, syncImageKey).body()).isEqualTo("success");
    assertThat(eco("/api/send_image_url", image, syncImageKey).body()).isEqualTo("success");

    assertThat(stored(d)).isEqualTo(4);
    received(member, 2);
    received(to, 2);
  }

  @Test
  void schedulerRepeatAnswersTheFirstScheduleEvenWhenItsMinuteIsFull() {
    Device d = newDevice();
    String to = Numbers.fresh();
    String when = jakarta(1, "yyyy-MM-dd HH:mm");
    List<String> keys = List.of(newKey(), newKey(), newKey());
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(eco("/api/scheduler", schedule(d, to, when, "Pengingat " + i), keys.get(i)).body());
    }
    assertThat(ids).allMatch(id -> id.matches("\\d+"));
    assertThat(kurir.postJson("/api/scheduler", schedule(d, to, when, "keempat")).body())
        .isEqualTo("sch_more_than_3_in_1_minute");
    // The third's repeat is answered its id, not refused for the place it took itself.
    assertThat(eco("/api/scheduler", schedule(d, to, when, "Pengingat 2"), keys.get(2)).body())
        .isEqualTo(ids.get(2));
    Reply reused = eco("/api/scheduler", schedule(d, to, when, "lain"), keys.get(0));
    assertThat(reused.status()).isEqualTo(422);
    assertThat(reused.body()).isEqualTo("idempotency_key_reused");
    long schedules = TestTables.of(kurir).schedulesOf(d.id());
    assertThat(schedules).isEqualTo(3);
  }

  static String schedule(Device d, String to, String when, String text) {
    return "{\"key\":\""
        + d.ecoKey()
        + "\",\"phone_no\":\""
        + to
        + "\",\"sch_date\":\""
        + when
        + "\",\"api_type\":\"text\",\"message\":\""
        + text
        + "\"}";
  }

  // --- the other families

  @Test
  void crmRepeatAnswersTheFirstOutcome() throws Exception {
    Device d = newDevice();
    String to = Numbers.fresh();
    String body =
        "{\"deviceId\":\"" + d.crmDeviceId() + "\",\"number\":\"" + to + "\",\"message\":\"CRM\"}";
    String key = newKey();
    Reply first = kurir.post("/send/message-text", body, "application/json", HEADER, key);
    Reply again = kurir.post("/send/message-text", body, "application/json", HEADER, key);
    assertThat(json(first).get("status").asBoolean()).isTrue();
    assertThat(again.body()).isEqualTo(first.body());

    String nobody = Numbers.fresh();
    kurir.sandbox().setRegistered(nobody, false);
    String missing =
        "{\"deviceId\":\""
            + d.crmDeviceId()
            + "\",\"number\":\""
            + nobody
            + "\",\"message\":\"CRM\",\"idempotency_key\":\"crm-missing\"}";
    Reply notFound = kurir.postJson("/send/message-text", missing);
    assertThat(json(notFound).get("message").asText()).isEqualTo("Number not found");
    assertThat(kurir.postJson("/send/message-text", missing).body()).isEqualTo(notFound.body());
    assertThat(stored(d)).isEqualTo(2);
    received(to, 1);
  }

  @Test
  void multiAgentRepeatAnswersTheFirstRecord() throws Exception {
    Device d = newDevice();
    String to = Numbers.fresh();
    String form = "number=" + to.substring(1) + "&message=Halo+agen";
    String key = newKey();
    JsonNode first =
        json(
            kurir.post(
                "/api/srv1/send-text",
                form,
                "application/x-www-form-urlencoded",
                "device-key",
                d.deviceKey(),
                HEADER,
                key));
    assertThat(first.get("status").asInt()).isEqualTo(200);
    received(to, 1);
    JsonNode again =
        json(
            kurir.post(
                "/api/srv1/send-text",
                form,
                "application/x-www-form-urlencoded",
                "device-key",
                d.deviceKey(),
                HEADER,
                key));
    assertThat(again.get("status").asInt()).isEqualTo(200);
    assertThat(again.get("data").get("id").asText())
        .isEqualTo(first.get("data").get("id").asText());
    assertThat(again.get("data").get("created_at").asText())
        .isEqualTo(first.get("data").get("created_at").asText());
    assertThat(stored(d)).isEqualTo(1);
    assertThat(kurir.sandbox().inbox(to)).hasSize(1);
  }

  @Test
  void pushV1RepeatAnswersTheSameNotification() throws Exception {
    Device d = newDevice();
    String player = "player-" + d.id();
    handset(d, player);
    String to = Numbers.fresh();
    String body =
        "{\"app_id\":\""
            + APP_ID
            + "\",\"include_player_ids\":[\""
            + player
            + "\"],\"data\":{\"message\":\"Pesanan siap\",\"no_wa\":\""
            + to
            + "\"},\"idempotency_key\":\"push1-"
            + d.id()
            + "\"}";
    String auth = "Basic " + license.pushKey();
    JsonNode first =
        json(kurir.post("/api/v1/notifications", body, "application/json", "Authorization", auth));
    JsonNode again =
        json(kurir.post("/api/v1/notifications", body, "application/json", "Authorization", auth));
    assertThat(first.get("recipients").asInt()).isEqualTo(1);
    assertThat(again).isEqualTo(first);
    assertThat(stored(d)).isEqualTo(1);
    received(to, 1);
  }

  @Test
  void pushV2RepeatAnswersTheSameMessageId() throws Exception {
    Device d = newDevice();
    String player = "player-" + d.id();
    handset(d, player);
    String to = Numbers.fresh();
    String bearer = "Bearer " + license.pushKey();
    String send =
        "{\"to\":\"" + player + "\",\"data\":{\"message\":\"Halo\",\"number\":\"" + to + "\"}}";
    String key = newKey();
    JsonNode first =
        json(kurir.post("/send", send, "application/json", "Authorization", bearer, HEADER, key));
    JsonNode again =
        json(kurir.post("/send", send, "application/json", "Authorization", bearer, HEADER, key));
    String id = first.get("results").get(0).get("message_id").asText();
    assertThat(id).matches("\\d+");
    assertThat(again.get("results").get(0).get("message_id").asText()).isEqualTo(id);

    String text =
        "{\"key\":\""
            + d.ecoKey()
            + "\",\"message\":\"Teks\",\"phone_no\":\""
            + to
            + "\",\"idempotency_key\":\"text-"
            + d.id()
            + "\"}";
    JsonNode t1 =
        json(kurir.post("/push/send-text", text, "application/json", "Authorization", bearer));
    JsonNode t2 =
        json(kurir.post("/push/send-text", text, "application/json", "Authorization", bearer));
    assertThat(t2.get("results").get(0).get("message_id").asText())
        .isEqualTo(t1.get("results").get(0).get("message_id").asText());

    String later =
        "{\"to\":\""
            + player
            + "\",\"data\":{\"message\":\"Nanti\",\"number\":\""
            + to
            + "\",\"schedule\":\""
            + jakarta(1, "yyyy-MM-dd HH:mm:ss")
            + "\"}}";
    String scheduleKey = newKey();
    JsonNode s1 =
        json(
            kurir.post(
                "/send", later, "application/json", "Authorization", bearer, HEADER, scheduleKey));
    JsonNode s2 =
        json(
            kurir.post(
                "/send", later, "application/json", "Authorization", bearer, HEADER, scheduleKey));
    assertThat(s1.get("success").asInt()).isEqualTo(1);
    assertThat(s2.get("results").get(0).get("message_id").asText())
        .isEqualTo(s1.get("results").get(0).get("message_id").asText());
    assertThat(stored(d)).isEqualTo(2);
    received(to, 2);
  }

  @Test
  void accountDemoRepeatAnswersTheSameMsgId() throws Exception {
    Device d = newDevice();
    String to = Numbers.fresh();
    String body =
        "{\"phone_no\":\"" + to + "\",\"key\":\"" + d.ecoKey() + "\",\"message\":\"Coba demo\"}";
    String auth = basic(partner.basicUser(), partner.basicSecret());
    String key = newKey();
    Reply first =
        kurir.post("/v2.0/demo", body, "application/json", "Authorization", auth, HEADER, key);
    Reply again =
        kurir.post("/v2.0/demo", body, "application/json", "Authorization", auth, HEADER, key);
    assertThat(first.status()).as(first.body()).isEqualTo(200);
    assertThat(json(first).get("msg_id").asText()).matches("\\d+");
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(stored(d)).isEqualTo(1);
    received(to, 1);
  }

  // --- refusals and scope

  @Test
  void theSameKeyOnAnotherRequestIsRefusedInEachFamilysStyle() throws Exception {
    Device d = newDevice();
    String player = "player-" + d.id();
    handset(d, player);
    String to = Numbers.fresh();
    String key = newKey();
    assertThat(eco("/api/async_send_message", ecoText(d, to, "pertama"), key).body())
        .matches("\\d+");

    Reply eco = eco("/api/async_send_message", ecoText(d, to, "kedua"), key);
    assertThat(eco.status()).isEqualTo(422);
    assertThat(eco.body()).isEqualTo("idempotency_key_reused");
    // The same text as a sync send is another request too.
    assertThat(eco("/api/send_message", ecoText(d, to, "pertama"), key).body())
        .isEqualTo("idempotency_key_reused");
    assertThat(eco("/api/async_send_message", ecoText(d, Numbers.fresh(), "pertama"), key).body())
        .isEqualTo("idempotency_key_reused");

    Reply crm =
        kurir.post(
            "/send/message-text",
            "{\"deviceId\":\""
                + d.crmDeviceId()
                + "\",\"number\":\""
                + to
                + "\",\"message\":\"x\"}",
            "application/json",
            HEADER,
            key);
    assertThat(crm.status()).isEqualTo(422);
    assertThat(json(crm).get("status").asBoolean()).isFalse();
    assertThat(json(crm).get("message").asText()).isEqualTo("idempotency_key_reused");

    Reply agent =
        kurir.post(
            "/api/srv1/send-text",
            "number=" + to.substring(1) + "&message=x",
            "application/x-www-form-urlencoded",
            "device-key",
            d.deviceKey(),
            HEADER,
            key);
    assertThat(agent.status()).isEqualTo(422);
    assertThat(json(agent).get("status").asInt()).isEqualTo(422);
    assertThat(json(agent).get("message").asText()).isEqualTo("idempotency_key_reused");

    Reply push1 =
        kurir.post(
            "/api/v1/notifications",
            "{\"app_id\":\""
                + APP_ID
                + "\",\"include_player_ids\":[\""
                + player
                + "\"],\"data\":{\"message\":\"x\",\"no_wa\":\""
                + to
                + "\"}}",
            "application/json",
            "Authorization",
            "Basic " + license.pushKey(),
            HEADER,
            key);
    assertThat(push1.status()).isEqualTo(422);
    assertThat(json(push1).get("errors").get(0).asText()).isEqualTo("idempotency_key_reused");

    Reply push2 =
        kurir.post(
            "/send",
            "{\"to\":\"" + player + "\",\"data\":{\"message\":\"x\",\"number\":\"" + to + "\"}}",
            "application/json",
            "Authorization",
            "Bearer " + license.pushKey(),
            HEADER,
            key);
    assertThat(push2.status()).isEqualTo(422);
    assertThat(json(push2).get("error").asText()).isEqualTo("idempotency_key_reused");

    Reply demo =
        kurir.post(
            "/v2.0/demo",
            "{\"phone_no\":\"" + to + "\",\"key\":\"" + d.ecoKey() + "\",\"message\":\"x\"}",
            "application/json",
            "Authorization",
            basic(partner.basicUser(), partner.basicSecret()),
            HEADER,
            key);
    assertThat(demo.status()).isEqualTo(422);
    assertThat(json(demo).get("status").asText()).isEqualTo("failed");
    assertThat(json(demo).get("message").asText()).isEqualTo("idempotency_key_reused");

    assertThat(stored(d)).isEqualTo(1);
    received(to, 1);
  }

  @Test
  void theSameKeyOnAnotherDeviceIsIndependent() {
    Device one = newDevice();
    Device two = newDevice();
    String to = Numbers.fresh();
    String key = newKey();
    Reply a = eco("/api/async_send_message", ecoText(one, to, "sama"), key);
    Reply b = eco("/api/async_send_message", ecoText(two, to, "sama"), key);
    Reply c = eco("/api/async_send_message", ecoText(two, to, "lain"), newKey());
    assertThat(List.of(a.body(), b.body(), c.body())).allMatch(id -> id.matches("\\d+"));
    assertThat(Set.of(a.body(), b.body(), c.body())).hasSize(3);
    // Each device's key answers its own first request.
    assertThat(eco("/api/async_send_message", ecoText(one, to, "sama"), key).body())
        .isEqualTo(a.body());
    assertThat(eco("/api/async_send_message", ecoText(two, to, "sama"), key).body())
        .isEqualTo(b.body());
    assertThat(stored(one)).isEqualTo(1);
    assertThat(stored(two)).isEqualTo(2);
    assertThat(received(to, 3)).extracting(InboxEntry::from).contains(one.number(), two.number());
  }

  @Test
  void badKeysAreRefusedCleanly() throws Exception {
    Device d = newDevice();
    String to = Numbers.fresh();
    String tooLong = "k".repeat(256);
    Reply eco = eco("/api/async_send_message", ecoText(d, to, "x"), tooLong);
    assertThat(eco.status()).isEqualTo(400);
    assertThat(eco.body()).isEqualTo("idempotency_key_not_valid");
    Reply sync = eco("/api/send_image_url", ecoText(d, to, "x"), tooLong);
    assertThat(sync.status()).isEqualTo(400);
    assertThat(sync.body()).isEqualTo("idempotency_key_not_valid");
    Reply field =
        kurir.postJson(
            "/api/async_send_message",
            "{\"key\":\""
                + d.ecoKey()
                + "\",\"phone_no\":\""
                + to
                + "\",\"message\":\"x\",\"idempotency_key\":\"kunci\\u00e9\"}");
    assertThat(field.status()).isEqualTo(400);
    assertThat(field.body()).isEqualTo("idempotency_key_not_valid");
    Reply control =
        kurir.postJson(
            "/api/async_send_message",
            "{\"key\":\""
                + d.ecoKey()
                + "\",\"phone_no\":\""
                + to
                + "\",\"message\":\"x\",\"idempotency_key\":\"a\\tb\"}");
    assertThat(control.body()).isEqualTo("idempotency_key_not_valid");
    Reply crm =
        kurir.post(
            "/send/message-text",
            "{\"deviceId\":\""
                + d.crmDeviceId()
                + "\",\"number\":\""
                + to
                + "\",\"message\":\"x\"}",
            "application/json",
            HEADER,
            tooLong);
    assertThat(crm.status()).isEqualTo(400);
    assertThat(json(crm).get("message").asText()).isEqualTo("idempotency_key_not_valid");
    Reply scheduler =
        eco("/api/scheduler", schedule(d, to, jakarta(1, "yyyy-MM-dd HH:mm"), "x"), tooLong);
    assertThat(scheduler.status()).isEqualTo(400);
    assertThat(stored(d)).isZero();

    String longest = "k".repeat(255);
    Reply ok = eco("/api/async_send_message", ecoText(d, to, "x"), longest);
    assertThat(ok.body()).matches("\\d+");
    assertThat(eco("/api/async_send_message", ecoText(d, to, "x"), longest).body())
        .isEqualTo(ok.body());
    assertThat(stored(d)).isEqualTo(1);
  }

  // --- concurrency

  @Test
  void concurrentRepeatsStoreOneMessage() throws Exception {
    Device d = newDevice();
    String to = Numbers.fresh();
    String asyncKey = newKey();
    String syncKey = newKey();
    List<Reply> async =
        all(20, () -> eco("/api/async_send_message", ecoText(d, to, "a"), asyncKey));
    assertThat(async).allMatch(r -> r.status() == 200);
    assertThat(async.stream().map(Reply::body).distinct().toList())
        .singleElement()
        .matches(id -> id.matches("\\d+"));
    List<Reply> sync = all(20, () -> eco("/api/send_message", ecoText(d, to, "s"), syncKey));
    assertThat(sync).extracting(Reply::body).containsOnly("success");
    assertThat(stored(d)).isEqualTo(2);
    received(to, 2);
  }

  /** Runs {@code request} from {@code threads} threads at once. */
  static List<Reply> all(int threads, java.util.concurrent.Callable<Reply> request)
      throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
      List<Future<Reply>> replies = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        replies.add(
            pool.submit(
                () -> {
                  go.await();
                  return request.call();
                }));
      }
      go.countDown();
      List<Reply> out = new ArrayList<>();
      for (Future<Reply> r : replies) {
        out.add(r.get());
      }
      return out;
    }
  }

  // --- lifetime

  @Test
  void aKeySurvivesARestart(@TempDir Path dir) {
    try (TestGateway gateway = TestGateway.start(dir)) {
      Device d = gateway.newDevice(Numbers.fresh(), true);
      gateway.sandbox().setDeviceOnline(d.id(), false); // nothing goes out before the restart
      String to = Numbers.fresh();
      String key = newKey();
      Reply first =
          gateway.post(
              "/api/async_send_message", ecoText(d, to, "awet"), "application/json", HEADER, key);
      assertThat(first.body()).matches("\\d+");

      gateway.restart();
      Reply again =
          gateway.post(
              "/api/async_send_message", ecoText(d, to, "awet"), "application/json", HEADER, key);
      assertThat(again.body()).isEqualTo(first.body());
      Reply reused =
          gateway.post(
              "/api/async_send_message", ecoText(d, to, "beda"), "application/json", HEADER, key);
      assertThat(reused.body()).isEqualTo("idempotency_key_reused");
      gateway.sandbox().setDeviceOnline(d.id(), true);
      assertThat(received(gateway, to, 1).getFirst().messageId())
          .isEqualTo(Long.parseLong(first.body()));
      assertThat(stored(gateway, d)).isEqualTo(1);
    }
  }

  @Test
  void aKeyIsKeptForADayThenForgotten(@TempDir Path dir) {
    SettableClock clock = TestGateway.settableClock();
    try (TestGateway gateway = TestGateway.start(dir, clock)) {
      Device d = gateway.newDevice(Numbers.fresh(), true);
      String to = Numbers.fresh();
      String key = newKey();
      String body = ecoText(d, to, "harian");
      Reply first = gateway.post("/api/async_send_message", body, "application/json", HEADER, key);
      Reply unused =
          gateway.post(
              "/api/async_send_message",
              ecoText(d, to, "sekali"),
              "application/json",
              HEADER,
              "never-repeated");
      assertThat(unused.body()).matches("\\d+");

      clock.advance(Duration.ofHours(23).plusMinutes(59));
      Reply sameDay =
          gateway.post("/api/async_send_message", body, "application/json", HEADER, key);
      assertThat(sameDay.body()).isEqualTo(first.body());

      clock.advance(Duration.ofMinutes(2)); // a day and a minute after the first
      Reply nextDay =
          gateway.post("/api/async_send_message", body, "application/json", HEADER, key);
      assertThat(nextDay.body()).matches("\\d+").isNotEqualTo(first.body());
      Reply repeat = gateway.post("/api/async_send_message", body, "application/json", HEADER, key);
      assertThat(repeat.body()).isEqualTo(nextDay.body());
      received(gateway, to, 3);
      // Expired keys are deleted, not only ignored: at most every 10 minutes, when a key arrives.
      clock.advance(Duration.ofMinutes(10));
      gateway.post("/api/async_send_message", body, "application/json", HEADER, newKey());
      Eventually.until(
          "the expired key is deleted",
          () -> TestTables.of(gateway).idempotencyKeys("never-repeated") == 0);
    }
  }

  // --- sync repeats while the first is undecided

  @Test
  void aSyncRepeatWaitsForTheOutcomeOfAFirstThatIsStillQueued(@TempDir Path dir) throws Exception {
    // A pacing gap keeps the keyed message from going out for a moment (a sync one waits at most
    // Pacing.SYNC_GAP_CAP of it).
    try (TestGateway gateway =
            TestGateway.start(dir, "--pacing.min-gap=1500ms", "--send.sync-timeout=6s");
        ExecutorService pool = Executors.newSingleThreadExecutor()) {
      Device d = gateway.newDevice(Numbers.fresh(), true);
      String to = Numbers.fresh();
      gateway.postJson("/api/send_message", ecoText(d, to, "sebelumnya")); // starts the gap
      String key = newKey();
      String body = ecoText(d, to, "ditunggu");
      Future<Reply> first =
          pool.submit(
              () -> gateway.post("/api/send_message", body, "application/json", HEADER, key));
      Eventually.until("the first is stored", () -> stored(gateway, d) == 2);
      String state = TestTables.of(gateway).messagesOf(d.id()).getLast().state();
      assertThat(state).as("not out yet").isIn("pending", "sending");

      Reply again = gateway.post("/api/send_message", body, "application/json", HEADER, key);
      assertThat(again.body()).isEqualTo("success");
      assertThat(first.get().body()).isEqualTo("success");
      assertThat(stored(gateway, d)).isEqualTo(2);
      received(gateway, to, 2);
    }
  }

  @Test
  void aSyncRepeatOfASendStillUndecidedAnswersLikeATimedOutOne(@TempDir Path dir) {
    try (TestGateway gateway = TestGateway.start(dir, "--send.sync-timeout=1500ms")) {
      Device d = gateway.newDevice(Numbers.fresh(), true);
      gateway.sandbox().setDeviceOnline(d.id(), false);
      String to = Numbers.fresh();
      String key = newKey();
      // flag_retry=on to an offline device: told phone_offline at once, the message stays queued.
      String body =
          "{\"key\":\""
              + d.ecoKey()
              + "\",\"phone_no\":\""
              + to
              + "\",\"message\":\"coba lagi\",\"flag_retry\":\"on\"}";
      Reply first = gateway.post("/api/send_message", body, "application/json", HEADER, key);
      assertThat(first.body()).isEqualTo("phone_offline");
      Reply again = gateway.post("/api/send_message", body, "application/json", HEADER, key);
      assertThat(again.body()).isEqualTo("phone_offline");
      assertThat(stored(gateway, d)).isEqualTo(1);
      gateway.sandbox().setDeviceOnline(d.id(), true);
      received(gateway, to, 1);
    }
  }
}
