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
    List<Row> rows = new ArrayList<>();
    for (Schedule s : deps.schedules().waiting(SHOWN)) {
      rows.add(
          new Row(
              s.id(),
              s.deviceId(),
              numbers.getOrDefault(s.deviceId(), ""),
              s.target(),
              s.apiType().wireName(),
              Pages.shortened(s.body()),
              deps.timestamps().reply(s.dueAt())));
    }
    Pages.operator(
        ctx, v, "Scheduled messages", "schedules.jte", new View(rows, v.csrf(), Pages.zone(deps)));
  }

  record Row(
      long id, long deviceId, String device, String to, String type, String text, String due) {}

  record View(List<Row> rows, String csrf, Pages.Zone zone) {}

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
          throw ApiException.notFound("No such scheduled message.");
    }
  }
}
