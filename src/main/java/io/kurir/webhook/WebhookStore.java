package io.kurir.webhook;

import io.kurir.store.Database;
import io.kurir.store.Transaction;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * The SQL of the webhook outbox: deliveries ({@code webhook_delivery}) and the sequence numbers of
 * each device's events ({@code webhook_sequence}). Plain, portable SQL: a claim is a guarded UPDATE
 * of the delivery's own row, which is exclusive on SQLite (one writer) and on PostgreSQL (an UPDATE
 * re-reads its row's guard after waiting for a concurrent one), so no dialect is needed here yet.
 *
 * <p>On PostgreSQL one thing will need the dialect: "no other attempt to this line" is read, not
 * locked, so two nodes could claim two deliveries of one line at the same moment (never the same
 * delivery). Taking the line's first pending row {@code FOR UPDATE SKIP LOCKED} in the claim would
 * close that; SQLite's single writer already does.
 *
 * <p>Thread-safe.
 */
final class WebhookStore {
  /**
   * A pending delivery as the outbox sends it; {@code claimToken} is 0 until claimed. Read from the
   * database, {@code secret} and {@code previousSecret} are sealed ({@link
   * io.kurir.store.SecretBox}); the outbox opens them just before an attempt.
   */
  record Delivery(
      long id,
      long deviceId,
      String url,
      String event,
      String payload,
      int attempts,
      Instant created,
      Instant eventAt,
      OptionalLong sequence,
      String secret,
      Optional<String> previousSecret,
      Optional<String> subscriptionSecret,
      boolean metaFormat,
      long claimToken) {

    /** Deliveries to one device's URL go one at a time, in this line. */
    Line line() {
      return new Line(deviceId, url);
    }

    Delivery claimedWith(long token) {
      return new Delivery(
          id,
          deviceId,
          url,
          event,
          payload,
          attempts,
          created,
          eventAt,
          sequence,
          secret,
          previousSecret,
          subscriptionSecret,
          metaFormat,
          token);
    }
  }

  private final Database db;

  WebhookStore(Database db) {
    this.db = db;
  }

