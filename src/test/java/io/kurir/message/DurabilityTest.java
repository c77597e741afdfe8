package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.store.Database;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.WebhookReceiver;
import io.kurir.testing.WebhookReceiver.Received;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Accepted means committed: a restart loses nothing and sends nothing twice. The sandbox runs
 * without its de-duplication here, as most real networks do: nothing below leans on it.
 */
class DurabilityTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  /** A sandbox that delivers a second send of the same message id again. */
  static final String NO_DEDUP = "--drivers.sandbox.deduplicate=false";

  private static String asyncBody(Device d, String to, String text) {
    return "{\"key\":\""
        + d.ecoKey()
        + "\",\"phone_no\":\""
        + to
        + "\",\"message\":\""
        + text
        + "\"}";
  }

  @Test
  void messagesAcceptedBeforeAStopAreSentOnceAfterTheRestart() {
    try (TestGateway kurir = TestGateway.start(dir, NO_DEDUP)) {
      Device device = kurir.newDevice();
      String to = Numbers.fresh();
      kurir.sandbox().setDeviceOnline(device.id(), false); // nothing can go out yet
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        ids.add(kurir.postJson("/api/async_send_message", asyncBody(device, to, "m" + i)).body());
      }
      assertThat(ids).allMatch(id -> id.matches("\\d+"));

      kurir.stop();
      kurir.sandbox().setDeviceOnline(device.id(), true);
      assertThat(kurir.sandbox().inbox(to)).isEmpty();
      kurir.startAgain();

      Eventually.until("all 20 sent", () -> kurir.sandbox().inbox(to).size() == 20);
      assertThat(kurir.sandbox().inbox(to))
          .extracting(e -> Long.toString(e.messageId()))
          .containsExactlyElementsOf(ids);
      assertThat(kurir.sandbox().inbox(to))
          .extracting(InboxEntry::text)
          .startsWith("m0", "m1")
          .endsWith("m19");

      kurir.restart();
      assertThat(kurir.gateway().messages().queued(device.id())).isZero();
      Reply status =
          kurir.postJson(
              "/api/status_msg_id",
              "{\"key\":\"" + device.ecoKey() + "\",\"msg_id\":\"" + ids.getLast() + "\"}");
      assertThat(status.body()).isEqualTo("success");
      assertThat(kurir.sandbox().inbox(to)).hasSize(20);
    }
  }

  /** Sends one message, waits until it is recorded, stops, and rewinds it to "sending". */
  private static long sentThenCutOff(TestGateway kurir, Device device, String to, String body) {
    long id = Long.parseLong(kurir.postJson("/api/async_send_message", body).body());
    Eventually.until("sent", () -> kurir.sandbox().inbox(to).size() == 1);
    Eventually.until(
        "recorded as sent",
        () -> kurir.gateway().messages().find(device, id).orElseThrow().state().wentOut());
    kurir.stop();
    // A crash between the driver's send and the commit of its outcome leaves the row "sending",
    // without the network id that commit would have stored with it, and the lease its sender
    // held, never given up.
    try (Database db = Database.open(kurir.settings().database())) {
      db.writes()
          .write(
              h ->
                  h.execute(
                          "UPDATE message SET state = 'sending', sent_at = NULL, network_id = NULL"
                              + " WHERE id = ?",
                          id)
                      + h.execute(
                          "INSERT INTO device_lease (device_id, owner, expires_at)"
                              + " VALUES (?, 'node-0', 0)",
                          device.id()));
    }
    return id;
  }

  @Test
  void aSendCutOffByACrashIsNotSentAgainThroughANetworkThatDoesNotDeduplicate() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver();
        TestGateway kurir =
            TestGateway.start(dir, NO_DEDUP, "--media.allow-private-addresses=true")) {
      Device device = kurir.newDevice();
      String license = kurir.licenseOf(device).code();
      assertThat(
              kurir
                  .postForm(
                      "/v2.0/webhook",
                      "license="
                          + license
                          + "&no_wa="
                          + device.number().substring(1)
                          + "&action=set_outgoing&url="
                          + receiver.url("/out"))
                  .body())
          .contains("success");
      String to = Numbers.fresh();
      long id = sentThenCutOff(kurir, device, to, asyncBody(device, to, "once"));
      kurir.startAgain();

      Eventually.until(
          "failed as interrupted",
          () ->
              kurir.gateway().messages().find(device, id).orElseThrow().state()
                  == MessageState.FAILED);
      Message m = kurir.gateway().messages().find(device, id).orElseThrow();
      assertThat(m.reason()).contains(FailureReason.INTERRUPTED);
      assertThat(kurir.sandbox().inbox(to)).as("not sent a second time").hasSize(1);
      Reply status =
          kurir.postJson(
              "/api/status_msg_id",
              "{\"key\":\"" + device.ecoKey() + "\",\"msg_id\":\"" + id + "\"}");
      assertThat(status.body()).isEqualTo("phone_offline");
      Reply admin =
          kurir.get("/admin/messages/" + id, "Authorization", "Bearer " + TestGateway.ADMIN_TOKEN);
      assertThat(admin.body()).contains("\"reason\":\"interrupted\"");

      JsonNode delivery =
          JSON.readTree(
                  kurir
                      .postJson(
                          "/api/check_delivery_status",
                          "{\"key\":\"" + device.ecoKey() + "\",\"messageId\":\"" + id + "\"}")
                      .body())
              .get("message");
      assertThat(delivery.get("status").asText()).isEqualTo("failed");
      assertThat(delivery.get("reason").asText()).isEqualTo("interrupted");
      JsonNode report =
          JSON.readTree(
              kurir
                  .postJson(
                      "/api/report_json",
                      "{\"key\":\"" + device.ecoKey() + "\",\"time_choose\":\"today\"}")
                  .body());
      assertThat(report.get("data"))
          .singleElement()
          .satisfies(
              row -> {
                assertThat(row.get("message_id").asText()).isEqualTo(Long.toString(id));
                assertThat(row.get("status").asText()).isEqualTo("failed");
                assertThat(row.get("reason").asText()).isEqualTo("interrupted");
              });
      Eventually.until(
          "the outgoing webhook told",
          () -> receiver.received().stream().anyMatch(r -> "failed".equals(status(r))));
      assertThat(receiver.received())
          .filteredOn(r -> "failed".equals(status(r)))
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.json().get("messageId").asText()).isEqualTo(Long.toString(id));
                assertThat(r.json().get("reason").asText()).isEqualTo("interrupted");
              });
    }
  }

  private static String status(Received r) {
    JsonNode status = r.json().get("status");
    return status == null ? null : status.asText();
  }

  @Test
  void aSendCutOffByACrashIsSentAgainThroughANetworkThatDeduplicates() {
    try (TestGateway kurir = TestGateway.start(dir, "--drivers.sandbox.deduplicate=true")) {
      Device device = kurir.newDevice();
      String to = Numbers.fresh();
      long id = sentThenCutOff(kurir, device, to, asyncBody(device, to, "once"));
      kurir.startAgain();

      Eventually.until(
          "sent again to the driver",
          () -> kurir.gateway().messages().find(device, id).orElseThrow().state().wentOut());
      assertThat(kurir.sandbox().inbox(to))
          .as("the network deduplicates on the message id")
          .hasSize(1);
    }
  }

  @Test
  void aSendCutOffByACrashIsTriedAgainUnderFlagRetry() {
    try (TestGateway kurir = TestGateway.start(dir, NO_DEDUP)) {
      Device device = kurir.newDevice();
      String to = Numbers.fresh();
      String body =
          "{\"key\":\""
              + device.ecoKey()
              + "\",\"phone_no\":\""
              + to
              + "\",\"message\":\"again\",\"flag_retry\":\"on\"}";
      long id = sentThenCutOff(kurir, device, to, body);
      kurir.startAgain();

      Eventually.until(
          "sent again",
          () -> kurir.gateway().messages().find(device, id).orElseThrow().state().wentOut());
      assertThat(kurir.sandbox().inbox(to))
          .as("flag_retry=on asks for another attempt: the documented duplicate")
          .hasSize(2);
      assertThat(kurir.gateway().messages().history(id).orElseThrow().events())
          .anySatisfy(
              e ->
                  assertThat(e.reason())
                      .hasValueSatisfying(r -> assertThat(r).contains("interrupted")));
    }
  }

  @Test
  void concurrentAcceptsAllCommitAndAllGoOut() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir, NO_DEDUP);
        ExecutorService pool = Executors.newFixedThreadPool(16)) {
      Device device = kurir.newDevice();
      String to = Numbers.fresh();
      List<Future<Reply>> replies = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        String text = "c" + i;
        replies.add(
            pool.submit(
                () -> kurir.postJson("/api/async_send_message", asyncBody(device, to, text))));
      }
      Set<String> ids = new HashSet<>();
      for (Future<Reply> r : replies) {
        assertThat(r.get().status()).isEqualTo(200);
        ids.add(r.get().body());
      }
      assertThat(ids).hasSize(300);
      Eventually.until("all 300 sent", () -> kurir.sandbox().inbox(to).size() == 300);
      assertThat(kurir.sandbox().inbox(to))
          .extracting(e -> Long.toString(e.messageId()))
          .containsExactlyInAnyOrderElementsOf(ids);
    }
  }

  @Test
  void syncSendsGoAheadOfQueuedAsyncTraffic() {
    try (TestGateway kurir = TestGateway.start(dir, NO_DEDUP, "--pacing.min-gap=100ms")) {
      Device device = kurir.newDevice();
      String to = Numbers.fresh();
      for (int i = 0; i < 30; i++) {
        kurir.postJson("/api/async_send_message", asyncBody(device, to, "bulk" + i));
      }
      // Counted before the OTP is posted, as a loaded machine may take a while over the bulk's
      // posts: what was sent by then went before the OTP by right.
      int sentBeforeOtp = kurir.sandbox().inbox(to).size();
      Reply otp = kurir.postJson("/api/send_message", asyncBody(device, to, "OTP 123456"));

      assertThat(otp.body()).isEqualTo("success");
      List<String> received = kurir.sandbox().inbox(to).stream().map(InboxEntry::text).toList();
      assertThat(received).contains("OTP 123456");
      assertThat(received.indexOf("OTP 123456"))
          .as(
              "the OTP jumped the queue of 30 bulk messages (%d sent when it was posted)",
              sentBeforeOtp)
          .isLessThanOrEqualTo(sentBeforeOtp + 2); // at most the send under way and one more
      assertThat(sentBeforeOtp).as("the bulk is still queued when the OTP comes").isLessThan(25);
    }
  }

  @Test
  void aSecondGatewayOnTheSameDatabaseIsRefused() {
    try (TestGateway kurir = TestGateway.start(dir, NO_DEDUP)) {
      assertThatThrownBy(
              () -> io.kurir.Gateway.start(kurir.settings(), java.time.Clock.systemUTC()))
          .hasMessageContaining("another Kurir gateway is running");
      Device device = kurir.newDevice();
      assertThat(
              kurir
                  .postJson("/api/send_message", asyncBody(device, Numbers.fresh(), "still mine"))
                  .body())
          .isEqualTo("success");
    }
  }

  @Test
  void aGatewayThatCannotTakeItsPortSendsNothing() throws Exception {
    try (TestGateway other = TestGateway.start(dir.resolve("other"));
        TestGateway kurir = TestGateway.start(dir.resolve("mine"))) {
      Device device = kurir.newDevice();
      String to = Numbers.fresh();
      kurir.sandbox().setDeviceOnline(device.id(), false);
      kurir.postJson("/api/async_send_message", asyncBody(device, to, "left pending"));
      kurir.stop();
      kurir.sandbox().setDeviceOnline(device.id(), true);

      var busyPort = kurir.settings().withPort(other.gateway().port());
      assertThatThrownBy(
              () -> io.kurir.Gateway.start(busyPort, java.time.Clock.systemUTC(), kurir.sandbox()))
          .isInstanceOf(RuntimeException.class);

      assertThat(kurir.sandbox().inbox(to)).as("nothing was resumed by the failed start").isEmpty();
      kurir.startAgain();
      Eventually.until(
          "sent by the gateway that did start", () -> kurir.sandbox().inbox(to).size() == 1);
    }
  }
}
