package io.kurir.campaign;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.contactbook.ContactBook;
import io.kurir.contactbook.ContactList;
import io.kurir.content.CloudMessageJson;
import io.kurir.content.MessageKind;
import io.kurir.driver.Drivers;
import io.kurir.message.Messages;
import io.kurir.message.SendRefused;
import io.kurir.phone.PhoneNumbers;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A license's campaigns: made as drafts, started (at once or at their start time), paused, resumed
 * and cancelled; their progress and their per-recipient report. The sending itself is {@link
 * CampaignRunner}'s.
 *
 * <p>Pause and cancel take back what is still queued: a paused campaign sends nothing more (its
 * recipients whose message had not gone out wait again), a cancelled one keeps its report.
 *
 * <p>Thread-safe.
 */
public final class Campaigns {
  static final int MAX_NAME = 200;
  static final int MAX_VARIANTS = 10;
  static final int MAX_TAGS = 50;

  private final CampaignStore store;
  private final IdGenerator ids;
  private final Clock clock;
  private final Tenants tenants;
  private final PhoneNumbers phones;
  private final Messages messages;
  private final Drivers drivers;
  private final Runnable wakeRunner;
  private final ContactBook book;

  public Campaigns(
      Database db,
      IdGenerator ids,
      Clock clock,
      Tenants tenants,
      PhoneNumbers phones,
      Messages messages,
      Drivers drivers,
      ContactBook book,
      Runnable wakeRunner) {
    this.store = new CampaignStore(db);
    this.book = book;
    this.ids = ids;
    this.clock = clock;
    this.tenants = tenants;
    this.phones = phones;
    this.messages = messages;
    this.drivers = drivers;
    this.wakeRunner = wakeRunner;
  }

  /**
   * A new draft campaign of the license.
   *
   * @throws CampaignRefused when a field is not valid or a device is not the license's
   * @throws io.kurir.content.ContentRefused when a message object is not one the API takes
   * @throws SendRefused {@code KIND_NOT_SUPPORTED} when a device of the pool cannot carry it
   */
  public Campaign create(long licenseId, CampaignDraft draft) {
    String name = draft.name().strip();
    if (name.isEmpty() || name.length() > MAX_NAME) {
      throw field("name is 1 to " + MAX_NAME + " characters");
    }
    Set<String> tags = new LinkedHashSet<>();
    draft.tags().stream().map(ContactBook::tagKey).filter(t -> !t.isEmpty()).forEach(tags::add);
    if (draft.list() && !draft.tags().isEmpty()) {
      throw field(
          "audience is either {\"tags\": [...]} (the contact book's tags) or {\"list\": true}"
              + " (a list uploaded to the campaign), not both");
    }
    if (!draft.list() && (tags.isEmpty() || tags.size() > MAX_TAGS)) {
      throw field("audience.tags names 1 to " + MAX_TAGS + " tags of the contact book");
    }
    if (draft.variants().size() > MAX_VARIANTS) {
      throw field("at most " + MAX_VARIANTS + " variants");
    }
    List<Long> pool = new ArrayList<>();
    List<Device> devices = tenants.devicesOf(tenants.license(licenseId));
    for (String named : draft.devices()) {
      Device d =
          devices.stream()
              .filter(x -> names(x, named))
              .findFirst()
              .orElseThrow(
                  () ->
                      new CampaignRefused(
                          CampaignRefused.Reason.DEVICE_NOT_FOUND,
                          "the license has no device " + named.strip()));
      if (!pool.contains(d.id())) {
        pool.add(d.id());
      }
    }
    Optional<ObjectNode> template = draft.template().map(Campaigns::templateMessage);
    Set<MessageKind> kinds = CampaignDevices.kinds(draft.message(), draft.variants());
    for (Device d : devices) {
      boolean inPool = pool.isEmpty() ? !d.disabled() : pool.contains(d.id());
      if (!inPool) {
        continue;
      }
      if (CampaignDevices.lacksTemplate(drivers, d, template.isPresent(), kinds)) {
        throw templateRequired(d, "");
      }
      Optional<MessageKind> refused =
          CampaignDevices.notCarried(
              drivers,
              d,
              CampaignDevices.kindsFor(
                  drivers, d, draft.message(), draft.variants(), template.isPresent()));
      if (refused.isPresent()) {
        throw new SendRefused(
            SendRefused.Reason.KIND_NOT_SUPPORTED,
            "device "
                + d.number()
                + " (the "
                + d.driver()
                + " driver) cannot carry "
                + refused.get().wireName()
                + ": name the devices that can in devices, or send another kind");
      }
    }
    Instant now = clock.instant();
    Campaign c =
        new Campaign(
            ids.next(),
            licenseId,
            name,
            CampaignStatus.DRAFT,
            List.copyOf(tags),
            draft.message(),
            draft.variants(),
            pool,
            draft.startAt(),
            draft.quietHours(),
            false,
            "",
            Optional.empty(),
            now,
            now,
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            template,
            draft.list(),
            Optional.empty(),
            Optional.empty());
    store.insert(c);
    return c;
  }

