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
    StringBuilder b = new StringBuilder("<div class=\"cards\">");
    b.append(card("Devices", devices.size(), byState, "/console/devices"));
    b.append(
        card(
            "Messages today",
            messages.values().stream().mapToLong(Long::longValue).sum(),
            messages,
            "/console/messages?date=" + LocalDate.ofInstant(now, deps.timestamps().zone())));
    b.append("<section class=\"card\" data-testid=\"webhooks\"><h2>Webhooks</h2>")
        .append("<div class=\"big\">")
        .append(hooks.getOrDefault("pending", 0L))
        .append("</div><p class=\"muted\">waiting to be delivered</p><p>")
        .append(Html.badge("failed"))
        .append(" ")
        .append(hooks.getOrDefault("failed", 0L))
        .append(" &nbsp; ")
        .append(Html.badge("dead"))
        .append(" ")
        .append(hooks.getOrDefault("dead", 0L))
        .append("</p><p>")
        .append(Html.link("/console/webhooks", "Recent deliveries"))
        .append("</p></section>");
    b.append("<section class=\"card\" data-testid=\"schedules\"><h2>Scheduled messages</h2>")
        .append("<div class=\"big\">")
        .append(deps.schedules().countWaitingDueBefore(now.plus(Duration.ofHours(1))))
        .append("</div><p class=\"muted\">due within the hour (")
        .append(deps.schedules().countWaitingDueBefore(now))
        .append(" overdue)</p><p>")
        .append(Html.link("/console/schedules", "Every waiting schedule"))
        .append("</p></section></div>");

    Map<Long, String> licenses = Pages.licenseNames(deps);
    List<List<String>> rows = new ArrayList<>();
    for (Device d : devices.stream().limit(Pages.MAX_ROWS).toList()) {
      rows.add(
          List.of(
              Html.link("/console/devices/" + d.id(), d.number()),
              Html.badge(stateOf.apply(d)),
              Html.esc(licenses.get(d.licenseId())),
              Html.esc(d.driver())));
    }
    b.append("<h2>Devices</h2>")
        .append(
            Html.table(
                List.of("Number", "State", "License", "Driver"),
                rows,
                "No device yet: create a license, then a device."));
    b.append(Pages.zoneNote(deps));
    Pages.operator(ctx, viewer, "Dashboard", b.toString());
  }

  private static String card(String title, long total, Map<String, Long> parts, String href) {
    StringBuilder b = new StringBuilder("<section class=\"card\"><h2>");
    b.append(Html.esc(title)).append("</h2><div class=\"big\">").append(total).append("</div><p>");
    parts.forEach(
        (state, n) -> b.append(Html.badge(state)).append(" ").append(n).append(" &nbsp; "));
    return b.append("</p><p>")
        .append(Html.link(href, "See them"))
        .append("</p></section>")
        .toString();
  }
}
