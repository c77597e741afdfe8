package io.kurir.campaign;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.contactbook.ContactList;
import io.kurir.store.Database;
import io.kurir.store.Transaction;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.jdbi.v3.core.statement.PreparedBatch;

/**
 * The SQL of campaigns ({@code campaign}) and their recipients ({@code campaign_recipient}). It
 * reads the message queue's table and the contact book's to count a campaign's outcomes and to skip
 * a contact that opted out, in the commit that would hand it over. Plain, portable SQL.
 *
 * <p>Thread-safe.
 */
final class CampaignStore {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String COLUMNS =
      "id, license_id, name, status, tags, message, variants, devices, start_at, quiet_from,"
          + " quiet_to, expanded, cursor_phone, stop_reason, created_at, updated_at, started_at,"
          + " finished_at, waiting_reason, waiting_until, template, audience_list, list_upload,"
          + " list_rows";

  private static final String RECIPIENT =
      "r.campaign_id, r.phone, r.name, r.variables, r.variant, r.state, r.device_id,"
          + " r.message_id, COALESCE(r.reason, CASE WHEN m.state = 'failed' THEN m.reason END)"
          + " AS reason, r.handed_at, COALESCE(r.settled_at, CASE WHEN m.state IN ('read',"
          + " 'failed') THEN m.status_at END) AS settled_at, m.state AS message_state,"
          + " m.sent_at AS message_sent_at";

  /** A recipient's message still to be sent: what a pause or a cancel takes back. */
  record Queued(String phone, long deviceId, long messageId) {}

  private final Database db;

  CampaignStore(Database db) {
    this.db = db;
  }

