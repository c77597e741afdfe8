package io.kurir.api.console;

import io.javalin.http.Context;
import io.kurir.tenant.Device;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/** {@code /console}: devices by state, today's messages by state, webhooks and schedules due. */
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
      Pages.Zone zone) {}
}
