package io.kurir.api.eco;

import static io.kurir.api.eco.EcoMessageHandlers.plain;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.api.ListedValues;
import io.kurir.api.RequestFields;
import io.kurir.api.eco.EcoRoutes.EcoRequest;
import io.kurir.message.MessageText;
import io.kurir.phone.PhoneNumbers;
import io.kurir.schedule.ApiType;
import io.kurir.schedule.Schedule;
import io.kurir.schedule.ScheduleRequest;
import io.kurir.schedule.Schedules;
import io.kurir.time.Timestamps;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** {@code /api/scheduler}, {@code /api/sch_check} and {@code /api/sch_remove}. */
public final class EcoScheduleHandlers {
  /** The contract's limit: a fourth schedule of one key in one minute is refused. */
  static final int PER_MINUTE = 3;

  private final Schedules schedules;
  private final PhoneNumbers phones;
  private final Timestamps timestamps;
  private final long maxKb;
  private final io.kurir.contact.ContactIdentities contacts;

  public EcoScheduleHandlers(
      Schedules schedules,
      PhoneNumbers phones,
      Timestamps timestamps,
      long maxKb,
      io.kurir.contact.ContactIdentities contacts) {
    this.schedules = schedules;
    this.phones = phones;
    this.timestamps = timestamps;
    this.maxKb = maxKb;
    this.contacts = contacts;
  }

  /** {@code /api/scheduler}: the schedule's id, or one of the contract's result strings. */
  void scheduler(Context ctx, EcoRequest req) {
    RequestFields f = req.fields();
    Optional<String> key = f.idempotencyKey();
    Optional<ApiType> type = f.text("api_type").flatMap(ApiType::ofWireName);
    if (type.isEmpty()) {
      plain(ctx, EcoResults.NOT_VALID_API);
      return;
    }
    Optional<Instant> due = f.text("sch_date").flatMap(timestamps::parseLocal);
    if (due.isEmpty()) {
      plain(ctx, EcoResults.SCH_DATE_NOT_VALID);
      return;
    }
    // An image schedule is the image alone; image_text adds the message as its caption.
    String message =
        type.get() == ApiType.IMAGE ? "" : MessageText.normalize(f.text("message").orElse(""));
    if (type.get().needsMessage() && message.isBlank()) {
      plain(ctx, EcoResults.MESSAGE_EMPTY);
      return;
    }
    Optional<String> url =
        type.get().needsUrl() ? f.text("url").map(String::strip) : Optional.empty();
    if (type.get().needsUrl() && url.isEmpty()) {
      plain(ctx, EcoResults.URL_EMPTY);
      return;
    }
    String target = oneNumber(f.required("phone_no"), req);
    // A refused schedule is answered by the family's catalogue (EcoErrors): mostly result strings.
    Schedule s =
        schedules.schedule(
            req.device(),
            new ScheduleRequest(type.get(), target, message, url, due.get(), PER_MINUTE)
                .withIdempotencyKey(key));
    plain(ctx, Long.toString(s.id()));
  }

  /** The media limit in KB, which a refused schedule's result names. */
  long maxKb() {
    return maxKb;
  }

  /**
   * A schedule goes to one number: a list would need one id per number, and has only one. A network
   * id (a LID, a BSUID) the device has met is taken as an Eco send takes it (the phone behind it
   * when known): a reply due later to a hidden sender is as legitimate as one sent now.
   */
  private String oneNumber(String raw, EcoRequest req) {
    if (ListedValues.moreThan(raw, PhoneNumbers.LIST_SEPARATORS_CHARS, 1)) {
      throw ApiException.fieldNotValid("phone_no", "a schedule goes to one number");
    }
    List<Optional<String>> numbers = phones.normalizeAll(raw);
    if (numbers.isEmpty()) {
      throw ApiException.fieldEmpty("phone_no");
    }
    if (numbers.size() > 1) {
      throw ApiException.fieldNotValid("phone_no", "a schedule goes to one number");
    }
    return numbers
        .getFirst()
        .or(() -> contacts.sendableAddress(req.device().id(), raw))
        .orElseThrow(() -> ApiException.fieldNotValid("phone_no", "not a phone number"));
  }

  /** {@code /api/sch_check}: {@code {status, data[record]}}. */
  void schCheck(Context ctx, EcoRequest req) {
    Optional<Schedule> found = scheduleId(req).flatMap(id -> schedules.find(req.device(), id));
    if (found.isEmpty()) {
      reply(ctx, EcoResults.STATUS_FAILED, EcoResults.NOT_FOUND, List.of());
    } else {
      reply(ctx, EcoResults.STATUS_SUCCESS, null, List.of(record(found.get())));
    }
  }

  /**
   * {@code /api/sch_remove}: removes a schedule that has not gone out; removing one twice succeeds
   * again, removing one that was sent (or failed) answers {@code failed} with {@code already_sent}
   * (or {@code already_failed}) and its record.
   */
  void schRemove(Context ctx, EcoRequest req) {
    Optional<Long> id = scheduleId(req);
    Schedules.Removal removal =
        id.isEmpty() ? new Schedules.Removal.NotFound() : schedules.remove(req.device(), id.get());
    switch (removal) {
      case Schedules.Removal.Removed r ->
          reply(ctx, EcoResults.STATUS_SUCCESS, null, List.of(record(r.schedule())));
      case Schedules.Removal.TooLate late ->
          reply(
              ctx,
              EcoResults.STATUS_FAILED,
              late.schedule().state() == io.kurir.schedule.ScheduleState.FAILED
                  ? EcoResults.ALREADY_FAILED
                  : EcoResults.ALREADY_SENT,
              List.of(record(late.schedule())));
      case Schedules.Removal.NotFound nf ->
          reply(ctx, EcoResults.STATUS_FAILED, EcoResults.NOT_FOUND, List.of());
    }
  }

  private static Optional<Long> scheduleId(EcoRequest req) {
    String raw =
        req.fields()
            .textOf("msg_id", "id")
            .orElseThrow(() -> ApiException.fieldEmpty("msg_id"))
            .strip();
    return raw.matches("\\d{1,18}") ? Optional.of(Long.parseLong(raw)) : Optional.empty();
  }

  private static void reply(
      Context ctx, String status, String message, List<Map<String, Object>> data) {
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("status", status);
    if (message != null) {
      reply.put("message", message);
    }
    reply.put("data", data);
    ctx.json(reply);
  }

  /**
   * The contract's scheduled message record, and {@code reason} when its status is {@code failed}
   * (a field the contract does not list; JSON clients ignore it).
   */
  private Map<String, Object> record(Schedule s) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("msg_id", Long.toString(s.id()));
    r.put("api_type", s.apiType().wireName());
    r.put("message", s.body());
    r.put("target", s.target());
    r.put("status", s.status());
    r.put("filename", s.filename().orElse(null));
    r.put("sch_date", timestamps.reply(s.dueAt()));
    r.put("sys_creation_date", timestamps.reply(s.createdAt()));
    r.put("status_msg_id", s.messageId().map(String::valueOf).orElse(""));
    s.failureReason().ifPresent(reason -> r.put("reason", reason)); // only when failed
    return r;
  }
}