  void insert(Campaign c) {
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "INSERT INTO campaign ("
                            + COLUMNS
                            + ") VALUES (:id, :license, :name, :status, :tags, :message,"
                            + " :variants, :devices, :startAt, :quietFrom, :quietTo, 0, '', NULL,"
                            + " :createdAt, :createdAt, NULL, NULL, NULL, NULL, :template, :list,"
                            + " NULL, NULL)")
                    .bind("id", c.id())
                    .bind("license", c.licenseId())
                    .bind("name", c.name())
                    .bind("status", c.status().wireName())
                    .bind("tags", json(c.tags()))
                    .bind("message", json(c.message()))
                    .bind("variants", c.variants().isEmpty() ? null : json(c.variants()))
                    .bind("devices", c.devices().isEmpty() ? null : json(c.devices()))
                    .bind("startAt", c.startAt().map(Instant::toEpochMilli).orElse(null))
                    .bind(
                        "quietFrom",
                        c.quietHours().map(q -> QuietHours.text(q.from())).orElse(null))
                    .bind("quietTo", c.quietHours().map(q -> QuietHours.text(q.to())).orElse(null))
                    .bind("createdAt", c.createdAt().toEpochMilli())
                    .bind("template", c.template().map(CampaignStore::json).orElse(null))
                    .bind("list", c.list() ? 1 : 0)
                    .execute());
  }

  Optional<Campaign> find(long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT " + COLUMNS + " FROM campaign WHERE id = ?")
                    .bind(0, id)
                    .map((rs, ctx) -> campaign(rs))
                    .findOne());
  }

  /** The license's campaigns, newest first. */
  List<Campaign> ofLicense(long licenseId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT "
                            + COLUMNS
                            + " FROM campaign WHERE license_id = ? ORDER BY id DESC LIMIT 1000")
                    .bind(0, licenseId)
                    .map((rs, ctx) -> campaign(rs))
                    .list());
  }

  /** The campaigns the runner works on: running ones, and scheduled ones. */
  List<Campaign> active() {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT "
                            + COLUMNS
                            + " FROM campaign WHERE status IN ('running', 'scheduled') ORDER BY id")
                    .map((rs, ctx) -> campaign(rs))
                    .list());
  }

  /**
   * Moves the campaign from one of {@code from} to {@code to}, with {@code stopReason}; false when
   * it was in none of them (another caller moved it first).
   */
  boolean move(
      long id,
      Collection<CampaignStatus> from,
      CampaignStatus to,
      Optional<String> stopReason,
      Instant at) {
    return db.writes()
            .write(
                h ->
                    h.createUpdate(
                            "UPDATE campaign SET status = :to, stop_reason = :reason,"
                                + " updated_at = :at,"
                                + " started_at = CASE WHEN :to IN ('running', 'scheduled')"
                                + " AND started_at IS NULL THEN :at ELSE started_at END,"
                                + " finished_at = CASE WHEN :to IN ('done', 'cancelled')"
                                + " THEN :at ELSE finished_at END"
                                + " WHERE id = :id AND status IN (<from>)")
                        .bind("to", to.wireName())
                        .bind("reason", stopReason.orElse(null))
                        .bind("at", at.toEpochMilli())
                        .bind("id", id)
                        .bindList("from", from.stream().map(CampaignStatus::wireName).toList())
                        .execute())
        == 1;
  }

  /** Says why the running campaign sends nothing now (empty: it sends). */
  void setWaiting(long id, Optional<Campaign.Waiting> waiting) {
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "UPDATE campaign SET waiting_reason = ?, waiting_until = ? WHERE id = ?")
                    .bind(0, waiting.map(Campaign.Waiting::reason).orElse(null))
                    .bind(1, waiting.map(w -> w.until().toEpochMilli()).orElse(null))
                    .bind(2, id)
                    .execute());
  }

  /**
   * Adds a page of the audience to the campaign's recipients and moves its cursor past them, in one
   * commit, if the cursor is still {@code after} (else another node took this page: nothing is
   * written, false). {@code last}: the audience ends with this page (and the campaign's uploaded
   * list, now all in its recipients, is removed).
   */
  boolean expand(
      long id, String after, String newCursor, boolean last, List<CampaignRecipient> page) {
    return db.writes()
        .write(
            h -> {
              int moved =
                  h.createUpdate(
                          "UPDATE campaign SET cursor_phone = ?, expanded = ?"
                              + " WHERE id = ? AND cursor_phone = ? AND expanded = 0")
                      .bind(0, newCursor)
                      .bind(1, last ? 1 : 0)
                      .bind(2, id)
                      .bind(3, after)
                      .execute();
              if (moved == 0) {
                return false;
              }
              if (last) {
                // An uploaded list is copied into the recipients now: its rows go, so the table
                // holds only lists still to be sent.
                h.createUpdate("DELETE FROM campaign_list WHERE campaign_id = ?")
                    .bind(0, id)
                    .execute();
              }
              if (page.isEmpty()) {
                return true;
              }
              // One batch: PostgreSQL's driver sends the page's inserts in one round trip instead
              // of 500 (a 100,000-recipient expansion took about a minute row by row).
              PreparedBatch batch =
                  h.prepareBatch(
                      "INSERT INTO campaign_recipient (campaign_id, phone, name, variables,"
                          + " variant, state) VALUES (?, ?, ?, ?, ?, 'waiting')");
              for (CampaignRecipient r : page) {
                batch
                    .bind(0, id)
                    .bind(1, r.phone())
                    .bind(2, r.name().orElse(null))
                    .bind(3, json(r.variables()))
                    .bind(4, r.variant())
                    .add();
              }
              batch.execute();
              return true;
            });
  }

  /**
   * Removes the rows of the campaign's uploads that never became its list (cut off part-way): a new
   * upload starts from a clean table.
   */
  void clearUnfinishedLists(long campaignId) {
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "DELETE FROM campaign_list WHERE campaign_id = :c AND upload <> COALESCE("
                            + "(SELECT list_upload FROM campaign WHERE id = :c), -1)")
                    .bind("c", campaignId)
                    .execute());
  }

  /**
   * Writes one batch of an upload's contacts in one commit, if the campaign is still a draft (else
   * nothing is written: false).
   */
  boolean writeList(long campaignId, long upload, List<ContactList.Entry> batch) {
    return db.writes()
        .write(
            h -> {
              boolean draft =
                  h.createQuery("SELECT 1 FROM campaign WHERE id = ? AND status = 'draft'")
                      .bind(0, campaignId)
                      .mapTo(Integer.class)
                      .findOne()
                      .isPresent();
              if (!draft) {
                return false;
              }
              PreparedBatch insert =
                  h.prepareBatch(
                      "INSERT INTO campaign_list (campaign_id, upload, phone, name, variables)"
                          + " VALUES (?, ?, ?, ?, ?)");
              for (ContactList.Entry e : batch) {
                insert
                    .bind(0, campaignId)
                    .bind(1, upload)
                    .bind(2, e.phone())
                    .bind(3, e.name().orElse(null))
                    .bind(4, json(e.variables()))
                    .add();
              }
              insert.execute();
              return true;
            });
  }

  /**
   * The upload's final commit: it becomes the campaign's list if the campaign is still a draft and
   * every one of its {@code rows} contacts is stored; the list it replaces is removed. False when
   * it did not.
   */
  boolean completeList(long campaignId, long upload, int rows, Instant at) {
    return db.writes()
        .write(
            h -> {
              int moved =
                  h.createUpdate(
                          "UPDATE campaign SET list_upload = :u, list_rows = :n, updated_at = :at"
                              + " WHERE id = :c AND status = 'draft' AND audience_list = 1"
                              + " AND (SELECT COUNT(*) FROM campaign_list"
                              + " WHERE campaign_id = :c AND upload = :u) = :n")
                      .bind("u", upload)
                      .bind("n", rows)
                      .bind("at", at.toEpochMilli())
                      .bind("c", campaignId)
                      .execute();
              if (moved == 0) {
                return false;
              }
              h.createUpdate("DELETE FROM campaign_list WHERE campaign_id = ? AND upload <> ?")
                  .bind(0, campaignId)
                  .bind(1, upload)
                  .execute();
              return true;
            });
  }

  /** A page of the campaign's uploaded list, by phone, those after {@code afterPhone}. */
  List<ContactList.Entry> listPage(long campaignId, long upload, String afterPhone, int limit) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT phone, name, variables FROM campaign_list WHERE campaign_id = ?"
                            + " AND upload = ? AND phone > ? ORDER BY phone LIMIT ?")
                    .bind(0, campaignId)
                    .bind(1, upload)
                    .bind(2, afterPhone)
                    .bind(3, limit)
                    .map(
                        (rs, ctx) -> {
                          java.util.TreeMap<String, String> attributes =
                              new java.util.TreeMap<>(
                                  read(
                                      rs.getString("variables"),
                                      new TypeReference<Map<String, String>>() {}));
                          attributes.remove("phone");
                          attributes.remove("name");
                          return new ContactList.Entry(
                              rs.getString("phone"),
                              Optional.ofNullable(rs.getString("name")),
                              attributes);
                        })
                    .list());
  }

  /** Up to {@code limit} of the campaign's recipients still waiting, by phone. */
  List<CampaignRecipient> waiting(long campaignId, int limit) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT "
                            + RECIPIENT
                            + " FROM campaign_recipient r LEFT JOIN message m"
                            + " ON m.id = r.message_id WHERE r.campaign_id = ?"
                            + " AND r.state = 'waiting' ORDER BY r.phone LIMIT ?")
                    .bind(0, campaignId)
                    .bind(1, limit)
                    .map((rs, ctx) -> recipient(rs))
                    .list());
  }

  /** The campaign's messages not sent yet (pending or being sent), by device. */
  Map<Long, Integer> inFlight(long campaignId) {
    Map<Long, Integer> n = new HashMap<>();
    db.jdbi()
        .useHandle(
            h ->
                h.createQuery(
                        "SELECT m.device_id, COUNT(*) AS n FROM message m"
                            + " JOIN campaign_recipient r ON r.message_id = m.id"
                            + " WHERE m.state IN ('pending', 'sending') AND r.campaign_id = ?"
                            + " GROUP BY m.device_id")
                    .bind(0, campaignId)
                    .map((rs, ctx) -> Map.entry(rs.getLong("device_id"), rs.getInt("n")))
                    .forEach(e -> n.put(e.getKey(), e.getValue())));
    return n;
  }

  /** A settled message of the campaign: its state and failure reason. */
  record Settled(String state, Optional<String> reason) {}

  /**
   * The campaign's latest {@code limit} messages on the device that are settled (sent, delivered,
   * read or failed), of those handed at or after {@code since}, newest first. Walks the (campaign,
   * device, handed_at) index back from the newest: a few rows, however long the list.
   */
  List<Settled> latestSettled(long campaignId, long deviceId, Instant since, int limit) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT m.state, m.reason FROM campaign_recipient r"
                            + " JOIN message m ON m.id = r.message_id"
                            + " WHERE r.campaign_id = ? AND r.device_id = ? AND r.handed_at >= ?"
                            + " AND m.state IN ('sent', 'delivery', 'read', 'failed')"
                            + " ORDER BY r.handed_at DESC, r.message_id DESC LIMIT ?")
                    .bind(0, campaignId)
                    .bind(1, deviceId)
                    .bind(2, since.toEpochMilli())
                    .bind(3, limit)
                    .map(
                        (rs, ctx) ->
                            new Settled(
                                rs.getString("state"), Optional.ofNullable(rs.getString("reason"))))
                    .list());
  }

  /** Whether the campaign handed a message to the device at or after {@code since}. */
  boolean handedSince(long campaignId, long deviceId, Instant since) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT 1 FROM campaign_recipient WHERE campaign_id = ? AND device_id = ?"
                            + " AND handed_at >= ? LIMIT 1")
                    .bind(0, campaignId)
                    .bind(1, deviceId)
                    .bind(2, since.toEpochMilli())
                    .mapTo(Integer.class)
                    .findOne()
                    .isPresent());
  }

  /**
   * Pauses a running campaign by itself for {@code reason}, in the caller's transaction; false when
   * it was not running (paused or cancelled meanwhile).
   */
  static boolean stop(Transaction tx, long campaignId, String reason, Instant at) {
    return tx.handle()
            .createUpdate(
                "UPDATE campaign SET status = 'paused', stop_reason = ?, updated_at = ?"
                    + " WHERE id = ? AND status = 'running'")
            .bind(0, reason)
            .bind(1, at.toEpochMilli())
            .bind(2, campaignId)
            .execute()
        == 1;
  }

  /** The campaign's recipients whose message is still pending: what a pause takes back. */
  List<Queued> queued(long campaignId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT r.phone, r.device_id, r.message_id FROM campaign_recipient r"
                            + " JOIN message m ON m.id = r.message_id"
                            + " WHERE r.campaign_id = ? AND r.state = 'handed'"
                            + " AND m.state = 'pending'")
                    .bind(0, campaignId)
                    .map(
                        (rs, ctx) ->
                            new Queued(
                                rs.getString("phone"),
                                rs.getLong("device_id"),
                                rs.getLong("message_id")))
                    .list());
  }

  /**
   * The guard of handing a recipient's message to the queue, in the commit that stores it: the
   * recipient is still waiting, its campaign still running and its contact has not opted out since
   * the campaign took it; then it is marked handed with the message, and with the moment the
   * safe-sending policy planned its release ({@code plannedAt}: its device's slot).
   */
  static boolean hand(
      Transaction tx,
      long campaignId,
      long licenseId,
      String phone,
      long deviceId,
      long messageId,
      Instant at,
      Instant plannedAt) {
    return tx.handle()
            .createUpdate(
                "UPDATE campaign_recipient SET state = 'handed', device_id = :device,"
                    + " message_id = :message, handed_at = :at, planned_at = :planned,"
                    + " reason = NULL"
                    + " WHERE campaign_id = :campaign AND phone = :phone AND state = 'waiting'"
                    + " AND EXISTS (SELECT 1 FROM campaign c WHERE c.id = :campaign"
                    + " AND c.status = 'running')"
                    + " AND NOT EXISTS (SELECT 1 FROM book_contact b WHERE b.license_id = :license"
                    + " AND b.phone = :phone AND b.unsubscribed_at IS NOT NULL)")
            .bind("device", deviceId)
            .bind("message", messageId)
            .bind("at", at.toEpochMilli())
            .bind("planned", plannedAt.toEpochMilli())
            .bind("campaign", campaignId)
            .bind("phone", phone)
            .bind("license", licenseId)
            .execute()
        == 1;
  }

  /**
   * The guard of taking a handed recipient's message back (it was still queued): the recipient
   * waits again ({@code to} {@code waiting}, a pause) or is cancelled, if it is still handed with
   * that message.
   */
  static boolean unhand(
      Transaction tx, long campaignId, String phone, long messageId, String to, Instant at) {
    boolean waits = to.equals("waiting");
    return tx.handle()
            .createUpdate(
                "UPDATE campaign_recipient SET state = :to, device_id = "
                    + (waits ? "NULL" : "device_id")
                    + ", message_id = "
                    + (waits ? "NULL" : "message_id")
                    + ", handed_at = "
                    + (waits ? "NULL" : "handed_at")
                    + ", planned_at = "
                    + (waits ? "NULL" : "planned_at")
                    + ", settled_at = :settled WHERE campaign_id = :campaign AND phone = :phone"
                    + " AND state = 'handed' AND message_id = :message")
            .bind("to", to)
            .bind("settled", waits ? null : at.toEpochMilli())
            .bind("campaign", campaignId)
            .bind("phone", phone)
            .bind("message", messageId)
            .execute()
        == 1;
  }

  /** Removes the campaign's uploaded list (a cancelled campaign never sends it). */
  void dropList(long campaignId) {
    db.writes()
        .write(
            h ->
                h.createUpdate("DELETE FROM campaign_list WHERE campaign_id = ?")
                    .bind(0, campaignId)
                    .execute());
  }

  /** Marks a waiting recipient opted out if its contact unsubscribed; true when it did. */
  boolean optOutIfUnsubscribed(long campaignId, long licenseId, String phone, Instant at) {
    return db.writes()
            .write(
                h ->
                    h.createUpdate(
                            "UPDATE campaign_recipient SET state = 'opted_out',"
                                + " reason = 'unsubscribed', settled_at = :at"
                                + " WHERE campaign_id = :campaign AND phone = :phone"
                                + " AND state = 'waiting' AND EXISTS (SELECT 1 FROM book_contact b"
                                + " WHERE b.license_id = :license AND b.phone = :phone"
                                + " AND b.unsubscribed_at IS NOT NULL)")
                        .bind("at", at.toEpochMilli())
                        .bind("campaign", campaignId)
                        .bind("phone", phone)
                        .bind("license", licenseId)
                        .execute())
        == 1;
  }

  /** Fails a waiting recipient whose message cannot be made, with the reason. */
  void fail(long campaignId, String phone, String reason, Instant at) {
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "UPDATE campaign_recipient SET state = 'failed', reason = ?,"
                            + " settled_at = ? WHERE campaign_id = ? AND phone = ?"
                            + " AND state = 'waiting'")
                    .bind(0, reason)
                    .bind(1, at.toEpochMilli())
                    .bind(2, campaignId)
                    .bind(3, phone)
                    .execute());
  }

  /** Cancels every recipient still waiting. */
  void cancelWaiting(long campaignId, Instant at) {
    db.writes()
        .write(
            h ->
                h.createUpdate(
                        "UPDATE campaign_recipient SET state = 'cancelled', settled_at = ?"
                            + " WHERE campaign_id = ? AND state = 'waiting'")
                    .bind(0, at.toEpochMilli())
                    .bind(1, campaignId)
                    .execute());
  }

  /** Whether any recipient still waits to be handed over. */
  boolean anyWaiting(long campaignId) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT 1 FROM campaign_recipient WHERE campaign_id = ?"
                            + " AND state = 'waiting' LIMIT 1")
                    .bind(0, campaignId)
                    .mapTo(Integer.class)
                    .findOne()
                    .isPresent());
  }

  /** How many of the campaign's recipients are where ({@link Campaign.Counts}). */
  Campaign.Counts counts(long campaignId) {
    return db.jdbi()
        .withHandle(
            h -> {
              Map<String, Long> n = new HashMap<>();
              h.createQuery(
                      "SELECT CASE WHEN r.state = 'handed' THEN m.state ELSE r.state END AS s,"
                          + " COUNT(*) AS n FROM campaign_recipient r"
                          + " LEFT JOIN message m ON m.id = r.message_id"
                          + " WHERE r.campaign_id = ? GROUP BY"
                          + " CASE WHEN r.state = 'handed' THEN m.state ELSE r.state END")
                  .bind(0, campaignId)
                  .map((rs, ctx) -> Map.entry(String.valueOf(rs.getString("s")), rs.getLong("n")))
                  .forEach(e -> n.merge(e.getKey(), e.getValue(), Long::sum));
              long replied =
                  h.createQuery(
                          "SELECT COUNT(*) FROM campaign_recipient r"
                              + " JOIN message m ON m.id = r.message_id"
                              + " WHERE r.campaign_id = ? AND EXISTS (SELECT 1 FROM"
                              + " inbound_message i WHERE i.device_id = r.device_id"
                              + " AND (i.sender = m.recipient OR '+' || i.sender = m.recipient)"
                              + " AND i.received_at >= r.handed_at)")
                      .bind(0, campaignId)
                      .mapTo(Long.class)
                      .one();
              long total = n.values().stream().mapToLong(Long::longValue).sum();
              return new Campaign.Counts(
                  total,
                  n.getOrDefault("waiting", 0L),
                  n.getOrDefault("pending", 0L) + n.getOrDefault("sending", 0L),
                  n.getOrDefault("sent", 0L),
                  n.getOrDefault("delivery", 0L),
                  n.getOrDefault("read", 0L),
                  n.getOrDefault("failed", 0L),
                  replied,
                  n.getOrDefault("opted_out", 0L),
                  n.getOrDefault("cancelled", 0L));
            });
  }

  /**
   * The campaign's sends and outcomes in {@code buckets} buckets of {@code width} from {@code from}
   * ({@link CampaignTimeline}). It reads the campaign's recipients (by its primary key) and their
   * messages (by theirs): bounded by the campaign's size, never by the message table's.
   */
  CampaignTimeline timeline(long campaignId, Instant from, java.time.Duration width, int buckets) {
    long start = from.toEpochMilli();
    long w = width.toMillis();
    long end = start + w * buckets;
    long[][] n = new long[6][buckets];
    db.jdbi()
        .useHandle(
            h -> {
              // Each event with its kind (k) and its bucket's start; counted per kind and bucket.
              h.createQuery(
                      "SELECT k, (happened - :start) / :w AS b, COUNT(*) AS n FROM ("
                          // What the recipient did: handed to the queue; opted out or failed
                          // before a message.
                          + "SELECT 0 AS k, r.handed_at AS happened FROM campaign_recipient r"
                          + " WHERE r.campaign_id = :c AND r.handed_at >= :start"
                          + " AND r.handed_at < :end"
                          + " UNION ALL SELECT CASE WHEN r.state = 'opted_out' THEN 5 ELSE 4 END,"
                          + " r.settled_at FROM campaign_recipient r WHERE r.campaign_id = :c"
                          + " AND r.state IN ('opted_out', 'failed')"
                          + " AND r.settled_at >= :start AND r.settled_at < :end"
                          // What its message did: sent, then its outcome now.
                          + " UNION ALL SELECT 1, m.sent_at FROM campaign_recipient r"
                          + " JOIN message m ON m.id = r.message_id WHERE r.campaign_id = :c"
                          + " AND r.state = 'handed' AND m.sent_at >= :start AND m.sent_at < :end"
                          + " UNION ALL SELECT CASE m.state WHEN 'delivery' THEN 2"
                          + " WHEN 'read' THEN 3 ELSE 4 END, m.status_at"
                          + " FROM campaign_recipient r JOIN message m ON m.id = r.message_id"
                          + " WHERE r.campaign_id = :c AND r.state = 'handed'"
                          + " AND m.state IN ('delivery', 'read', 'failed')"
                          + " AND m.status_at >= :start AND m.status_at < :end"
                          + ") e GROUP BY k, b")
                  .bind("c", campaignId)
                  .bind("start", start)
                  .bind("end", end)
                  .bind("w", w)
                  .map((rs, ctx) -> new long[] {rs.getInt(1), rs.getLong(2), rs.getLong(3)})
                  .forEach(row -> n[(int) row[0]][(int) row[1]] += row[2]);
            });
    return new CampaignTimeline(
        from, width, list(n[0]), list(n[1]), list(n[2]), list(n[3]), list(n[4]), list(n[5]));
  }

  private static List<Long> list(long[] counts) {
    List<Long> out = new ArrayList<>(counts.length);
    for (long c : counts) {
      out.add(c);
    }
    return out;
  }

  /** Every recipient of the campaign, by phone, a page at a time. */
  void forEachRecipient(long campaignId, Consumer<CampaignRecipient> each) {
    String after = "";
    while (true) {
      String from = after;
      List<CampaignRecipient> page =
          db.jdbi()
              .withHandle(
                  h ->
                      h.createQuery(
                              "SELECT "
                                  + RECIPIENT
                                  + " FROM campaign_recipient r LEFT JOIN message m"
                                  + " ON m.id = r.message_id WHERE r.campaign_id = ?"
                                  + " AND r.phone > ? ORDER BY r.phone LIMIT 500")
                          .bind(0, campaignId)
                          .bind(1, from)
                          .map((rs, ctx) -> recipient(rs))
                          .list());
      page.forEach(each);
      if (page.size() < 500) {
        return;
      }
      after = page.getLast().phone();
    }
  }

  private static Campaign campaign(ResultSet rs) throws SQLException {
    String variants = rs.getString("variants");
    String devices = rs.getString("devices");
    String quietFrom = rs.getString("quiet_from");
    String quietTo = rs.getString("quiet_to");
    return new Campaign(
        rs.getLong("id"),
        rs.getLong("license_id"),
        rs.getString("name"),
        CampaignStatus.ofWireName(rs.getString("status")),
        read(rs.getString("tags"), new TypeReference<List<String>>() {}),
        (ObjectNode) tree(rs.getString("message")),
        variants == null ? List.of() : objects(tree(variants)),
        devices == null ? List.of() : read(devices, new TypeReference<List<Long>>() {}),
        instant(rs, "start_at"),
        quietFrom == null || quietTo == null
            ? Optional.empty()
            : Optional.of(new QuietHours(LocalTime.parse(quietFrom), LocalTime.parse(quietTo))),
        rs.getInt("expanded") == 1,
        rs.getString("cursor_phone"),
        Optional.ofNullable(rs.getString("stop_reason")),
        Instant.ofEpochMilli(rs.getLong("created_at")),
        Instant.ofEpochMilli(rs.getLong("updated_at")),
        instant(rs, "started_at"),
        instant(rs, "finished_at"),
        rs.getString("waiting_reason") == null
            ? Optional.empty()
            : Optional.of(
                new Campaign.Waiting(
                    rs.getString("waiting_reason"),
                    Instant.ofEpochMilli(rs.getLong("waiting_until")))),
        Optional.ofNullable(rs.getString("template")).map(t -> (ObjectNode) tree(t)),
        rs.getInt("audience_list") == 1,
        optionalLong(rs, "list_upload"),
        optionalLong(rs, "list_rows").map(Long::intValue));
  }

  private static CampaignRecipient recipient(ResultSet rs) throws SQLException {
    long device = rs.getLong("device_id");
    boolean noDevice = rs.wasNull();
    long message = rs.getLong("message_id");
    boolean noMessage = rs.wasNull();
    return new CampaignRecipient(
        rs.getLong("campaign_id"),
        rs.getString("phone"),
        Optional.ofNullable(rs.getString("name")),
        read(rs.getString("variables"), new TypeReference<Map<String, String>>() {}),
        rs.getInt("variant"),
        rs.getString("state"),
        noDevice ? Optional.empty() : Optional.of(device),
        noMessage ? Optional.empty() : Optional.of(message),
        Optional.ofNullable(rs.getString("reason")),
        instant(rs, "handed_at"),
        instant(rs, "settled_at"),
        Optional.ofNullable(rs.getString("message_state")),
        instant(rs, "message_sent_at"));
  }

  private static Optional<Long> optionalLong(ResultSet rs, String column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? Optional.empty() : Optional.of(v);
  }

  private static Optional<Instant> instant(ResultSet rs, String column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? Optional.empty() : Optional.of(Instant.ofEpochMilli(v));
  }

  private static List<ObjectNode> objects(JsonNode array) {
    List<ObjectNode> out = new ArrayList<>();
    array.forEach(n -> out.add((ObjectNode) n));
    return out;
  }

  private static JsonNode tree(String json) {
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a campaign column is not JSON", e);
    }
  }

  private static <T> T read(String json, TypeReference<T> type) {
    try {
      return JSON.readValue(json, type);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a campaign column is not the JSON it should be", e);
    }
  }

  private static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a campaign's values are always JSON", e);
    }
  }
}
