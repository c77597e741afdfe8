package io.kurir.bench;

import io.kurir.Gateway;
import io.kurir.bench.Bench.Row;
import io.kurir.store.Database;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The {@code events} row: one consumer of the license's Server-Sent Events stream ({@code GET
 * /v1/events}, {@code Accept: text/event-stream}, a license key) while {@value #DEVICES} sandbox
 * devices of that license send at full speed (wrk on {@code async_send_message}), each message
 * making its {@code message.status} events (pending, sending, sent, delivery, read). Counts the
 * events the consumer reads a second, the lag from each event's {@code timestamp} to its arrival,
 * and checks the sequence numbers: every event of the log after the stream's start read once, none
 * missed, none doubled, in order.
 */
final class EventsBench {
  private static final String RECIPIENT = "+6281234567890";
  private static final int DEVICES = 100;

  private final Function<String, Gateway> start;
  private final Wrk wrk;
  private final Duration duration;
  private final List<Row> rows;

  EventsBench(Function<String, Gateway> start, Wrk wrk, Duration duration, List<Row> rows) {
    this.start = start;
    this.wrk = wrk;
    this.duration = duration;
    this.rows = rows;
  }

  /** What the consumer read: each event's sequence and lag (ms), in the order they came. */
  private static final class Consumer implements Runnable {
    private final InputStream body;
    private final CountDownLatch opened = new CountDownLatch(1);
    private long[] sequences = new long[1 << 16];
    private long[] lags = new long[1 << 16];
    private volatile int count;
    private volatile long firstArrival;
    private volatile long lastArrival;

    Consumer(InputStream body) {
      this.body = body;
    }

    @Override
    public void run() {
      try (BufferedReader in =
          new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8), 1 << 16)) {
        long sequence = -1;
        for (String line; (line = in.readLine()) != null; ) {
          if (line.startsWith(":")) {
            opened.countDown();
          } else if (line.startsWith("id: ")) {
            sequence = Long.parseLong(line.substring(4));
          } else if (line.startsWith("data: ")) {
            long arrived = System.currentTimeMillis();
            int at = line.indexOf("\"timestamp\":\"") + 13;
            long eventAt = Instant.parse(line.substring(at, line.indexOf('"', at))).toEpochMilli();
            add(sequence, arrived - eventAt, arrived);
          }
        }
      } catch (java.io.IOException closed) {
        // The bench closed the stream: the row is taken.
      }
    }

    private void add(long sequence, long lag, long arrived) {
      if (count == sequences.length) {
        sequences = Arrays.copyOf(sequences, count * 2);
        lags = Arrays.copyOf(lags, count * 2);
      }
      sequences[count] = sequence;
      lags[count] = lag;
      if (count == 0) {
        firstArrival = arrived;
      }
      lastArrival = arrived;
      count++; // volatile: what it counts is written before it
    }
  }

  /** What one consumer saw of the events from {@code first} to {@code first + expected - 1}. */
  private record Seen(long expected, long read, long missed, long doubled, long outOfOrder) {
    static Seen of(Consumer c, long first, long expected) {
      int n = c.count;
      long[] seqs = Arrays.copyOf(c.sequences, n);
      long outOfOrder = 0;
      for (int i = 1; i < n; i++) {
        if (seqs[i] <= seqs[i - 1]) {
          outOfOrder++;
        }
      }
      long[] distinct = Arrays.stream(seqs).sorted().distinct().toArray();
      long inRange =
          Arrays.stream(distinct).filter(s -> s >= first && s < first + expected).count();
      return new Seen(expected, n, expected - inRange, n - distinct.length, outOfOrder);
    }

    String checks() {
      return String.format(
          Locale.ROOT, "%d missed, %d doubled, %d out of order", missed, doubled, outOfOrder);
    }
  }

  void run() throws Exception {
    Bench.log("events stream to one SSE consumer, " + DEVICES + " devices sending");
    try (Gateway gateway = start.apply("events");
        Database db = Database.open(gateway.settings().databaseUrl())) {
      License license = Bench.newLicense(gateway.tenants());
      List<Device> devices = new ArrayList<>();
      for (int i = 0; i < DEVICES; i++) {
        devices.add(
            Bench.newDevice(
                gateway, license, String.format(Locale.ROOT, "+62817%07d", 5_000_000 + i)));
      }
      String key =
          gateway
              .tenants()
              .apiKeys()
              .create(license.id(), "bench", Set.of(ApiScope.READ))
              .key()
              .orElseThrow();
      // The stream starts right after the events of the set-up (the devices going online).
      long first = lastSequence(db, license) + 1;
      Stream live = Stream.open(gateway, key, first - 1);

      long started = System.currentTimeMillis();
      Wrk.Result accepted =
          wrk.postJsonRotatingKeys(
              gateway.baseUrl() + "/api/async_send_message",
              "{\"key\":\"%KEY%\",\"phone_no\":\"" + RECIPIENT + "\",\"message\":\"Halo\"}",
              devices.stream().map(Device::ecoKey).toList(),
              duration);
      awaitAllRead(db);
      long produced = lastSequence(db, license) - first + 1;
      live.awaitCount(produced);
      live.close();
      long firstAt = count(db, "SELECT MIN(created_at)" + from(license, first));
      long lastAt = count(db, "SELECT MAX(created_at)" + from(license, first));
      Consumer c = live.consumer;
      Seen seen = Seen.of(c, first, produced);
      long[] lags = Arrays.copyOf(c.lags, c.count);
      Arrays.sort(lags);
      int n = lags.length;
      double readSeconds = (c.lastArrival - started) / 1000.0;
      rows.add(
          new Row(
              "events stream (SSE), one consumer",
              String.format(Locale.ROOT, "%,.0f events/s", n / readSeconds),
              Double.NaN,
              lags[n / 2] + " ms",
              lags[(int) Math.min(n - 1, Math.ceil(n * 0.99) - 1)] + " ms",
              String.format(
                  Locale.ROOT,
                  "GET /v1/events as text/event-stream with a license key while %d sandbox devices"
                      + " of the license send at full speed for %d s (%,.0f accepted/s): %,d"
                      + " events produced at %,.0f/s (first to last event's time), %,d read, the"
                      + " last %.1f s after the first request and %d ms after its event;"
                      + " p50/p99: lag from the event's timestamp to its arrival; %s;"
                      + " target: keeps up with the production rate, none missed or doubled",
                  DEVICES,
                  duration.toSeconds(),
                  accepted.perSecond(),
                  produced,
                  produced / (Math.max(1, lastAt - firstAt) / 1000.0),
                  n,
                  readSeconds,
                  c.lastArrival - lastAt,
                  seen.checks())));

      // The same events again, all stored: how fast one stream reads a backlog.
      long resumed = System.currentTimeMillis();
      Stream backlog = Stream.open(gateway, key, first - 1);
      backlog.awaitCount(produced);
      backlog.close();
      Seen again = Seen.of(backlog.consumer, first, produced);
      double catchUp = (backlog.consumer.lastArrival - resumed) / 1000.0;
      rows.add(
          new Row(
              "events stream (SSE), catching up",
              String.format(Locale.ROOT, "%,.0f events/s", again.read() / catchUp),
              Double.NaN,
              "",
              "",
              String.format(
                  Locale.ROOT,
                  "the same %,d events read again by a new stream from after=%d (all stored, none"
                      + " being made): %.1f s from the request to the last; %s; the stream's own"
                      + " ceiling, which the live row's production must stay under",
                  produced,
                  first - 1,
                  catchUp,
                  again.checks())));
    }
  }

  /** One consumer's open stream, read on a thread of its own. */
  private record Stream(HttpResponse<InputStream> response, Consumer consumer, Thread reader) {
    static Stream open(Gateway gateway, String key, long after) throws Exception {
      HttpResponse<InputStream> response =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .build()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(gateway.baseUrl() + "/v1/events?after=" + after))
                      .header("Authorization", "Bearer " + key)
                      .header("Accept", "text/event-stream")
                      .GET()
                      .build(),
                  HttpResponse.BodyHandlers.ofInputStream());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("the events stream answered " + response.statusCode());
      }
      Consumer consumer = new Consumer(response.body());
      Thread reader = Thread.ofPlatform().name("sse-consumer").start(consumer);
      if (!consumer.opened.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the events stream sent nothing in 30 s");
      }
      return new Stream(response, consumer, reader);
    }

    void awaitCount(long expected) throws InterruptedException {
      long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
      while (consumer.count < expected) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              consumer.count + " of " + expected + " events read after 10 minutes");
        }
        Thread.sleep(20);
      }
    }

    void close() throws Exception {
      response.body().close();
      reader.join(10_000);
    }
  }

  /** Waits until every message of the run has its last event (read) or failed. */
  private static void awaitAllRead(Database db) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
    while (count(db, "SELECT COUNT(*) FROM message WHERE state NOT IN ('read', 'failed')") > 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("messages not yet read after 10 minutes");
      }
      Thread.sleep(100);
    }
  }

  private static long lastSequence(Database db, License license) {
    return count(db, "SELECT COALESCE(MAX(seq), 0) FROM event WHERE license_id = " + license.id());
  }

  private static String from(License license, long first) {
    return " FROM event WHERE license_id = " + license.id() + " AND seq >= " + first;
  }

  private static long count(Database db, String sql) {
    return db.jdbi().withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
  }
}
