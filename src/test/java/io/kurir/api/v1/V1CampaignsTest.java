package io.kurir.api.v1;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.TestTables;
import io.kurir.time.SettableClock;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Campaigns through Kurir API v1 on a real gateway with the sandbox's network and a settable clock
 * (10:00 in Jakarta at the start): variables and variants per recipient, quiet hours held until the
 * morning, rotation across a device pool, a STOP reply honoured mid-campaign, pause and resume,
 * cancel keeping the report, progress counts and the report's CSV, a restart mid-campaign with each
 * recipient's phone holding exactly one message; scopes and refusals.
 */
class V1CampaignsTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  SettableClock clock;
  TestGateway kurir;

  @BeforeEach
  void start() {
    clock = TestGateway.settableClock();
    // A send tried while the device's phone was unreachable is retried after 1 s rather than 10 s
    // (real time): the tests that hold a window in an offline device's queue finish sooner. WAHA
    // is loaded (its engine nowhere) for a device whose driver cannot carry a template. These tests
    // are about campaigns, not their pacing: the safe-sending policy is off, each part of it said
    // so explicitly (V1CampaignSafeSendingTest tests it).
    kurir =
        TestGateway.start(
            dir,
            clock,
            TestGateway.safeSendingOff(
                "--send.retry-backoff=1s",
                "--drivers.waha.url=http://127.0.0.1:9",
                "--drivers.waha.api-key=waha-key-0123456789"));
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  @Test
  void eachRecipientGetsItsVariantWithItsOwnValuesAndTheProgressIsCounted() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device);
    List<String> phones = contacts(device, 12, "promo", i -> i == 0 ? "" : "Siti " + i);
    kurir
        .gateway()
        .contactBook()
        .importCsv(device.licenseId(), "phone,tags\n" + Numbers.fresh() + ",other\n", false);
    String id =
        create(
            key,
            "{\"name\":\"Promo\",\"audience\":{\"tags\":[\"PROMO\"]},"
                + "\"message\":{\"type\":\"text\",\"text\":{\"body\":\"Halo {name|Kak},"
                + " promo di {Kota}!\"}},"
                + "\"variants\":[{\"type\":\"text\",\"text\":{\"body\":\"Hi {name|friend} of"
                + " {kota} ({phone}) {nothing}.\"}}]}");
    JsonNode started = json(post(key, "/v1/campaigns/" + id + "/start"), 200);
    assertThat(started.get("status").asText()).isEqualTo("running");
    awaitStatus(key, id, "done");

    Map<String, String[]> report = report(key, id);
    assertThat(report).hasSize(12);
    Set<String> variants = new java.util.HashSet<>();
    for (int i = 0; i < phones.size(); i++) {
      String phone = phones.get(i);
      String[] row = report.get(phone);
      variants.add(row[2]);
      List<InboxEntry> inbox = kurir.sandbox().inbox(phone);
      assertThat(inbox).hasSize(1);
      String name = i == 0 ? null : "Siti " + i;
      String expected =
          row[2].equals("0")
              ? "Halo " + (name == null ? "Kak" : name) + ", promo di Kota " + i + "!"
              : "Hi " + (name == null ? "friend" : name) + " of Kota " + i + " (" + phone + ") .";
      assertThat(inbox.getFirst().text()).isEqualTo(expected);
      assertThat(row[4]).isEqualTo(Long.toString(inbox.getFirst().messageId()));
      assertThat(row[3]).isEqualTo(Long.toString(device.id()));
    }
    // Twelve fair draws of two are all alike once in 2048 runs.
    assertThat(variants).containsExactlyInAnyOrder("0", "1");

    // The sandbox delivers 1 s after sending, and reads 2 s after: in between, the report says
    // delivered, the word of the counts, not the message's internal state name (delivery).
    clock.advance(Duration.ofMillis(1500));
    Eventually.until(
        "every message delivered", () -> counts(key, id).get("delivered").asInt() == 12);
    assertThat(report(key, id).values())
        .allSatisfy(row -> assertThat(row[5]).isEqualTo("delivered"));

    // Then it reads them; one recipient answers.
    clock.advance(Duration.ofMillis(1500));
    kurir.sandbox().injectIncoming(device.id(), phones.get(3), "Masih ada?");
    Eventually.until(
        "every message read and the reply counted",
        () -> {
          JsonNode counts = counts(key, id);
          return counts.get("read").asInt() == 12 && counts.get("replied").asInt() == 1;
        });
    JsonNode counts = counts(key, id);
    assertThat(counts.get("total").asInt()).isEqualTo(12);
    assertThat(counts.get("waiting").asInt()).isZero();
    assertThat(counts.get("opted_out").asInt()).isZero();
    String[] read = report(key, id).get(phones.get(5));
    assertThat(read[5]).isEqualTo("read");
    assertThat(Instant.parse(read[9]))
        .as("settled when read, after it was sent")
        .isAfterOrEqualTo(Instant.parse(read[8]));
  }

  @Test
  void quietHoursHoldTheCampaignUntilTheMorning() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device);
    List<String> night = contacts(device, 3, "night", i -> "N" + i);
    List<String> always = contacts(device, 2, "always", i -> "A" + i);
    clock.set(Instant.parse("2026-03-10T14:30:00Z")); // 21:30 in Jakarta
    String held = create(key, campaign("Night", "night", ""));
    String free = create(key, campaign("Always", "always", ",\"quiet_hours\":null"));
    json(post(key, "/v1/campaigns/" + held + "/start"), 200);
    json(post(key, "/v1/campaigns/" + free + "/start"), 200);
    // The campaign without quiet hours sends at night; by then the other has its list and holds.
    awaitStatus(key, free, "done");
    always.forEach(p -> assertThat(kurir.sandbox().inbox(p)).hasSize(1));
    Eventually.until(
        "the night campaign's list", () -> counts(key, held).get("total").asInt() == 3);
    JsonNode holding = counts(key, held);
    assertThat(holding.get("waiting").asInt()).isEqualTo(3);
    assertThat(get(key, "/v1/campaigns/" + held).body()).contains("\"status\":\"running\"");
    clock.set(Instant.parse("2026-03-10T22:59:00Z")); // 05:59: still quiet
    assertThat(counts(key, held).get("waiting").asInt()).isEqualTo(3);
    night.forEach(p -> assertThat(kurir.sandbox().inbox(p)).isEmpty());

    clock.set(Instant.parse("2026-03-10T23:00:00Z")); // 06:00
    awaitStatus(key, held, "done");
    night.forEach(p -> assertThat(kurir.sandbox().inbox(p)).hasSize(1));
    assertThat(kurir.sandbox().inbox(night.getFirst()).getFirst().receivedAt())
        .isAfterOrEqualTo(Instant.parse("2026-03-10T23:00:00Z"));
  }

  @Test
  void aLargeAudienceIsTakenAPageAtATimeWithEachContactOnce() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device);
    List<String> phones = contacts(device, 1_234, "all", i -> "C" + i);
    kurir.gateway().contactBook().setUnsubscribed(device.licenseId(), phones.get(700), true, "api");
    clock.set(Instant.parse("2026-03-10T14:30:00Z")); // quiet: it expands and sends nothing
    String id = create(key, campaign("Big", "all", ""));
    json(post(key, "/v1/campaigns/" + id + "/start"), 200);
    Eventually.until("the whole list", () -> counts(key, id).get("total").asInt() == 1_233);
    Map<String, String[]> report = report(key, id);
    assertThat(report).hasSize(1_233).doesNotContainKey(phones.get(700));
    assertThat(report.values()).allSatisfy(row -> assertThat(row[5]).isEqualTo("waiting"));
    json(post(key, "/v1/campaigns/" + id + "/cancel"), 200);
    assertThat(counts(key, id).get("cancelled").asInt()).isEqualTo(1_233);
  }

  @Test
  void aPoolOfDevicesSharesTheRecipients() throws Exception {
    Device first = kurir.newDevice(Numbers.fresh(), true);
    Device second = device(first);
    Device third = device(first);
    String key = key(first);
    List<String> phones = contacts(first, 12, "all", i -> "C" + i);
    String id = create(key, campaign("Pool", "all", ""));
    json(post(key, "/v1/campaigns/" + id + "/start"), 200);
    awaitStatus(key, id, "done");
    Map<String, Integer> byDevice = new HashMap<>();
    for (String p : phones) {
      List<InboxEntry> inbox = kurir.sandbox().inbox(p);
      assertThat(inbox).hasSize(1);
      byDevice.merge(inbox.getFirst().from(), 1, Integer::sum);
    }
    assertThat(byDevice)
        .containsOnlyKeys(first.number(), second.number(), third.number())
        .allSatisfy((number, n) -> assertThat(n).isEqualTo(4));

    // A pool named by number and id: only those devices send.
    List<String> more = contacts(first, 4, "pair", i -> "P" + i);
    String pair =
        create(
            key,
            campaign(
                "Pair",
                "pair",
                ",\"devices\":[\""
                    + Numbers.national(second.number())
                    + "\",\""
                    + third.id()
                    + "\"]"));
    json(post(key, "/v1/campaigns/" + pair + "/start"), 200);
    awaitStatus(key, pair, "done");
    for (String p : more) {
      assertThat(kurir.sandbox().inbox(p).getFirst().from()).isIn(second.number(), third.number());
    }
  }

  @Test
  void aCampaignWhosePoolCannotSendPausesItselfAndResumes() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device);
    List<String> phones = contacts(device, 3, "promo", i -> "C" + i);
    String id = create(key, campaign("Promo", "promo", ""));
    kurir.gateway().tenants().setDeviceDisabled(device.id(), true);
    json(post(key, "/v1/campaigns/" + id + "/start"), 200);
    awaitStatus(key, id, "paused");
    JsonNode paused = json(get(key, "/v1/campaigns/" + id), 200);
    assertThat(paused.get("stop_reason").asText()).isEqualTo("no_usable_device");
    assertThat(paused.get("counts").get("waiting").asInt()).isEqualTo(3);

    kurir.gateway().tenants().setDeviceDisabled(device.id(), false);
    JsonNode resumed = json(post(key, "/v1/campaigns/" + id + "/resume"), 200);
    assertThat(resumed.get("stop_reason").isNull()).isTrue();
    awaitStatus(key, id, "done");
    phones.forEach(p -> assertThat(kurir.sandbox().inbox(p)).hasSize(1));
  }

  @Test
  void aStopReplyMidCampaignSkipsTheContact() throws Exception {
    Device sender = kurir.newDevice(Numbers.fresh(), true);
    Device replies = device(sender);
    String key = key(sender);
    List<String> phones = contacts(sender, 8, "promo", i -> "C" + i);
    // The sender offline: the first window of five is handed to its queue and waits there.
    kurir.sandbox().setDeviceOnline(sender.id(), false);
    String id = create(key, campaign("Promo", "promo", ",\"devices\":[\"" + sender.id() + "\"]"));
    json(post(key, "/v1/campaigns/" + id + "/start"), 200);
    Eventually.until("a window handed over", () -> counts(key, id).get("queued").asInt() == 5);
    // One still waiting for its turn answers STOP to another number of the license.
    assertThat(kurir.sandbox().injectIncoming(replies.id(), phones.get(6), "STOP")).isTrue();
    kurir.sandbox().setDeviceOnline(sender.id(), true);
    awaitStatus(key, id, "done");
    JsonNode counts = counts(key, id);
    assertThat(counts.get("opted_out").asInt()).isEqualTo(1);
    assertThat(kurir.sandbox().inbox(phones.get(6))).isEmpty();
    for (int i = 0; i < 8; i++) {
      if (i != 6) {
        assertThat(kurir.sandbox().inbox(phones.get(i))).hasSize(1);
      }
    }
    assertThat(report(key, id).get(phones.get(6))[5]).isEqualTo("opted_out");
  }

  @Test
  void anUploadedListIsTheAudienceWithoutEnteringTheBook() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device);
    var book = kurir.gateway().contactBook();
    String ani = Numbers.fresh();
    String budi = Numbers.fresh();
    String citra = Numbers.fresh();
    String dodi = Numbers.fresh();
    String old = Numbers.fresh();
    // Citra unsubscribed in the book; the others are not in it.
    book.setUnsubscribed(device.licenseId(), citra, true, "api");
    String id =
        create(
            key,
            "{\"name\":\"Parents 7\",\"audience\":{\"list\":true},"
                + "\"message\":{\"type\":\"text\",\"text\":{\"body\":\"Halo {name|Bapak/Ibu},"
                + " kelas {kelas}.\"}}}");
    JsonNode made = json(get(key, "/v1/campaigns/" + id), 200);
    assertThat(made.get("audience").get("list").asBoolean()).isTrue();
    assertThat(made.get("audience").get("list_rows").isNull()).isTrue();
    assertError(post(key, "/v1/campaigns/" + id + "/start"), 409, "list_missing");

    // A first list, then this term's: the second replaces the first.
    json(post(key, "/v1/campaigns/" + id + "/audience", "phone,kelas\n" + old + ",6A\n"), 200);
    String csv =
        "phone,name,kelas,tags\n"
            + ani
            + ",Ani,7A,x\n"
            + Numbers.national(budi)
            + ",,7B,\n"
            + "not a phone,Eko,7C,\n"
            + ani
            + ",Ani Lagi,7C,\n"
            + citra
            + ",Citra,8A,\n"
            + dodi
            + ",Dodi,9A,\n";
    JsonNode preview = json(post(key, "/v1/campaigns/" + id + "/audience?preview=true", csv), 200);
    assertThat(preview.get("rows").asInt()).isEqualTo(6);
    assertThat(preview.get("listed").asInt()).isEqualTo(4);
    assertThat(preview.get("merged").asInt()).isEqualTo(1);
    assertThat(preview.get("opted_out").asInt()).isEqualTo(1);
    assertThat(preview.get("refused")).hasSize(1);
    assertThat(preview.get("refused").get(0).get("row").asInt()).isEqualTo(4);
    assertThat(preview.get("saved").asBoolean()).isFalse();
    assertThat(json(get(key, "/v1/campaigns/" + id), 200).get("audience").get("list_rows").asInt())
        .isEqualTo(1);
    JsonNode saved = json(post(key, "/v1/campaigns/" + id + "/audience", csv), 200);
    assertThat(saved.get("listed").asInt()).isEqualTo(4);
    assertThat(saved.get("saved").asBoolean()).isTrue();
    assertThat(json(get(key, "/v1/campaigns/" + id), 200).get("audience").get("list_rows").asInt())
        .isEqualTo(4);
    // The list stays out of the book: it holds Citra only.
    assertThat(book.counts(device.licenseId()).contacts()).isEqualTo(1);

    // Dodi, listed but not in the book, answers STOP before the start: the book records him as
    // unsubscribed, and the campaign skips him too.
    assertThat(kurir.sandbox().injectIncoming(device.id(), dodi, "STOP")).isTrue();
    Eventually.until(
        "Dodi unsubscribed", () -> book.get(device.licenseId(), dodi).unsubscribed().isPresent());

    json(post(key, "/v1/campaigns/" + id + "/start"), 200);
    awaitStatus(key, id, "done");
    assertThat(kurir.sandbox().inbox(ani))
        .extracting(InboxEntry::text)
        .containsExactly("Halo Ani Lagi, kelas 7C.");
    assertThat(kurir.sandbox().inbox(budi))
        .extracting(InboxEntry::text)
        .containsExactly("Halo Bapak/Ibu, kelas 7B.");
    assertThat(kurir.sandbox().inbox(citra)).isEmpty();
    assertThat(kurir.sandbox().inbox(dodi)).isEmpty();
    assertThat(kurir.sandbox().inbox(old)).isEmpty();
    JsonNode counts = counts(key, id);
    assertThat(counts.get("total").asInt()).isEqualTo(4);
    assertThat(counts.get("opted_out").asInt()).isEqualTo(2);
    Map<String, String[]> report = report(key, id);
    assertThat(report.get(citra)[5]).isEqualTo("opted_out");
    assertThat(report.get(dodi)[5]).isEqualTo("opted_out");
    assertThat(report.get(ani)[1]).isEqualTo("Ani Lagi");

    // Not a draft any more: its list stays what it was.
    assertError(post(key, "/v1/campaigns/" + id + "/audience", csv), 409, "campaign_status");
  }

  @Test
  void listAudiencesRefuseWhatTheyCannotTake() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device);
    String message = "\"message\":{\"type\":\"text\",\"text\":{\"body\":\"Halo\"}}";
    assertError(
        post(
            key,
            "/v1/campaigns",
            "{\"name\":\"X\",\"audience\":{\"list\":true,\"tags\":[\"a\"]}," + message + "}"),
        400,
        "audience_not_valid");
    String tagged = create(key, campaign("Tagged", "promo", ""));
    assertError(
        post(key, "/v1/campaigns/" + tagged + "/audience", "phone\n" + Numbers.fresh() + "\n"),
        400,
        "invalid_campaign");
    String listed = create(key, "{\"name\":\"L\",\"audience\":{\"list\":true}," + message + "}");
    assertError(
        post(key, "/v1/campaigns/" + listed + "/audience", "name,kelas\nAni,7A\n"),
        400,
        "invalid_csv");
    // The list is the CSV itself, as the contact import takes it, not a form upload of the file.
    assertError(
        kurir.post(
            "/v1/campaigns/" + listed + "/audience",
            "--b\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nphone\r\n0812\r\n--b--\r\n",
            "multipart/form-data; boundary=b",
            "Authorization",
            "Bearer " + key),
        415,
        "body_not_csv");
    assertError(post(key, "/v1/campaigns/" + listed + "/start"), 409, "list_missing");
    json(post(key, "/v1/campaigns/" + listed + "/cancel"), 200);
    assertError(
        post(key, "/v1/campaigns/" + listed + "/audience", "phone\n" + Numbers.fresh() + "\n"),
        409,
        "campaign_status");
  }

  @Test
  void aPauseTakesBackWhatIsQueuedAndTheResumeFinishes() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device);
    List<String> phones = contacts(device, 8, "promo", i -> "C" + i);
    kurir.sandbox().setDeviceOnline(device.id(), false);
    String id = create(key, campaign("Promo", "promo", ""));
    json(post(key, "/v1/campaigns/" + id + "/start"), 200);
    Eventually.until("a window handed over", () -> counts(key, id).get("queued").asInt() == 5);

    JsonNode paused = json(post(key, "/v1/campaigns/" + id + "/pause"), 200);
    assertThat(paused.get("status").asText()).isEqualTo("paused");
    JsonNode counts = counts(key, id);
    assertThat(counts.get("queued").asInt()).isZero();
    assertThat(counts.get("waiting").asInt()).isEqualTo(8);
    // What was queued is failed as taken back, so the device sends none of it when it is back.
    assertThat(TestTables.of(kurir).messagesOf(device.id()))
        .hasSize(5)
        .allSatisfy(m -> assertThat(m.reason()).contains("campaign_paused"));
    assertError(post(key, "/v1/campaigns/" + id + "/pause"), 409, "campaign_status");

    kurir.sandbox().setDeviceOnline(device.id(), true);
    JsonNode resumed = json(post(key, "/v1/campaigns/" + id + "/resume"), 200);
    assertThat(resumed.get("status").asText()).isEqualTo("running");
    awaitStatus(key, id, "done");
    phones.forEach(p -> assertThat(kurir.sandbox().inbox(p)).hasSize(1));
  }

  @Test
  void aCancelledCampaignKeepsItsReport() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device);
    List<String> phones = contacts(device, 7, "promo", i -> "C" + i);
    kurir.sandbox().setDeviceOnline(device.id(), false);
    String id = create(key, campaign("Promo", "promo", ""));
    json(post(key, "/v1/campaigns/" + id + "/start"), 200);
    Eventually.until("a window handed over", () -> counts(key, id).get("queued").asInt() == 5);

    JsonNode cancelled = json(post(key, "/v1/campaigns/" + id + "/cancel"), 200);
    assertThat(cancelled.get("status").asText()).isEqualTo("cancelled");
    assertThat(cancelled.get("finished_at").isNull()).isFalse();
    assertThat(counts(key, id).get("cancelled").asInt()).isEqualTo(7);
    Map<String, String[]> report = report(key, id);
    assertThat(report).hasSize(7);
    report.values().forEach(row -> assertThat(row[5]).isEqualTo("cancelled"));
    assertThat(report.get(phones.getFirst())[4]).isNotEmpty(); // the message it had
    assertError(post(key, "/v1/campaigns/" + id + "/resume"), 409, "campaign_status");
    assertThat(TestTables.of(kurir).messagesOf(device.id()))
        .allSatisfy(m -> assertThat(m.state()).isEqualTo("failed"));
  }

  @Test
  void aRestartMidCampaignSendsEachRecipientExactlyOnce() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device);
    List<String> phones = contacts(device, 9, "promo", i -> "C" + i);
    kurir.sandbox().setDeviceOnline(device.id(), false);
    String id = create(key, campaign("Promo", "promo", ""));
    json(post(key, "/v1/campaigns/" + id + "/start"), 200);
    Eventually.until("a window handed over", () -> counts(key, id).get("queued").asInt() == 5);

    kurir.stop();
    kurir.startAgain();
    kurir.sandbox().setDeviceOnline(device.id(), true);
    awaitStatus(key, id, "done");
    phones.forEach(p -> assertThat(kurir.sandbox().inbox(p)).hasSize(1));
    assertThat(TestTables.of(kurir).messagesOf(device.id())).hasSize(9);
  }

  @Test
  void campaignsBelongToLicenseKeysWithTheirScopeAndBadRequestsAreRefused() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device);
    contacts(device, 1, "promo", i -> "C");
    assertError(
        post(device.ecoKey(), "/v1/campaigns", campaign("X", "promo", "")),
        403,
        "license_key_required");
    String sendOnly =
        kurir
            .gateway()
            .tenants()
            .apiKeys()
            .create(device.licenseId(), "send", Set.of(ApiScope.SEND))
            .key()
            .orElseThrow();
    assertError(post(sendOnly, "/v1/campaigns", campaign("X", "promo", "")), 403, "missing_scope");
    assertError(post(key, "/v1/campaigns", "{\"name\":\"X\"}"), 400, "audience_not_valid");
    assertError(
        post(key, "/v1/campaigns", campaign("X", "promo", ",\"colour\":1")), 400, "unknown_field");
    // What a new user tried: each is refused for what it is, not taken or misnamed.
    String text = "\"message\":{\"type\":\"text\",\"text\":{\"body\":\"Halo\"}}";
    assertError(
        post(
            key,
            "/v1/campaigns",
            "{\"name\":123,\"audience\":{\"tags\":[\"promo\"]}," + text + "}"),
        400,
        "name_not_valid");
    assertError(
        post(
            key,
            "/v1/campaigns",
            "{\"name\":\"X\",\"audience\":{\"tags\":[\"promo\"]},\"message\":\"hello\"}"),
        400,
        "message_not_valid");
    assertError(
        post(
            key,
            "/v1/campaigns",
            "{\"name\":\"X\",\"audience\":{\"tags\":[\"promo\"]},\"message\":{\"to\":"
                + "\"628123\",\"type\":\"text\",\"text\":{\"body\":\"Halo\"}}}"),
        400,
        "message_not_valid");
    assertError(
        post(
            key,
            "/v1/campaigns",
            "{\"name\":\"X\",\"audience\":{\"tags\":[\"promo\"],\"tag\":\"vip\"}," + text + "}"),
        400,
        "audience_not_valid");
    // A misspelt key is named as a key, not read as "no tags were given".
    Reply misspelt =
        post(key, "/v1/campaigns", "{\"name\":\"X\",\"audience\":{\"tagz\":[\"a\"]}," + text + "}");
    assertError(misspelt, 400, "audience_not_valid");
    assertThat(JSON.readTree(misspelt.body()).get("message").asText())
        .contains("no key 'tagz'")
        .contains("tags or list");
    assertError(
        post(key, "/v1/campaigns", "{\"name\":\"X\",\"audience\":{\"tags\":[1,2]}," + text + "}"),
        400,
        "audience_not_valid");
    assertError(
        post(key, "/v1/campaigns", campaign("X", "promo", ",\"devices\":[\"0899\"]")),
        404,
        "device_not_found");
    assertError(
        post(
            key,
            "/v1/campaigns",
            campaign("X", "promo", ",\"quiet_hours\":{\"from\":\"25:00\",\"to\":\"06:00\"}")),
        400,
        "quiet_hours_not_valid");
    assertError(
        post(
            key,
            "/v1/campaigns",
            "{\"name\":\"X\",\"audience\":{\"tags\":[\"promo\"]},\"message\":{\"type\":\"text\"}}"),
        400,
        "text_empty");
    assertError(get(key, "/v1/campaigns/12345"), 404, "campaign_not_found");
    // A template is the Cloud API's: a WAHA device of the pool cannot carry it (its engine need
    // not be reached to know).
    Device waha =
        kurir
            .gateway()
            .tenants()
            .createDevice(device.licenseId(), Numbers.fresh(), "waha", Map.of());
    String template =
        "{\"name\":\"X\",\"audience\":{\"tags\":[\"promo\"]},\"message\":{\"type\":"
            + "\"template\",\"template\":{\"name\":\"promo\",\"language\":{\"code\":\"id\"}}}";
    assertError(post(key, "/v1/campaigns", template + "}"), 422, "kind_not_supported");
    String onSandbox =
        json(post(key, "/v1/campaigns", template + ",\"devices\":[\"" + device.id() + "\"]}"), 201)
            .get("id")
            .asText();
    kurir.gateway().tenants().setDeviceDisabled(waha.id(), true);

    String id = create(key, campaign("Later", "promo", ",\"start_at\":\"2026-03-11T03:00:00Z\""));
    assertError(post(key, "/v1/campaigns/" + id + "/pause"), 409, "campaign_status");
    JsonNode scheduled = json(post(key, "/v1/campaigns/" + id + "/start"), 200);
    assertThat(scheduled.get("status").asText()).isEqualTo("scheduled");
    JsonNode list = json(get(key, "/v1/campaigns"), 200).get("data");
    assertThat(list.findValuesAsText("id")).containsExactly(id, onSandbox);
    clock.set(Instant.parse("2026-03-11T03:00:00Z"));
    awaitStatus(key, id, "done");

    // Another license sees none of it.
    Device other = kurir.newDevice(Numbers.fresh(), true);
    assertError(get(key(other), "/v1/campaigns/" + id), 404, "campaign_not_found");
  }

  // --- helpers

  /** {@code n} contacts with {@code tag}, names as {@code name} says and a city; by phone. */
  private List<String> contacts(
      Device device, int n, String tag, java.util.function.IntFunction<String> name) {
    StringBuilder csv = new StringBuilder("phone,name,tags,kota\n");
    List<String> phones = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String p = Numbers.fresh();
      phones.add(p);
      csv.append(p).append(',').append(name.apply(i)).append(',').append(tag);
      csv.append(",Kota ").append(i).append('\n');
    }
    kurir.gateway().contactBook().importCsv(device.licenseId(), csv.toString(), false);
    return phones;
  }

  private static String campaign(String name, String tag, String more) {
    return "{\"name\":\""
        + name
        + "\",\"audience\":{\"tags\":[\""
        + tag
        + "\"]},\"message\":{\"type\":\"text\",\"text\":{\"body\":\"Halo {name}\"}}"
        + more
        + "}";
  }

  private Device device(Device sameLicense) {
    Device d =
        kurir.gateway().tenants().createDevice(sameLicense.licenseId(), Numbers.fresh(), "sandbox");
    kurir.sandbox().pair(d.id(), d.number());
    return d;
  }

  private String create(String key, String body) throws Exception {
    JsonNode c = json(post(key, "/v1/campaigns", body), 201);
    assertThat(c.get("status").asText()).isEqualTo("draft");
    return c.get("id").asText();
  }

  private void awaitStatus(String key, String id, String status) {
    Eventually.until(
        "campaign " + id + " " + status,
        () -> get(key, "/v1/campaigns/" + id).body().contains("\"status\":\"" + status + "\""));
  }

  private JsonNode counts(String key, String id) {
    try {
      return json(get(key, "/v1/campaigns/" + id), 200).get("counts");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The report's rows by phone. */
  private Map<String, String[]> report(String key, String id) {
    Reply r = get(key, "/v1/campaigns/" + id + "/report.csv");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).startsWith("text/csv");
    String[] lines = r.body().split("\r\n");
    assertThat(lines[0])
        .isEqualTo(
            "phone,name,variant,device,message_id,status,reason,handed_at,sent_at,settled_at");
    Map<String, String[]> rows = new HashMap<>();
    for (int i = 1; i < lines.length; i++) {
      String[] cells = lines[i].split(",", -1);
      rows.put(cells[0], cells);
    }
    return rows;
  }

  private String key(Device device) {
    return kurir
        .gateway()
        .tenants()
        .apiKeys()
        .create(device.licenseId(), "test", Set.of(ApiScope.CAMPAIGNS))
        .key()
        .orElseThrow();
  }

  private Reply post(String key, String path) {
    return post(key, path, "");
  }

  private Reply post(String key, String path, String body) {
    return request(key, path, "POST", HttpRequest.BodyPublishers.ofString(body));
  }

  private Reply get(String key, String path) {
    return request(key, path, "GET", HttpRequest.BodyPublishers.noBody());
  }

  private Reply request(String key, String path, String method, HttpRequest.BodyPublisher body) {
    return kurir.send(
        HttpRequest.newBuilder(URI.create(kurir.url(path)))
            .header("Authorization", "Bearer " + key)
            .header("Content-Type", "application/json")
            .method(method, body)
            .build());
  }

  private static JsonNode json(Reply r, int status) throws Exception {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    return JSON.readTree(r.body());
  }

  private static void assertError(Reply r, int status, String token) throws Exception {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.get("error").asText()).as(r.body()).isEqualTo(token);
    assertThat(body.get("message").asText()).isNotEmpty();
  }
}
