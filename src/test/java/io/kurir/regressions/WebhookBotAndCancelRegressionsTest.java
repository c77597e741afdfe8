package io.kurir.regressions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.bot.BotMatcher;
import io.kurir.bot.BotRule;
import io.kurir.bot.MatchType;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.testing.WebhookReceiver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regressions found in review of the webhook, bot and cancel changes: a cancel whose guard fails,
 * receivers that fail or hang, switched-off licenses in the Partner API, no-break spaces, the
 * automaton against a brute-force matcher, and a rule matched right after it was added.
 */
class WebhookBotAndCancelRegressionsTest {
  static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  static BotRule rule(long id, String keyword, MatchType type) {
    return new BotRule(
        id, 1, keyword, BotMatcher.normalize(keyword), type, "r" + id, Instant.EPOCH);
  }

  // 1. MessageStore.cancel: rollbackToSavepoint already forgets the savepoint in Jdbi, so the
  //    releaseSavepoint after it throws. cancelQueued must answer false and requeue the message.
  @Test
  void cancelQueuedWhoseGuardFailsAnswersFalseAndKeepsTheMessage() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir)) {
      Device d = kurir.newDevice();
      kurir.sandbox().setDeviceOnline(d.id(), false); // keeps the message queued
      String to = Numbers.fresh();
      String id =
          kurir
              .postJson(
                  "/api/async_send_message",
                  "{\"key\":\"" + d.ecoKey() + "\",\"phone_no\":\"" + to + "\",\"message\":\"x\"}")
              .body();
      long msg = Long.parseLong(id);
      boolean[] result = new boolean[1];
      assertThatCode(
              () ->
                  result[0] =
                      kurir
                          .gateway()
                          .messages()
                          .cancelQueued(d.id(), msg, "cancelled", (h, m) -> false))
          .as("cancelQueued with a guard that does not hold")
          .doesNotThrowAnyException();
      assertThat(result[0]).isFalse();
      kurir.sandbox().setDeviceOnline(d.id(), true);
      Eventually.until("sent after all", () -> kurir.sandbox().inbox(to).size() == 1);
    }
  }

  @Test
  void aFailedCancelStrandsTheMessage() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir)) {
      Device d = kurir.newDevice();
      kurir.sandbox().setDeviceOnline(d.id(), false);
      String to = Numbers.fresh();
      long msg =
          Long.parseLong(
              kurir
                  .postJson(
                      "/api/async_send_message",
                      "{\"key\":\""
                          + d.ecoKey()
                          + "\",\"phone_no\":\""
                          + to
                          + "\",\"message\":\"x\"}")
                  .body());
      try {
        kurir.gateway().messages().cancelQueued(d.id(), msg, "cancelled", (h, m) -> false);
      } catch (RuntimeException e) {
        // what matters is below: the message still goes out
      }
      kurir.sandbox().setDeviceOnline(d.id(), true);
      Eventually.until("sent after all", () -> kurir.sandbox().inbox(to).size() == 1);
    }
  }

  // 2. Events of one device wait behind each other whatever their URL: an incoming endpoint that
  //    is down holds back the outgoing (and device.status) webhooks for up to webhook.retry-for.
  @Test
  void aDownIncomingUrlDoesNotHoldBackTheOutgoingUrl() throws Exception {
    try (WebhookReceiver down = new WebhookReceiver();
        WebhookReceiver up = new WebhookReceiver();
        TestGateway kurir = TestGateway.start(dir, "--media.allow-private-addresses=true")) {
      down.answer(500);
      Device d = kurir.newDevice("+6281100008777", true);
      License l = kurir.licenseOf(d);
      String base = "license=" + l.code() + "&no_wa=6281100008777&action=";
      kurir.postForm("/v2.0/webhook", base + "set&url=" + down.url("/in"));
      kurir.postForm("/v2.0/webhook", base + "set_outgoing&url=" + up.url("/out"));
      kurir.sandbox().injectIncoming(d.id(), Numbers.fresh(), "halo");
      Eventually.until("incoming tried", () -> !down.received().isEmpty());
      kurir.postJson(
          "/api/async_send_message",
          "{\"key\":\""
              + d.ecoKey()
              + "\",\"phone_no\":\""
              + Numbers.fresh()
              + "\",\"message\":\"x\"}");
      Eventually.until(
          "outgoing events while the incoming URL is down", () -> !up.received().isEmpty());
      assertThat(up.received()).as("outgoing events while the incoming URL is down").isNotEmpty();
    }
  }

  // 3. A switched-off license "is refused everywhere" (docs/decisions.md, Expired licenses), but
  //    the Partner API still manages its bots and hands out its key.
  @Test
  void partnerApiRefusesASwitchedOffLicense() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir)) {
      var tenants = kurir.gateway().tenants();
      Partner p = tenants.createPartner("R", "", "r7", "reseller-secret-0123456789abcdef");
      License l =
          tenants.createLicense(p.id(), "T", "t@example.com", LocalDate.of(2099, 1, 1), List.of());
      tenants.createDevice(l.id(), "+6281100008702", "sandbox");
      tenants.setLicenseDisabled(l.id(), true);
      String auth =
          "Basic "
              + Base64.getEncoder()
                  .encodeToString(
                      "r7:reseller-secret-0123456789abcdef".getBytes(StandardCharsets.UTF_8));
      Reply add =
          kurir.post(
              "/v4.0/wa_partner/add_bot",
              "license=" + l.code() + "&bot_keyword=a&bot_response=b",
              "application/x-www-form-urlencoded",
              "Authorization",
              auth);
      Reply key =
          kurir.post(
              "/v4.0/wa_partner/get_key",
              "license=" + l.code() + "&email=t@example.com",
              "application/x-www-form-urlencoded",
              "Authorization",
              auth);
      assertThat(add.status()).isEqualTo(403);
      assertThat(key.status()).isEqualTo(403);
    }
  }

  // 4. Normalisation: strip() does not remove U+00A0 but \s (UNICODE_CHARACTER_CLASS) does turn
  //    it into a space, so a leading/trailing NBSP survives as a space.
  @Test
  void noBreakSpaceIsTrimmedLikeAnyWhitespace() {
    assertThat(BotMatcher.normalize("\u00a0Info\u00a0")).isEqualTo("info");
    BotMatcher m = new BotMatcher(List.of(rule(1, "info", MatchType.MATCH)));
    assertThat(m.match("Info\u00a0")).isPresent();
  }

  @Test
  void aKeywordOfOnlyNoBreakSpaceIsRefused() {
    // Bots.add checks normalize(keyword).isEmpty(): " " is not empty
    assertThat(BotMatcher.normalize("\u00a0")).isEmpty();
  }

  @Test
  void ahoCorasickAgreesWithBruteForce() {
    var rnd = new java.util.Random(7);
    String alpha = "abA ";
    for (int round = 0; round < 3000; round++) {
      List<BotRule> rules = new java.util.ArrayList<>();
      int n = 1 + rnd.nextInt(8);
      for (int i = 0; i < n; i++) {
        StringBuilder k = new StringBuilder();
        int len = 1 + rnd.nextInt(4);
        for (int j = 0; j < len; j++) k.append(alpha.charAt(rnd.nextInt(alpha.length())));
        BotRule r = rule(i + 1, k.toString(), MatchType.values()[rnd.nextInt(3)]);
        if (!r.matchKey().isEmpty()) rules.add(r);
      }
      StringBuilder t = new StringBuilder();
      int tl = rnd.nextInt(10);
      for (int j = 0; j < tl; j++) t.append(alpha.charAt(rnd.nextInt(alpha.length())));
      String text = BotMatcher.normalize(t.toString());
      BotRule best = null;
      for (BotRule r : rules) {
        boolean hit =
            switch (r.matchType()) {
              case MATCH -> text.equals(r.matchKey());
              case PARTIAL -> text.startsWith(r.matchKey());
              case PARTIAL_ALL -> text.contains(r.matchKey());
            };
        if (hit
            && (best == null
                || r.matchType().ordinal() < best.matchType().ordinal()
                || (r.matchType() == best.matchType()
                    && (r.matchKey().length() > best.matchKey().length()
                        || (r.matchKey().length() == best.matchKey().length()
                            && r.id() < best.id()))))) {
          best = r;
        }
      }
      assertThat(new BotMatcher(rules).match(t.toString()).orElse(null))
          .as("rules %s text '%s'", rules, t)
          .isEqualTo(best);
    }
  }

  // One outbox thread delivers serially: a receiver that hangs delays every other license's events.
  @Test
  void aHangingReceiverOfOneDeviceDelaysAnotherDevicesEvents() throws Exception {
    java.util.concurrent.atomic.AtomicInteger hangingCalls =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.CountDownLatch testOver = new java.util.concurrent.CountDownLatch(1);
    com.sun.net.httpserver.HttpServer hang =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    hang.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    hang.createContext(
        "/",
        ex -> {
          hangingCalls.incrementAndGet();
          try {
            // A receiver that does not answer while the test runs (the bound is a hang guard).
            testOver.await(Eventually.GUARD.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            // stop
          }
          ex.close();
        });
    hang.start();
    try (WebhookReceiver fast = new WebhookReceiver();
        TestGateway kurir =
            TestGateway.start(
                // Longer than the wait for b's event below: behind the hanging call, it would
                // not come before the wait runs out.
                dir, "--media.allow-private-addresses=true", "--webhook.timeout=60s");
        // Closed first: the hanging receiver answers before the gateway stops, whose outbox
        // would otherwise wait out the 60 s timeout.
        AutoCloseable answerNow = testOver::countDown) {
      Device a = kurir.newDevice("+6281100008781", true);
      Device b = kurir.newDevice("+6281100008782", true);
      for (Device d : List.of(a, b)) {
        License l = kurir.licenseOf(d);
        String url =
            d == a ? "http://127.0.0.1:" + hang.getAddress().getPort() + "/hang" : fast.url("/out");
        kurir.postForm(
            "/v2.0/webhook",
            "license="
                + l.code()
                + "&no_wa="
                + d.number().substring(1)
                + "&action=set_outgoing&url="
                + url);
      }
      kurir.postJson(
          "/api/async_send_message",
          "{\"key\":\""
              + a.ecoKey()
              + "\",\"phone_no\":\""
              + Numbers.fresh()
              + "\",\"message\":\"x\"}");
      Eventually.until("device A's receiver is being called", () -> hangingCalls.get() > 0);
      kurir.postJson(
          "/api/async_send_message",
          "{\"key\":\""
              + b.ecoKey()
              + "\",\"phone_no\":\""
              + Numbers.fresh()
              + "\",\"message\":\"x\"}");
      // Behind the hanging call it would wait the 60 s timeout, past this wait's 20 s.
      Eventually.until("b's sent event", () -> !fast.received().isEmpty());
    } finally {
      testOver.countDown();
      hang.stop(0);
    }
  }

  // Bots.match can put back a matcher built from the rules read before an add's remove().
  @Test
  void aRuleJustAddedIsMatchedAtOnceOnThisNode() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir)) {
      Device d = kurir.newDevice();
      var ids = new io.kurir.store.IdGenerator(java.time.Clock.systemUTC(), 7);
      var bots =
          new io.kurir.bot.Bots(kurir.gateway().database(), ids, java.time.Clock.systemUTC());
      var stop = new java.util.concurrent.atomic.AtomicBoolean();
      Thread reader =
          Thread.ofPlatform()
              .start(
                  () -> {
                    while (!stop.get()) {
                      bots.match(d.licenseId(), "x");
                    }
                  });
      int missed = 0;
      for (int i = 0; i < 300; i++) {
        bots.add(d.licenseId(), "kw" + i, "r", MatchType.MATCH);
        if (bots.match(d.licenseId(), "kw" + i).isEmpty()) {
          missed++;
        }
      }
      stop.set(true);
      reader.join();
      assertThat(missed).isZero();
    }
  }

  @Test
  void aLicensesKeywordsAreBoundedInAllCharacters() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir)) {
      Device d = kurir.newDevice();
      var bots =
          new io.kurir.bot.Bots(
              kurir.gateway().database(),
              new io.kurir.store.IdGenerator(java.time.Clock.systemUTC(), 7),
              java.time.Clock.systemUTC());
      String long1000 = "k".repeat(990);
      int added = 0;
      try {
        for (int i = 0; i < 200; i++) {
          bots.add(d.licenseId(), long1000 + String.format("%010d", i), "r", MatchType.PARTIAL_ALL);
          added++;
        }
      } catch (io.kurir.bot.Bots.RuleRefused e) {
        assertThat(e.getMessage()).contains("characters in all");
      }
      assertThat(added).isEqualTo(100);
    }
  }

  @Test
  void theIncomingWebhookNamesTheKeywordEvenWhenNoReplyGoes() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver();
        TestGateway kurir = TestGateway.start(dir, "--media.allow-private-addresses=true")) {
      Device d = kurir.newDevice();
      License l = kurir.licenseOf(d);
      kurir.postForm(
          "/v2.0/webhook",
          "license="
              + l.code()
              + "&no_wa="
              + d.number().substring(1)
              + "&action=set&url="
              + receiver.url("/in"));
      new io.kurir.bot.Bots(
              kurir.gateway().database(),
              new io.kurir.store.IdGenerator(java.time.Clock.systemUTC(), 7),
              java.time.Clock.systemUTC())
          .add(l.id(), "info", "menu", MatchType.MATCH);
      String from = Numbers.fresh();
      for (int i = 0; i < 12; i++) { // the last two get no reply: 10 a minute
        kurir.sandbox().injectIncoming(d.id(), from, "info");
      }
      Eventually.until("twelve pushed", () -> receiver.received().size() == 12);
      assertThat(receiver.received())
          .extracting(r -> r.json().get("keyword").asText())
          .containsOnly("info");
      // Each reply is stored with the message it answers; sending it comes after, on its own.
      assertThat(kurir.storedMessages(d.id())).isEqualTo(10);
      Eventually.until(
          "the ten replies sent",
          () ->
              kurir.gateway().messages().queued(d.id()) == 0
                  && kurir.sandbox().inbox(from).size() >= 10);
      assertThat(kurir.sandbox().inbox(from)).hasSize(10);
    }
  }

  @Test
  void errorsJettyAnswersItselfKeepTheFamilysShape() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir)) {
      Reply bad = kurir.get("/v3.0/license/expired/%ff");
      assertThat(bad.status()).isEqualTo(400);
      assertThat(bad.contentType()).startsWith("application/json");
      assertThat(JSON.readTree(bad.body()).get("status").asText()).isEqualTo("failed");
    }
  }
}
