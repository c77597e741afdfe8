package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.driver.sandbox.SandboxDriverFactory;
import io.kurir.driver.sandbox.SandboxNetwork;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.testing.Eventually;
import io.kurir.testing.ServeProcess;
import io.kurir.testing.TestGateway;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConfig;

/**
 * A campaign of a few thousand recipients on a gateway in a process of its own, killed with {@code
 * kill -9} three times: once between two pages of its expansion, twice while it feeds the queue
 * (messages waiting, queued and being sent); started again on the same data folder each time and
 * left to finish. What the phones received is read from the sandbox network's journal, which
 * outlives the process as a real network would.
 *
 * <p>Through a network that de-duplicates (as WhatsApp does a message id sent again), each
 * contact's phone holds exactly one message, its own: nothing sent twice, nobody skipped, and the
 * campaign's counts say the same. Through one that does not, a send cut off by a kill ends {@code
 * failed/interrupted} (it may have arrived: the gateway cannot know), at most once on the phone,
 * its recipient counted failed in the campaign's counts and report; every other phone holds exactly
 * its one message. {@link CrashTest} proves the same rules for every accepted message.
 *
 * <p>The kills are placed by events (recipients stored, messages sent and queued, read through the
 * database and the API), never by time.
 */
@Tag("crash")
class CampaignCrashTest {
  private static final String ADMIN_TOKEN = "campaign-crash-admin-token-0123456789";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Six pages of expansion (500 a commit). */
  private static final int CONTACTS = 3_000;

  /**
   * The pool: a campaign keeps at most 5 of its messages in each device's queue, so more devices
   * send it sooner.
   */
  private static final int DEVICES = 10;

  /** The first page of the expansion: CampaignRunner.EXPANSION_PAGE. */
  private static final int PAGE = 500;

  @TempDir Path dir;
  private final List<Process> started = new ArrayList<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  /** A failed test leaves no gateway running behind it. */
  @AfterEach
  void killWhatIsLeft() {
    started.forEach(Process::destroyForcibly);
  }

  @Test
  void throughANetworkThatDeduplicatesEachContactGetsExactlyOneMessage() throws Exception {
    crashMidCampaign(true);
  }

  @Test
  void throughANetworkThatDoesNotDeduplicateACutOffSendIsReportedFailedAndArrivesAtMostOnce()
      throws Exception {
    crashMidCampaign(false);
  }

