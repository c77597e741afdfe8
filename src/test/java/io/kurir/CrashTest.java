package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kurir.driver.sandbox.SandboxDriverFactory;
import io.kurir.driver.sandbox.SandboxNetwork;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.testing.Eventually;
import io.kurir.testing.SendLoad;
import io.kurir.testing.ServeProcess;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConfig;

/**
 * The gateway as a separate process under load from several clients, killed with {@code kill -9} in
 * the middle of it, started again on the same data folder, three times; then left to finish and
 * stopped cleanly. What it answered with an id is never lost and ends in a final state; what the
 * phones received is read from the sandbox network's journal, which outlives the process as a real
 * network would. Through a network that de-duplicates, every message arrives exactly once; through
 * one that does not, a message cut off by a kill arrives at most once and ends {@code
 * failed/interrupted}, and there are no more of those per kill than a device claims at a time.
 */
@Tag("crash")
class CrashTest {
  private static final String ADMIN_TOKEN = "crash-test-admin-token-0123456789";

  /** Kills, each after this many accepted requests of its round; then a last round, not killed. */
  private static final int KILLS = 3;

  private static final int ACCEPTED_PER_ROUND = 1_000;
  private static final int ACCEPTED_IN_LAST_ROUND = 300;
  private static final int CLIENTS = 6;
  private static final int RECIPIENTS = 40;

  /**
   * The most messages of one device that may be cut off by one crash: what a device's sender claims
   * as {@code sending} at a time (ClaimWindow.MAX_CLAIM, docs/decisions.md).
   */
  private static final int IN_FLIGHT_PER_KILL = 64;

  @TempDir Path dir;
  private final List<Process> started = new ArrayList<>();

  /** A failed test leaves no gateway running behind it. */
  @AfterEach
  void killWhatIsLeft() {
    started.forEach(Process::destroyForcibly);
  }

