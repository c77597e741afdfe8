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
    Map<String, Long> shownCounts = new LinkedHashMap<>();
    STATES.keySet().stream()
        .filter(s -> !s.equals("all"))
        .forEach(s -> shownCounts.put(s, counts.getOrDefault(s, 0L)));
    Pages.operator(
        ctx,
        v,
        "Webhook deliveries",
        "webhooks.jte",
        new ListView(shownCounts, STATES, state, table(shown, v, deps), Pages.zone(deps)));
  }

  /** The deliveries page: counts per state, the state chosen, the deliveries in it. */
  record ListView(
      Map<String, Long> counts,
      Map<String, String> states,
      String state,
      Table deliveries,
      Pages.Zone zone) {}

  void replay(Context ctx, ConsoleRoutes.Viewer v) {
    long id = Pages.id(ctx);
    if (!deps.deliveries().replay(id)) {
      throw ApiException.notFound("No failed or dead delivery " + id + ".");
    }
    deps.outboxWake().run();
    Pages.seeOther(ctx, "/console/webhooks?state=pending");
  }

  /** A delivery as a row of {@code deliveries.jte}; {@code device} is its device's number. */
  record Row(
      long id,
      long deviceId,
      String device,
      String event,
      String url,
      String state,
      int attempts,
      String answer,
      String created,
      boolean replayable) {}

  /** Deliveries, and the CSRF token of their replay buttons. */
  record Table(List<Row> rows, String csrf) {}

  /** Deliveries with the receiver's last answer and, for failed and dead ones, a replay button. */
  static Table table(List<Delivery> deliveries, ConsoleRoutes.Viewer v, ConsoleDeps deps) {
    Map<Long, String> numbers = Pages.deviceNumbers(deps);
    List<Row> rows = new ArrayList<>();
    for (Delivery d : deliveries) {
      rows.add(
          new Row(
              d.id(),
              d.deviceId(),
              numbers.getOrDefault(d.deviceId(), ""),
              d.event(),
              d.url(),
              d.state(),
              d.attempts(),
              d.lastError().orElse(""),
              deps.timestamps().reply(d.createdAt()),
              d.state().equals("failed") || d.state().equals("dead")));
    }
    return new Table(rows, v.csrf());
  }
}
