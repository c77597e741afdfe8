package io.kurir.api.console;

import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import io.kurir.api.ApiException;
import io.kurir.device.DeviceState;
import io.kurir.tenant.Device;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/** What the console's pages share: the operators' navigation, ids from paths, form fields. */
final class Pages {
  private Pages() {}

  static final List<Html.Link> OPERATOR_NAV =
      List.of(
          new Html.Link("Dashboard", "/console"),
          new Html.Link("Partners", "/console/partners"),
          new Html.Link("Licenses", "/console/licenses"),
          new Html.Link("Devices", "/console/devices"),
          new Html.Link("Messages", "/console/messages"),
          new Html.Link("Webhooks", "/console/webhooks"),
          new Html.Link("Schedules", "/console/schedules"));

  static final List<Html.Link> CUSTOMER_NAV = List.of(new Html.Link("My devices", "/console/my"));

  /** Lists show at most this many rows; a search finds the others. */
  static final int MAX_ROWS = 500;

  /**
   * A device's state as the console names it: the API's state names, but "not linked" for a device
   * no phone has linked yet, "disabled" for one switched off, "port_down" when its driver is not
   * running.
   */
  static String stateName(Device d, Optional<DeviceState> state) {
    if (d.disabled()) {
      return "disabled";
    }
    return state.map(Pages::stateLabel).orElse("port_down");
  }

  /**
   * A stored state by the console's name for it, the same in lists, on badges and in a device's
   * history: the API's name, but "not linked" for {@code none}.
   */
  static String stateLabel(DeviceState state) {
    return state == DeviceState.NONE ? "not linked" : state.wireName();
  }

  /** The request attribute that holds why a form was refused (see {@code ConsoleRoutes.form}). */
  static final String PROBLEM = "console.problem";

  /** Why the form just sent was refused, as a box above the page; empty when it was not. */
  static String problem(Context ctx) {
    String problem = ctx.attribute(PROBLEM);
    return problem == null
        ? ""
        : "<p class=\"error\" data-testid=\"error\">" + Html.esc(problem) + "</p>";
  }

  /**
   * The value a field of the form posting to {@code action} shows: what was typed when that form
   * was just refused (so nothing typed is lost), else {@code fallback}.
   */
  static String typed(Context ctx, String action, String name, String fallback) {
    if (ctx.attribute(PROBLEM) == null || !ctx.path().equals(action)) {
      return fallback;
    }
    return Optional.ofNullable(ctx.formParam(name)).orElse(fallback);
  }

  /** Under a page that shows times: the zone they are in (time.zone), with its offset now. */
  static String zoneNote(ConsoleDeps deps) {
    java.time.ZoneId zone = deps.timestamps().zone();
    String offset = zone.getRules().getOffset(deps.clock().instant()).getId();
    return "<p class=\"muted zone\" data-testid=\"zone\">Times in "
        + Html.esc(zone.getId())
        + " (UTC"
        + Html.esc(offset.equals("Z") ? "+00:00" : offset)
        + ").</p>";
  }

  /** The state of one device as its driver sees it now (a device's own page). */
  static String stateOf(ConsoleDeps deps, Device d) {
    return stateName(d, deps.sessions().shownState(d));
  }

  /**
   * The recorded states of every device, read at once, for lists: asking each driver (an engine's
   * API, for WAHA) for hundreds of devices would make a list slow.
   */
  static Function<Device, String> listedStates(ConsoleDeps deps) {
    Map<Long, DeviceState> recorded = deps.sessions().states().all();
    return d -> stateName(d, Optional.ofNullable(recorded.get(d.id())));
  }

  /** Every license's name by id, read once for a list of devices. */
  static Map<Long, String> licenseNames(ConsoleDeps deps) {
    Map<Long, String> names = new HashMap<>();
    deps.tenants().licenses().forEach(l -> names.put(l.id(), l.name()));
    return names;
  }

  /** Every device's number by id, read once for a list that names devices. */
  static Map<Long, String> deviceNumbers(ConsoleDeps deps) {
    Map<Long, String> numbers = new HashMap<>();
    deps.tenants().devices().forEach(d -> numbers.put(d.id(), d.number()));
    return numbers;
  }

  /** An operator's page. */
  static void operator(Context ctx, ConsoleRoutes.Viewer viewer, String title, String body) {
    ctx.html(Html.page(title, OPERATOR_NAV, viewer.csrf(), problem(ctx) + body));
  }

  /** The id in the path parameter {@code name}; a path that is not one is a page not found. */
  static long id(Context ctx, String name) {
    try {
      return Long.parseLong(ctx.pathParam(name));
    } catch (NumberFormatException e) {
      throw new ApiException(404, "not_found", "No such page.");
    }
  }

  static long id(Context ctx) {
    return id(ctx, "id");
  }

  /** A form field, stripped; empty when missing or blank. */
  static Optional<String> field(Context ctx, String name) {
    return Optional.ofNullable(ctx.formParam(name)).map(String::strip).filter(s -> !s.isEmpty());
  }

  static String required(Context ctx, String name, String label) {
    return field(ctx, name)
        .orElseThrow(() -> new ApiException(400, name + "_empty", "Fill in " + label + "."));
  }

  /** A query parameter, stripped; empty when missing or blank. */
  static Optional<String> query(Context ctx, String name) {
    return Optional.ofNullable(ctx.queryParam(name)).map(String::strip).filter(s -> !s.isEmpty());
  }

  /** After a change: back to {@code path}, so that reloading the page does not repeat it. */
  static void seeOther(Context ctx, String path) {
    ctx.redirect(path, HttpStatus.SEE_OTHER);
  }

  /** Whether the script asks for the polled part of a page only. */
  static boolean fragment(Context ctx) {
    return ctx.header("X-Console-Fragment") != null;
  }
}
