package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.campaign.Campaign;
import io.kurir.campaign.CampaignDraft;
import io.kurir.campaign.CampaignStatus;
import io.kurir.campaign.Campaigns;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.TestGateway;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Campaigns on a WAHA device against the fake engine, on the gateway's settable clock: the number
 * check before a first send is paced (a campaign of new numbers makes at most the device's 20
 * checks a minute, and at most its window of five waits for the next minute), a number not on
 * WhatsApp fails as the recipient's and is no failure surge, and WhatsApp's message capping or
 * reach-out time lock, as the engine reports them, stop the campaign.
 */
class WahaCampaignTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The safe-sending policy's ramp, gaps and unanswered cap off: these tests are about number
   * checks and the automatic stop (V1CampaignSafeSendingTest tests the policy).
   */
  private static final String[] SAFE_SENDING_OFF = TestGateway.safeSendingOff();

  @TempDir Path dir;

  /**
   * The pace at 10 checks a minute rather than the default 20 (the same rule, fewer sends for a
   * busy test machine): each minute of the clock gives 10 checks, and the window of five waits.
   */
  @Test
  void numberChecksArePacedAndNumbersNotOnWhatsAppAreNoSurge() {
    String[] flags = TestGateway.safeSendingOff("--drivers.waha.number-checks-per-minute=10");
    try (WahaFixture f = new WahaFixture(dir, flags)) {
      Device device = WahaEngineFlavoursTest.paired(f, "+6281100009101");
      List<String> phones = contacts(f, "+62811000092", 22);
      // The first six (recipients are taken by phone) are not on WhatsApp: as a failure surge
      // they would stop the campaign at the fifth.
      for (int i = 0; i < 6; i++) {
        f.waha.notOnWhatsApp(phones.get(i).substring(1));
      }
      Campaigns campaigns = f.kurir.gateway().campaigns();
      long id = start(f, "Promo");

      // The first minute on the gateway's clock: the device's 10 checks, then its window of five
      // waits for the next minute; nothing more is handed over meanwhile.
      awaitCounts(f, id, 10, 5);
      assertThat(f.waha.sending().checks()).hasSize(10);
      Campaign.Counts first = campaigns.counts(f.license.id(), id);
      assertThat(first.failed()).isEqualTo(6);
      assertThat(first.waiting()).isEqualTo(7);
      assertThat(campaigns.get(f.license.id(), id).status()).isEqualTo(CampaignStatus.RUNNING);

      // The next minute: 10 more (the five that waited, five of the seven), two wait again.
      f.clock.advance(Duration.ofMinutes(1));
      awaitCounts(f, id, 20, 2);
      assertThat(f.waha.sending().checks()).hasSize(20);

      f.clock.advance(Duration.ofMinutes(1));
      awaitCounts(f, id, 22, 0);
      Eventually.until(
          "the campaign done",
          () -> campaigns.get(f.license.id(), id).status() == CampaignStatus.DONE);
      assertThat(f.waha.sending().checks())
          .as("each number checked once")
          .hasSize(22)
          .doesNotHaveDuplicates();
      Campaign done = campaigns.get(f.license.id(), id);
      assertThat(done.stopReason()).isEmpty();
      assertThat(campaigns.counts(f.license.id(), id).failed()).isEqualTo(6);
      assertThat(f.waha.sent()).hasSize(16);
    }
  }

  @Test
  void messageCappingStopsTheCampaign() {
    try (WahaFixture f = new WahaFixture(dir, SAFE_SENDING_OFF)) {
      Device device = WahaEngineFlavoursTest.paired(f, "+6281100009301");
      contacts(f, "+62811000094", 30);
      long id = start(f, "Promo");
      awaitCounts(f, id, 20, 5); // the first minute's checks spent: five wait in the queue

      f.waha.capping(
          "kurir-" + device.id(), "CAPPED", 100, 100, f.clock.instant().plus(Duration.ofDays(3)));
      Campaigns campaigns = f.kurir.gateway().campaigns();
      Eventually.until(
          "the campaign stopped",
          () -> campaigns.get(f.license.id(), id).status() == CampaignStatus.PAUSED);
      assertThat(campaigns.get(f.license.id(), id).stopReason()).contains("message_capped");
      Eventually.until(
          "its window taken back", () -> campaigns.counts(f.license.id(), id).waiting() == 10);
      assertThat(f.events(device))
          .anySatisfy(e -> assertThat(e).contains("message capping is CAPPED"));
      f.clock.advance(Duration.ofMinutes(1));
      assertThat(campaigns.counts(f.license.id(), id).queued()).isZero();
    }
  }

  @Test
  void theReachOutTimeLockStopsTheCampaign() {
    try (WahaFixture f = new WahaFixture(dir, SAFE_SENDING_OFF)) {
      Device device = WahaEngineFlavoursTest.paired(f, "+6281100009501");
      contacts(f, "+62811000096", 8);
      Instant ends = f.clock.instant().plus(Duration.ofHours(2));
      f.waha.sending().reachOutLock(ends, true);
      long id = start(f, "Promo");
      Campaigns campaigns = f.kurir.gateway().campaigns();
      Eventually.until(
          "the campaign stopped",
          () -> campaigns.get(f.license.id(), id).status() == CampaignStatus.PAUSED);
      assertThat(campaigns.get(f.license.id(), id).stopReason()).contains("reach_out_locked");
      Eventually.until(
          "its messages taken back", () -> campaigns.counts(f.license.id(), id).waiting() == 8);
      assertThat(f.waha.sending().refused463()).isOne();
      assertThat(f.events(device)).anySatisfy(e -> assertThat(e).contains("error 463"));
      assertThat(f.waha.sent()).isEmpty();
    }
  }

  /** {@code n} contacts of the fixture's license, tagged {@code promo}, by phone. */
  private static List<String> contacts(WahaFixture f, String prefix, int n) {
    StringBuilder csv = new StringBuilder("phone,name,tags\n");
    List<String> phones = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String p = prefix + String.format("%02d", i);
      phones.add(p);
      csv.append(p).append(",C").append(i).append(",promo\n");
    }
    f.kurir.gateway().contactBook().importCsv(f.license.id(), csv.toString(), false);
    return phones;
  }

  /** A started campaign to the contacts tagged {@code promo}, without quiet hours. */
  private static long start(WahaFixture f, String name) {
    ObjectNode message = JSON.createObjectNode().put("type", "text");
    message.putObject("text").put("body", "Halo {name}");
    Campaigns campaigns = f.kurir.gateway().campaigns();
    Campaign c =
        campaigns.create(
            f.license.id(),
            new CampaignDraft(
                name,
                List.of("promo"),
                message,
                List.of(),
                List.of(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty()));
    campaigns.start(f.license.id(), c.id());
    return c.id();
  }

  /**
   * Waits until {@code settled} of the campaign's messages are settled and {@code queued} wait.
   * Each look that finds it not yet there moves the clock on by a millisecond: a sender or the
   * runner that went to sleep on the clock just as the test moved it is woken again (seen once in
   * ten runs on a loaded machine after the safe-sending merge); a millisecond gives no number check
   * back.
   */
  private static void awaitCounts(WahaFixture f, long id, int settled, int queued) {
    Campaigns campaigns = f.kurir.gateway().campaigns();
    Eventually.until(
        settled + " settled, " + queued + " queued",
        () -> {
          Campaign.Counts n = campaigns.counts(f.license.id(), id);
          boolean there =
              n.sent() + n.delivered() + n.read() + n.failed() == settled && n.queued() == queued;
          if (!there) {
            f.clock.advance(Duration.ofMillis(1));
          }
          return there;
        });
  }
}