  @Test
  void throughANetworkThatDeduplicatesEveryAcceptedMessageArrivesExactlyOnce() throws Exception {
    Outcome o = crashUnderLoad(true);

    assertThat(o.failed()).as("nothing fails: what a kill cut off is sent again").isEmpty();
    o.messages()
        .forEach(
            (id, m) ->
                assertThat(o.arrivals().getOrDefault(id, 0))
                    .as("arrivals of message %d (%s)", id, m.state())
                    .isEqualTo(1));
    assertThat(o.cutOffPerKill())
        .allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(IN_FLIGHT_PER_KILL));
  }

  @Test
  void throughANetworkThatDoesNotDeduplicateACutOffMessageArrivesAtMostOnce() throws Exception {
    Outcome o = crashUnderLoad(false);

    assertThat(o.failed().values())
        .as("the only failures are sends cut off by a kill")
        .allMatch(reason -> reason.equals("interrupted"));
    assertThat(o.cutOffPerKill())
        .as("failed/interrupted per kill: at most what a device claims at a time")
        .allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(IN_FLIGHT_PER_KILL));
    assertThat(o.cutOffPerKill().stream().mapToInt(Integer::intValue).sum())
        .isEqualTo(o.failed().size());
    o.messages()
        .forEach(
            (id, m) -> {
              int arrived = o.arrivals().getOrDefault(id, 0);
              if (m.state().equals("failed")) {
                assertThat(arrived).as("arrivals of interrupted message %d", id).isBetween(0, 1);
              } else {
                assertThat(arrived).as("arrivals of message %d (%s)", id, m.state()).isEqualTo(1);
              }
            });
  }

  // --- the run

  /** A message as the database has it at the end. */
  private record Stored(String state, String reason, String text) {}

  /**
   * What a run left: every message in the database, how often each arrived at a phone, the failed
   * ones with their reason, and how many sends each kill cut off (found {@code sending} at the next
   * start).
   */
  private record Outcome(
      Map<Long, Stored> messages,
      Map<Long, Integer> arrivals,
      Map<Long, String> failed,
      List<Integer> cutOffPerKill) {}

  private Outcome crashUnderLoad(boolean deduplicate) throws Exception {
    long began = System.nanoTime();
    Path data = dir.resolve("data");
    List<String> recipients = new ArrayList<>();
    for (int i = 0; i < RECIPIENTS; i++) {
      recipients.add(String.format("+628129900%04d", i));
    }
    List<Long> startedAt = new ArrayList<>(); // wall-clock millis of each start
    List<Integer> acceptedPerRound = new ArrayList<>();
    List<Long> roundMillis = new ArrayList<>();
    List<Long> startupMillis = new ArrayList<>();
    Map<Long, String> accepted;
    int cutOffRequests;
    try (SendLoad load = new SendLoad(ADMIN_TOKEN)) {
      PairedDevice device = null;
      for (int round = 0; round <= KILLS; round++) {
        startedAt.add(System.currentTimeMillis());
        ServeProcess gateway = startGateway(dir, data, deduplicate, round);
        started.add(gateway.process());
        startupMillis.add(System.currentTimeMillis() - startedAt.getLast());
        if (round == 0) {
          device = pairDevice(gateway, load);
          String key = device.key();
          load.start(
              CLIENTS,
              (client, n) -> {
                String text = "crash c" + client + " m" + n;
                String to = recipients.get((client * 7 + n) % recipients.size());
                return SendLoad.Send.async(key, to, text, null);
              });
        }
        assertThat(load.get(gateway.url(), "/sandbox/devices/" + device.id()).path("paired"))
            .as("the pairing outlived the gateway (round %d)", round)
            .hasToString("true");
        int before = load.accepted.size();
        load.up(gateway.url());
        boolean last = round == KILLS;
        int goal = before + (last ? ACCEPTED_IN_LAST_ROUND : ACCEPTED_PER_ROUND);
        Eventually.until(
            "accepted " + goal + " (round " + round + ")",
            Eventually.GUARD, // another process under load: slow work
            () -> load.accepted.size() >= goal);
        if (last) {
          load.stop();
          acceptedPerRound.add(load.accepted.size() - before);
          try (Connection db = readOnly(data.resolve("kurir.db"))) {
            Eventually.until(
                "every message in a final state", Eventually.GUARD, () -> unfinished(db) == 0);
          }
          gateway.stop();
        } else {
          gateway.kill();
          load.down(gateway.url());
          acceptedPerRound.add(load.accepted.size() - before);
        }
        roundMillis.add(System.currentTimeMillis() - startedAt.getLast());
      }
      accepted = Map.copyOf(load.accepted);
      cutOffRequests = load.cutOff.get();
    }

    Map<Long, Stored> messages = new HashMap<>();
    Map<Long, String> failed = new HashMap<>();
    List<Integer> cutOffPerKill = new ArrayList<>();
    try (Connection db = readOnly(data.resolve("kurir.db"));
        Statement q = db.createStatement()) {
      try (ResultSet rs = q.executeQuery("SELECT id, state, reason, body FROM message")) {
        while (rs.next()) {
          Stored m = new Stored(rs.getString(2), rs.getString(3), rs.getString(4));
          messages.put(rs.getLong(1), m);
          if (m.state().equals("failed")) {
            failed.put(rs.getLong(1), m.reason());
          }
        }
      }
      // Each kill's cut-off sends are found by the next start: recorded with reason "interrupted"
      // (failed, or queued again through a network that de-duplicates).
      for (int kill = 1; kill <= KILLS; kill++) {
        long from = startedAt.get(kill);
        long to = kill + 1 < startedAt.size() ? startedAt.get(kill + 1) : Long.MAX_VALUE;
        try (ResultSet rs =
            q.executeQuery(
                "SELECT count(*) FROM message_event WHERE reason LIKE 'interrupted%' AND at >= "
                    + from
                    + " AND at < "
                    + to)) {
          rs.next();
          cutOffPerKill.add(rs.getInt(1));
        }
      }
    }

    Map<Long, Integer> arrivals = new HashMap<>();
    int entries = 0;
    Path journal =
        data.resolve("drivers").resolve("sandbox").resolve(SandboxDriverFactory.JOURNAL_FILE);
    try (SandboxNetwork network = SandboxNetwork.readJournal(journal)) {
      for (String phone : network.phones()) {
        List<InboxEntry> inbox = network.inbox(phone);
        assertThat(inbox.size())
            .as("the phone's history is all there (below the bound)")
            .isLessThan(SandboxNetwork.HISTORY_PER_PHONE);
        for (InboxEntry e : inbox) {
          entries++;
          arrivals.merge(e.messageId(), 1, Integer::sum);
          Stored m = messages.get(e.messageId());
          assertThat(m).as("message %d arrived: somebody asked for it", e.messageId()).isNotNull();
          assertThat(e.text()).isEqualTo(m.text());
        }
      }
    }

    accepted.forEach(
        (id, text) ->
            assertThat(messages.get(id))
                .as("accepted message %d is stored", id)
                .isNotNull()
                .extracting(Stored::text)
                .isEqualTo(text));
    assertThat(messages.values())
        .as("every message in a final state")
        .allSatisfy(m -> assertThat(m.state()).isIn("sent", "delivery", "read", "failed"));
    assertThat(failed.values()).as("a failure has its reason").doesNotContainNull();
    long seconds = Duration.ofNanos(System.nanoTime() - began).toSeconds();
    System.out.printf(
        "crash test (deduplicate=%s): accepted per round %s, %d accepted in all, %d requests"
            + " cut off, %d stored, %d arrivals, sends cut off per kill %s, %d failed, rounds %s ms"
            + " (starts %s ms), %d s in all%n",
        deduplicate,
        acceptedPerRound,
        accepted.size(),
        cutOffRequests,
        messages.size(),
        entries,
        cutOffPerKill,
        failed.size(),
        roundMillis,
        startupMillis,
        seconds);
    return new Outcome(messages, arrivals, failed, cutOffPerKill);
  }

  private static int unfinished(Connection db) {
    try (Statement q = db.createStatement();
        ResultSet rs =
            q.executeQuery("SELECT count(*) FROM message WHERE state IN ('pending', 'sending')")) {
      rs.next();
      return rs.getInt(1);
    } catch (SQLException e) {
      return -1; // the gateway is writing: look again
    }
  }

  private static Connection readOnly(Path database) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(true);
    config.setBusyTimeout(5_000);
    return config.createConnection("jdbc:sqlite:" + database);
  }

  private record PairedDevice(String id, String key) {}

  /** A partner, license and device made through the Admin API, paired through the sandbox API. */
  private static PairedDevice pairDevice(ServeProcess gateway, SendLoad load) throws Exception {
    String partner =
        load.post(gateway.url(), "/admin/partners", "{\"name\":\"Crash partner\"}")
            .get("id")
            .asText();
    String license =
        load.post(
                gateway.url(),
                "/admin/licenses",
                "{\"partner\":\"" + partner + "\",\"name\":\"Crash customer\"}")
            .get("id")
            .asText();
    JsonNode device =
        load.post(
            gateway.url(),
            "/admin/devices",
            "{\"license\":\"" + license + "\",\"number\":\"+6281100007777\"}");
    String id = device.get("id").asText();
    load.post(gateway.url(), "/sandbox/devices/" + id + "/pair", "{}");
    return new PairedDevice(id, device.get("key").asText());
  }

  // --- the gateway's process

  /** {@code java … io.kurir.Kurir serve} on {@code data}, its sandbox journal on (the default). */
  private static ServeProcess startGateway(Path dir, Path data, boolean deduplicate, int round)
      throws Exception {
    List<String> flags =
        new ArrayList<>(
            List.of("--server.port=0", "--data.dir=" + data, "--admin.token=" + ADMIN_TOKEN));
    // drivers.sandbox.journal is left at its default (on): the network outlives us.
    flags.addAll(ServeProcess.sandboxUnderLoad(deduplicate));
    return ServeProcess.start(dir, "gateway-" + round, flags);
  }
}
