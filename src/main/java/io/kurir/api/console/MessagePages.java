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
  private final ConsoleDeps deps;

  MessagePages(ConsoleDeps deps) {
    this.deps = deps;
  }

  /** A message as a row of a list: its state's name, its text cut short, its creation time. */
  record Row(
      long id, String to, String state, Optional<String> reason, String text, String created) {}

  static Row row(Message m, ConsoleDeps deps) {
    return new Row(
        m.id(),
        m.recipient(),
        m.state().wireName(),
        m.reason(),
        Pages.shortened(m.body()),
        deps.timestamps().reply(m.createdAt()));
  }

  /** The search form as filled in, and the messages found. */
  record SearchView(
      Map<String, String> devices,
      Map<String, String> states,
      Map<String, String> typed,
      List<Row> rows,
      boolean cut,
      int maxRows,
      Pages.Zone zone) {}

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
    Map<String, String> typed = new java.util.HashMap<>();
    typed.put("device", device.orElse(""));
    typed.put("number", number.orElse(""));
    typed.put("id", id.orElse(""));
    typed.put("state", state.orElse(""));
    typed.put("text", text.orElse(""));
    typed.put("date", date.orElse(""));
    Pages.operator(
        ctx,
        v,
        "Messages",
        "messages.jte",
        new SearchView(
            deviceChoices,
            states,
            typed,
            found.stream().map(m -> row(m, deps)).toList(),
            found.size() == MessageSearch.MAX_ROWS,
            MessageSearch.MAX_ROWS,
            Pages.zone(deps)));
  }

  /** A message's page: who sent it to whom, how, its text, and its history (polled). */
  record MessageView(
      long id,
      long deviceId,
      String from,
      String to,
      String kind,
      String acceptedBy,
      String text,
      History history,
      Pages.Zone zone) {}

  /** A state the message went through. */
  record Event(String when, String state, String reason) {}

  /** The message's state now and every state it went through, with the reason of a failure. */
  record History(
      String state, Optional<String> reason, int attempts, boolean done, List<Event> events) {}

  void show(Context ctx, ConsoleRoutes.Viewer v) {
    MessageHistory h = history(Pages.id(ctx));
    Message m = h.message();
    Device d = deps.tenants().device(m.deviceId());
    Pages.operator(
        ctx,
        v,
        "Message " + m.id(),
        "message.jte",
        new MessageView(
            m.id(),
            d.id(),
            d.number(),
            m.recipient() + (m.toGroup() ? " (group)" : ""),
            m.kind(),
            m.api() + (m.sync() ? ", waiting caller" : ""),
            m.body(),
            historyPart(h),
            Pages.zone(deps)));
  }

  void history(Context ctx, ConsoleRoutes.Viewer v) {
    Pages.fragment(ctx, "messageHistory.jte", historyPart(history(Pages.id(ctx))));
  }

  private MessageHistory history(long id) {
    return deps.messages()
        .history(id)
        .orElseThrow(() -> ApiException.notFound("No message " + id + "."));
  }

  private History historyPart(MessageHistory h) {
    Message m = h.message();
    boolean done = m.state() == MessageState.READ || m.state() == MessageState.FAILED;
    List<Event> events = new ArrayList<>();
    for (MessageEvent e : h.events()) {
      events.add(
          new Event(deps.timestamps().reply(e.at()), e.state().wireName(), e.reason().orElse("")));
    }
    return new History(m.state().wireName(), m.reason(), m.attempts(), done, events);
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
