package io.kurir.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.config.Settings;
import io.kurir.media.SafeFetcher;
import io.kurir.phone.PhoneNumbers;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import io.kurir.tenant.Tenants;
import io.kurir.testing.Eventually;
import io.kurir.testing.TestDatabases;
import io.kurir.testing.TestTables;
import io.kurir.testing.WebhookReceiver;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The outbox loop on its own, without a gateway: outboxes on one database (as nodes sharing it)
 * never deliver an event twice, claims left behind are taken again, and the loop and its attempts
 * outlive any Throwable, and say so in the log.
 */
@Isolated(
    "replaces System.err and reads the io.kurir log (LogCapture), which every gateway in this JVM writes to")
class WebhookOutboxLoopTest {
  static final Settings.Media PRIVATE_ALLOWED =
      new Settings.Media(1 << 20, true, Duration.ofSeconds(5));

  @TempDir Path dir;
  Database db;
  IdGenerator ids;
  WebhookReceiver receiver;
  final List<WebhookOutbox> outboxes = new ArrayList<>();
  final List<Database> extraDatabases = new ArrayList<>();
  int nextNumber = 5_000_000;

  @BeforeEach
  void open() {
    db = TestDatabases.open(TestDatabases.at(dir.resolve("kurir.db")));
    ids = new IdGenerator(Clock.systemUTC(), 0);
    receiver = new WebhookReceiver();
  }

  @AfterEach
  void close() {
    outboxes.forEach(WebhookOutbox::close);
    extraDatabases.forEach(Database::close);
    db.close();
    receiver.close();
  }

