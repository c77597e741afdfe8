package io.kurir.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.TestTables;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Eco scheduler end to end on a settable clock. The clock starts at 2026-03-10 03:00 UTC, which
 * is 10:00 in the operator zone (UTC+7): every {@code sch_date} below is written in UTC+7.
 */
class SchedulerTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  final SettableClock clock = TestGateway.settableClock();
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

  Reply schedule(Device d, String to, String date, String type, String message, String url) {
    StringBuilder json = new StringBuilder("{\"key\":\"" + d.ecoKey() + "\"");
    append(json, "phone_no", to);
    append(json, "sch_date", date);
    append(json, "api_type", type);
    append(json, "message", message);
    append(json, "url", url);
    return kurir.postJson("/api/scheduler", json.append('}').toString());
  }

  static void append(StringBuilder json, String field, String value) {
    if (value != null) {
      json.append(",\"").append(field).append("\":\"").append(value).append('"');
    }
  }

  String scheduleText(String to, String date, String text) {
    Reply r = schedule(device, to, date, "text", text, null);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).as("a schedule id").matches("\\d+");
    return r.body();
  }

  JsonNode call(String path, String id) throws Exception {
    Reply r =
        kurir.postJson(path, "{\"key\":\"" + device.ecoKey() + "\",\"msg_id\":\"" + id + "\"}");
    assertThat(r.status()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  JsonNode record(String id) throws Exception {
    JsonNode reply = call("/api/sch_check", id);
    assertThat(reply.get("status").asText()).isEqualTo("success");
    assertThat(reply.get("data")).hasSize(1);
    return reply.get("data").get(0);
  }

  @Test
  void eachResultStringOfTheContract() {
    String to = Numbers.fresh();
    assertThat(schedule(device, to, "2026-03-10 11:00", "video", "Hi", null).body())
        .isEqualTo("not_valid_api");
    assertThat(schedule(device, to, "2026-03-10 11:00", null, "Hi", null).body())
        .isEqualTo("not_valid_api");
    assertThat(schedule(device, to, "tomorrow", "text", "Hi", null).body())
        .isEqualTo("sch_date_not_valid");
    assertThat(schedule(device, to, "2026-13-10 11:00", "text", "Hi", null).body())
        .isEqualTo("sch_date_not_valid");
    assertThat(schedule(device, to, "2026-02-30 11:00", "text", "Hi", null).body())
        .isEqualTo("sch_date_not_valid");
    assertThat(schedule(device, to, null, "text", "Hi", null).body())
        .isEqualTo("sch_date_not_valid");
    assertThat(schedule(device, to, "2026-03-10 09:59", "text", "Hi", null).body())
        .isEqualTo("sch_date_below_now");
    assertThat(schedule(device, to, "2026-03-09 23:00", "text", "Hi", null).body())
        .isEqualTo("sch_date_below_now");
    assertThat(schedule(device, to, "2026-03-10 11:00", "text", "  ", null).body())
        .isEqualTo("message_empty");
    assertThat(
            schedule(device, to, "2026-03-10 11:00", "image_text", null, "http://x/a.png").body())
        .isEqualTo("message_empty");
    assertThat(schedule(device, to, "2026-03-10 11:00", "image", "Hi", null).body())
        .isEqualTo("url_empty");
    assertThat(schedule(device, to, "2026-03-10 11:00", "file", "Hi", null).body())
        .isEqualTo("url_empty");
    assertThat(schedule(device, to, "2026-03-10 11:00", "text", "Hi", null).body()).matches("\\d+");
    // The current minute still counts as now.
    assertThat(schedule(device, to, "2026-03-10 10:00", "text", "Hi", null).body()).matches("\\d+");
  }

  @Test
  void protocolErrorsAreFourHundredsInThePlainStyle() {
    Reply noNumber = schedule(device, null, "2026-03-10 11:00", "text", "Hi", null);
    assertThat(noNumber.status()).isEqualTo(400);
    assertThat(noNumber.body()).isEqualTo("phone_no_empty");
    Reply two = schedule(device, "6281100001,6281100002", "2026-03-10 11:00", "text", "Hi", null);
    assertThat(two.status()).isEqualTo(400);
    assertThat(two.body()).isEqualTo("phone_no_not_valid");
    Reply badUrl = schedule(device, Numbers.fresh(), "2026-03-10 11:00", "file", "", "ftp://x/a");
    assertThat(badUrl.status()).isEqualTo(400);
    assertThat(badUrl.body()).isEqualTo("url_not_valid");
    Reply badKey = kurir.postJson("/api/sch_check", "{\"key\":\"nope\",\"msg_id\":\"1\"}");
    assertThat(badKey.status()).isEqualTo(401);
    assertThat(badKey.body()).isEqualTo("invalid_key");
  }

  @Test
  void threePerKeyPerScheduledMinute() {
    String to = Numbers.fresh();
    for (int i = 0; i < 3; i++) {
      scheduleText(to, "2026-03-10 12:00", "reminder " + i);
    }
    assertThat(schedule(device, to, "2026-03-10 12:00", "text", "fourth", null).body())
        .isEqualTo("sch_more_than_3_in_1_minute");
    // Seconds do not make another minute.
    assertThat(schedule(device, to, "2026-03-10 12:00:30", "text", "fourth", null).body())
        .isEqualTo("sch_more_than_3_in_1_minute");
    scheduleText(to, "2026-03-10 12:01", "another minute");
    Device other = kurir.newDevice("+6281100007777", true);
    assertThat(schedule(other, to, "2026-03-10 12:00", "text", "another key", null).body())
        .matches("\\d+");
  }

  @Test
  void aRemovedScheduleFreesItsPlaceInTheMinute() throws Exception {
    String to = Numbers.fresh();
    String first = scheduleText(to, "2026-03-10 12:00", "a");
    scheduleText(to, "2026-03-10 12:00", "b");
    scheduleText(to, "2026-03-10 12:00", "c");
    assertThat(call("/api/sch_remove", first).get("status").asText()).isEqualTo("success");
    scheduleText(to, "2026-03-10 12:00", "d");
  }

  @Test
  void sentAtTheRightInstantOfTheOperatorZoneWithItsRecord() throws Exception {
    String to = Numbers.fresh();
    String id = scheduleText(to, "2026-03-10 10:05", "Pengingat bayar");
    JsonNode waiting = record(id);
    assertThat(waiting.get("msg_id").asText()).isEqualTo(id);
    assertThat(waiting.get("api_type").asText()).isEqualTo("text");
    assertThat(waiting.get("message").asText()).isEqualTo("Pengingat bayar");
    assertThat(waiting.get("target").asText()).isEqualTo(to);
    assertThat(waiting.get("status").asText()).isEqualTo("waiting");
    assertThat(waiting.get("filename").isNull()).isTrue();
    assertThat(waiting.get("sch_date").asText()).isEqualTo("2026-03-10 10:05:00");
    assertThat(waiting.get("sys_creation_date").asText()).isEqualTo("2026-03-10 10:00:00");
    assertThat(waiting.get("status_msg_id").asText()).isEmpty();

    clock.set(Instant.parse("2026-03-10T03:04:59Z")); // 10:04:59 in UTC+7
    runnerLooked(kurir, clock);
    assertThat(statusInStore(id)).isEqualTo(ScheduleState.WAITING);
    assertThat(kurir.sandbox().inbox(to)).isEmpty();

    clock.set(Instant.parse("2026-03-10T03:05:00Z"));
    Eventually.until("sent at 10:05 UTC+7", () -> kurir.sandbox().inbox(to).size() == 1);
    assertThat(kurir.sandbox().inbox(to).getFirst().text()).isEqualTo("Pengingat bayar");
    Eventually.until("success", () -> status(id).equals("success"));
    String messageId = record(id).get("status_msg_id").asText();
    assertThat(messageId).matches("\\d+").isNotEqualTo(id);
    assertThat(kurir.sandbox().inbox(to).getFirst().messageId())
        .isEqualTo(Long.parseLong(messageId));
    Reply status =
        kurir.postJson(
            "/api/status_msg_id",
            "{\"key\":\"" + device.ecoKey() + "\",\"msg_id\":\"" + messageId + "\"}");
    assertThat(status.body()).isEqualTo("success");
    Reply delivery =
        kurir.postJson(
            "/api/check_delivery_status",
            "{\"key\":\"" + device.ecoKey() + "\",\"messageId\":\"" + messageId + "\"}");
    assertThat(JSON.readTree(delivery.body()).get("message").get("content").asText())
        .isEqualTo("Pengingat bayar");
  }

  @Test
  void aNumberNotOnTheNetworkEndsAsNumberNotFound() {
    String to = Numbers.fresh();
    kurir.sandbox().setRegistered(to, false);
    String id = scheduleText(to, "2026-03-10 10:01", "Halo");
    clock.advance(Duration.ofMinutes(1));
    Eventually.until("number_not_found", () -> status(id).equals("number_not_found"));
  }

  @Test
  void anOfflineDeviceKeepsItWaitingUntilItIsBack() {
    String to = Numbers.fresh();
    kurir.sandbox().setDeviceOnline(device.id(), false);
    String id = scheduleText(to, "2026-03-10 10:01", "Halo");
    clock.advance(Duration.ofMinutes(1));
    Eventually.until("handed over", () -> statusInStore(id) == ScheduleState.HANDED);
    assertThat(status(id)).isEqualTo("waiting");
    assertThat(kurir.sandbox().inbox(to)).isEmpty();
    kurir.sandbox().setDeviceOnline(device.id(), true);
    Eventually.until("sent once back online", () -> status(id).equals("success"));
    assertThat(kurir.sandbox().inbox(to)).hasSize(1);
  }

  @Test
  void schedulesDueWhileStoppedAreSentAtStartOnce() {
    String to = Numbers.fresh();
    String early = scheduleText(to, "2026-03-10 10:10", "first");
    String later = scheduleText(to, "2026-03-10 10:20", "second");
    kurir.stop();
    clock.set(Instant.parse("2026-03-10T03:30:00Z")); // both fell due while stopped
    kurir.startAgain();
    Eventually.until("both sent", () -> kurir.sandbox().inbox(to).size() == 2);
    assertThat(kurir.sandbox().inbox(to))
        .extracting(InboxEntry::text)
        .containsExactly("first", "second");
    kurir.restart();
    clock.advance(Duration.ofMinutes(5));
    runnerLooked(kurir, clock);
    assertThat(scheduledMessagesTo(kurir, to)).as("never twice").isEqualTo(2);
    assertThat(kurir.sandbox().inbox(to)).as("never twice").hasSize(2);
    assertThat(status(early)).isEqualTo("success");
    assertThat(status(later)).isEqualTo("success");
  }

  @Test
  void removedBeforeSendingIsNeverSentAndAfterSendingCannotBeRemoved() throws Exception {
    String to = Numbers.fresh();
    String removed = scheduleText(to, "2026-03-10 10:02", "cancelled");
    String kept = scheduleText(to, "2026-03-10 10:02", "kept");

    JsonNode reply = call("/api/sch_remove", removed);
    assertThat(reply.get("status").asText()).isEqualTo("success");
    assertThat(reply.get("data").get(0).get("status").asText()).isEqualTo("removed");
    assertThat(call("/api/sch_remove", removed).get("status").asText())
        .as("removing twice")
        .isEqualTo("success");

    clock.advance(Duration.ofMinutes(2));
    Eventually.until("kept sent", () -> status(kept).equals("success"));
    assertThat(kurir.sandbox().inbox(to)).extracting(InboxEntry::text).containsExactly("kept");
    assertThat(status(removed)).isEqualTo("removed");

    JsonNode late = call("/api/sch_remove", kept);
    assertThat(late.get("status").asText()).isEqualTo("failed");
    assertThat(late.get("message").asText()).isEqualTo("already_sent");
    assertThat(late.get("data").get(0).get("status").asText()).isEqualTo("success");

    JsonNode unknown = call("/api/sch_remove", "123456");
    assertThat(unknown.get("status").asText()).isEqualTo("failed");
    assertThat(unknown.get("message").asText()).isEqualTo("not_found");
    assertThat(unknown.get("data")).isEmpty();
    assertThat(call("/api/sch_check", "abc").get("status").asText()).isEqualTo("failed");
  }

  @Test
  void anotherKeyCannotSeeOrRemoveASchedule() throws Exception {
    String id = scheduleText(Numbers.fresh(), "2026-03-10 11:00", "mine");
    Device other = kurir.newDevice("+6281100006666", true);
    Reply check =
        kurir.postJson(
            "/api/sch_remove", "{\"key\":\"" + other.ecoKey() + "\",\"msg_id\":\"" + id + "\"}");
    assertThat(JSON.readTree(check.body()).get("message").asText()).isEqualTo("not_found");
    assertThat(status(id)).isEqualTo("waiting");
  }

  @Test
  void aDeviceWhoseLicenseWasSwitchedOffDoesNotSendWhatItScheduled() {
    String to = Numbers.fresh();
    String id = scheduleText(to, "2026-03-10 10:03", "Halo");
    kurir.gateway().tenants().setDeviceDisabled(device.id(), true);
    clock.advance(Duration.ofMinutes(3));
    Eventually.until("failed", () -> statusInStore(id).equals(ScheduleState.FAILED));
    assertThat(kurir.sandbox().inbox(to)).isEmpty();
  }

  String status(String id) {
    try {
      return record(id).get("status").asText();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  ScheduleState statusInStore(String id) {
    return new ScheduleStore(kurir.gateway().database())
        .find(Long.parseLong(id))
        .orElseThrow()
        .state();
  }

  /**
   * Waits until the runner has looked at the schedules at the clock's current time: a marker
   * schedule of another device, due this very minute, has gone out. Whatever was not due then was
   * left waiting by that pass.
   */
  static void runnerLooked(TestGateway kurir, SettableClock clock) {
    Device marker = kurir.newDevice(Numbers.fresh(), true);
    String to = Numbers.fresh();
    String now =
        java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")
            .format(clock.instant().atZone(java.time.ZoneId.of("Asia/Jakarta")));
    Reply r =
        kurir.postJson(
            "/api/scheduler",
            "{\"key\":\""
                + marker.ecoKey()
                + "\",\"phone_no\":\""
                + to
                + "\",\"sch_date\":\""
                + now
                + "\",\"api_type\":\"text\",\"message\":\"marker\"}");
    assertThat(r.body()).matches("\\d+");
    Eventually.until("the runner looked", () -> !kurir.sandbox().inbox(to).isEmpty());
  }

  /** Messages the scheduler made for {@code to}: a schedule sent twice would show here. */
  static long scheduledMessagesTo(TestGateway kurir, String to) {
    return TestTables.of(kurir).messagesTo(to).stream()
        .filter(m -> m.api().equals("eco.scheduler"))
        .count();
  }
}
