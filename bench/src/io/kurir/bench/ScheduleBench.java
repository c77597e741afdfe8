package io.kurir.bench;

import io.kurir.Gateway;
import io.kurir.api.RouteTable;
import io.kurir.bench.Bench.Row;
import io.kurir.store.Database;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.Partner;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.function.BiFunction;

/**
 * 100,000 schedules through {@code /api/scheduler}, due over three minutes, and how late each was
 * sent. Each device may have 3 schedules in a minute, so 11,112 devices hold 9 each, due at random
 * seconds of the three minutes: about 555 fall due every second.
 */
final class ScheduleBench {
  private static final int SCHEDULES = 100_000;
  private static final int PER_DEVICE = 9; // 3 per minute over 3 minutes
  private static final int MINUTES = 3;
  private static final int CONCURRENT_REQUESTS = 32;
  private static final String RECIPIENT = "+6281234567890";
  private static final DateTimeFormatter SCH_DATE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

  private final BiFunction<String, List<RouteTable>, Gateway> start;
  private final List<Row> rows;

  ScheduleBench(BiFunction<String, List<RouteTable>, Gateway> start, List<Row> rows) {
    this.start = start;
    this.rows = rows;
  }

  void run() throws Exception {
    log("100,000 schedules: creating devices");
    try (Gateway gateway = start.apply("scheduler", List.of())) {
      Partner partner = gateway.tenants().createPartner("Bench partner", "");
      License license =
          gateway
              .tenants()
              .createLicense(partner.id(), "Bench", "", LocalDate.of(2099, 1, 1), List.of());
      int deviceCount = (SCHEDULES + PER_DEVICE - 1) / PER_DEVICE;
      List<Device> devices = new ArrayList<>(deviceCount);
      for (int i = 0; i < deviceCount; i++) {
        String number = String.format(Locale.ROOT, "+62815%07d", 3_000_000 + i);
        Device d = gateway.tenants().createDevice(license.id(), number, "sandbox");
        gateway.sandbox().pair(d.id(), d.number());
        devices.add(d);
      }

      // The window starts at a minute boundary far enough ahead for every request to be made.
      ZoneId zone = gateway.settings().zone();
      Instant firstMinute =
          Instant.now()
              .plus(Duration.ofSeconds(100))
              .truncatedTo(java.time.temporal.ChronoUnit.MINUTES);
      List<String> bodies = new ArrayList<>(deviceCount * PER_DEVICE);
      Random random = new Random(42);
      for (Device d : devices) {
        for (int k = 0; k < PER_DEVICE; k++) {
          Instant due = firstMinute.plus(Duration.ofMinutes(k / 3)).plusSeconds(random.nextInt(60));
          bodies.add(
              "{\"key\":\""
                  + d.ecoKey()
                  + "\",\"phone_no\":\""
                  + RECIPIENT
                  + "\",\"api_type\":\"text\",\"message\":\"Pengingat "
                  + k
                  + "\",\"sch_date\":\""
                  + SCH_DATE.format(due.atZone(zone))
                  + "\"}");
        }
      }
      Collections.shuffle(bodies, random);

      log("scheduling " + bodies.size() + " through /api/scheduler");
      List<Double> firstLatencies = new ArrayList<>();
      List<Double> lastLatencies = new ArrayList<>();
      Instant schedulingStarted = Instant.now();
      schedule(gateway.baseUrl(), bodies, firstLatencies, lastLatencies);
      double schedulingSeconds =
          Duration.between(schedulingStarted, Instant.now()).toMillis() / 1000.0;
      if (Instant.now().isAfter(firstMinute)) {
        log("warning: scheduling ran into the window; lateness includes that");
      }

      log("waiting for the window (" + MINUTES + " minutes from " + firstMinute + ")");
      Instant windowEnd = firstMinute.plus(Duration.ofMinutes(MINUTES));
      try (Database db = Database.open(gateway.settings().databaseUrl())) {
        while (true) {
          long left =
              count(db, "SELECT COUNT(*) FROM schedule WHERE state IN ('waiting', 'claimed')")
                  + count(db, "SELECT COUNT(*) FROM message WHERE state = 'pending'");
          if (left == 0) {
            break;
          }
          if (Instant.now().isAfter(windowEnd.plus(Duration.ofMinutes(5)))) {
            throw new IllegalStateException(
                left + " schedules still not sent 5 min after the window");
          }
          Thread.sleep(500);
        }
        List<Long> handed =
            millis(db, "SELECT s.status_at - s.due_at FROM schedule s WHERE s.state = 'handed'");
        List<Long> sent =
            millis(
                db,
                "SELECT m.sent_at - s.due_at FROM schedule s JOIN message m ON m.id = s.message_id"
                    + " WHERE m.sent_at IS NOT NULL");
        long messages = count(db, "SELECT COUNT(*) FROM message WHERE api = 'eco.scheduler'");
        if (sent.size() != bodies.size() || messages != bodies.size()) {
          throw new IllegalStateException(
              "expected "
                  + bodies.size()
                  + " sent once, found "
                  + sent.size()
                  + " sent and "
                  + messages
                  + " messages");
        }
        Collections.sort(sent);
        Collections.sort(handed);
        rows.add(
            new Row(
                "100,000 schedules: lateness when sent",
                ms(percentile(sent, 0.5)) + " median",
                Double.NaN,
                ms(percentile(sent, 0.5)),
                ms(percentile(sent, 0.99)) + ", max " + ms(sent.getLast()),
                String.format(
                    Locale.ROOT,
                    "%,d schedules on %,d devices due over %d minutes (about %d a second);"
                        + " driver's sent time minus due time; each sent exactly once;"
                        + " handed to the pipeline: median %s, p99 %s",
                    bodies.size(),
                    devices.size(),
                    MINUTES,
                    bodies.size() / (MINUTES * 60),
                    ms(percentile(handed, 0.5)),
                    ms(percentile(handed, 0.99)))));
        Collections.sort(firstLatencies);
        Collections.sort(lastLatencies);
        rows.add(
            new Row(
                "/api/scheduler with 100,000 pending",
                String.format(Locale.ROOT, "%,.0f req/s", bodies.size() / schedulingSeconds),
                Double.NaN,
                String.format(Locale.ROOT, "%.1f ms", percentileD(lastLatencies, 0.5)),
                String.format(Locale.ROOT, "%.1f ms", percentileD(lastLatencies, 0.99)),
                String.format(
                    Locale.ROOT,
                    "%d concurrent clients; p50/p99 of the last 10,000 requests (90,000+ pending),"
                        + " first 10,000: %.1f / %.1f ms",
                    CONCURRENT_REQUESTS,
                    percentileD(firstLatencies, 0.5),
                    percentileD(firstLatencies, 0.99))));
      }
    }
  }