  /**
   * The run: killed between two pages, then twice while sending, then left to finish; what the
   * phones hold and the counts checked. A send cut off by a kill is sent again through a network
   * that de-duplicates, and ends {@code failed/interrupted} through one that does not (it may have
   * arrived: the gateway cannot know), its recipient counted failed.
   */
  private void crashMidCampaign(boolean deduplicate) throws Exception {
    long began = System.nanoTime();
    Path data = dir.resolve("data");
    Path database = data.resolve("kurir.db");
    List<String> phones = new ArrayList<>();
    StringBuilder csv = new StringBuilder("phone,name,tags\n");
    for (int i = 0; i < CONTACTS; i++) {
      String phone = String.format("+628129800%04d", i);
      phones.add(phone);
      csv.append(phone).append(",C").append(i).append(",crash\n");
    }
    List<String> kills = new ArrayList<>();

    // Round 0: the license, its pool, the contacts and the campaign; killed between two pages.
    ServeProcess gateway = start(data, 0, deduplicate);
    String key = setUp(gateway);
    JsonNode imported = call(gateway, key, "POST", "/v1/contacts/import", "text/csv", csv);
    assertThat(imported.get("imported").asInt()).as(imported.toString()).isEqualTo(CONTACTS);
    JsonNode draft =
        call(
            gateway,
            key,
            "POST",
            "/v1/campaigns",
            "application/json",
            "{\"name\":\"Crash\",\"audience\":{\"tags\":[\"crash\"]},"
                + "\"message\":{\"type\":\"text\",\"text\":{\"body\":\"Halo {name}\"}},"
                + "\"quiet_hours\":null}");
    long campaign = draft.get("id").asLong();
    // The database's write lock, taken from here for a moment every millisecond from the start
    // on, and again the moment each of the gateway's commits (the start's, each page's) lets it
    // go (before the gateway has read its next page), is kept once a page is in: the kill lands
    // between two pages however fast the gateway expands. SQLite's own wait for the lock would
    // sleep up to 100 ms between tries: time enough for every page left.
    int atKill;
    try (Connection db = openForTrap(database);
        Statement q = db.createStatement()) {
      CompletableFuture<HttpResponse<String>> started =
          http.sendAsync(
              request(gateway, key, "POST", "/v1/campaigns/" + campaign + "/start", "", ""),
              HttpResponse.BodyHandlers.ofString());
      long deadline = System.nanoTime() + Eventually.GUARD.toNanos();
      while (true) {
        takeWriteLock(q, deadline);
        if (recipients(db, campaign) > 0 || expanded(db, campaign)) {
          break; // kept: the gateway waits for it
        }
        q.execute("ROLLBACK");
        LockSupport.parkNanos(Duration.ofMillis(1).toNanos()); // the gateway's turn
      }
      atKill = recipients(db, campaign);
      assertThat(expanded(db, campaign)).as("still expanding at the kill").isFalse();
      gateway.kill();
      q.execute("ROLLBACK");
      assertThat(started.get().statusCode()).as("started").isEqualTo(200);
    }
    assertThat(atKill).as("killed between two pages").isBetween(PAGE, CONTACTS - 1);
    assertThat(atKill % PAGE).as("whole pages only").isZero();
    kills.add("expanding, " + atKill + " recipients stored");

    // Rounds 1 and 2: killed while the queue holds the campaign's messages (each device sends one
    // every 40 ms, so a window of 5 is in its queue most of the time), some being sent.
    for (int goal : List.of(CONTACTS / 4, CONTACTS * 2 / 3)) {
      gateway = start(data, kills.size(), deduplicate);
      ServeProcess now = gateway;
      AtomicReference<JsonNode> seen = new AtomicReference<>();
      try {
        Eventually.until(
            goal + " sent, some queued",
            Eventually.GUARD,
            Duration.ofMillis(20),
            () -> {
              seen.set(campaign(now, key, campaign).get("counts"));
              return sent(seen.get()) >= goal && seen.get().get("queued").asInt() > 0;
            });
      } catch (AssertionError e) {
        throw new AssertionError(
            e.getMessage() + "; counts " + seen.get() + "\n" + gateway.diagnosis(), e);
      }
      gateway.kill();
      kills.add("feeding, " + sent(seen.get()) + " sent, " + seen.get().get("queued") + " queued");
    }

    // Last round: left to finish, then stopped cleanly.
    gateway = start(data, kills.size(), deduplicate);
    ServeProcess last = gateway;
    try {
      Eventually.until(
          "the campaign done",
          Eventually.GUARD,
          Duration.ofMillis(50),
          () -> campaign(last, key, campaign).get("status").asText().equals("done"));
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage()
              + "; counts "
              + campaign(last, key, campaign).get("counts")
              + "\n"
              + last.diagnosis(),
          e);
    }
    JsonNode counts = campaign(last, key, campaign).get("counts");
    gateway.stop();

    assertThat(sent(counts)).as("sent or failed: " + counts).isEqualTo(CONTACTS);
    assertThat(counts.get("total").asInt()).as(counts.toString()).isEqualTo(CONTACTS);
    for (String state : List.of("waiting", "queued", "opted_out", "cancelled")) {
      assertThat(counts.get(state).asInt()).as(state + " in " + counts).isZero();
    }

