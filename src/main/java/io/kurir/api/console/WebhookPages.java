package io.kurir.api.console;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.webhook.WebhookDeliveries.Delivery;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Webhook deliveries that failed or died, with the receiver's answer, and replaying one. */
final class WebhookPages {
  private final ConsoleDeps deps;

  WebhookPages(ConsoleDeps deps) {
    this.deps = deps;
  }

  void list(Context ctx, ConsoleRoutes.Viewer v) {
    String state = Pages.query(ctx, "state").orElse("dead");
    if (!List.of("failed", "dead", "pending", "delivered").contains(state)) {
      throw new ApiException(400, "state_not_valid", "Choose a state from the list.");
    }
    Map<String, String> states = new LinkedHashMap<>();
    states.put("dead", "dead (gave up)");
    states.put("failed", "failed (being retried)");
    states.put("pending", "pending");
    states.put("delivered", "delivered");
    String body =
        "<form method=\"get\" action=\"/console/webhooks\" class=\"row\">"
            + Html.select("State", "state", states, state)
            + "<button type=\"submit\" class=\"secondary\">Show</button></form>"
            + table(deps.deliveries().list(state), v, deps);
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