  private static void schedule(
      String base, List<String> bodies, List<Double> first, List<Double> last) throws Exception {
    HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .executor(Executors.newVirtualThreadPerTaskExecutor())
            .build();
    URI uri = URI.create(base + "/api/scheduler");
    Semaphore inFlight = new Semaphore(CONCURRENT_REQUESTS);
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    double[] latencies = new double[bodies.size()];
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < bodies.size(); i++) {
        inFlight.acquire();
        int n = i;
        pool.submit(
            () -> {
              try {
                long t = System.nanoTime();
                HttpResponse<String> r =
                    client.send(
                        HttpRequest.newBuilder(uri)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(bodies.get(n)))
                            .build(),
                        HttpResponse.BodyHandlers.ofString());
                latencies[n] = (System.nanoTime() - t) / 1e6;
                if (!r.body().matches("\\d+")) {
                  failures.add(r.body());
                }
              } catch (Exception e) {
                failures.add(e.toString());
              } finally {
                inFlight.release();
              }
              return null;
            });
      }
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException(
          failures.size() + " schedules refused, e.g. " + failures.peek());
    }
    for (int i = 0; i < 10_000; i++) {
      first.add(latencies[i]);
      last.add(latencies[latencies.length - 1 - i]);
    }
  }

  private static long count(Database db, String sql) {
    return db.jdbi().withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
  }

  private static List<Long> millis(Database db, String sql) {
    return db.jdbi().withHandle(h -> h.createQuery(sql).mapTo(Long.class).list());
  }

  static long percentile(List<Long> sorted, double p) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.floor(p * sorted.size())));
  }

  private static double percentileD(List<Double> sorted, double p) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.floor(p * sorted.size())));
  }

  static String ms(long millis) {
    return String.format(Locale.ROOT, "%,d ms", millis);
  }

  private static void log(String what) {
    System.out.println("kurir bench: " + what);
  }
}