    // The database: one recipient a contact, each handed with its own message, and no other.
    Map<String, String> outcome = new HashMap<>(); // phone → its message's state and reason
    int interrupted;
    try (Connection read = open(database, true);
        Statement q = read.createStatement()) {
      try (ResultSet rs =
          q.executeQuery(
              "SELECT count(*), count(DISTINCT phone), count(DISTINCT message_id),"
                  + " sum(CASE WHEN state = 'handed' THEN 1 ELSE 0 END)"
                  + " FROM campaign_recipient WHERE campaign_id = "
                  + campaign)) {
        rs.next();
        assertThat(List.of(rs.getInt(1), rs.getInt(2), rs.getInt(3), rs.getInt(4)))
            .as("recipients, phones, messages, handed")
            .containsOnly(CONTACTS);
      }
      try (ResultSet rs = q.executeQuery("SELECT count(*) FROM message")) {
        rs.next();
        assertThat(rs.getInt(1)).as("messages stored: one a recipient").isEqualTo(CONTACTS);
      }
      try (ResultSet rs =
          q.executeQuery(
              "SELECT r.phone, m.state, m.reason FROM campaign_recipient r"
                  + " JOIN message m ON m.id = r.message_id WHERE r.campaign_id = "
                  + campaign)) {
        while (rs.next()) {
          outcome.put(rs.getString(1), rs.getString(2) + "/" + rs.getString(3));
        }
      }
      try (ResultSet rs =
          q.executeQuery("SELECT count(*) FROM message_event WHERE reason LIKE 'interrupted%'")) {
        rs.next();
        interrupted = rs.getInt(1);
      }
    }
    List<String> failed = outcome.values().stream().filter(o -> o.startsWith("failed/")).toList();
    assertThat(counts.get("failed").asInt()).as(counts.toString()).isEqualTo(failed.size());
    if (deduplicate) {
      assertThat(failed).as("nothing fails: what a kill cut off is sent again").isEmpty();
      kills.add(interrupted + " sends cut off and sent again");
    } else {
      assertThat(failed)
          .as("the only failures are sends cut off by a kill")
          .allMatch(o -> o.equals("failed/interrupted"));
      assertThat(failed.size())
          .as("at most a window of 5 a device per kill while sending")
          .isEqualTo(interrupted)
          .isLessThanOrEqualTo(2 * 5 * DEVICES);
      kills.add(interrupted + " sends cut off and failed");
    }