  /** The license's campaigns, newest first. */
  public List<Campaign> list(long licenseId) {
    return store.ofLicense(licenseId);
  }

  /** The license's campaign {@code id}. */
  public Campaign get(long licenseId, long id) {
    return store
        .find(id)
        .filter(c -> c.licenseId() == licenseId)
        .orElseThrow(
            () -> new CampaignRefused(CampaignRefused.Reason.NOT_FOUND, "no campaign " + id));
  }

  /** How many of its recipients are where. */
  public Campaign.Counts counts(long licenseId, long id) {
    return store.counts(get(licenseId, id).id());
  }

  /**
   * The campaign's sends and outcomes over time, in {@code buckets} buckets of {@code width} from
   * {@code from} (its chart).
   */
  public CampaignTimeline timeline(
      long licenseId, long id, Instant from, java.time.Duration width, int buckets) {
    if (buckets < 1 || buckets > 1000 || width.toMillis() < 1) {
      throw new IllegalArgumentException("1 to 1000 buckets of a millisecond or more");
    }
    return store.timeline(get(licenseId, id).id(), from, width, buckets);
  }

  /** Every recipient of the campaign, by phone, a page read at a time. */
  public void forEachRecipient(long licenseId, long id, Consumer<CampaignRecipient> each) {
    store.forEachRecipient(get(licenseId, id).id(), each);
  }