  /**
   * Stores an event, numbered after the device's previous event of the same kind; call it in the
   * transaction of the change it reports. The counter row stays locked until that transaction ends,
   * so numbers follow commit order on PostgreSQL too.
   */
  static void add(
      Transaction tx,
      long id,
      long deviceId,
      String url,
      String event,
      String payload,
      Instant at,
      OptionalLong messageId) {
    long seq;
    // Plain JDBC, here and in insert: a status webhook is two statements on the writer per status
    // change, and Jdbi's binding cost more than the statements.
    try (PreparedStatement next = tx.handle().getConnection().prepareStatement(NEXT_SEQUENCE)) {
      next.setLong(1, deviceId);
      next.setString(2, event);
      try (ResultSet rs = next.executeQuery()) {
        rs.next();
        seq = rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new UnableToExecuteStatementException(e, null);
    }
    insert(tx, id, deviceId, url, event, payload, at, messageId, seq, null);
  }

  private static final String NEXT_SEQUENCE =
      "INSERT INTO webhook_sequence (device_id, event, last_seq) VALUES (?, ?, 1)"
          + " ON CONFLICT (device_id, event)"
          + " DO UPDATE SET last_seq = webhook_sequence.last_seq + 1 RETURNING last_seq";

  /**
   * Stores the delivery of event {@code sequence} of its license to subscription {@code
   * subscriptionId}; call it in the transaction that stores the event. It waits in the line of its
   * device and URL like any other delivery, and is signed with the subscription's secret.
   */
  static void addForSubscription(
      Transaction tx,
      long id,
      long deviceId,
      long subscriptionId,
      String url,
      String event,
      String payload,
      long sequence,
      Instant at) {
    insert(
        tx, id, deviceId, url, event, payload, at, OptionalLong.empty(), sequence, subscriptionId);
  }

  private static void insert(
      Transaction tx,
      long id,
      long deviceId,
      String url,
      String event,
      String payload,
      Instant at,
      OptionalLong messageId,
      long seq,
      Long subscriptionId) {
    try (PreparedStatement add = tx.handle().getConnection().prepareStatement(INSERT_DELIVERY)) {
      add.setLong(1, id);
      add.setLong(2, deviceId);
      add.setString(3, url);
      add.setString(4, event);
      add.setString(5, payload);
      add.setLong(6, at.toEpochMilli());
      add.setLong(7, at.toEpochMilli());
      add.setLong(8, at.toEpochMilli());
      if (messageId.isPresent()) {
        add.setLong(9, messageId.getAsLong());
      } else {
        add.setNull(9, Types.BIGINT);
      }
      add.setLong(10, seq);
      if (subscriptionId != null) {
        add.setLong(11, subscriptionId);
      } else {
        add.setNull(11, Types.BIGINT);
      }
      add.executeUpdate();
    } catch (SQLException e) {
      throw new UnableToExecuteStatementException(e, null);
    }
  }

  private static final String INSERT_DELIVERY =
      "INSERT INTO webhook_delivery (id, device_id, url, event, payload, state, attempts,"
          + " next_attempt_at, created_at, event_at, message_id, seq, subscription_id)"
          + " VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?, ?, ?)";

  /**
   * Ends the pending deliveries of a removed subscription as failed; an attempt under way is still
   * recorded if it delivered (as {@link #retarget} with no URL).
   */
  static void endForSubscription(Transaction tx, long subscriptionId, Instant now) {
    tx.handle()
        .createUpdate(
            "UPDATE webhook_delivery SET state = 'failed', last_error = 'the subscription was"
                + " removed', finished_at = ?, held_until = NULL WHERE subscription_id = ?"
                + " AND state = 'pending'")
        .bind(0, now.toEpochMilli())
        .bind(1, subscriptionId)
        .execute();
  }

  /** What a message's status event tells of it, and the URL it goes to. */
  record StatusSource(
      long deviceId,
      String recipient,
      String recipientType,
      String kind,
      String body,
      String api,
      String number,
      String outgoingUrl) {}

  /**
   * The message {@code messageId} as its status event shows it, when its device has an outgoing
   * URL; in the caller's transaction. Plain JDBC: it runs with every status change.
   */
  static Optional<StatusSource> statusSource(Transaction tx, long messageId) throws SQLException {
    try (PreparedStatement q =
        tx.handle()
            .getConnection()
            .prepareStatement(
                "SELECT m.device_id, m.recipient, m.recipient_type, m.kind, m.body, m.api,"
                    + " d.number, d.outgoing_webhook_url FROM message m"
                    + " JOIN device d ON d.id = m.device_id WHERE m.id = ?")) {
      q.setLong(1, messageId);
      try (ResultSet rs = q.executeQuery()) {
        if (!rs.next() || rs.getString("outgoing_webhook_url") == null) {
          return Optional.empty();
        }
        return Optional.of(
            new StatusSource(
                rs.getLong("device_id"),
                rs.getString("recipient"),
                rs.getString("recipient_type"),
                rs.getString("kind"),
                rs.getString("body"),
                rs.getString("api"),
                rs.getString("number"),
                rs.getString("outgoing_webhook_url")));
      }
    }
  }

  /** See {@link WebhookOutbox#retarget}. An attempt under way keeps its claim. */
  static void retarget(
      Transaction tx, long deviceId, String event, Optional<String> url, Instant now) {
    Handle h = tx.handle();
    if (url.isPresent()) {
      h.createUpdate(
              "UPDATE webhook_delivery SET url = ?, next_attempt_at = ? WHERE device_id = ?"
                  + " AND event = ? AND state = 'pending' AND subscription_id IS NULL")
          .bind(0, url.get())
          .bind(1, now.toEpochMilli())
          .bind(2, deviceId)
          .bind(3, event)
          .execute();
    } else {
      h.createUpdate(
              "UPDATE webhook_delivery SET state = 'failed', last_error = 'the webhook was"
                  + " removed', finished_at = ?, held_until = NULL WHERE device_id = ?"
                  + " AND event = ? AND state = 'pending' AND subscription_id IS NULL")
          .bind(0, now.toEpochMilli())
          .bind(1, deviceId)
          .bind(2, event)
          .execute();
    }
  }

  /** A line of deliveries: one device's events to one URL. Lines are walked in this order. */
  record Line(long deviceId, String url) {
    /** Before every line. */
    static final Line START = new Line(-1, "");

    /** After every line. */
    static final Line END = new Line(Long.MAX_VALUE, "");
  }

  /**
   * What {@link #eligible} saw: the lines it looked at (up to the window, in line order, after the
   * cursor) and, for each that has one, the delivery that may be attempted now.
   */
  record Window(List<Line> lines, List<Delivery> candidates) {}

  /** A delivery as the outbox sends it, from {@code d} and its license {@code l}. */
  private static final String DELIVERY_COLUMNS =
      "d.id, d.device_id, d.url, d.event, d.payload, d.attempts, d.created_at, d.event_at, d.seq,"
          + " l.webhook_secret, CASE WHEN l.previous_secret_until > :now"
          + " THEN l.previous_webhook_secret END AS previous_secret,"
          + " (SELECT s.secret FROM webhook_subscription s WHERE s.id = d.subscription_id)"
          + " AS subscription_secret,"
          + " (SELECT s.format FROM webhook_subscription s WHERE s.id = d.subscription_id)"
          + " AS subscription_format";

  /**
   * The id of the first pending delivery of the line after ({@code device}, {@code url}): the next
   * URL of the same device, else the first of the next device. Two seeks in the index, so that
   * skipping a line costs the same however many deliveries wait in it.
   */
  private static String nextLineAfter(String device, String url) {
    return " COALESCE((SELECT x.id FROM webhook_delivery x WHERE x.state = 'pending'"
        + " AND x.device_id = "
        + device
        + " AND x.url > "
        + url
        + " ORDER BY x.url LIMIT 1), (SELECT x.id FROM webhook_delivery x"
        + " WHERE x.state = 'pending' AND x.device_id > "
        + device
        + " ORDER BY x.device_id, x.url LIMIT 1))";
  }

  /** True when no attempt to the line ({@code device}, {@code url}) is under way. */
  private static String noAttemptUnderWay(String device, String url) {
    return " NOT EXISTS (SELECT 1 FROM webhook_delivery c WHERE c.device_id = "
        + device
        + " AND c.url = "
        + url
        + " AND c.claim_until >= :now AND c.state = 'pending')";
  }

  /**
   * The id of the delivery of the line ({@code device}, {@code url}) that may be attempted now, if
   * any: the first one that is due, not claimed, not behind a delivery that holds its place, and
   * not behind a pending status of its message. A delivery holds its place until it has been tried,
   * then until {@code held_until} (the hold after its first failure), unless it waits for an
   * earlier status of its message itself. Only the deliveries up to the line's first holding one
   * are looked at: usually one, however long the line.
   */
  private static String firstEligibleIn(String device, String url) {
    return " (SELECT r.id FROM webhook_delivery r WHERE r.state = 'pending'"
        + " AND r.device_id = "
        + device
        + " AND r.url = "
        + url
        + " AND r.id <= COALESCE((SELECT o.id FROM webhook_delivery o"
        + "   WHERE o.state = 'pending' AND o.device_id = "
        + device
        + "   AND o.url = "
        + url
        + "   AND (o.held_until > :now OR (o.attempts = 0 AND NOT EXISTS (SELECT 1"
        + "     FROM webhook_delivery p WHERE p.message_id = o.message_id"
        + "     AND p.state = 'pending' AND p.id < o.id)))"
        + "   ORDER BY o.id LIMIT 1), "
        + Long.MAX_VALUE
        + ")"
        + " AND r.next_attempt_at <= :now"
        + " AND (r.claim_until IS NULL OR r.claim_until < :now)"
        + " AND NOT EXISTS (SELECT 1 FROM webhook_delivery m WHERE m.message_id = r.message_id"
        + "   AND m.state = 'pending' AND m.id < r.id)"
        + " ORDER BY r.id LIMIT 1)";
  }

  private static Delivery delivery(ResultSet rs) throws SQLException {
    long seq = rs.getLong("seq");
    OptionalLong sequence = rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(seq);
    return new Delivery(
        rs.getLong("id"),
        rs.getLong("device_id"),
        rs.getString("url"),
        rs.getString("event"),
        rs.getString("payload"),
        rs.getInt("attempts"),
        Instant.ofEpochMilli(rs.getLong("created_at")),
        Instant.ofEpochMilli(rs.getLong("event_at")),
        sequence,
        rs.getString("webhook_secret"),
        Optional.ofNullable(rs.getString("previous_secret")),
        Optional.ofNullable(rs.getString("subscription_secret")),
        WebhookSubscriptions.Format.META.wireName().equals(rs.getString("subscription_format")),
        0);
  }

  /**
   * Looks at up to {@code window} lines that have pending deliveries, after {@code after} and up to
   * {@code until}, and finds in each the delivery that may be attempted now, if any ({@link
   * #firstEligibleIn}). Read without a lock: the claim checks again. The lines are found by
   * skipping through an index from one line to the next, so the cost is that of the lines looked
   * at, however many deliveries wait in them.
   */
  Window eligible(Instant now, Line after, Line until, int window) {
    return db.jdbi().withHandle(h -> eligible(h, now, after, until, window));
  }

  /** {@link #eligible} on {@code h}, in its transaction if it has one. */
  static Window eligible(Handle h, Instant now, Line after, Line until, int window) {
    record Looked(Line line, Optional<Delivery> candidate) {}
    List<Looked> looked =
        h.createQuery(
                "WITH RECURSIVE line(n, device_id, url) AS ("
                    + " SELECT 1, f.device_id, f.url FROM webhook_delivery f WHERE f.id ="
                    + nextLineAfter(":afterDevice", ":afterUrl")
                    + " AND (f.device_id, f.url) <= (:untilDevice, :untilUrl)"
                    + " UNION ALL"
                    + " SELECT line.n + 1, nx.device_id, nx.url FROM line"
                    + " JOIN webhook_delivery nx ON nx.id ="
                    + nextLineAfter("line.device_id", "line.url")
                    + " WHERE line.n < :window"
                    + " AND (nx.device_id, nx.url) <= (:untilDevice, :untilUrl))"
                    + " SELECT line.device_id AS line_device, line.url AS line_url, "
                    + DELIVERY_COLUMNS
                    + " FROM line LEFT JOIN webhook_delivery d ON"
                    + noAttemptUnderWay("line.device_id", "line.url")
                    + " AND d.id ="
                    + firstEligibleIn("line.device_id", "line.url")
                    + " LEFT JOIN device v ON v.id = d.device_id"
                    + " LEFT JOIN license l ON l.id = v.license_id"
                    + " ORDER BY line.n")
            .bind("afterDevice", after.deviceId())
            .bind("afterUrl", after.url())
            .bind("untilDevice", until.deviceId())
            .bind("untilUrl", until.url())
            .bind("window", window)
            .bind("now", now.toEpochMilli())
            .map(
                (rs, ctx) -> {
                  Line line = new Line(rs.getLong("line_device"), rs.getString("line_url"));
                  rs.getLong("id");
                  return new Looked(
                      line, rs.wasNull() ? Optional.empty() : Optional.of(delivery(rs)));
                })
            .list();
    return new Window(
        looked.stream().map(Looked::line).toList(),
        looked.stream().flatMap(l -> l.candidate().stream()).toList());
  }

  /**
   * Claims each candidate for {@code node} until {@code until}, if it is still the first of its
   * line that may be attempted now ({@link #firstEligibleIn}: pending, due, unclaimed, behind none
   * that holds its place) and no other attempt to its line is under way; the claimed ones, with
   * their tokens. One transaction for all of them.
   */
  List<Delivery> claim(List<Delivery> candidates, int node, Instant until, Instant now) {
    return claimBatches(candidates, node, until, now, 1).stream().map(List::getFirst).toList();
  }

  /**
   * {@link #claim}, each candidate with up to {@code batch - 1} of the deliveries right behind it
   * in its line ({@link #followers}) under the same token: the batches claimed, in line order each.
   * One transaction for all of them, so a pass of the loop costs one commit however many lines and
   * deliveries it starts.
   */
  List<List<Delivery>> claimBatches(
      List<Delivery> candidates, int node, Instant until, Instant now, int batch) {
    if (candidates.isEmpty()) {
      return List.of();
    }
    return db.writes()
        .write(
            h -> {
              List<List<Delivery>> claimed = new ArrayList<>(); // per run: a batch may be rerun
              for (Delivery d : candidates) {
                claim(h, d, node, until, now)
                    .ifPresent(
                        first -> claimed.add(withFollowers(h, first, node, until, now, batch)));
              }
              return claimed;
            });
  }

  /**
   * {@code first} (claimed) and up to {@code batch - 1} of the deliveries right behind it in its
   * line, claimed with its token: the pending ones that come next in id order, as long as each was
   * never tried, is due, unclaimed, and waits for no pending status of its message outside this
   * batch. Delivered in order, one after the other, each goes exactly when it would have gone as
   * the line's first after the ones before it were delivered; a batch stops at its first delivery
   * that is not delivered, and the rest are given back ({@link #record}).
   */
  private static List<Delivery> withFollowers(
      Handle h, Delivery first, int node, Instant until, Instant now, int batch) {
    List<Delivery> claimed = new ArrayList<>(List.of(first));
    if (batch <= 1) {
      return claimed;
    }
    record Follower(Delivery delivery, boolean ready) {}
    List<Follower> followers =
        h.createQuery(
                "SELECT "
                    + DELIVERY_COLUMNS
                    + ", d.attempts = 0 AND d.next_attempt_at <= :now"
                    + " AND (d.claim_until IS NULL OR d.claim_until < :now)"
                    + " AND NOT EXISTS (SELECT 1 FROM webhook_delivery m"
                    + "   WHERE m.message_id = d.message_id AND m.state = 'pending'"
                    + "   AND m.id < d.id"
                    + "   AND NOT (m.device_id = d.device_id AND m.url = d.url AND m.id >= :first))"
                    + " AS ready"
                    + " FROM webhook_delivery d JOIN device v ON v.id = d.device_id"
                    + " JOIN license l ON l.id = v.license_id"
                    + " WHERE d.state = 'pending' AND d.device_id = :device AND d.url = :url"
                    + " AND d.id > :first ORDER BY d.id LIMIT :n")
            .bind("now", now.toEpochMilli())
            .bind("first", first.id())
            .bind("device", first.deviceId())
            .bind("url", first.url())
            .bind("n", batch - 1)
            .map((rs, ctx) -> new Follower(delivery(rs), rs.getBoolean("ready")))
            .list();
    for (Follower f : followers) {
      if (!f.ready()) {
        break; // it holds its place, or waits: what is behind it waits too
      }
      // Guarded on the row's own columns, as the first's claim: exclusive across nodes.
      int updated =
          h.createUpdate(
                  "UPDATE webhook_delivery SET claim_token = :token, claimed_by = :node,"
                      + " claim_until = :until WHERE id = :id AND state = 'pending'"
                      + " AND attempts = 0 AND next_attempt_at <= :now"
                      + " AND (claim_until IS NULL OR claim_until < :now)")
              .bind("token", first.claimToken())
              .bind("node", node)
              .bind("until", until.toEpochMilli())
              .bind("id", f.delivery().id())
              .bind("now", now.toEpochMilli())
              .execute();
      if (updated == 0) {
        break;
      }
      claimed.add(f.delivery().claimedWith(first.claimToken()));
    }
    return claimed;
  }

  /** The guarded UPDATE of a claim: {@code d} with its token, if this claim got it. */
  private static Optional<Delivery> claim(
      Handle h, Delivery d, int node, Instant until, Instant now) {
    long token = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
    int updated =
        h.createUpdate(
                "UPDATE webhook_delivery SET claim_token = :token, claimed_by = :node,"
                    + " claim_until = :until WHERE id = :id AND state = 'pending'"
                    // On the row itself, not only in the subqueries below: PostgreSQL checks a
                    // row's own columns again once a concurrent claim of it commits, a subquery
                    // not, and these keep two nodes from claiming one delivery.
                    + " AND next_attempt_at <= :now"
                    + " AND (claim_until IS NULL OR claim_until < :now) AND"
                    + noAttemptUnderWay("webhook_delivery.device_id", "webhook_delivery.url")
                    // Still the line's first that may go: a replay, or an event pointed at this
                    // URL, committed since the look may have put an earlier one ahead of it.
                    + " AND id ="
                    + firstEligibleIn("webhook_delivery.device_id", "webhook_delivery.url"))
            .bind("token", token)
            .bind("node", node)
            .bind("until", until.toEpochMilli())
            .bind("id", d.id())
            .bind("now", now.toEpochMilli())
            .execute();
    return updated == 1 ? Optional.of(d.claimedWith(token)) : Optional.empty();
  }

  /**
   * What to record of one attempt of a claimed delivery: its end ({@code delivered}, {@code failed}
   * or {@code dead}), or, with {@code retryAt}, a failure to be tried again then; its first failure
   * also fixes until when it holds its place ({@code holdUntil}).
   */
  record Attempted(
      Delivery delivery,
      String state,
      String error,
      Optional<Instant> retryAt,
      Optional<Instant> holdUntil) {
    static Attempted ended(Delivery d, String state, String error) {
      return new Attempted(d, state, error, Optional.empty(), Optional.empty());
    }

    static Attempted retried(Delivery d, Instant at, Instant holdUntil, String error) {
      return new Attempted(d, "pending", error, Optional.of(at), Optional.of(holdUntil));
    }
  }

  /**
   * How {@link #record} went: for each attempt, whether its claim was still this one's (else it
   * expired and someone else took the delivery, which records it); and the next batch of the line,
   * when asked for and claimed.
   */
  record Recorded(List<Boolean> ours, List<Delivery> next) {
    boolean allOurs() {
      return !ours.contains(false);
    }
  }

  /** How {@link #finish} went: whether the claim was still this one's, and what comes next. */
  record Finished(boolean ours, Optional<Delivery> next) {}

  /**
   * Ends a claimed delivery as {@code delivered}, {@code failed} or {@code dead} ({@link #record}
   * of one attempt), claiming the next one of its line with {@code claimNext}.
   */
  Finished finish(
      Delivery d,
      String state,
      String error,
      Instant now,
      boolean claimNext,
      int node,
      Instant claimUntil) {
    Recorded r =
        record(
            List.of(Attempted.ended(d, state, error)),
            List.of(),
            now,
            claimNext ? 1 : 0,
            node,
            claimUntil);
    return new Finished(r.allOurs(), r.next().stream().findFirst());
  }

  /**
   * Records a failed attempt of a claimed delivery, to be tried again at {@code next} ({@link
   * #record} of one attempt). False when the claim was no longer this one's.
   */
  boolean retry(Delivery d, Instant next, Instant holdUntil, String error) {
    // Nothing is ended or claimed with it: no time, node or claim expiry is needed.
    return record(
            List.of(Attempted.retried(d, next, holdUntil, error)), List.of(), null, 0, 0, null)
        .allOurs();
  }

  /**
   * Records the attempts of one line's batch, in one transaction, and gives back the claims of the
   * batch's deliveries that were not attempted ({@code givenBack}: behind one that was not
   * delivered, or left when stopping). With {@code claimNext} above 0 and every claim still this
   * one's, the same transaction claims the line's next batch (up to {@code claimNext} deliveries),
   * so that a line with a queue costs one commit per batch.
   *
   * <p>An end is recorded only while the claim is this one's; a delivery ended meanwhile because
   * its webhook was removed is still recorded as delivered if it was. A failure to be tried again
   * keeps the "at once" a new URL gave its delivery during the attempt.
   */
  Recorded record(
      List<Attempted> attempts,
      List<Delivery> givenBack,
      Instant now,
      int claimNext,
      int node,
      Instant claimUntil) {
    return db.writes()
        .write(
            h -> {
              List<Boolean> ours = new ArrayList<>();
              for (Attempted a : attempts) {
                ours.add(recordOne(h, a, now) == 1);
              }
              for (Delivery d : givenBack) {
                h.createUpdate(
                        "UPDATE webhook_delivery SET claim_token = NULL, claimed_by = NULL,"
                            + " claim_until = NULL WHERE id = ? AND claim_token = ?")
                    .bind(0, d.id())
                    .bind(1, d.claimToken())
                    .execute();
              }
              if (claimNext <= 0 || attempts.isEmpty() || ours.contains(false)) {
                return new Recorded(ours, List.of());
              }
              Delivery last = attempts.getLast().delivery();
              Optional<Delivery> next =
                  h.createQuery(
                          "SELECT "
                              + DELIVERY_COLUMNS
                              + " FROM webhook_delivery d JOIN device v ON v.id = d.device_id"
                              + " JOIN license l ON l.id = v.license_id WHERE d.id ="
                              + firstEligibleIn(":device", ":url"))
                      .bind("device", last.deviceId())
                      .bind("url", last.url())
                      .bind("now", now.toEpochMilli())
                      .map((rs, ctx) -> delivery(rs))
                      .findOne();
              return new Recorded(
                  ours,
                  next.flatMap(n -> claim(h, n, node, claimUntil, now))
                      .map(first -> withFollowers(h, first, node, claimUntil, now, claimNext))
                      .orElse(List.of()));
            });
  }

  /** The guarded UPDATE that records one attempt: 1 when the claim was still this one's. */
  private static int recordOne(Handle h, Attempted a, Instant now) {
    Delivery d = a.delivery();
    if (a.retryAt().isPresent()) {
      return h.createUpdate(
              "UPDATE webhook_delivery SET attempts = attempts + 1, last_error = ?,"
                  + " next_attempt_at = CASE WHEN url = ? THEN ? ELSE next_attempt_at END,"
                  + " held_until = CASE WHEN attempts = 0 THEN ? ELSE held_until END,"
                  + " claim_token = NULL, claimed_by = NULL, claim_until = NULL"
                  + " WHERE id = ? AND claim_token = ? AND state = 'pending'")
          .bind(0, a.error())
          .bind(1, d.url())
          .bind(2, a.retryAt().get().toEpochMilli())
          .bind(3, a.holdUntil().orElseThrow().toEpochMilli())
          .bind(4, d.id())
          .bind(5, d.claimToken())
          .execute();
    }
    // Plain JDBC: once per delivery on the writer, where Jdbi's binding cost more than the update.
    try (PreparedStatement end =
        h.getConnection()
            .prepareStatement(a.state().equals("delivered") ? END_ATTEMPT : END_PENDING)) {
      end.setString(1, a.state());
      end.setString(2, a.error());
      end.setLong(3, now.toEpochMilli());
      end.setLong(4, d.id());
      end.setLong(5, d.claimToken());
      return end.executeUpdate();
    } catch (SQLException e) {
      throw new UnableToExecuteStatementException(e, null);
    }
  }

  private static final String END_ATTEMPT =
      "UPDATE webhook_delivery SET state = ?, attempts = attempts + 1,"
          + " last_error = ?, finished_at = ?, held_until = NULL,"
          + " claim_token = NULL, claimed_by = NULL, claim_until = NULL"
          + " WHERE id = ? AND claim_token = ?";
  // A delivery is recorded delivered whatever became of it meanwhile; any other end only while
  // it is still pending.
  private static final String END_PENDING = END_ATTEMPT + " AND state = 'pending'";

  /**
   * Whether {@code d} is still claimed with its token, pending and for its URL: read before each
   * delivery of a batch after its first, so that one whose webhook was removed or pointed elsewhere
   * since the batch was claimed is not sent to the old URL (the one under way still is, as ever).
   */
  boolean stillClaimed(Delivery d) {
    // Plain JDBC: read before each delivery of a batch after its first.
    return db.readPlain(
        c -> {
          try (PreparedStatement q = c.prepareStatement(STILL_CLAIMED)) {
            q.setLong(1, d.id());
            q.setLong(2, d.claimToken());
            q.setString(3, d.url());
            try (ResultSet rs = q.executeQuery()) {
              return rs.next();
            }
          }
        });
  }

  private static final String STILL_CLAIMED =
      "SELECT 1 FROM webhook_delivery WHERE id = ? AND claim_token = ?"
          + " AND state = 'pending' AND url = ?";

  /**
   * Gives back the claims of {@code node}: at its start, it cannot have an attempt under way (a
   * gateway that stopped in the middle of an attempt left it claimed).
   */
  int releaseClaimsOf(int node) {
    return db.writes()
        .write(
            h ->
                h.createUpdate(
                        "UPDATE webhook_delivery SET claim_token = NULL, claimed_by = NULL,"
                            + " claim_until = NULL WHERE claimed_by = ?"
                            + " AND claim_until IS NOT NULL")
                    .bind(0, node)
                    .execute());
  }

  /**
   * The next time after {@code now} at which a pending delivery may become eligible by itself: a
   * retry falling due, a hold ending, a claim expiring. Only deliveries that failed before have a
   * {@code held_until} (cleared when they end), and only those have a retry in the future, so this
   * looks at few rows however many wait.
   */
  /** Whether any delivery waits (pending, claimed or not): one probe of the state index. */
  boolean anyPending() {
    return db.readPlain(
        c -> {
          try (PreparedStatement q = c.prepareStatement(ANY_PENDING);
              ResultSet rs = q.executeQuery()) {
            return rs.next();
          }
        });
  }

  private static final String ANY_PENDING =
      "SELECT 1 FROM webhook_delivery WHERE state = 'pending' LIMIT 1";

  Optional<Instant> nextChange(Instant now) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT MIN(t) FROM ("
                            + "SELECT MIN(CASE WHEN next_attempt_at > :now THEN next_attempt_at"
                            + " END) AS t FROM webhook_delivery WHERE held_until IS NOT NULL"
                            + " UNION ALL SELECT MIN(held_until) AS t FROM webhook_delivery"
                            + " WHERE held_until > :now"
                            + " UNION ALL SELECT MIN(claim_until) + 1 AS t FROM webhook_delivery"
                            + " WHERE claim_until >= :now) AS w")
                    .bind("now", now.toEpochMilli())
                    .mapTo(Long.class)
                    .findOne()
                    .map(Instant::ofEpochMilli));
  }

  /** Deletes up to {@code batch} deliveries that were delivered before {@code before}. */
  int pruneDelivered(Instant before, int batch) {
    return db.writes()
        .write(
            h ->
                h.createUpdate(
                        "DELETE FROM webhook_delivery WHERE id IN (SELECT id FROM"
                            + " webhook_delivery WHERE state = 'delivered'"
                            + " AND finished_at < ? LIMIT ?)")
                    .bind(0, before.toEpochMilli())
                    .bind(1, batch)
                    .execute());
  }

  /** How many deliveries are in each state, by state name. */
  java.util.Map<String, Long> countByState() {
    java.util.Map<String, Long> counts = new java.util.TreeMap<>();
    db.jdbi()
        .useHandle(
            h ->
                h.createQuery("SELECT state, COUNT(*) AS n FROM webhook_delivery GROUP BY state")
                    .map((rs, ctx) -> java.util.Map.entry(rs.getString("state"), rs.getLong("n")))
                    .forEach(e -> counts.put(e.getKey(), e.getValue())));
    return counts;
  }

  /** Deliveries in {@code state}, newest first, at most 500. */
  List<WebhookDeliveries.Delivery> list(String state) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery(
                        "SELECT id, device_id, url, event, payload, state, attempts, last_error,"
                            + " created_at, finished_at FROM webhook_delivery WHERE state = ?"
                            + " ORDER BY id DESC LIMIT 500")
                    .bind(0, state)
                    .map((rs, ctx) -> listed(rs))
                    .list());
  }

  /** A delivery as operators see it, from a row of {@code webhook_delivery}. */
  static WebhookDeliveries.Delivery listed(ResultSet rs) throws SQLException {
    long finished = rs.getLong("finished_at");
    boolean unfinished = rs.wasNull();
    return new WebhookDeliveries.Delivery(
        rs.getLong("id"),
        rs.getLong("device_id"),
        rs.getString("url"),
        rs.getString("event"),
        rs.getString("payload"),
        rs.getString("state"),
        rs.getInt("attempts"),
        Optional.ofNullable(rs.getString("last_error")),
        Instant.ofEpochMilli(rs.getLong("created_at")),
        unfinished ? Optional.empty() : Optional.of(Instant.ofEpochMilli(finished)));
  }

  /**
   * Puts a failed or dead delivery back as new: pending, due now, never tried, with a new retry
   * period; its id, sequence number and event time stay. False when it is not failed or dead.
   */
  boolean replay(long id, Instant now) {
    return db.writes()
            .write(
                h ->
                    h.createUpdate(
                            "UPDATE webhook_delivery SET state = 'pending', attempts = 0,"
                                + " next_attempt_at = ?, created_at = ?, finished_at = NULL,"
                                + " held_until = NULL, claim_token = NULL, claimed_by = NULL,"
                                + " claim_until = NULL WHERE id = ? AND state IN ('failed', 'dead')"
                                // A removed subscription's deliveries stay ended.
                                + " AND (subscription_id IS NULL OR EXISTS (SELECT 1 FROM"
                                + " webhook_subscription s WHERE s.id = subscription_id"
                                + " AND s.deleted_at IS NULL))")
                        .bind(0, now.toEpochMilli())
                        .bind(1, now.toEpochMilli())
                        .bind(2, id)
                        .execute())
        == 1;
  }
}