  List<Device> devices(int count) {
    Tenants tenants =
        new Tenants(
            db,
            ids,
            Clock.systemUTC(),
            ZoneId.of("Asia/Jakarta"),
            new PhoneNumbers("ID"),
            io.kurir.tenant.DeviceDrivers.of(io.kurir.driver.standard.StandardDrivers.catalog()));
    Partner p = tenants.createPartner("P", "");
    License l = tenants.createLicense(p.id(), "L", "", null, List.of());
    List<Device> devices = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      devices.add(
          tenants.createDevice(
              l.id(), String.format(Locale.ROOT, "+62811%07d", nextNumber++), "sandbox"));
    }
    return devices;
  }

  WebhookOutbox outbox(Database on, Clock clock, int node) {
    WebhookOutbox outbox =
        new WebhookOutbox(
            on,
            clock,
            new SafeFetcher(PRIVATE_ALLOWED),
            Duration.ofHours(24),
            Duration.ofSeconds(5),
            node,
            outcome -> {});
    outboxes.add(outbox);
    return outbox;
  }

  long add(Device d, String url, String payload) {
    long id = ids.next();
    db.writes()
        .writeIn(
            tx -> {
              WebhookOutbox.add(tx, id, d.id(), url, "test.event", payload, Instant.now());
              return null;
            });
    return id;
  }

  String state(long id) {
    return TestTables.of(db).delivery(id).orElseThrow().state();
  }

  @Test
  void twoOutboxesOnOneDatabaseNeverDeliverAnEventTwice() throws Exception {
    List<Device> devices = devices(40);
    Database second = TestDatabases.open(TestDatabases.at(dir.resolve("kurir.db")));
    extraDatabases.add(second);
    WebhookOutbox one = outbox(db, Clock.systemUTC(), 1);
    WebhookOutbox two = outbox(second, Clock.systemUTC(), 2);
    one.start();
    two.start();
    // Rounds of one event on each of 40 lines, both outboxes woken at once (in turn, which
    // first): both look at the same deliveries and race to claim them.
    for (int round = 0; round < 20; round++) {
      for (Device d : devices) {
        add(d, receiver.url("/d" + d.id()), "{\"round\":" + round + "}");
      }
      List<WebhookOutbox> order = round % 2 == 0 ? List.of(one, two) : List.of(two, one);
      order.forEach(WebhookOutbox::wake);
      int delivered = 40 * (round + 1);
      // Recorded, not only received: an attempt still recording would claim the next round's
      // event of its line in its commit, and the outbox that served the last round would win the
      // next without a race.
      Eventually.until(
          "the round delivered",
          () ->
              receiver.distinctEvents() == delivered
                  && db.jdbi()
                          .withHandle(
                              h ->
                                  h.createQuery(
                                          "SELECT COUNT(*) FROM webhook_delivery"
                                              + " WHERE state = 'delivered'")
                                      .mapTo(Long.class)
                                      .one())
                      == delivered);
    }
    Eventually.until(
        "all 800 delivered", Duration.ofSeconds(180), () -> receiver.distinctEvents() == 800);
    one.close();
    two.close();
    assertThat(receiver.duplicates()).as("events received twice").isZero();
    assertThat(receiver.received()).hasSize(800);
    assertThat(one.attemptsMade()).as("the first outbox took part").isPositive();
    assertThat(two.attemptsMade()).as("the second outbox took part").isPositive();
    assertThat(one.attemptsMade() + two.attemptsMade()).isEqualTo(800);
  }

  /**
   * Outboxes racing for lines whose events wait in batches: each event once, and every line's
   * events in their order.
   */
  @Test
  void twoOutboxesRacingForBatchesDeliverEachEventOnceAndInOrder() throws Exception {
    List<Device> devices = devices(20);
    Database second = TestDatabases.open(TestDatabases.at(dir.resolve("kurir.db")));
    extraDatabases.add(second);
    WebhookOutbox one = outbox(db, Clock.systemUTC(), 1);
    WebhookOutbox two = outbox(second, Clock.systemUTC(), 2);
    one.start();
    two.start();
    int perRound = 2 * WebhookOutbox.BATCH + 3; // two batches and a bit, on every line
    for (int round = 0; round < 3; round++) {
      for (Device d : devices) {
        for (int n = 0; n < perRound; n++) {
          add(d, receiver.url("/d" + d.id()), lineEvent(d, round * perRound + n));
        }
      }
      List<WebhookOutbox> order = round % 2 == 0 ? List.of(one, two) : List.of(two, one);
      order.forEach(WebhookOutbox::wake);
    }
    int total = devices.size() * 3 * perRound;
    Eventually.until(
        "all delivered", Duration.ofSeconds(180), () -> receiver.distinctEvents() == total);
    one.close();
    two.close();
    assertThat(receiver.duplicates()).as("events received twice").isZero();
    assertThat(one.attemptsMade() + two.attemptsMade()).isEqualTo(total);
    assertInOrderPerLine(receiver.received());
  }

  @Test
  void manyLinesClaimedInOneGoAreEachDeliveredOnceAndInOrder() throws Exception {
    List<Device> devices = devices(30);
    int perLine = 3 * WebhookOutbox.BATCH + 5;
    for (Device d : devices) {
      for (int n = 0; n < perLine; n++) {
        add(d, receiver.url("/d" + d.id()), lineEvent(d, n));
      }
    }
    WebhookOutbox outbox = outbox(db, Clock.systemUTC(), 1);
    outbox.start();
    int total = devices.size() * perLine;
    Eventually.until(
        "all delivered", Duration.ofSeconds(120), () -> receiver.distinctEvents() == total);
    assertThat(receiver.duplicates()).as("events received twice").isZero();
    assertThat(outbox.attemptsMade()).isEqualTo(total);
    assertInOrderPerLine(receiver.received());
  }

  @Test
  void aBatchIsItsLinesNextDeliveriesInOrderAndHoldsTheLine() {
    Instant start = Instant.parse("2026-03-10T03:00:00Z");
    Device d = devices(1).getFirst();
    int count = WebhookOutbox.BATCH + 4;
    List<Long> events = addLine(d, receiver.url("/in"), start, count);
    WebhookStore store = new WebhookStore(db);
    Instant until = start.plus(Duration.ofMinutes(1));
    List<WebhookStore.Delivery> looked =
        store.eligible(start, WebhookStore.Line.START, WebhookStore.Line.END, 10).candidates();
    List<List<WebhookStore.Delivery>> batches =
        store.claimBatches(looked, 1, until, start, WebhookOutbox.BATCH);
    assertThat(batches).hasSize(1);
    List<WebhookStore.Delivery> batch = batches.getFirst();
    assertThat(batch)
        .extracting(WebhookStore.Delivery::id)
        .containsExactlyElementsOf(events.subList(0, WebhookOutbox.BATCH));
    assertThat(batch)
        .extracting(WebhookStore.Delivery::claimToken)
        .containsOnly(batch.getFirst().claimToken());
    assertThat(claimFirst(store, start)).as("the line has an attempt under way").isEmpty();

    // The first three delivered, the fourth failed: the rest are given back, and the line waits
    // behind the failed one (it holds its place).
    List<WebhookStore.Attempted> attempted = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      attempted.add(WebhookStore.Attempted.ended(batch.get(i), "delivered", null));
    }
    attempted.add(
        WebhookStore.Attempted.retried(
            batch.get(3), start.plusSeconds(10), start.plus(WebhookOutbox.HOLD), "HTTP 503"));
    WebhookStore.Recorded recorded =
        store.record(
            attempted, batch.subList(4, batch.size()), start, WebhookOutbox.BATCH, 1, until);
    assertThat(recorded.ours()).containsOnly(true);
    assertThat(recorded.next()).as("nothing may go behind the failed one").isEmpty();
    assertThat(events.subList(0, 3)).allSatisfy(id -> assertThat(state(id)).isEqualTo("delivered"));
    assertThat(TestTables.of(db).delivery(events.get(3)).orElseThrow().attempts()).isEqualTo(1);
    assertThat(TestTables.of(db).delivery(events.get(4)).orElseThrow().attempts())
        .as("given back untried")
        .isZero();

    // Its retry is due: it goes first, with the ones behind it, and the next batch is claimed in
    // the commit that records it.
    Instant due = start.plusSeconds(20);
    List<WebhookStore.Delivery> retried =
        store
            .claimBatches(
                store
                    .eligible(due, WebhookStore.Line.START, WebhookStore.Line.END, 10)
                    .candidates(),
                1,
                due.plus(Duration.ofMinutes(1)),
                due,
                4)
            .getFirst();
    assertThat(retried)
        .extracting(WebhookStore.Delivery::id)
        .as("a delivery tried before starts a batch of its own: the batch takes only new ones")
        .containsExactly(events.get(3), events.get(4), events.get(5), events.get(6));
    WebhookStore.Recorded next =
        store.record(
            retried.stream().map(r -> WebhookStore.Attempted.ended(r, "delivered", null)).toList(),
            List.of(),
            due,
            WebhookOutbox.BATCH,
            1,
            due.plus(Duration.ofMinutes(1)));
    assertThat(next.next())
        .extracting(WebhookStore.Delivery::id)
        .containsExactlyElementsOf(events.subList(7, count));
  }

  /**
   * The record of a batch fails (the database refuses it): its claims expire, and its events are
   * delivered again, in order: at least once, never lost.
   */
  @Test
  void aBatchWhoseRecordFailsIsDeliveredAgainInOrderOnceItsClaimsExpire() throws Exception {
    Device d = devices(1).getFirst();
    io.kurir.time.SettableClock clock = new io.kurir.time.SettableClock(Instant.now());
    int count = 5;
    List<Long> events = new ArrayList<>();
    for (int n = 0; n < count; n++) {
      events.add(add(d, receiver.url("/x"), lineEvent(d, n)));
    }
    clock.set(Instant.now()); // they are due
    java.util.concurrent.atomic.AtomicBoolean broken =
        new java.util.concurrent.atomic.AtomicBoolean();
    receiver.refuseWhen(
        r -> {
          // The batch's last event takes the outbox's table away before it is answered: the
          // record of the whole batch fails.
          if (r.body().contains("\"n\":" + (count - 1)) && broken.compareAndSet(false, true)) {
            db.writes()
                .write(h -> h.execute("ALTER TABLE webhook_delivery RENAME TO delivery_away"));
          }
          return false;
        });
    WebhookOutbox outbox = outbox(db, clock, 1);
    try (io.kurir.testing.LogCapture logs = io.kurir.testing.LogCapture.of(WebhookOutbox.class)) {
      outbox.start();
      Eventually.until(
          "the record failed",
          () ->
              logs.atLeast(ch.qos.logback.classic.Level.ERROR).stream()
                  .anyMatch(l -> l.message().contains("cannot record its attempt")));
    }
    assertThat(receiver.received()).hasSize(count);
    db.writes().write(h -> h.execute("ALTER TABLE delivery_away RENAME TO webhook_delivery"));
    assertThat(events).allSatisfy(id -> assertThat(state(id)).isEqualTo("pending"));

    clock.advance(Duration.ofMinutes(2)); // the claims (5 s + 1 min) and the pass's wait expire
    Eventually.until(
        "delivered again", () -> events.stream().allMatch(id -> state(id).equals("delivered")));
    assertThat(receiver.received()).hasSize(2 * count);
    assertInOrderPerLine(receiver.received().subList(0, count));
    assertInOrderPerLine(receiver.received().subList(count, 2 * count));
  }

  /** The payload of event {@code n} of device {@code d}'s line. */
  static String lineEvent(Device d, int n) {
    return "{\"line\":" + d.id() + ",\"n\":" + n + "}";
  }

  /** Each line's events arrived in their order ({@link #lineEvent}'s {@code n} rising). */
  static void assertInOrderPerLine(List<WebhookReceiver.Received> received) {
    java.util.Map<Long, Integer> last = new java.util.HashMap<>();
    for (WebhookReceiver.Received r : received) {
      long line = r.json().get("line").asLong();
      int n = r.json().get("n").asInt();
      Integer before = last.put(line, n);
      assertThat(before == null ? -1 : before)
          .as("line " + line + " before event " + n)
          .isLessThan(n);
    }
  }

  @Test
  void aClaimLeftByANodeThatStoppedIsTakenAgain() throws Exception {
    Device d = devices(1).getFirst();
    long mine = add(d, receiver.url("/a"), "{}");
    Device other = devices(1).getFirst();
    long theirs = add(other, receiver.url("/b"), "{}");
    long now = System.currentTimeMillis();
    db.writes()
        .write(
            h -> {
              // Node 1 stopped in the middle of an attempt; node 2 died holding a claim that has
              // expired since.
              h.execute(
                  "UPDATE webhook_delivery SET claim_token = 7, claimed_by = 1, claim_until = ?"
                      + " WHERE id = ?",
                  now + 3_600_000,
                  mine);
              h.execute(
                  "UPDATE webhook_delivery SET claim_token = 8, claimed_by = 2, claim_until = ?"
                      + " WHERE id = ?",
                  now - 1,
                  theirs);
              return null;
            });
    outbox(db, Clock.systemUTC(), 1).start();
    Eventually.until(
        "both delivered",
        () -> state(mine).equals("delivered") && state(theirs).equals("delivered"));
    assertThat(receiver.received()).hasSize(2);
  }

  /**
   * How {@code MessageWebhookPostgresTest.aReceiverThatFailsTwiceGetsEveryEventInOrderOnce...} once
   * got "pesan 2, pesan 3, pesan 1", step by step. Its wait for a quiet outbox looked at the claims
   * (none), the outbox claimed the second attempt of the first event, then the wait looked at what
   * was eligible (nothing: that line had an attempt under way). Called quiet, the test set the
   * clock to the next change, which with the attempt under way was the end of the first event's
   * hold; the attempt failed at that time, after the hold, so the events behind it went first, as
   * the ordering rule says. The wait must see both in one snapshot: an attempt claimed between its
   * looks is not quiet.
   */
  @Test
  void aWaitForAQuietOutboxSeesAnAttemptClaimedBetweenItsLooks() {
    Instant start = Instant.parse("2026-03-10T03:00:00Z");
    List<Long> events = addLine(devices(1).getFirst(), receiver.url("/in"), start, 3);
    WebhookStore store = new WebhookStore(db);
    WebhookStore.Delivery first = claimFirst(store, start).orElseThrow();
    assertThat(first.id()).isEqualTo(events.getFirst());
    Instant due = start.plusSeconds(10);
    assertThat(store.retry(first, due, start.plus(WebhookOutbox.HOLD), "HTTP 503")).isTrue();

    AtomicReference<WebhookStore.Delivery> second = new AtomicReference<>();
    boolean quiet =
        MessageWebhookTest.quiet(db, due, () -> second.set(claimFirst(store, due).orElseThrow()));
    assertThat(second.get().id()).as("the second attempt").isEqualTo(first.id());
    assertThat(quiet).as("quiet, with the second attempt under way").isFalse();

    // What the test did when it was told quiet: the next change is the end of the hold (the
    // claim expires later), and the attempt under way fails after it: the hold is over.
    Instant next = store.nextChange(due).orElseThrow();
    assertThat(next).isEqualTo(start.plus(WebhookOutbox.HOLD));
    assertThat(store.retry(second.get(), next.plusSeconds(20), next.plus(WebhookOutbox.HOLD), "x"))
        .isTrue();
    assertThat(claimFirst(store, next))
        .map(WebhookStore.Delivery::id)
        .as("the second event goes before the first, as the ordering rule says")
        .contains(events.get(1));
  }

  @Test
  void aReplayBetweenTheLoopsLookAndItsClaimGoesFirst() {
    Instant start = Instant.parse("2026-03-10T03:00:00Z");
    List<Long> events = addLine(devices(1).getFirst(), receiver.url("/in"), start, 3);
    WebhookStore store = new WebhookStore(db);
    WebhookStore.Delivery first = claimFirst(store, start).orElseThrow();
    assertThat(store.finish(first, "dead", "HTTP 500", start, false, 1, start).ours()).isTrue();

    // The loop looks (the second event is the line's first now), then an operator replays the
    // first before the loop's claim commits.
    List<WebhookStore.Delivery> looked =
        store.eligible(start, WebhookStore.Line.START, WebhookStore.Line.END, 10).candidates();
    assertThat(looked).extracting(WebhookStore.Delivery::id).containsExactly(events.get(1));
    assertThat(store.replay(first.id(), start)).isTrue();

    assertThat(store.claim(looked, 1, start.plus(Duration.ofMinutes(1)), start))
        .as("a claim made from a look that a replay overtook")
        .isEmpty();
    assertThat(claimFirst(store, start))
        .map(WebhookStore.Delivery::id)
        .as("the replayed event is first in its line again")
        .contains(first.id());
  }

  /**
   * Adds {@code count} incoming-message events ("pesan 1", …) to one line, in order, at {@code at}.
   */
  List<Long> addLine(Device d, String url, Instant at, int count) {
    List<Long> events = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      long id = ids.next();
      String payload = "{\"message\":\"pesan " + i + "\"}";
      db.writes()
          .writeIn(
              tx -> {
                WebhookOutbox.add(tx, id, d.id(), url, "message.incoming", payload, at);
                return null;
              });
      events.add(id);
    }
    return events;
  }

  /** Claims, at {@code now}, the first delivery that may be attempted, as the outbox loop does. */
  static java.util.Optional<WebhookStore.Delivery> claimFirst(WebhookStore store, Instant now) {
    List<WebhookStore.Delivery> candidates =
        store.eligible(now, WebhookStore.Line.START, WebhookStore.Line.END, 10).candidates();
    return store.claim(candidates, 1, now.plus(Duration.ofMinutes(1)), now).stream().findFirst();
  }

  /** A clock that throws what it is given, once, at its next reading. */
  static final class BreakingClock extends Clock {
    final AtomicReference<Throwable> next = new AtomicReference<>();

    void breakNextReading(Throwable t) {
      next.set(t);
    }

    @Override
    public Instant instant() {
      Throwable t = next.getAndSet(null);
      if (t instanceof Error e) {
        throw e;
      }
      if (t instanceof RuntimeException e) {
        throw e;
      }
      return Instant.now();
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this; // instants have no zone, and nothing here reads a local time
    }
  }

  /** Everything written to System.err while {@code run} runs, and still shown there. */
  static String stderrOf(ThrowingRunnable run) throws Exception {
    PrintStream original = System.err;
    ByteArrayOutputStream copy = new ByteArrayOutputStream();
    System.setErr(
        new PrintStream(
            new OutputStream() {
              @Override
              public void write(int b) {
                copy.write(b);
                original.write(b);
              }

              @Override
              public void write(byte[] b, int off, int len) {
                copy.write(b, off, len);
                original.write(b, off, len);
              }
            },
            true,
            StandardCharsets.UTF_8));
    try {
      run.run();
    } finally {
      System.setErr(original);
    }
    return copy.toString(StandardCharsets.UTF_8);
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Test
  void theLoopOutlivesAnyThrowableAndSaysSo() throws Exception {
    Device d = devices(1).getFirst();
    BreakingClock clock = new BreakingClock();
    WebhookOutbox outbox = outbox(db, clock, 0);
    String log =
        stderrOf(
            () -> {
              clock.breakNextReading(new Error("broken at pruning")); // the first pass prunes
              outbox.start();
              long first = add(d, receiver.url("/x"), "{\"n\":1}");
              outbox.wake();
              Eventually.until(
                  "delivered after pruning failed", () -> state(first).equals("delivered"));

              clock.breakNextReading(new StackOverflowError("broken in a pass"));
              outbox.wake();
              Eventually.until("the broken reading was taken", () -> clock.next.get() == null);
              long second = add(d, receiver.url("/x"), "{\"n\":2}");
              outbox.wake();
              Eventually.until(
                  "delivered after a pass failed", () -> state(second).equals("delivered"));
            });
    assertThat(log)
        .contains(
            "webhook outbox: pruning delivered events failed (java.lang.Error: broken at pruning)")
        .contains(
            "the webhook outbox's pass failed: java.lang.StackOverflowError: broken in a pass;"
                + " tried again in 1 s");
  }

  @Test
  void aPassThatKeepsFailingIsToldOnceBacksOffOnTheClockAndSaysWhenItWorksAgain() {
    Device d = devices(1).getFirst();
    // Starts at real time: the events this test adds are due from the real time of adding.
    io.kurir.time.SettableClock clock = new io.kurir.time.SettableClock(Instant.now());
    WebhookOutbox outbox = outbox(db, clock, 0);
    try (io.kurir.testing.LogCapture logs = io.kurir.testing.LogCapture.of(WebhookOutbox.class)) {
      outbox.start();
      long before = add(d, receiver.url("/x"), "{}");
      clock.set(Instant.now()); // it is due
      Eventually.until("a first pass (it prunes too)", () -> state(before).equals("delivered"));
      // A database fault every pass runs into alike: the outbox's table is gone.
      db.writes().write(h -> h.execute("ALTER TABLE webhook_delivery RENAME TO delivery_away"));
      outbox.wake();
      Eventually.until(
          "the first failed pass",
          () -> logs.atLeast(ch.qos.logback.classic.Level.ERROR).size() == 1);
      for (int pass = 2; pass <= 5; pass++) {
        long wait = 1L << (pass - 2); // 1, 2, 4, 8 s of the outbox's clock
        outbox.wake(); // new events do not cut the wait short
        clock.advance(Duration.ofSeconds(wait));
        int debug = pass - 1;
        Eventually.until(
            "pass " + pass,
            () -> logs.lines(l -> l.level() == ch.qos.logback.classic.Level.DEBUG).size() == debug);
      }
      assertThat(logs.atLeast(ch.qos.logback.classic.Level.WARN))
          .as(logs.lines().toString())
          .singleElement()
          .satisfies(
              l -> {
                assertThat(l.stackTrace()).isTrue();
                assertThat(l.message()).startsWith("the webhook outbox's pass failed:");
              });
      assertThat(logs.lines(l -> l.level() == ch.qos.logback.classic.Level.DEBUG).getLast())
          .satisfies(l -> assertThat(l.message()).endsWith("next try in 16 s"));

      db.writes().write(h -> h.execute("ALTER TABLE delivery_away RENAME TO webhook_delivery"));
      long id = add(d, receiver.url("/x"), "{}");
      clock.advance(Duration.ofSeconds(16));
      Eventually.until("delivered once it works again", () -> state(id).equals("delivered"));
      assertThat(logs.lines(l -> l.level() == ch.qos.logback.classic.Level.INFO))
          .extracting(io.kurir.testing.LogCapture.Line::message)
          .containsExactly("the webhook outbox's pass works again (it failed for 31 s, 5 tries)");
    }
  }

  @Test
  void anAttemptThatThrowsIsRecordedAndTriedAgain() throws Exception {
    Device d = devices(1).getFirst();
    long id = add(d, receiver.url("/x"), "{}");
    db.writes().write(h -> h.execute("UPDATE license SET webhook_secret = NULL")); // cannot sign
    WebhookOutbox outbox = outbox(db, Clock.systemUTC(), 0);
    outbox.start();
    Eventually.until(
        "the failed attempt recorded",
        () ->
            TestTables.of(db)
                .delivery(id)
                .filter(row -> row.state().equals("pending") && row.attempts() == 1)
                .filter(
                    row -> row.lastError().orElse("").startsWith("java.lang.NullPointerException"))
                .isPresent());
    assertThat(receiver.received()).isEmpty();
    long other = add(devices(1).getFirst(), receiver.url("/y"), "{}");
    outbox.wake();
    Eventually.until("the loop still delivers", () -> state(other).equals("delivered"));
  }
}
