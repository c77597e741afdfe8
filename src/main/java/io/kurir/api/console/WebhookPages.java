package io.kurir.api.console;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.webhook.WebhookDeliveries.Delivery;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Webhook deliveries with the receiver's answer, and replaying one that failed or died. */
final class WebhookPages {
  private final ConsoleDeps deps;

  WebhookPages(ConsoleDeps deps) {
    this.deps = deps;
  }

  /** The states a delivery can be in, with the filter's label for each. */
  private static final Map<String, String> STATES = new LinkedHashMap<>();

  static {
    STATES.put("all", "all recent");
    STATES.put("dead", "dead (gave up)");
    STATES.put("failed", "failed (being retried)");
    STATES.put("pending", "pending");
    STATES.put("delivered", "delivered");
  }

  /**
   * Recent deliveries in every state by default, so that whoever checks whether their webhook fired
   * sees it; the counts above lead to one state.
   */
  void list(Context ctx, ConsoleRoutes.Viewer v) {
    String state = Pages.query(ctx, "state").orElse("all");
    if (!STATES.containsKey(state)) {
      throw new ApiException(400, "state_not_valid", "Choose a state from the list.");
    }
    List<Delivery> shown =
        state.equals("all")
            ? STATES.keySet().stream()
                .filter(s -> !s.equals("all"))
                .flatMap(s -> deps.deliveries().list(s).stream())
                .sorted(Comparator.comparingLong(Delivery::id).reversed())
                .limit(Pages.MAX_ROWS)
                .toList()
            : deps.deliveries().list(state);
    Map<String, Long> counts = deps.deliveries().countByState();
    StringBuilder summary = new StringBuilder("<p data-testid=\"delivery-counts\">");
    STATES.keySet().stream()
        .filter(s -> !s.equals("all"))
        .forEach(
            s ->
                summary
                    .append(Html.link("/console/webhooks?state=" + s, s))
                    .append(' ')
                    .append(counts.getOrDefault(s, 0L))
                    .append(" &nbsp; "));
    summary.append("</p>");
    String body =
        summary
            + "<form method=\"get\" action=\"/console/webhooks\" class=\"row\">"
            + Html.select("State", "state", STATES, state)
            + "<button type=\"submit\" class=\"secondary\">Show</button></form>"
            + table(shown, v, deps)
            + Pages.zoneNote(deps);
    Pages.operator(ctx, v, "Webhook deliveries", body);
  }

  void replay(Context ctx, ConsoleRoutes.Viewer v) {
    long id = Pages.id(ctx);
    if (!deps.deliveries().replay(id)) {
      throw new ApiException(404, "not_found", "No failed or dead delivery " + id + ".");
    }
    deps.outboxWake().run();
    Pages.seeOther(ctx, "/console/webhooks?state=pending");
  }

  /** Deliveries with the receiver's last answer and, for failed and dead ones, a replay button. */
  static String table(List<Delivery> deliveries, ConsoleRoutes.Viewer v, ConsoleDeps deps) {
    Map<Long, String> numbers = Pages.deviceNumbers(deps);
    List<List<String>> rows = new ArrayList<>();
    for (Delivery d : deliveries) {
      boolean replayable = d.state().equals("failed") || d.state().equals("dead");
      rows.add(
          List.of(
              Html.esc(d.id()),
              Html.link("/console/devices/" + d.deviceId(), numbers.get(d.deviceId())),
              Html.esc(d.event()),
              Html.esc(d.url()),
              Html.badge(d.state()) + " " + d.attempts() + "×",
              "<span data-testid=\"answer\">" + Html.esc(d.lastError().orElse("")) + "</span>",
              Html.esc(deps.timestamps().reply(d.createdAt())),
              replayable
                  ? Html.post(
                      "/console/webhooks/" + d.id() + "/replay", v.csrf(), "Replay", "secondary")
                  : ""));
    }
    return Html.table(
        List.of("Id", "Device", "Event", "URL", "State", "Receiver's answer", "Created", ""),
        rows,
        "No delivery here.");
  }
}
