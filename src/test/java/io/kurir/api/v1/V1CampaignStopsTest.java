package io.kurir.api.v1;

import static io.kurir.testing.V1Client.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kurir.driver.sandbox.SandboxNetwork.FailureKind;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.V1Client;
import io.kurir.testing.WebhookReceiver;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Safe sending's automatic stop on the sandbox's network: a failure surge stops the campaign (its
 * reason in the API, the operator told by the device-status webhook, received by a real loopback
 * receiver, and by the {@code campaign.stopped} event), numbers not on WhatsApp do not count toward
 * a surge, an account error stops it, and a logged-out device only leaves the pool.
 */
class V1CampaignStopsTest {
  @TempDir Path dir;
  SettableClock clock;
  TestGateway kurir;
  V1Client api;

  @BeforeEach
  void start() {
    clock = TestGateway.settableClock();
    // The status webhook's receiver is on loopback. These tests are about the automatic stop, not
    // the pacing: the rest of the safe-sending policy is off (V1CampaignSafeSendingTest tests it).
    kurir =
        TestGateway.start(
            dir, clock, TestGateway.safeSendingOff("--media.allow-private-addresses=true"));
    api = new V1Client(kurir);
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  @Test
  void aFailureSurgeStopsTheCampaignAndTellsTheOperator() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device);
    List<String> phones = contacts(device, 30, "promo");
    try (WebhookReceiver receiver = new WebhookReceiver()) {
      kurir.gateway().deviceStates().setStatusWebhook(device.id(), receiver.url("/status"));
      json(
          post(
              key,
              "/v1/webhooks",
              "{\"url\":\"" + receiver.url("/v1") + "\",\"events\":[\"campaign.stopped\"]}"),
          201);
      // The network refuses every message of the device: what a banned number sees.
      kurir.sandbox().injectFailure("*", FailureKind.REFUSED, 1_000);
      String id = create(key, "promo", "");
      json(post(key, "/v1/campaigns/" + id + "/start"), 200);
      awaitStatus(key, id, "paused");
      // Its queued messages are taken back just after the stop's commit.
      Eventually.until("nothing queued", () -> counts(key, id).get("queued").asInt() == 0);

      JsonNode paused = json(get(key, "/v1/campaigns/" + id), 200);
      assertThat(paused.get("stop_reason").asText()).isEqualTo("failure_surge");
      JsonNode counts = paused.get("counts");
      // Stopped within two windows of five, its queued messages taken back: the rest wait.
      assertThat(counts.get("failed").asInt()).isBetween(5, 10);
      assertThat(counts.get("queued").asInt()).isZero();
      assertThat(counts.get("waiting").asInt()).isEqualTo(30 - counts.get("failed").asInt());
      // A failed row of the report says when it failed.
      List<String[]> failedRows = new ArrayList<>();
      for (String line : get(key, "/v1/campaigns/" + id + "/report.csv").body().split("\r\n")) {
        String[] cells = line.split(",", -1);
        if (cells.length > 9 && cells[5].equals("failed")) {
          failedRows.add(cells);
        }
      }
      assertThat(failedRows).hasSize(counts.get("failed").asInt());
      assertThat(failedRows).allSatisfy(row -> assertThat(row[9]).isNotEmpty());
      JsonNode listed = json(get(key, "/v1/campaigns"), 200);
      assertThat(listed.toString()).contains("\"stop_reason\":\"failure_surge\"");

      Eventually.until("the status webhook", () -> !receiver.ofEvent("device.status").isEmpty());
      JsonNode told = receiver.ofEvent("device.status").getFirst().json();
      assertThat(told.get("device").asText()).isEqualTo(Long.toString(device.id()));
      assertThat(told.get("oldState").asText()).isEqualTo("online");
      assertThat(told.get("newState").asText()).isEqualTo("online");
      assertThat(told.get("reason").asText())
          .startsWith("campaign " + id + " (Promo promo) stopped: failure_surge: ");
      assertThat(told.get("campaign").get("id").asText()).isEqualTo(id);
      assertThat(told.get("campaign").get("status").asText()).isEqualTo("paused");
      assertThat(told.get("campaign").get("stopReason").asText()).isEqualTo("failure_surge");

      // The license's v1 subscription gets the event too (Standard Webhooks, no X-Kurir-Event).
      Eventually.until(
          "the v1 subscription's delivery",
          () -> receiver.received().stream().anyMatch(r -> r.event() == null));
      JsonNode subscribed =
          receiver.received().stream().filter(r -> r.event() == null).findFirst().get().json();
      assertThat(subscribed.get("type").asText()).isEqualTo("campaign.stopped");
      assertThat(subscribed.get("data").get("campaign_id").asText()).isEqualTo(id);

      JsonNode event = stoppedEvent(key);
      assertThat(event.get("device").asText()).isEqualTo(Long.toString(device.id()));
      assertThat(event.get("data").get("campaign_id").asText()).isEqualTo(id);
      assertThat(event.get("data").get("stop_reason").asText()).isEqualTo("failure_surge");

      // The number is fine again: resumed, the old failures do not stop it again.
      kurir.sandbox().clearFailures();
      clock.advance(java.time.Duration.ofMinutes(5)); // the operator read the reason meanwhile
      JsonNode resumed = json(post(key, "/v1/campaigns/" + id + "/resume"), 200);
      assertThat(resumed.get("stop_reason").isNull()).isTrue();
      awaitStatus(key, id, "done");
      int delivered = 0;
      for (String p : phones) {
        delivered += kurir.sandbox().inbox(p).size();
      }
      assertThat(delivered).isEqualTo(30 - counts.get("failed").asInt());
    }
  }

  @Test
  void aFewFailuresAreNoSurge() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device);
    contacts(device, 12, "few");
    kurir.sandbox().injectFailure("*", FailureKind.REFUSED, 4); // one short of a surge
    String id = create(key, "few", "");
    json(post(key, "/v1/campaigns/" + id + "/start"), 200);
    awaitStatus(key, id, "done");
    JsonNode done = json(get(key, "/v1/campaigns/" + id), 200);
    assertThat(done.get("stop_reason").isNull()).isTrue();
    assertThat(done.get("counts").get("failed").asInt()).isEqualTo(4);
    assertThat(done.get("counts").get("sent").asInt()).isEqualTo(8);
  }

  @Test
  void numbersNotOnWhatsAppAreTheRecipientsFailureNotASurge() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device);
    List<String> phones = contacts(device, 12, "list");
    for (int i = 0; i < 9; i++) {
      kurir.sandbox().injectFailure(phones.get(i), FailureKind.NOT_FOUND, 1);
    }
    String id = create(key, "list", "");
    json(post(key, "/v1/campaigns/" + id + "/start"), 200);
    awaitStatus(key, id, "done");
    JsonNode done = json(get(key, "/v1/campaigns/" + id), 200);
    assertThat(done.get("stop_reason").isNull()).isTrue();
    assertThat(done.get("counts").get("failed").asInt()).isEqualTo(9);
    assertThat(done.get("counts").get("sent").asInt()).isEqualTo(3);
  }

  @Test
  void anAccountErrorStopsTheCampaign() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    String key = key(device);
    contacts(device, 8, "promo");
    // The phone unreachable: the first window waits in the device's queue.
    kurir.sandbox().setDeviceOnline(device.id(), false);
    String id = create(key, "promo", "");
    json(post(key, "/v1/campaigns/" + id + "/start"), 200);
    Eventually.until("a window handed over", () -> counts(key, id).get("queued").asInt() == 5);
    // What a driver does when the network refuses the account (DriverListener.hold).
    kurir.gateway().queueHolds().hold(device.id(), "the network refused the account: restricted");
    awaitStatus(key, id, "paused");
    Eventually.until("the window taken back", () -> counts(key, id).get("waiting").asInt() == 8);
    JsonNode paused = json(get(key, "/v1/campaigns/" + id), 200);
    assertThat(paused.get("stop_reason").asText()).isEqualTo("account_error");
    assertThat(stoppedEvent(key).get("data").get("detail").asText())
        .isEqualTo("the network refused the account: restricted");
  }

  @Test
  void aLoggedOutDeviceLeavesThePoolAndTheOthersSendItsShare() throws Exception {
    Device first = kurir.newDevice(Numbers.fresh(), true);
    Device second = device(first);
    String key = key(first);
    List<String> phones = contacts(first, 12, "promo");
    // The first device's phone unreachable: its window of five waits in its queue...
    kurir.sandbox().setDeviceOnline(first.id(), false);
    String id = create(key, "promo", "");
    json(post(key, "/v1/campaigns/" + id + "/start"), 200);
    Eventually.until(
        "the first device's window",
        () -> kurir.gateway().messages().find(first, firstMessageOf(key, id, first)).isPresent());
    // ...until the phone logs out: the campaign takes its messages back for the second device.
    kurir.sandbox().unpair(first.id());
    awaitStatus(key, id, "done");
    JsonNode done = json(get(key, "/v1/campaigns/" + id), 200);
    assertThat(done.get("stop_reason").isNull()).isTrue();
    assertThat(done.get("counts").get("sent").asInt()).isEqualTo(12);
    for (String p : phones) {
      List<InboxEntry> inbox = kurir.sandbox().inbox(p);
      assertThat(inbox).hasSize(1);
      assertThat(inbox.getFirst().from()).isEqualTo(second.number());
    }
  }

  // --- helpers

  /** The id of a message of the campaign handed to {@code device}, once there is one. */
  private long firstMessageOf(String key, String id, Device device) {
    for (String line : get(key, "/v1/campaigns/" + id + "/report.csv").body().split("\r\n")) {
      String[] cells = line.split(",", -1);
      if (cells[3].equals(Long.toString(device.id())) && !cells[4].isEmpty()) {
        return Long.parseLong(cells[4]);
      }
    }
    return -1;
  }

  private JsonNode stoppedEvent(String key) throws Exception {
    JsonNode page = json(get(key, "/v1/events?after=0&limit=500"), 200);
    List<JsonNode> stopped = new ArrayList<>();
    page.get("data")
        .forEach(
            e -> {
              if (e.get("type").asText().equals("campaign.stopped")) {
                stopped.add(e);
              }
            });
    assertThat(stopped).hasSize(1);
    return stopped.getFirst();
  }

  private List<String> contacts(Device device, int n, String tag) {
    StringBuilder csv = new StringBuilder("phone,name,tags\n");
    List<String> phones = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String p = Numbers.fresh();
      phones.add(p);
      csv.append(p).append(",C").append(i).append(',').append(tag).append('\n');
    }
    kurir.gateway().contactBook().importCsv(device.licenseId(), csv.toString(), false);
    return phones;
  }

  private Device device(Device sameLicense) {
    Device d =
        kurir.gateway().tenants().createDevice(sameLicense.licenseId(), Numbers.fresh(), "sandbox");
    kurir.sandbox().pair(d.id(), d.number());
    return d;
  }

  private String create(String key, String tag, String more) throws Exception {
    String body =
        "{\"name\":\"Promo "
            + tag
            + "\",\"audience\":{\"tags\":[\""
            + tag
            + "\"]},\"message\":{\"type\":\"text\",\"text\":{\"body\":\"Halo {name}\"}},"
            + "\"quiet_hours\":null"
            + more
            + "}";
    return json(post(key, "/v1/campaigns", body), 201).get("id").asText();
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

  private String key(Device device) {
    return api.key(device, ApiScope.CAMPAIGNS, ApiScope.READ, ApiScope.WEBHOOKS);
  }

  private Reply post(String key, String path) {
    return api.post(key, path, "");
  }

  private Reply post(String key, String path, String body) {
    return api.post(key, path, body);
  }

  private Reply get(String key, String path) {
    return api.get(key, path);
  }
}
