package io.kurir.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.store.Database;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestTables;
import io.kurir.testing.WebhookReceiver;
import io.kurir.testing.WebhookReceiver.Received;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Incoming- and outgoing-message webhooks registered through the Account API, delivered to a real
 * receiver on loopback: payloads, signatures, order, retries, restarts and dead letters.
 */
class MessageWebhookTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  final SettableClock clock = TestGateway.settableClock();
  TestGateway kurir;
  WebhookReceiver receiver;
  Device device;
  License license;

  @BeforeEach
  void start() {
    receiver = new WebhookReceiver();
    kurir = TestGateway.start(dir, clock, "--media.allow-private-addresses=true");
    device = kurir.newDevice("+6281100008101", true);
    license = kurir.licenseOf(device);
  }

  @AfterEach
  void stop() {
    kurir.close();
    receiver.close();
  }

  JsonNode account(String action, String url) throws Exception {
    String form =
        "license="
            + license.code()
            + "&no_wa=6281100008101&action="
            + action
            + (url == null ? "" : "&url=" + url);
    return JSON.readTree(kurir.postForm("/v2.0/webhook", form).body());
  }

  void signedByTheLicense(Received r) {
    String secret = kurir.licenseOf(device).webhookSecret();
    assertThat(r.signature())
        .isEqualTo("sha256=" + WebhookOutbox.sign(secret, r.timestamp(), r.body()));
    assertThat(r.type()).startsWith("application/json");
  }

  @Test
  void anIncomingMessageReachesTheIncomingUrlWithTheContractsFields() throws Exception {
    assertThat(account("set", receiver.url("/in")).get("message").asText())
        .isEqualTo(receiver.url("/in"));
    String sender = Numbers.fresh();
    assertThat(kurir.sandbox().injectIncoming(device.id(), sender, "Halo, masih buka?")).isTrue();

    Eventually.until("delivered", () -> receiver.received().size() == 1);
    Received r = receiver.received().getFirst();
    signedByTheLicense(r);
    assertThat(r.event()).isEqualTo("message.incoming");
    JsonNode body = r.json();
    assertThat(body.get("contact_name").asText()).isEqualTo(sender.substring(1));
    assertThat(body.get("message").asText()).isEqualTo("Halo, masih buka?");
    assertThat(body.get("keyword").asText()).isEqualTo("default");
    assertThat(body.get("ip_server").asText()).isEqualTo("127.0.0.1");
    assertThat(body.get("port").asInt()).isEqualTo(kurir.gateway().port());
    assertThat(body.size()).as("only the contract's fields").isEqualTo(5);
  }

  @Test
  void contactNameIsTheSendersNameWhenTheNetworkSendsOne() throws Exception {
    account("set", receiver.url("/in"));
    String sender = Numbers.fresh();
    assertThat(kurir.sandbox().injectNamedIncoming(device.id(), sender, " Budi Santoso ", "a"))
        .isTrue();
    assertThat(
            kurir
                .post(
                    "/sandbox/devices/" + device.id() + "/incoming",
                    "{\"from\":\"" + sender + "\",\"name\":\"Siti\",\"message\":\"b\"}",
                    "application/json",
                    "Authorization",
                    "Bearer " + TestGateway.ADMIN_TOKEN)
                .status())
        .isEqualTo(200);
    assertThat(kurir.sandbox().injectNamedIncoming(device.id(), sender, "  ", "c")).isTrue();

    Eventually.until("delivered", () -> receiver.received().size() == 3);
    assertThat(receiver.received())
        .extracting(r -> r.json().get("contact_name").asText())
        .as("a blank name is no name: the number, as without one")
        .containsExactly("Budi Santoso", "Siti", sender.substring(1));
  }

  @Test
  void everySentMessageAndItsStatusesReachTheOutgoingUrlInOrder() throws Exception {
    account("set_outgoing", receiver.url("/out"));
    String to = Numbers.fresh();
    String id =
        kurir
            .postJson(
                "/api/async_send_message",
                "{\"key\":\""
                    + device.ecoKey()
                    + "\",\"phone_no\":\""
                    + to
                    + "\","
                    + "\"message\":\"Tagihan Anda\"}")
            .body();
    Eventually.until("sent", () -> receiver.received().size() == 1);
    clock.advance(Duration.ofSeconds(3)); // the sandbox delivers after 1 s, reads after 2 s
    Eventually.until("delivered and read", () -> receiver.received().size() == 3);
    List<JsonNode> events = receiver.received().stream().map(Received::json).toList();
    assertThat(events)
        .extracting(e -> e.get("status").asText())
        .containsExactly("sent", "delivery", "read");
    JsonNode sent = events.getFirst();
    assertThat(sent.get("event").asText()).isEqualTo("message.status");
    assertThat(sent.get("messageId").asText()).isEqualTo(id);
    assertThat(sent.get("to").asText()).isEqualTo(to.substring(1));
    assertThat(sent.get("number").asText()).isEqualTo("6281100008101");
    assertThat(sent.get("message").asText()).isEqualTo("Tagihan Anda");
    assertThat(sent.get("type").asText()).isEqualTo("text");
    assertThat(sent.get("api").asText()).isEqualTo("eco");
    receiver.received().forEach(this::signedByTheLicense);
  }

  @Test
  void aFailedSendReachesTheOutgoingUrlWithItsReason() throws Exception {
    account("set_outgoing", receiver.url("/out"));
    String to = Numbers.fresh();
    kurir.sandbox().setRegistered(to, false);
    kurir.postJson(
        "/api/async_send_message",
        "{\"key\":\"" + device.ecoKey() + "\",\"phone_no\":\"" + to + "\",\"message\":\"x\"}");
    Eventually.until("reported", () -> receiver.received().size() == 1);
    JsonNode failed = receiver.received().getFirst().json();
    assertThat(failed.get("status").asText()).isEqualTo("failed");
    assertThat(failed.get("reason").asText()).isEqualTo("number_not_found");
  }

  @Test
  void aReceiverThatFailsTwiceGetsEveryEventInOrderOnceItRecovers() throws Exception {
    account("set", receiver.url("/in"));
    receiver.failNext(2); // down for about half a minute: within the hold
    String sender = Numbers.fresh();
    for (int i = 1; i <= 3; i++) {
      kurir.sandbox().injectIncoming(device.id(), sender, "pesan " + i);
    }
    // Each failure is followed by a backoff on the clock: move it on until all three are in.
    advanceUntil("all three after recovery", () -> receiver.received().size() >= 5);
    assertThat(receiver.received()).hasSize(5);
    List<Received> all = receiver.received();
    assertThat(all.subList(0, 2))
        .as("the first event was retried while the receiver failed")
        .extracting(Received::eventId)
        .containsOnly(all.getFirst().eventId());
    assertThat(all.subList(2, 5))
        .extracting(r -> r.json().get("message").asText())
        .containsExactly("pesan 1", "pesan 2", "pesan 3");
    assertThat(all.subList(2, 5)).extracting(Received::sequence).containsExactly("1", "2", "3");
  }

  @Test
  void aReceiverDownPastTheHoldGetsEveryEventOnceItRecoversNumberedToReorder() throws Exception {
    account("set", receiver.url("/in"));
    receiver.failNext(7);
    String sender = Numbers.fresh();
    for (int i = 1; i <= 3; i++) {
      kurir.sandbox().injectIncoming(device.id(), sender, "pesan " + i);
    }
    advanceUntil("all three delivered", () -> delivered() == 3);
    List<Received> accepted = receiver.received().subList(7, receiver.received().size());
    assertThat(accepted).hasSize(3);
    assertThat(accepted)
        .extracting(r -> r.sequence() + " " + r.json().get("message").asText())
        .containsExactlyInAnyOrder("1 pesan 1", "2 pesan 2", "3 pesan 3");
  }

  long delivered() {
    return TestTables.of(kurir).deliveries().stream()
        .filter(d -> d.state().equals("delivered"))
        .count();
  }

  /**
   * Moves the clock on until {@code done}: waits until no attempt is under way or may start (every
   * failure recorded), then sets the clock to the next time something becomes due (a retry, the end
   * of a hold).
   */
  void advanceUntil(String what, java.util.function.BooleanSupplier done) {
    WebhookStore store = new WebhookStore(kurir.gateway().database());
    for (int i = 0; i < 100 && !done.getAsBoolean(); i++) {
      Eventually.until("every attempt under way recorded", () -> done.getAsBoolean() || quiet());
      if (!done.getAsBoolean()) {
        store.nextChange(clock.instant()).ifPresent(clock::set);
      }
    }
    Eventually.until(what, done);
  }

  /**
   * No attempt is under way, and none may start at this clock time: both seen in one snapshot of
   * the database, so that an attempt claimed between two looks cannot pass for none. One snapshot
   * needs REPEATABLE READ on PostgreSQL: at its READ COMMITTED each statement sees the commits made
   * before it began, and an attempt claimed between the two looks passed for none (it is not in the
   * first, and its line is not eligible in the second), so the clock was moved while it was under
   * way ({@link WebhookOutboxLoopTest#aWaitForAQuietOutboxSeesAnAttemptClaimedBetweenItsLooks}). A
   * SQLite transaction reads one snapshot at any level.
   */
  boolean quiet() {
    return quiet(kurir.gateway().database(), clock.instant(), () -> {});
  }

  /**
   * {@link #quiet()} on {@code db} at {@code now}; {@code betweenLooks} runs between its look at
   * the claims and its look at what is eligible (a test of this helper makes a claim there).
   */
  static boolean quiet(Database db, Instant now, Runnable betweenLooks) {
    return db.jdbi()
        .inTransaction(
            TransactionIsolationLevel.REPEATABLE_READ,
            h -> {
              boolean noClaim =
                  h.createQuery(
                              "SELECT COUNT(*) FROM webhook_delivery WHERE state = 'pending'"
                                  + " AND claim_until IS NOT NULL")
                          .mapTo(Long.class)
                          .one()
                      == 0;
              betweenLooks.run();
              return noClaim
                  && WebhookStore.eligible(
                          h, now, WebhookStore.Line.START, WebhookStore.Line.END, 1000)
                      .candidates()
                      .isEmpty();
            });
  }

  long stored() {
    return TestTables.of(kurir).deliveries().size();
  }

  @Test
  void aRestartInTheMiddleOfRetriesLosesNothing() throws Exception {
    account("set", receiver.url("/in"));
    receiver.answer(503);
    String sender = Numbers.fresh();
    kurir.sandbox().injectIncoming(device.id(), sender, "sebelum restart 1");
    kurir.sandbox().injectIncoming(device.id(), sender, "sebelum restart 2");
    Eventually.until("tried", () -> !receiver.received().isEmpty());
    kurir.restart();
    kurir.sandbox().pair(device.id(), device.number()); // the sandbox forgets sessions on restart
    receiver.answer(200);
    advanceUntil(
        "both delivered",
        () ->
            receiver.received().stream()
                .map(r -> r.json().get("message").asText())
                .toList()
                .containsAll(List.of("sebelum restart 1", "sebelum restart 2")));
  }

  @Test
  void aReceiverDownPastTheRetryWindowLeavesDeadLettersThatCanBeReplayed() throws Exception {
    String[] auth = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};
    account("set", receiver.url("/in"));
    receiver.answer(500);
    kurir.sandbox().injectIncoming(device.id(), Numbers.fresh(), "hilang?");
    Eventually.until("tried", () -> !receiver.received().isEmpty());
    String id = receiver.received().getFirst().eventId();
    clock.advance(Duration.ofHours(25));
    Eventually.until(
        "dead",
        () -> kurir.get("/admin/webhooks?state=dead", auth).body().contains("\"" + id + "\""));
    receiver.answer(200);
    assertThat(kurir.post("/admin/webhooks/" + id + "/replay", "", null, auth).status())
        .isEqualTo(200);
    Eventually.until(
        "delivered on replay",
        () ->
            receiver.received().getLast().json().get("message").asText().equals("hilang?")
                && kurir.get("/admin/webhooks?state=delivered", auth).body().contains(id));
  }

  @Test
  void aFailingIncomingUrlDoesNotHoldUpTheOutgoingOne() throws Exception {
    account("set", receiver.url("/in"));
    account("set_outgoing", receiver.url("/out"));
    receiver.answer(500);
    kurir.sandbox().injectIncoming(device.id(), Numbers.fresh(), "macet");
    Eventually.until("incoming tried", () -> !receiver.received().isEmpty());
    receiver.answer(200);
    kurir.postJson(
        "/api/async_send_message",
        "{\"key\":\""
            + device.ecoKey()
            + "\",\"phone_no\":\""
            + Numbers.fresh()
            + "\",\"message\":\"jalan terus\"}");
    Eventually.until(
        "the outgoing event went out while the incoming one waits for its retry",
        () -> !receiver.ofEvent("message.status").isEmpty());
  }

  @Test
  void fixingTheUrlSendsWhatWaitedThereAndUnsettingEndsIt() throws Exception {
    account("set", receiver.url("/typo"));
    receiver.answer(500);
    kurir.sandbox().injectIncoming(device.id(), Numbers.fresh(), "tunggu saya");
    Eventually.until("tried at the typo", () -> !receiver.received().isEmpty());
    receiver.answer(200);
    account("set", receiver.url("/fixed"));
    Eventually.until(
        "delivered to the fixed URL at once",
        () ->
            receiver.received().size() >= 2
                && receiver
                    .received()
                    .getLast()
                    .json()
                    .get("message")
                    .asText()
                    .equals("tunggu saya"));

    String[] auth = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};
    receiver.answer(500);
    kurir.sandbox().injectIncoming(device.id(), Numbers.fresh(), "dibatalkan");
    Eventually.until("tried", () -> receiver.received().size() >= 3);
    String id = receiver.received().getLast().eventId();
    account("unset", null);
    Eventually.until(
        "ended as failed",
        () -> kurir.get("/admin/webhooks?state=failed", auth).body().contains("\"" + id + "\""));
  }

  @Test
  void deliveredEventsAreDeletedAfterAWeek() throws Exception {
    String[] auth = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};
    account("set", receiver.url("/in"));
    kurir.sandbox().injectIncoming(device.id(), Numbers.fresh(), "lama");
    Eventually.until("delivered", () -> receiver.received().size() == 1);
    String id = receiver.received().getFirst().eventId();
    Eventually.until(
        "listed as delivered",
        () -> kurir.get("/admin/webhooks?state=delivered", auth).body().contains(id));
    clock.advance(Duration.ofDays(8));
    kurir.restart(); // the outbox prunes when it starts, then every hour
    Eventually.until(
        "pruned", () -> !kurir.get("/admin/webhooks?state=delivered", auth).body().contains(id));
  }

  @Test
  void unsettingStopsTheEvents() throws Exception {
    account("set", receiver.url("/in"));
    assertThat(account("unset", null).get("message").asText()).isEqualTo("unset success");
    // The message and any webhook event are committed before injectIncoming returns.
    kurir.sandbox().injectIncoming(device.id(), Numbers.fresh(), "tidak ada yang dengar");
    assertThat(stored()).as("no event for the outbox").isZero();
    assertThat(receiver.received()).isEmpty();
  }
}
