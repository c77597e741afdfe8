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

  /** A link in the navigation bar: its label and where it goes. */
  record Link(String label, String href) {}

  /**
   * What every page has around its view ({@code layout.jte}): its title, the navigation (empty
   * before sign-in), the CSRF token of the sign-out button, why the form just sent was refused
   * (empty when it was not).
   */
  record Frame(String title, List<Link> nav, String csrf, String problem) {}

  /** The zone the times of a page are in, and its offset now ({@code zone.jte}). */
  record Zone(String id, String offset) {}

  static final List<Link> OPERATOR_NAV =
      List.of(
          new Link("Dashboard", "/console"),
          new Link("Partners", "/console/partners"),
          new Link("Licenses", "/console/licenses"),
          new Link("Devices", "/console/devices"),
          new Link("Messages", "/console/messages"),
          new Link("Webhooks", "/console/webhooks"),
          new Link("Schedules", "/console/schedules"),
          new Link("Campaigns", "/console/campaigns"));

  static final List<Link> CUSTOMER_NAV =
      List.of(
          new Link("My devices", "/console/my"), new Link("Campaigns", "/console/my/campaigns"));

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

  /** Why the form just sent was refused, shown above the page; empty when it was not. */
  static String problem(Context ctx) {
    String problem = ctx.attribute(PROBLEM);
    return problem == null ? "" : problem;
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
  static Zone zone(ConsoleDeps deps) {
    java.time.ZoneId zone = deps.timestamps().zone();
    String offset = zone.getRules().getOffset(deps.clock().instant()).getId();
    return new Zone(zone.getId(), offset.equals("Z") ? "+00:00" : offset);
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

  /** An operator's page: the template {@code template} with its view {@code v}, in the layout. */
  static void operator(
      Context ctx, ConsoleRoutes.Viewer viewer, String title, String template, Object v) {
    page(ctx, new Frame(title, OPERATOR_NAV, viewer.csrf(), problem(ctx)), template, v);
  }

  /** A customer's page: the template {@code template} with its view {@code v}, in the layout. */
  static void customer(
      Context ctx, ConsoleRoutes.Viewer viewer, String title, String template, Object v) {
    page(ctx, new Frame(title, CUSTOMER_NAV, viewer.csrf(), problem(ctx)), template, v);
  }

  static void page(Context ctx, Frame frame, String template, Object v) {
    ctx.html(Templates.render(template, Map.of("frame", frame, "v", v)));
  }

  /** A part of a page the script polls (no layout): the template with its view {@code v}. */
  static void fragment(Context ctx, String template, Object v) {
    ctx.html(Templates.render(template, Map.of("v", v)));
  }

  /** {@code text} cut to 80 characters for a list, with an ellipsis when it was longer. */
  static String shortened(String text) {
    return text.length() > 80 ? text.substring(0, 80) + "…" : text;
  }

  /** The id in the path parameter {@code name}; a path that is not one is a page not found. */
  static long id(Context ctx, String name) {
    try {
      return Long.parseLong(ctx.pathParam(name));
    } catch (NumberFormatException e) {
      throw ApiException.notFound("No such page.");
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
