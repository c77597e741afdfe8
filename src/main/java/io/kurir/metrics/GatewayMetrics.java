package io.kurir.metrics;

import io.kurir.api.RequestTimer;
import io.kurir.driver.Receipt;
import io.kurir.driver.SendOutcome;
import io.kurir.message.SendObserver;
import io.kurir.store.Database;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The gateway's metrics, in one Prometheus registry per gateway: what the HTTP server answered,
 * what the pipeline did with messages, what the webhook outbox, the scheduler and the database
 * writer did, the gauges read from the database ({@link QueueFigures}), the connection pool and the
 * JVM. Every name starts with {@code kurir_} but the pool's ({@code hikaricp_}) and the JVM's
 * ({@code jvm_}, {@code process_}, {@code system_}); {@code docs/operations.md} lists them, and
 * {@code docs/grafana-dashboard.json} draws them.
 *
 * <p>Labels hold only bounded sets: family, route template, method, status, driver, outcome, state.
 * Never a device, number or key. Thread-safe.
 */
public final class GatewayMetrics implements SendObserver, RequestTimer, AutoCloseable {
  private static final Duration[] HTTP_BUCKETS =
      seconds(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15);
  private static final Duration[] SEND_BUCKETS =
      seconds(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30);
  private static final Duration[] LATENESS_BUCKETS = seconds(1, 5, 15, 30, 60, 120, 300, 900);
  private static final Duration[] COMMIT_BUCKETS =
      seconds(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1);

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final Timer commits;
  private final Timer lateness;
  // Held here: a gauge keeps only a weak reference to what it reads.
  private final QueueFigures figures;
  private final MultiGauge devices;

  /**
   * Metrics of a gateway whose database is {@code db}; gauges read it at scrape time, at most once
   * per {@code gaugesFreshFor}.
   */
  public GatewayMetrics(Database db, Clock clock, Duration gaugesFreshFor) {
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    db.measurePoolWith(registry);
    this.figures = new QueueFigures(db, clock, System::nanoTime, gaugesFreshFor);
    for (String state : QueueFigures.MESSAGE_STATES) {
      byState(
          "kurir.queue",
          "Messages waiting to be sent (pending) or in a driver's hands (sending)",
          "messages",
          state,
          () -> figures.messages(state),
          () -> figures.oldestMessageAge(state));
    }
    for (String state : QueueFigures.DELIVERY_STATES) {
      byState(
          "kurir.webhook",
          "Webhook deliveries waiting (pending, the backlog) or dead",
          "deliveries",
          state,
          () -> figures.deliveries(state),
          () -> figures.oldestDeliveryAge(state));
    }
    // Drivers and states are bounded sets, but which pairs exist is known only from the table:
    // the rows are set again at each scrape, so a pair no device has any more disappears.
    this.devices =
        MultiGauge.builder("kurir.devices")
            .description("Devices by driver and state (the stored state, or disabled)")
            .baseUnit("devices")
            .register(registry);
    this.commits =
        Timer.builder("kurir.db.commit")
            .description("Time the database writer took to run and commit one group of writes")
            .serviceLevelObjectives(COMMIT_BUCKETS)
            .register(registry);
    this.lateness =
        Timer.builder("kurir.schedule.lateness")
            .description("How long after its time a due scheduled message was taken up")
            .serviceLevelObjectives(LATENESS_BUCKETS)
            .register(registry);
  }

  /** {@code <prefix>.<what>{state}} and {@code <prefix>.oldest.age{state}} in seconds. */
  private void byState(
      String prefix,
      String description,
      String what,
      String state,
      java.util.function.Supplier<Number> count,
      java.util.function.Supplier<Number> oldestAge) {
    Gauge.builder(prefix + "." + what, count)
        .description(description)
        .tag("state", state)
        .register(registry);
    Gauge.builder(prefix + ".oldest.age", oldestAge)
        .description("Seconds since the oldest one in this state was created")
        .baseUnit("seconds")
        .tag("state", state)
        .register(registry);
  }

  /** The registry, for a test or a binder of its own. */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** Everything, in the Prometheus text format. */
  public String scrape() {
    devices.register(
        figures.devices().entrySet().stream()
            .map(
                e ->
                    MultiGauge.Row.of(
                        Tags.of("driver", e.getKey().driver(), "state", e.getKey().state()),
                        e.getValue()))
            .toList(),
        true);
    return registry.scrape();
  }

  // --- the HTTP server

  private record RequestKind(String family, String route, String method, int status) {}