    // The phones: each contact's holds its one message; one cut off by a kill at most once.
    Path journal =
        data.resolve("drivers").resolve("sandbox").resolve(SandboxDriverFactory.JOURNAL_FILE);
    Map<String, List<InboxEntry>> inboxes = new HashMap<>();
    try (SandboxNetwork network = SandboxNetwork.readJournal(journal)) {
      for (String phone : network.phones()) {
        inboxes.put(phone, network.inbox(phone));
      }
    }
    Set<Long> arrived = new HashSet<>();
    for (int i = 0; i < CONTACTS; i++) {
      List<InboxEntry> inbox = inboxes.getOrDefault(phones.get(i), List.of());
      if (outcome.get(phones.get(i)).startsWith("failed/")) {
        assertThat(inbox).as("the phone of contact %d, its send cut off", i).hasSizeLessThan(2);
      } else {
        assertThat(inbox).as("the phone of contact %d", i).hasSize(1);
      }
      for (InboxEntry e : inbox) {
        assertThat(e.text()).isEqualTo("Halo C" + i);
        arrived.add(e.messageId());
      }
    }
    int entries = inboxes.values().stream().mapToInt(List::size).sum();
    assertThat(arrived).as("a message of its own each").hasSize(entries);
    assertThat(entries)
        .as("no message anywhere else")
        .isBetween(CONTACTS - failed.size(), CONTACTS);
    System.out.printf(
        "campaign crash test (deduplicate=%s): %d contacts on %d devices, kills %s, %d s in all%n",
        deduplicate,
        CONTACTS,
        DEVICES,
        kills,
        Duration.ofNanos(System.nanoTime() - began).toSeconds());
  }

  /** A partner, a license with {@link #DEVICES} paired devices and an API key; the key. */
  private String setUp(ServeProcess gateway) throws Exception {
    String partner =
        admin(gateway, "/admin/partners", "{\"name\":\"Campaign crash\"}").get("id").asText();
    String license =
        admin(
                gateway,
                "/admin/licenses",
                "{\"partner\":\"" + partner + "\",\"name\":\"Campaign crash customer\"}")
            .get("id")
            .asText();
    for (int i = 0; i < DEVICES; i++) {
      String device =
          admin(
                  gateway,
                  "/admin/devices",
                  "{\"license\":\"" + license + "\",\"number\":\"+62811000078" + (10 + i) + "\"}")
              .get("id")
              .asText();
      admin(gateway, "/sandbox/devices/" + device + "/pair", "{}");
    }
    return admin(
            gateway,
            "/admin/licenses/" + license + "/api-keys",
            "{\"name\":\"crash\",\"scopes\":[\"contacts\",\"campaigns\"]}")
        .get("key")
        .asText();
  }

  /** The recipients sent (or further) in a campaign's counts. */
  private static int sent(JsonNode counts) {
    return counts.get("sent").asInt()
        + counts.get("delivered").asInt()
        + counts.get("read").asInt()
        + counts.get("failed").asInt();
  }

  private JsonNode campaign(ServeProcess gateway, String key, long campaign) {
    try {
      return call(gateway, key, "GET", "/v1/campaigns/" + campaign, "application/json", "");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private JsonNode admin(ServeProcess gateway, String path, String json) throws Exception {
    return call(gateway, ADMIN_TOKEN, "POST", path, "application/json", json);
  }

  private JsonNode call(
      ServeProcess gateway, String bearer, String method, String path, String type, Object body)
      throws Exception {
    HttpResponse<String> r =
        http.send(
            request(gateway, bearer, method, path, type, body),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isBetween(200, 299);
    return JSON.readTree(r.body());
  }

  private static HttpRequest request(
      ServeProcess gateway, String bearer, String method, String path, String type, Object body) {
    return HttpRequest.newBuilder(URI.create(gateway.url() + path))
        .timeout(Duration.ofSeconds(60))
        .header("Authorization", "Bearer " + bearer)
        .header("Content-Type", type)
        .method(method, HttpRequest.BodyPublishers.ofString(body.toString()))
        .build();
  }

  private static int recipients(Connection db, long campaign) {
    try (Statement q = db.createStatement();
        ResultSet rs =
            q.executeQuery(
                "SELECT count(*) FROM campaign_recipient WHERE campaign_id = " + campaign)) {
      rs.next();
      return rs.getInt(1);
    } catch (SQLException e) {
      return -1; // the gateway is writing: look again
    }
  }

  private static String status(Connection db, long campaign) {
    try (Statement q = db.createStatement();
        ResultSet rs = q.executeQuery("SELECT status FROM campaign WHERE id = " + campaign)) {
      return rs.next() ? rs.getString(1) : "";
    } catch (SQLException e) {
      return ""; // the gateway is writing: look again
    }
  }

  private static boolean expanded(Connection db, long campaign) throws SQLException {
    try (Statement q = db.createStatement();
        ResultSet rs = q.executeQuery("SELECT expanded FROM campaign WHERE id = " + campaign)) {
      rs.next();
      return rs.getInt(1) != 0;
    }
  }

  /**
   * A connection that never waits for the write lock itself: SQLite's own wait sleeps up to 100 ms
   * between tries, time enough for the gateway to store every page left (see {@link
   * #takeWriteLock}).
   */
  private static Connection openForTrap(Path database) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setBusyTimeout(0);
    return config.createConnection("jdbc:sqlite:" + database);
  }

  /**
   * Takes the write lock the moment the gateway's commit lets it go, before the gateway has read
   * its next page: tried again without a pause while the gateway holds it.
   */
  private static void takeWriteLock(Statement q, long deadline) throws SQLException {
    while (true) {
      try {
        q.execute("BEGIN IMMEDIATE");
        return;
      } catch (SQLException e) {
        int primary = e.getErrorCode() & 0xff; // an extended code's primary one
        boolean busy = primary == 5 || primary == 6; // SQLITE_BUSY, SQLITE_LOCKED
        if (!busy || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.onSpinWait();
      }
    }
  }

  private static Connection open(Path database, boolean readOnly) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(readOnly);
    config.setBusyTimeout(10_000);
    return config.createConnection("jdbc:sqlite:" + database);
  }

  /** {@code serve} on {@code data}, the sandbox's journal on (its default), its API on. */
  private ServeProcess start(Path data, int round, boolean deduplicate) throws Exception {
    List<String> flags =
        new ArrayList<>(
            List.of("--server.port=0", "--data.dir=" + data, "--admin.token=" + ADMIN_TOKEN));
    // As ServeProcess.sandboxUnderLoad, with a gap between a device's sends.
    flags.addAll(
        List.of(
            "--drivers.sandbox.api=true",
            "--drivers.sandbox.deduplicate=" + deduplicate,
            "--drivers.sandbox.delivery-after=300ms",
            "--drivers.sandbox.read-after=600ms",
            "--drivers.sandbox.pacing.min-gap=40ms",
            "--drivers.sandbox.pacing.jitter=0ms"));
    // The safe-sending policy off (its own tests are about it): new numbers may send all.
    flags.addAll(List.of(TestGateway.safeSendingOff()));
    ServeProcess gateway = ServeProcess.start(dir, "gateway-" + round, flags);
    started.add(gateway.process());
    return gateway;
  }
}