  /**
   * The campaign's per-recipient report as CSV, written to {@code out} as it is read, a page at a
   * time: a header row, then one row per recipient by phone ({@code phone, name, variant, device,
   * message_id, status, reason, handed_at, sent_at, settled_at}). Kurir's API and the console serve
   * the same file.
   */
  public void writeReport(long licenseId, long id, Writer out) throws IOException {
    long campaign = get(licenseId, id).id();
    out.write(ContactBook.csvLine(REPORT_COLUMNS, -1));
    try {
      store.forEachRecipient(
          campaign,
          r -> {
            try {
              out.write(ContactBook.csvLine(reportRow(r), 0));
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  private static final List<String> REPORT_COLUMNS =
      List.of(
          "phone",
          "name",
          "variant",
          "device",
          "message_id",
          "status",
          "reason",
          "handed_at",
          "sent_at",
          "settled_at");

  private static List<String> reportRow(CampaignRecipient r) {
    return List.of(
        r.phone(),
        r.name().orElse(""),
        Integer.toString(r.variant()),
        r.deviceId().map(String::valueOf).orElse(""),
        r.messageId().map(String::valueOf).orElse(""),
        r.status(),
        r.reason().orElse(""),
        r.handedAt().map(Instant::toString).orElse(""),
        r.sentAt().map(Instant::toString).orElse(""),
        r.settledAt().map(Instant::toString).orElse(""));
  }

  /** Listed contacts written per commit of an upload. */
  private static final int LIST_BATCH = 500;

  /**
   * Uploads the audience of a draft whose audience is a list: a CSV in the contact import's format
   * ({@link ContactBook#readList}), kept for this campaign only, never put into the book. A second
   * upload replaces the list. Stored {@value #LIST_BATCH} contacts a commit under the upload's own
   * id; only the final commit makes it the campaign's list, so an upload cut off part-way leaves
   * the list as it was. {@code preview}: only says what it would do.
   *
   * @throws CampaignRefused {@code STATUS_NOT_VALID} when the campaign is not a draft, {@code
   *     FIELD_NOT_VALID} when its audience is tags
   * @throws io.kurir.contactbook.ContactRefused when the CSV is not one the import reads
   */
  public ListReport uploadList(long licenseId, long id, String csv, boolean preview) {
    Campaign c = get(licenseId, id);
    if (!c.list()) {
      throw field(
          "campaign "
              + c.id()
              + "'s audience is the contact book's tags: a list is uploaded to a campaign made"
              + " with audience {\"list\": true}");
    }
    requireDraft(c, "upload a list");
    ContactList list = book.readList(csv);
    List<String> phonesListed = list.entries().stream().map(ContactList.Entry::phone).toList();
    int optedOut = book.unsubscribedAmong(licenseId, phonesListed).size();
    if (!preview) {
      long upload = ids.next();
      store.clearUnfinishedLists(c.id());
      for (int i = 0; i < list.entries().size(); i += LIST_BATCH) {
        List<ContactList.Entry> batch =
            list.entries().subList(i, Math.min(list.entries().size(), i + LIST_BATCH));
        if (!store.writeList(c.id(), upload, batch)) {
          requireDraft(get(licenseId, id), "upload a list");
        }
      }
      if (!store.completeList(c.id(), upload, list.entries().size(), clock.instant())) {
        requireDraft(get(licenseId, id), "upload a list");
        throw new CampaignRefused(
            CampaignRefused.Reason.STATUS_NOT_VALID,
            "another upload to campaign " + c.id() + " replaced this one while it was stored");
      }
    }
    return new ListReport(
        list.rows(), list.entries().size(), list.merged(), optedOut, list.refused(), !preview);
  }

  private static void requireDraft(Campaign c, String action) {
    if (c.status() != CampaignStatus.DRAFT) {
      throw new CampaignRefused(
          CampaignRefused.Reason.STATUS_NOT_VALID,
          "campaign "
              + c.id()
              + " is "
              + c.status().wireName()
              + ": "
              + action
              + " applies to a draft");
    }
  }

  /** Starts a draft: running at once, or scheduled until its start time. */
  public Campaign start(long licenseId, long id) {
    Campaign c = get(licenseId, id);
    if (c.list() && c.listRows().isEmpty() && c.status() == CampaignStatus.DRAFT) {
      throw new CampaignRefused(
          CampaignRefused.Reason.LIST_MISSING,
          "campaign "
              + c.id()
              + "'s audience is an uploaded list and none is uploaded yet: POST the list as CSV to"
              + " /v1/campaigns/"
              + c.id()
              + "/audience first");
    }
    if (c.status() == CampaignStatus.DRAFT) {
      requireDeviceWithoutTemplate(c);
    }
    Instant now = clock.instant();
    CampaignStatus to =
        c.startAt().filter(at -> at.isAfter(now)).isPresent()
            ? CampaignStatus.SCHEDULED
            : CampaignStatus.RUNNING;
    move(c, EnumSet.of(CampaignStatus.DRAFT), to, "start", "a draft");
    wakeRunner.run();
    return get(licenseId, id);
  }

  /**
   * Pauses a running or scheduled campaign: nothing more is handed to the queue, and its messages
   * still queued are taken back (their recipients wait again).
   */
  public Campaign pause(long licenseId, long id) {
    Campaign c = get(licenseId, id);
    move(
        c,
        EnumSet.of(CampaignStatus.RUNNING, CampaignStatus.SCHEDULED),
        CampaignStatus.PAUSED,
        "pause",
        "a running or scheduled campaign");
    takeBack(store, messages, clock, c.id(), q -> true, "waiting", "campaign_paused");
    return get(licenseId, id);
  }

  /** Resumes a paused campaign where it stopped (scheduled again if paused before its time). */
  public Campaign resume(long licenseId, long id) {
    Campaign c = get(licenseId, id);
    // One paused before its start time waits for it again.
    CampaignStatus to =
        c.startAt().filter(at -> at.isAfter(clock.instant())).isPresent()
            ? CampaignStatus.SCHEDULED
            : CampaignStatus.RUNNING;
    move(c, EnumSet.of(CampaignStatus.PAUSED), to, "resume", "a paused campaign");
    wakeRunner.run();
    return get(licenseId, id);
  }

  /**
   * Cancels a campaign that has not ended: its queued messages are taken back, its waiting
   * recipients cancelled; its report stays.
   */
  public Campaign cancel(long licenseId, long id) {
    Campaign c = get(licenseId, id);
    move(
        c,
        EnumSet.of(
            CampaignStatus.DRAFT,
            CampaignStatus.SCHEDULED,
            CampaignStatus.RUNNING,
            CampaignStatus.PAUSED),
        CampaignStatus.CANCELLED,
        "cancel",
        "a campaign that has not ended");
    takeBack(store, messages, clock, c.id(), q -> true, "cancelled", "campaign_cancelled");
    store.cancelWaiting(c.id(), clock.instant());
    store.dropList(c.id());
    return get(licenseId, id);
  }

  /**
   * Takes back the campaign's messages no sender has claimed yet (those {@code which} picks): each
   * fails with {@code reason}, and its recipient moves to {@code to}, in one commit. One already
   * being sent goes out. Also what an automatic stop takes back ({@link CampaignStops}).
   */
  static void takeBack(
      CampaignStore store,
      Messages messages,
      Clock clock,
      long campaignId,
      java.util.function.Predicate<CampaignStore.Queued> which,
      String to,
      String reason) {
    for (CampaignStore.Queued q : store.queued(campaignId)) {
      if (!which.test(q)) {
        continue;
      }
      messages.cancelQueued(
          q.deviceId(),
          q.messageId(),
          reason,
          (tx, messageId) ->
              CampaignStore.unhand(tx, campaignId, q.phone(), q.messageId(), to, clock.instant()));
    }
  }

  private void move(
      Campaign c, Set<CampaignStatus> from, CampaignStatus to, String action, String what) {
    if (!store.move(c.id(), from, to, Optional.empty(), clock.instant())) {
      throw new CampaignRefused(
          CampaignRefused.Reason.STATUS_NOT_VALID,
          "campaign "
              + c.id()
              + " is "
              + store.find(c.id()).map(x -> x.status().wireName()).orElse("gone")
              + ": "
              + action
              + " applies to "
              + what);
    }
  }

  /**
   * Refuses to start a campaign with no template whose pool now holds only devices that need one (a
   * Cloud API number enabled since the campaign was made, the others disabled): the runner leaves
   * such devices out of the pool, so it would pause at once with nothing sent. A pool where another
   * device can send starts, and that device sends.
   */
  private void requireDeviceWithoutTemplate(Campaign c) {
    Set<MessageKind> kinds = CampaignDevices.kinds(c.message(), c.variants());
    List<Device> pool =
        tenants.devicesOf(tenants.license(c.licenseId())).stream()
            .filter(d -> c.devices().isEmpty() ? !d.disabled() : c.devices().contains(d.id()))
            .toList();
    List<Device> lacking =
        pool.stream()
            .filter(d -> CampaignDevices.lacksTemplate(drivers, d, c.template().isPresent(), kinds))
            .toList();
    if (!lacking.isEmpty() && lacking.size() == pool.size()) {
      throw templateRequired(
          lacking.getFirst(), " (no other device of the campaign's pool can send its message)");
    }
  }

  private static CampaignRefused templateRequired(Device d, String more) {
    return new CampaignRefused(
        CampaignRefused.Reason.TEMPLATE_REQUIRED,
        "device "
            + d.number()
            + " is a Cloud API number: Meta delivers a free-form message only to someone who"
            + " wrote to it in the last 24 hours, so a campaign sends it an approved template;"
            + " give template {name, language: {code}, components}, or name other devices in"
            + " devices"
            + more);
  }

  /** Whether {@code named} is the device's id or its number, written as customers write one. */
  private boolean names(Device d, String named) {
    return named.strip().equals(Long.toString(d.id()))
        || phones.normalize(named).map(n -> n.equals(d.number())).orElse(false);
  }

  /**
   * The template object as the native message object of type {@code template}, checked as {@code
   * POST /v1/messages} checks one.
   *
   * @throws io.kurir.content.ContentRefused when it is not Meta's template object
   */
  private static ObjectNode templateMessage(ObjectNode template) {
    ObjectNode message = JsonNodeFactory.instance.objectNode();
    message.put("type", MessageKind.TEMPLATE.wireName());
    message.set("template", template.deepCopy());
    CloudMessageJson.parse(message);
    return message;
  }

  private static CampaignRefused field(String message) {
    return new CampaignRefused(CampaignRefused.Reason.FIELD_NOT_VALID, message);
  }
}
