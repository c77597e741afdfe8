package io.kurir.api.console;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.message.Message;
import io.kurir.message.MessageEvent;
import io.kurir.message.MessageHistory;
import io.kurir.message.MessageSearch;
import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Messages: a search by device, number, id, state, text and day; one message's whole history. */
final class MessagePages {
  static final List<String> HEADERS = List.of("Id", "To", "State", "Text", "Created");

  private final ConsoleDeps deps;

  MessagePages(ConsoleDeps deps) {
    this.deps = deps;
  }

  /** A message as a row of {@link #HEADERS}, its id linking to {@code link + id}. */
  static List<String> row(Message m, String link, ConsoleDeps deps) {
    String text = m.body().length() > 80 ? m.body().substring(0, 80) + "…" : m.body();
    return List.of(
        Html.link(link + m.id(), m.id()),
        Html.esc(m.recipient()),
        Html.badge(m.state().wireName())
            + m.reason().map(r -> " <span class=\"muted\">" + Html.esc(r) + "</span>").orElse(""),
        Html.esc(text),
        Html.esc(deps.timestamps().reply(m.createdAt())));
  }

  void search(Context ctx, ConsoleRoutes.Viewer v) {
    ZoneId zone = deps.timestamps().zone();
    Optional<String> device = Pages.query(ctx, "device");
    Optional<String> number = Pages.query(ctx, "number");
    Optional<String> id = Pages.query(ctx, "id");
    Optional<String> state = Pages.query(ctx, "state");
    Optional<String> text = Pages.query(ctx, "text");
    Optional<String> date = Pages.query(ctx, "date");
    Optional<LocalDate> day = date.map(MessagePages::day);
    Set<Long> devices = device.map(d -> Set.of(TenantPages.parseId(d))).orElse(Set.of());
    Optional<String> recipient =
        number.map(n -> deps.phones().normalize(n).orElse(n)); // a group id stays as it is
    List<Message> found =
        deps.search()
            .find(
                MessageSearch.Criteria.any()
                    .withDevices(devices)
                    .withId(id.map(MessagePages::messageId))
                    .withRecipient(recipient)
                    .withState(state.map(MessagePages::state))
                    .withText(text)
                    .withPeriod(
                        day.map(x -> x.atStartOfDay(zone).toInstant()),
                        day.map(x -> x.plusDays(1).atStartOfDay(zone).toInstant())));
    Map<String, String> deviceChoices = new LinkedHashMap<>();
    deviceChoices.put("", "every device");
    for (Device d : deps.tenants().devices()) {
      deviceChoices.put(Long.toString(d.id()), d.number());
    }
    Map<String, String> states = new LinkedHashMap<>();
    states.put("", "any state");
    for (MessageState s : MessageState.values()) {
      states.put(s.wireName(), s.wireName());
    }
    List<List<String>> rows = new ArrayList<>();
    for (Message m : found) {
      rows.add(row(m, "/console/messages/", deps));
    }
    String body =
        "<form method=\"get\" action=\"/console/messages\" class=\"row\">"
            + Html.select("Device", "device", deviceChoices, device.orElse(""))
            + Html.input("Number", "number", number.orElse(""), "")
            + Html.input("Id", "id", id.orElse(""), "inputmode=\"numeric\"")
            + Html.select("State", "state", states, state.orElse(""))
            + Html.input("Text", "text", text.orElse(""), "")
            + Html.input("Day", "date", date.orElse(""), "type=\"date\"")
            + "<button type=\"submit\">Search</button></form>"
            + Html.table(HEADERS, rows, "No message matches.")
            + (found.size() == MessageSearch.MAX_ROWS
                ? "<p class=\"muted\">The newest " + MessageSearch.MAX_ROWS + " are shown.</p>"
                : "");
    Pages.operator(ctx, v, "Messages", body + Pages.zoneNote(deps));
  }

  void show(Context ctx, ConsoleRoutes.Viewer v) {
    MessageHistory h = history(Pages.id(ctx));
    Message m = h.message();
    Device d = deps.tenants().device(m.deviceId());
    String body =
        "<section><dl>"
            + item("From", Html.link("/console/devices/" + d.id(), d.number()))
            + item("To", Html.esc(m.recipient()) + (m.toGroup() ? " (group)" : ""))
            + item("Kind", Html.esc(m.kind()))
            + item("Accepted by", Html.esc(m.api()) + (m.sync() ? ", waiting caller" : ""))
            + item("Text", "<pre>" + Html.esc(m.body()) + "</pre>")
            + "</dl></section><section><h2>History</h2><div data-poll=\"/console/messages/"
            + m.id()
            + "/history\">"
            + historyPart(h)
            + "</div></section>";
    Pages.operator(ctx, v, "Message " + m.id(), body + Pages.zoneNote(deps));
  }

  void history(Context ctx, ConsoleRoutes.Viewer v) {
    ctx.html(historyPart(history(Pages.id(ctx))));
  }

  private MessageHistory history(long id) {
    return deps.messages()
        .history(id)
        .orElseThrow(() -> new ApiException(404, "not_found", "No message " + id + "."));
  }

  /** The message's state now and every state it went through, with the reason of a failure. */
  private String historyPart(MessageHistory h) {
    Message m = h.message();
    boolean done = m.state() == MessageState.READ || m.state() == MessageState.FAILED;
    List<List<String>> rows = new ArrayList<>();
    for (MessageEvent e : h.events()) {
      rows.add(
          List.of(
              Html.esc(deps.timestamps().reply(e.at())),
              Html.badge(e.state().wireName()),
              Html.esc(e.reason().orElse(""))));
    }
    return "<p"
        + (done ? " data-final" : "")
        + ">Now "
        + "<span data-testid=\"message-state\">"
        + Html.badge(m.state().wireName())
        + "</span>"
        + m.reason()
            .map(r -> " — <strong data-testid=\"reason\">" + Html.esc(r) + "</strong>")
            .orElse("")
        + " · "
        + m.attempts()
        + " attempt(s)</p>"
        + Html.table(List.of("When", "State", "Reason"), rows, "No state recorded yet.");
  }

  private static String item(String label, String html) {
    return "<dt class=\"muted\">" + Html.esc(label) + "</dt><dd>" + html + "</dd>";
  }

  private static long messageId(String raw) {
    try {
      return Long.parseLong(raw);
    } catch (NumberFormatException e) {
      throw new ApiException(400, "id_not_valid", "A message id is digits.");
    }
  }

  private static MessageState state(String raw) {
    try {
      return MessageState.ofWireName(raw);
    } catch (IllegalArgumentException e) {
      throw new ApiException(400, "state_not_valid", "Choose a state from the list.");
    }
  }

  private static LocalDate day(String raw) {
    try {
      return LocalDate.parse(raw);
    } catch (DateTimeParseException e) {
      throw new ApiException(400, "date_not_valid", "A day is YYYY-MM-DD.");
    }
  }
}
