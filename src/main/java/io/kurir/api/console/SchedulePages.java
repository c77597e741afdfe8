package io.kurir.api.console;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.schedule.Schedule;
import io.kurir.schedule.Schedules;
import io.kurir.tenant.Device;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Scheduled messages still waiting, and cancelling one. */
final class SchedulePages {
  private static final int SHOWN = 500;

  private final ConsoleDeps deps;

  SchedulePages(ConsoleDeps deps) {
    this.deps = deps;
  }

  void list(Context ctx, ConsoleRoutes.Viewer v) {
    Map<Long, String> numbers = Pages.deviceNumbers(deps);
    List<List<String>> rows = new ArrayList<>();
    for (Schedule s : deps.schedules().waiting(SHOWN)) {
      String text = s.body().length() > 80 ? s.body().substring(0, 80) + "…" : s.body();
      rows.add(
          List.of(
              Html.esc(s.id()),
              Html.link("/console/devices/" + s.deviceId(), numbers.get(s.deviceId())),
              Html.esc(s.target()),
              Html.esc(s.apiType().wireName()),
              Html.esc(text),
              Html.esc(deps.timestamps().reply(s.dueAt())),
              Html.post(
                  "/console/schedules/" + s.id() + "/cancel?device=" + s.deviceId(),
                  v.csrf(),
                  "Cancel",
                  "danger",
                  "Cancel this scheduled message? It will not be sent.")));
    }
    Pages.operator(
        ctx,
        v,
        "Scheduled messages",
        Html.table(
                List.of("Id", "Device", "To", "Type", "Text", "Due", ""),
                rows,
                "No message waits for its time.")
            + Pages.zoneNote(deps));
  }

  void cancel(Context ctx, ConsoleRoutes.Viewer v) {
    Device d =
        deps.tenants()
            .device(
                TenantPages.parseId(
                    Pages.query(ctx, "device")
                        .orElseThrow(() -> new ApiException(400, "device_empty", "No device."))));
    switch (deps.schedules().remove(d, Pages.id(ctx))) {
      case Schedules.Removal.Removed r -> Pages.seeOther(ctx, "/console/schedules");
      case Schedules.Removal.TooLate t ->
          throw new ApiException(409, "too_late", "That message has gone out already.");
      case Schedules.Removal.NotFound n ->
          throw new ApiException(404, "not_found", "No such scheduled message.");
    }
  }
}
