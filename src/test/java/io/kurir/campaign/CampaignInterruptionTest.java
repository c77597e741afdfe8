package io.kurir.campaign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.message.Messages.GuardedSend;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.LogCapture;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestTables;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A campaign's work cut off where it hurts, on a real gateway and database: an expansion whose page
 * commit fails half-way (a trigger of the test refuses one of the page's rows, so the commit rolls
 * back as a full disk or a lost connection would) resumes from the last page that committed, each
 * contact once; a list upload cut off in a commit never becomes the campaign's audience (the list
 * before it stays) and leaves no rows behind once an upload completes; recipients read by the
 * runner before a pause and handed over after it are refused, and the paused campaign sends nothing
 * more while its devices send other campaigns.
 */
@ResourceLock(LogCapture.LOG)
class CampaignInterruptionTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  SettableClock clock;
  TestGateway kurir;

  @BeforeEach
  void start() {
    clock = TestGateway.settableClock();
    // The safe-sending policy off: these tests are about cuts, not pacing (as V1CampaignsTest).
    kurir = TestGateway.start(dir, clock, TestGateway.safeSendingOff("--send.retry-backoff=1s"));
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  @Test
  void anExpansionCutOffInAPageCommitResumesFromTheLastPageWithEachContactOnce() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    List<String> phones = contacts(device, 1_720, "all");
    String refused = phones.get(1_100); // in the third page
    clock.set(Instant.parse("2026-03-10T14:30:00Z")); // quiet: it expands and sends nothing
    refuseInsert("refuse_a_page", "campaign_recipient", refused, "the test refuses this page");
    Campaigns campaigns = kurir.gateway().campaigns();
    long id;
    try (LogCapture log = LogCapture.of()) {
      id = campaigns.create(device.licenseId(), draft("all")).id();
      campaigns.start(device.licenseId(), id);
      Eventually.until("the third page refused", () -> log.saw("the test refuses this page"));
    }
    Campaign cut = campaigns.get(device.licenseId(), id);
    assertThat(cut.expanded()).isFalse();
    assertThat(cut.cursor()).as("the cursor of the last page committed").isEqualTo(phones.get(999));
    assertThat(campaigns.counts(device.licenseId(), id).total()).isEqualTo(1_000);

    kurir.gateway().database().jdbi().useHandle(h -> h.execute("DROP TRIGGER refuse_a_page"));
    clock.set(clock.instant().plus(Duration.ofMinutes(1))); // the runner's back-off, still quiet
    Eventually.until("expanded", () -> campaigns.get(device.licenseId(), id).expanded());

    List<String> taken = new ArrayList<>();
    campaigns.forEachRecipient(device.licenseId(), id, r -> taken.add(r.phone()));
    assertThat(taken).as("each contact once, none skipped").hasSize(1_720);
    assertThat(new HashSet<>(taken)).containsExactlyInAnyOrderElementsOf(phones);
    assertThat(campaigns.counts(device.licenseId(), id).waiting()).isEqualTo(1_720);
  }

  @Test
  void aListUploadCutOffPartWayNeverBecomesTheAudience() throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    Campaigns campaigns = kurir.gateway().campaigns();
    ObjectNode message =
        (ObjectNode) JSON.readTree("{\"type\":\"text\",\"text\":{\"body\":\"Halo {kelas}\"}}");
    long id =
        campaigns
            .create(
                device.licenseId(),
                new CampaignDraft(
                    "Parents",
                    List.of(),
                    message,
                    List.of(),
                    List.of(),
                    Optional.empty(),
                    Optional.of(QuietHours.DEFAULT),
                    Optional.empty(),
                    true))
            .id();
    String first = Numbers.fresh();
    assertThat(
            campaigns.uploadList(device.licenseId(), id, "phone\n" + first + "\n", false).listed())
        .isEqualTo(1);
    List<String> phones = new ArrayList<>();
    StringBuilder csv = new StringBuilder("phone,kelas\n");
    for (int i = 0; i < 1_300; i++) {
      String phone = Numbers.fresh();
      phones.add(phone);
      csv.append(phone).append(",7").append(i % 3).append('\n');
    }
    String refused = phones.get(1_100); // in the third commit of 500
    refuseInsert("refuse_a_batch", "campaign_list", refused, "the test refuses this batch");
    // The upload fails in its third commit, as a dropped connection or a full disk would.
    assertThatThrownBy(() -> campaigns.uploadList(device.licenseId(), id, csv.toString(), false))
        .hasMessageContaining("the test refuses this batch");
    Campaign cut = campaigns.get(device.licenseId(), id);
    assertThat(cut.listRows()).as("the list uploaded before, whole").contains(1);

    kurir.gateway().database().jdbi().useHandle(h -> h.execute("DROP TRIGGER refuse_a_batch"));
    assertThat(campaigns.uploadList(device.licenseId(), id, csv.toString(), false).listed())
        .isEqualTo(1_300);
    assertThat(listed(id)).as("the cut-off rows and the replaced list removed").isEqualTo(1_300);

    clock.set(Instant.parse("2026-03-10T14:30:00Z")); // quiet: it expands and sends nothing
    campaigns.start(device.licenseId(), id);
    Eventually.until("expanded", () -> campaigns.get(device.licenseId(), id).expanded());
    List<CampaignRecipient> taken = new ArrayList<>();
    campaigns.forEachRecipient(device.licenseId(), id, taken::add);
    assertThat(taken)
        .extracting(CampaignRecipient::phone)
        .containsExactlyInAnyOrderElementsOf(phones);
    assertThat(taken.getFirst().variables()).containsKey("kelas");
    assertThat(listed(id)).as("the list, copied into the recipients, removed").isZero();
  }

  @Test
  void recipientsHandedOverAfterAPauseAreRefusedAndThePausedCampaignSendsNothingMore()
      throws Exception {
    Device device = kurir.newDevice(Numbers.fresh(), true);
    List<String> phones = contacts(device, 8, "promo");
    kurir.sandbox().setDeviceOnline(device.id(), false);
    Campaigns campaigns = kurir.gateway().campaigns();
    long id = campaigns.create(device.licenseId(), draft("promo")).id();
    campaigns.start(device.licenseId(), id);
    Eventually.until(
        "a window handed over", () -> campaigns.counts(device.licenseId(), id).queued() == 5);

    // What the runner had read before the pause, in flight to the queue when it came.
    CampaignStore store = new CampaignStore(kurir.gateway().database());
    Campaign running = campaigns.get(device.licenseId(), id);
    List<GuardedSend> inFlight = new ArrayList<>();
    for (CampaignRecipient r : store.waiting(id, 3)) {
      ObjectNode message = CampaignMessages.personalise(running.message(), r.variables());
      inFlight.add(
          new GuardedSend(
              device,
              CampaignMessages.request(message, r.phone()),
              (tx, messageId) ->
                  CampaignStore.hand(
                      tx,
                      id,
                      device.licenseId(),
                      r.phone(),
                      device.id(),
                      messageId,
                      clock.instant(),
                      clock.instant())));
    }
    assertThat(inFlight).hasSize(3);
    campaigns.pause(device.licenseId(), id);
    assertThat(kurir.gateway().messages().acceptGuarded(inFlight))
        .as("nothing handed over after the pause")
        .allSatisfy(stored -> assertThat(stored).isEmpty());
    assertThat(TestTables.of(kurir).messagesOf(device.id()))
        .as("the 5 taken back, none added")
        .hasSize(5)
        .allSatisfy(m -> assertThat(m.reason()).contains("campaign_paused"));
    assertThat(campaigns.counts(device.licenseId(), id).waiting()).isEqualTo(8);

    // The device back, a second campaign on it: once its message is on the phone, the runner and
    // the device's sender have had their turns, and the paused campaign sent nothing.
    String other = contacts(device, 1, "other").getFirst();
    kurir.sandbox().setDeviceOnline(device.id(), true);
    long second = campaigns.create(device.licenseId(), draft("other")).id();
    campaigns.start(device.licenseId(), second);
    Eventually.until("the other campaign's message", () -> !kurir.sandbox().inbox(other).isEmpty());
    phones.forEach(p -> assertThat(kurir.sandbox().inbox(p)).as(p).isEmpty());
    assertThat(campaigns.counts(device.licenseId(), id).waiting()).isEqualTo(8);

    campaigns.resume(device.licenseId(), id);
    Eventually.until(
        "done", () -> campaigns.get(device.licenseId(), id).status() == CampaignStatus.DONE);
    phones.forEach(p -> assertThat(kurir.sandbox().inbox(p)).as(p).hasSize(1));
  }

  /** How many rows of uploaded lists the campaign has in {@code campaign_list}. */
  private int listed(long campaignId) {
    return kurir
        .gateway()
        .database()
        .jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT COUNT(*) FROM campaign_list WHERE campaign_id = ?")
                    .bind(0, campaignId)
                    .mapTo(Integer.class)
                    .one());
  }

  /**
   * A trigger of the test that refuses inserting {@code phone} into {@code table}, so that the
   * commit holding it rolls back as a full disk or a lost connection would.
   */
  private void refuseInsert(String trigger, String table, String phone, String message) {
    kurir
        .gateway()
        .database()
        .jdbi()
        .useHandle(
            h ->
                h.execute(
                    "CREATE TRIGGER "
                        + trigger
                        + " BEFORE INSERT ON "
                        + table
                        + " WHEN NEW.phone = '"
                        + phone
                        + "' BEGIN SELECT RAISE(ABORT, '"
                        + message
                        + "'); END"));
  }

  /** {@code n} contacts of the device's license tagged {@code tag}, by phone. */
  private List<String> contacts(Device device, int n, String tag) {
    StringBuilder csv = new StringBuilder("phone,name,tags\n");
    List<String> phones = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String phone = Numbers.fresh();
      phones.add(phone);
      csv.append(phone).append(",C").append(i).append(',').append(tag).append('\n');
    }
    assertThat(kurir.gateway().contactBook().importCsv(device.licenseId(), csv.toString(), false))
        .satisfies(r -> assertThat(r.refused()).isEmpty());
    phones.sort(null);
    return phones;
  }

  private static CampaignDraft draft(String tag) throws Exception {
    ObjectNode message =
        (ObjectNode) JSON.readTree("{\"type\":\"text\",\"text\":{\"body\":\"Halo {name}\"}}");
    return new CampaignDraft(
        "Cut " + tag,
        List.of(tag),
        message,
        List.of(),
        List.of(),
        Optional.empty(),
        Optional.of(QuietHours.DEFAULT),
        Optional.empty());
  }
}
