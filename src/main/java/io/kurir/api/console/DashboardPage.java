package io.kurir.api.console;

import io.javalin.http.Context;
import io.kurir.tenant.Device;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * {@code /console}: devices by state, today's messages by state, webhooks and schedules due, and a
 * chart of the last day's traffic per device.
 */
final class DashboardPage {
  private final ConsoleDeps deps;

  DashboardPage(ConsoleDeps deps) {
    this.deps = deps;
  }

  void show(Context ctx, ConsoleRoutes.Viewer viewer) {
    List<Device> devices = deps.tenants().devices();
    Function<Device, String> stateOf = Pages.listedStates(deps);
    Map<String, Long> byState = new TreeMap<>();
    for (Device d : devices) {
      byState.merge(stateOf.apply(d), 1L, Long::sum);
    }
    Instant now = deps.clock().instant();
    Instant today =
        LocalDate.ofInstant(now, deps.timestamps().zone())
            .atStartOfDay(deps.timestamps().zone())
            .toInstant();
    Map<String, Long> messages = deps.search().countByStateSince(today);
    Map<String, Long> hooks = deps.deliveries().countByState();
    Map<Long, String> licenses = Pages.licenseNames(deps);
    List<DeviceRow> rows = new ArrayList<>();
    for (Device d : devices.stream().limit(Pages.MAX_ROWS).toList()) {
      rows.add(
          new DeviceRow(
              d.id(),
              d.number(),
              stateOf.apply(d),
              licenses.getOrDefault(d.licenseId(), ""),
              d.driver()));
    }
    LocalDate day = LocalDate.ofInstant(now, deps.timestamps().zone());
    View view =
        new View(
            List.of(
                new Card("Devices", devices.size(), byState, "/console/devices"),
                new Card(
                    "Messages today",
                    messages.values().stream().mapToLong(Long::longValue).sum(),
                    messages,
                    "/console/messages?date=" + day)),
            hooks.getOrDefault("pending", 0L),
            hooks.getOrDefault("failed", 0L),
            hooks.getOrDefault("dead", 0L),
            deps.schedules().countWaitingDueBefore(now.plus(Duration.ofHours(1))),
            deps.schedules().countWaitingDueBefore(now),
            rows,
            traffic(devices, now),
            Pages.zone(deps));
    Pages.operator(ctx, viewer, "Dashboard", "dashboard.jte", view);
  }

  /** A card of counts: the total, the count in each state, and where they are listed. */
  record Card(String title, long total, Map<String, Long> parts, String href) {}

  record DeviceRow(long id, String number, String state, String license, String driver) {}

  record View(
      List<Card> cards,
      long webhooksPending,
      long webhooksFailed,
      long webhooksDead,
      long schedulesDueWithinHour,
      long schedulesOverdue,
      List<DeviceRow> devices,
      SvgChart.Drawing traffic,
      Pages.Zone zone) {}

  /** The busiest devices that get a line of their own; the others share one. */
  static final int LINES = 6;

  /**
   * The last day's traffic per device: the messages each accepted in each of the last 24 hours (the
   * current one last), in the operator's time zone, on the injected clock.
   */
  private SvgChart.Drawing traffic(List<Device> devices, Instant now) {
    ZoneId zone = deps.timestamps().zone();
    ZonedDateTime first = now.atZone(zone).truncatedTo(ChronoUnit.HOURS).minusHours(HOURS - 1);
    Map<Long, long[]> perDevice =
        deps.search()
            .acceptedPerHour(devices.stream().map(Device::id).toList(), first.toInstant(), HOURS);
    Map<Long, String> numbers = new HashMap<>();
    devices.forEach(d -> numbers.put(d.id(), d.number()));
    List<Map.Entry<Long, long[]>> busiest =
        perDevice.entrySet().stream()
            .sorted(
                Comparator.comparingLong((Map.Entry<Long, long[]> e) -> -sum(e.getValue()))
                    .thenComparing(Map.Entry::getKey))
            .toList();
    List<SvgChart.Series> series = new ArrayList<>();
    long[] others = new long[HOURS];
    for (int i = 0; i < busiest.size(); i++) {
      long[] counts = busiest.get(i).getValue();
      if (i < LINES) {
        series.add(
            new SvgChart.Series(
                numbers.getOrDefault(busiest.get(i).getKey(), "#" + busiest.get(i).getKey()),
                Arrays.stream(counts).boxed().toList()));
      } else {
        for (int h = 0; h < HOURS; h++) {
          others[h] += counts[h];
        }
      }
    }
    if (busiest.size() > LINES) {
      series.add(
          new SvgChart.Series(
              (busiest.size() - LINES) + " other devices", Arrays.stream(others).boxed().toList()));
    }
    List<String> labels = new ArrayList<>();
    for (int h = 0; h < HOURS; h++) {
      labels.add(HOUR.format(first.plusHours(h)));
    }
    return SvgChart.draw(
        "traffic",
        "Messages accepted per device, per hour",
        "the last 24 hours to " + HOUR.format(first.plusHours(HOURS)) + " (" + zone.getId() + ")",
        labels,
        series);
  }

  private static final int HOURS = 24;
  private static final DateTimeFormatter HOUR = DateTimeFormatter.ofPattern("HH:mm");

  private static long sum(long[] counts) {
    return Arrays.stream(counts).sum();
  }
}