  // On every request: a map look-up instead of building and registering the meter's id each time.
  private final Map<RequestKind, Timer> requestTimers = new ConcurrentHashMap<>();
  private final Map<String, Counter> messageCounters = new ConcurrentHashMap<>();
  private final Map<String, Timer> sendTimers = new ConcurrentHashMap<>();

  @Override
  public void served(String family, String route, String method, int status, double millis) {
    requestTimers
        .computeIfAbsent(
            new RequestKind(family, route, method, status),
            kind ->
                Timer.builder("kurir.http.requests")
                    .description(
                        "Requests answered, by API family, route template, method and status")
                    .tags(
                        "family",
                        family,
                        "route",
                        route,
                        "method",
                        method,
                        "status",
                        Integer.toString(status))
                    .serviceLevelObjectives(HTTP_BUCKETS)
                    .register(registry))
        .record((long) (millis * 1_000_000), TimeUnit.NANOSECONDS);
  }

  // --- messages

  @Override
  public void accepted(String driver, int messages) {
    message(driver, "accepted").increment(messages);
  }

  @Override
  public void attempted(String driver, SendOutcome outcome, Duration took) {
    String name = outcomeName(outcome);
    // Looked up, not built and registered on each send: a builder per send was a hot spot.
    sendTimers
        .computeIfAbsent(
            driver + '\u0000' + name,
            key ->
                Timer.builder("kurir.send.duration")
                    .description("Time a driver took to answer one send, by driver and outcome")
                    .tags("driver", driver, "outcome", name)
                    .serviceLevelObjectives(SEND_BUCKETS)
                    .register(registry))
        .record(took);
    switch (outcome) {
      case SendOutcome.Sent sent -> message(driver, "sent").increment();
      case SendOutcome.Accepted accepted -> message(driver, "sent").increment();
      case SendOutcome.NotFound notFound -> message(driver, "failed").increment();
      case SendOutcome.Failed failed -> message(driver, "failed").increment();
      case SendOutcome.Permanent permanent -> message(driver, "failed").increment();
      // Not an attempt that ended: the message waits in its queue.
      case SendOutcome.DeviceUnavailable unavailable -> {}
      case SendOutcome.RetryAfter later -> {}
      case SendOutcome.Deferred deferred -> {}
    }
  }

  @Override
  public void receipt(String driver, Receipt.Status status) {
    message(
            driver,
            switch (status) {
              case DELIVERED -> "delivered";
              case READ -> "read";
              case FAILED -> "failed";
            })
        .increment();
  }

  private Counter message(String driver, String event) {
    return messageCounters.computeIfAbsent(
        driver + " " + event,
        key ->
            Counter.builder("kurir.messages")
                .description(
                    "Messages accepted, sent (taken by the network), delivered, read and failed,"
                        + " by driver")
                .tags("driver", driver, "event", event)
                .register(registry));
  }

  /** {@code NotFound} → {@code not_found}. */
  static String outcomeName(SendOutcome outcome) {
    return OUTCOME_NAMES.get(outcome.getClass());
  }

  // Told once per outcome class: a regular expression on every send was 1 % of the end-to-end row.
  private static final ClassValue<String> OUTCOME_NAMES =
      new ClassValue<>() {
        @Override
        protected String computeValue(Class<?> type) {
          return type.getSimpleName()
              .replaceAll("([a-z])([A-Z])", "$1_$2")
              .toLowerCase(Locale.ROOT);
        }
      };

  // --- webhooks, schedules, the writer

  /** One webhook attempt ended with {@code outcome}: delivered, retry, failed or dead. */
  public void webhookAttempt(String outcome) {
    Counter.builder("kurir.webhook.attempts")
        .description(
            "Webhook delivery attempts: delivered, retry (failed, tried again), failed (refused"
                + " for good), dead (gave up after webhook.retry-for)")
        .tag("outcome", outcome)
        .register(registry)
        .increment();
  }

  /** A due schedule was taken up {@code late} after its time. */
  public void scheduleLateness(Duration late) {
    lateness.record(late.isNegative() ? Duration.ZERO : late);
  }

  /** The writer committed one group of writes in {@code nanos}. */
  public void committed(long nanos) {
    commits.record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void close() {
    gc.close();
    registry.close();
  }

  private static Duration[] seconds(double... values) {
    Duration[] durations = new Duration[values.length];
    for (int i = 0; i < values.length; i++) {
      durations[i] = Duration.ofNanos((long) (values[i] * 1_000_000_000L));
    }
    return durations;
  }
}
