package io.kurir.api.eco;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /api/report_json} across midnight and month ends in the operator zone (UTC+7). */
class ReportJsonTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  // 2026-03-31 23:30 in Jakarta: half an hour before both a new day and a new month there.
  SettableClock clock = new SettableClock(Instant.parse("2026-03-31T16:30:00Z"));
  TestGateway kurir;
  Device device;

  @BeforeEach
  void start() {
    kurir = TestGateway.start(dir, clock);
    device = kurir.newDevice();
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  private String send(String text) {
    String to = Numbers.fresh();
    String id =
        kurir
            .postJson(
                "/api/async_send_message",
                "{\"key\":\""
                    + device.ecoKey()
                    + "\",\"phone_no\":\""
                    + to
                    + "\",\"message\":\""
                    + text
                    + "\"}")
            .body();
    Eventually.until(
        "recorded as sent",
        () ->
            kurir
                .gateway()
                .messages()
                .find(device, Long.parseLong(id))
                .orElseThrow()
                .state()
                .wentOut());
    return id;
  }

  private JsonNode report(String timeChoose, String keyword) throws Exception {
    String extra = keyword == null ? "" : ",\"keyword\":\"" + keyword + "\"";
    String body =
        kurir
            .postJson(
                "/api/report_json",
                "{\"key\":\""
                    + device.ecoKey()
                    + "\",\"time_choose\":\""
                    + timeChoose
                    + "\""
                    + extra
                    + "}")
            .body();
    return JSON.readTree(body);
  }

  @Test
  void periodsFollowTheOperatorsCalendarAcrossMidnightAndMonthEnd() throws Exception {
    String march = send("Halo dunia, tagihan Maret");
    clock.advance(Duration.ofHours(1)); // 2026-04-01 00:30 in Jakarta, still March 31 in UTC
    String april = send("Pengingat April");

    JsonNode today = report("today", null);
    assertThat(today.get("status").asText()).isEqualTo("success");
    assertThat(today.get("data"))
        .singleElement()
        .satisfies(
            row -> {
              assertThat(row.get("message_id").asText()).isEqualTo(april);
              assertThat(row.get("isi_pesan").asText()).isEqualTo("Pengingat April");
              assertThat(row.get("message_type").asText()).isEqualTo("text");
              assertThat(row.get("penerima").asText()).startsWith("+62");
              assertThat(row.get("status").asText()).isIn("sent", "delivery", "read");
              assertThat(row.get("tanggal").asText()).isEqualTo("2026-04-01 00:30:00");
            });
    assertThat(report("yesterday", null).get("data"))
        .extracting(r -> r.get("message_id").asText())
        .containsExactly(march);
    assertThat(report("7days", null).get("data"))
        .extracting(r -> r.get("message_id").asText())
        .containsExactly(march, april);
    assertThat(report("month", null).get("data"))
        .extracting(r -> r.get("message_id").asText())
        .containsExactly(april);
    assertThat(report("month_back", null).get("data"))
        .extracting(r -> r.get("message_id").asText())
        .containsExactly(march);

    clock.advance(Duration.ofDays(8));
    assertThat(report("7days", null).get("message").asText()).isEqualTo("no_data");
  }

  @Test
  void keywordIsMatchedAnywhereIgnoringCase() throws Exception {
    String bill = send("Halo, TAGIHAN bulan ini 100% lunas");
    send("Selamat pagi");

    assertThat(report("today", "tagihan").get("data"))
        .extracting(r -> r.get("message_id").asText())
        .containsExactly(bill);
    assertThat(report("today", "100%").get("data")).hasSize(1);
    assertThat(report("today", "10_%").get("message").asText())
        .as("wildcards are literal")
        .isEqualTo("not_exists");
    JsonNode none = report("today", "diskon");
    assertThat(none.get("status").asText()).isEqualTo("failed");
    assertThat(none.get("message").asText()).isEqualTo("not_exists");
  }

  @Test
  void keywordCaseIsIgnoredBeyondAscii() throws Exception {
    String greek = send("ΚΑΛΗΜΕΡΑ από την ομάδα");
    String cyrillic = send("Счёт ОПЛАЧЕН, спасибо");
    String accented = send("Café ÉTÉ promo");

    assertThat(report("today", "καλημερα").get("data"))
        .extracting(r -> r.get("message_id").asText())
        .containsExactly(greek);
    assertThat(report("today", "оплачен").get("data"))
        .extracting(r -> r.get("message_id").asText())
        .containsExactly(cyrillic);
    assertThat(report("today", "été").get("data"))
        .extracting(r -> r.get("message_id").asText())
        .containsExactly(accented);
    assertThat(report("today", "CAFÉ").get("data")).hasSize(1);
  }

  @Test
  void aKeywordOverAThousandCharactersIsRefusedInTheReportsShapeAndNeverSearched()
      throws Exception {
    send("Halo, tagihan bulan ini");
    String body =
        "{\"key\":\"" + device.ecoKey() + "\",\"time_choose\":\"today\",\"keyword\":\"%s\"}";

    // SQLite failed a pattern of some 50,000 bytes with "LIKE or GLOB pattern too complex": a 500.
    TestGateway.Reply huge = kurir.postJson("/api/report_json", body.formatted("a".repeat(50_000)));
    assertThat(huge.status()).isEqualTo(400);
    assertThat(huge.contentType()).startsWith("application/json");
    assertThat(JSON.readTree(huge.body()))
        .isEqualTo(
            JSON.readTree("{\"status\":\"failed\",\"message\":\"keyword_too_long\",\"data\":[]}"));
    TestGateway.Reply justOver =
        kurir.postJson("/api/report_json", body.formatted("b".repeat(1001)));
    assertThat(justOver.status()).isEqualTo(400);
    assertThat(justOver.body()).contains("keyword_too_long");

    // The limit counts characters, not bytes or UTF-16 units: 1,000 emoji are allowed.
    for (String keyword : List.of("b".repeat(1000), "\uD83D\uDE00".repeat(1000))) {
      TestGateway.Reply atLimit = kurir.postJson("/api/report_json", body.formatted(keyword));
      assertThat(atLimit.status()).isEqualTo(200);
      assertThat(JSON.readTree(atLimit.body()).get("message").asText()).isEqualTo("not_exists");
    }
    // Surrounding spaces are not part of the keyword (it is stripped before it is counted).
    String padded = " ".repeat(500) + "tagihan" + " ".repeat(500);
    assertThat(report("today", padded).get("data")).hasSize(1);
  }

  @Test
  void wrongPeriodsAndEmptyPeriodsAnswerTheContractsMessages() throws Exception {
    JsonNode wrong = report("week", null);
    assertThat(wrong.get("status").asText()).isEqualTo("failed");
    assertThat(wrong.get("message").asText()).isEqualTo("wrong_time_choose");
    assertThat(
            JSON.readTree(
                    kurir
                        .postJson("/api/report_json", "{\"key\":\"" + device.ecoKey() + "\"}")
                        .body())
                .get("message")
                .asText())
        .isEqualTo("wrong_time_choose");
    JsonNode empty = report("today", null);
    assertThat(empty.get("status").asText()).isEqualTo("failed");
    assertThat(empty.get("message").asText()).isEqualTo("no_data");
    assertThat(report("TODAY", null).get("message").asText()).isEqualTo("no_data");
  }

  @Test
  void anotherDevicesMessagesAreNotInTheReport() throws Exception {
    send("mine");
    Device other = kurir.newDevice("+6281100006060", true);
    String to = Numbers.fresh();
    kurir.postJson(
        "/api/async_send_message",
        "{\"key\":\"" + other.ecoKey() + "\",\"phone_no\":\"" + to + "\",\"message\":\"theirs\"}");
    Eventually.until("sent", () -> kurir.sandbox().inbox(to).size() == 1);

    assertThat(report("today", null).get("data"))
        .extracting(r -> r.get("isi_pesan").asText())
        .containsExactly("mine");
  }
}
