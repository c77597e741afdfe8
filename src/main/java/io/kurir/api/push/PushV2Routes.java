package io.kurir.api.push;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.api.ErrorCatalogue;
import io.kurir.api.ErrorStyle;
import io.kurir.api.RemoteMedia;
import io.kurir.api.RequestFields;
import io.kurir.api.RouteTable;
import io.kurir.core.KurirException;
import io.kurir.message.MediaRef;
import io.kurir.message.MessageText;
import io.kurir.message.Recipient;
import io.kurir.message.SendCommand;
import io.kurir.message.SendRefused;
import io.kurir.message.Sends;
import io.kurir.phone.PhoneNumbers;
import io.kurir.schedule.ApiType;
import io.kurir.schedule.ScheduleRefused;
import io.kurir.schedule.ScheduleRequest;
import io.kurir.schedule.Schedules;
import io.kurir.store.IdGenerator;
import io.kurir.tenant.Device;
import io.kurir.tenant.License;
import io.kurir.tenant.MobileCs;
import io.kurir.tenant.TenantException;
import io.kurir.tenant.Tenants;
import io.kurir.time.Timestamps;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Push v2, shaped like FCM's legacy {@code POST /send}: {@code to} names a handset (a mobile CS
 * player id or handset id, or a device id of the caller's license) whose device sends {@code
 * data.message} to {@code data.number}, as an image with {@code data.img_url} or a file with {@code
 * data.file_url}, and at {@code data.schedule} through the scheduler when given. Also the
 * notification gateway's text variant, {@code POST /push/send-text} ({@code key}, {@code message},
 * {@code phone_no}, {@code schedule}, {@code whatsapp}). Answers {@code {multicast_id, success,
 * failure, canonical_ids, results[{message_id} | {error}]}}: a refused send is one {@code error}
 * result, as FCM reports a bad token; a refused caller is a 4xx {@code {"error": token}}.
 */
public final class PushV2Routes implements RouteTable {
  /** Push schedules are not limited per minute like the Eco scheduler's. */
  private static final int NO_MINUTE_LIMIT = Integer.MAX_VALUE;

  private final Tenants tenants;
  private final PushCredentials credentials;
  private final MobileCs mobileCs;
  private final PhoneNumbers phones;
  private final Sends sends;
  private final Schedules schedules;
  private final RemoteMedia media;
  private final IdGenerator ids;
  private final Timestamps timestamps;

  public PushV2Routes(
      Tenants tenants,
      MobileCs mobileCs,
      PhoneNumbers phones,
      Sends sends,
      Schedules schedules,
      RemoteMedia media,
      IdGenerator ids,
      Timestamps timestamps) {
    this.tenants = tenants;
    this.credentials = new PushCredentials(tenants);
    this.mobileCs = mobileCs;
    this.phones = phones;
    this.sends = sends;
    this.schedules = schedules;
    this.media = media;
    this.ids = ids;
    this.timestamps = timestamps;
  }

  @Override
  public String pathPrefix() {
    return "/send";
  }

  @Override
  public List<String> pathPrefixes() {
    return List.of("/send", "/push/");
  }

  @Override
  public ErrorStyle errorStyle() {
    return ErrorStyle.ERROR_JSON;
  }

  /**
   * An expired license's push key. A refused send or schedule is a result ({@link #RESULTS}), not
   * an error, so its text field is named only for completeness.
   */
  private static final ErrorCatalogue ERRORS = PushErrors.catalogue("message");

  @Override
  public ErrorCatalogue errors() {
    return ERRORS;
  }

  @Override
  public void addTo(RoutesConfig routes) {
    routes.post("/send", this::send);
    routes.post("/push/send-text", this::sendText);
  }

  /**
   * The family's catalogue of in-band results: FCM answers a refused send or schedule with an error
   * name in the request's {@code results}, with 200; any other send refusal is {@code Unavailable}.
   */
  private static final Map<KurirException.Reason, String> RESULTS =
      Map.of(
          SendRefused.Reason.TEXT_TOO_LONG, "MessageTooBig",
          ScheduleRefused.Reason.DUE_IN_PAST, "ScheduleInPast",
          ScheduleRefused.Reason.FILE_TOO_LARGE, "MessageTooBig",
          ScheduleRefused.Reason.TEXT_TOO_LONG, "MessageTooBig",
          ScheduleRefused.Reason.IMAGE_NOT_FOUND, "InvalidMediaUrl",
          ScheduleRefused.Reason.URL_NOT_VALID, "InvalidMediaUrl",
          ScheduleRefused.Reason.TOO_MANY_IN_MINUTE, "TooManyMessages");

  /** One send's outcome: the id to look it up by, or an FCM-style error name. */
  private record Outcome(Optional<String> messageId, Optional<String> error) {
    static Outcome sent(long id) {
      return new Outcome(Optional.of(Long.toString(id)), Optional.empty());
    }

    static Outcome error(String name) {
      return new Outcome(Optional.empty(), Optional.of(name));
    }
  }

  private void send(Context ctx) {
    License license = credentials.license(ctx);
    RequestFields f = RequestFields.of(ctx);
    Optional<Device> device = mobileCs.deviceForTarget(license, f.required("to"));
    Optional<String> key = f.idempotencyKey();
    Outcome outcome =
        device.isEmpty()
            ? Outcome.error("NotRegistered")
            : sendOrSchedule(
                device.get(),
                f.text("data.number"),
                MessageText.normalize(f.text("data.message").orElse("")),
                f.text("data.img_url"),
                f.text("data.file_url"),
                // data.send_from (send_form in the contract's example) is a label for people.
                f.text("data.schedule"),
                key);
    reply(ctx, outcome);
  }

  /** The text variant: {@code key} is the Eco key of a device of the caller's license. */
  private void sendText(Context ctx) {
    License license = credentials.license(ctx);
    RequestFields f = RequestFields.of(ctx);
    String whatsapp = f.text("whatsapp").orElse("auto").strip().toLowerCase(Locale.ROOT);
    if (!List.of("personal", "bisnis", "auto").contains(whatsapp)) {
      throw ApiException.fieldNotValid("whatsapp", "whatsapp is personal, bisnis or auto");
    }
    Device device;
    try {
      device = tenants.deviceForEcoKey(f.required("key").strip());
    } catch (TenantException e) {
      throw new ApiException(401, "invalid_key", "no device of this license has this key");
    }
    if (device.licenseId() != license.id()) {
      throw new ApiException(401, "invalid_key", "no device of this license has this key");
    }
    reply(
        ctx,
        sendOrSchedule(
            device,
            f.text("phone_no"),
            MessageText.normalize(f.text("message").orElse("")),
            Optional.empty(),
            Optional.empty(),
            f.text("schedule"),
            f.idempotencyKey()));
  }

  private Outcome sendOrSchedule(
      Device device,
      Optional<String> rawNumber,
      String text,
      Optional<String> imageUrl,
      Optional<String> fileUrl,
      Optional<String> schedule,
      Optional<String> key) {
    Optional<String> number = rawNumber.flatMap(phones::normalize);
    if (number.isEmpty()) {
      return Outcome.error("InvalidNumber");
    }
    Optional<String> url = imageUrl.or(() -> fileUrl).map(String::strip);
    if (url.isEmpty() && text.isBlank()) {
      return Outcome.error("MissingMessage");
    }
    ApiType type =
        imageUrl.isPresent()
            ? (text.isBlank() ? ApiType.IMAGE : ApiType.IMAGE_TEXT)
            : fileUrl.isPresent() ? ApiType.FILE : ApiType.TEXT;
    if (schedule.isPresent()) {
      return schedule(device, number.get(), text, url, type, schedule.get(), key);
    }
    Optional<MediaRef> file = Optional.empty();
    if (url.isPresent()) {
      try {
        file = Optional.of(media.fetch("url", url.get(), Instant.now().plus(media.timeout())));
      } catch (ApiException e) {
        return Outcome.error(e.status() == 413 ? "MessageTooBig" : "InvalidMediaUrl");
      }
      if (type != ApiType.FILE && !file.get().mimeType().startsWith("image/")) {
        return Outcome.error("InvalidMediaUrl");
      }
    }
    SendCommand command =
        SendCommand.builder("push.v2")
            .to(Recipient.number(number.get()))
            .kind(type.kind())
            .body(text)
            .media(file)
            .idempotencyKey(key)
            .build();
    try {
      return Outcome.sent(sends.send(device, command).first().id());
    } catch (SendRefused e) {
      // FCM answers a refused message in its result, not as a failed request.
      return Outcome.error(RESULTS.getOrDefault(e.reason(), "Unavailable"));
    }
  }

  private Outcome schedule(
      Device device,
      String number,
      String text,
      Optional<String> url,
      ApiType type,
      String when,
      Optional<String> key) {
    Optional<Instant> due = timestamps.parseLocal(when);
    if (due.isEmpty()) {
      return Outcome.error("InvalidSchedule");
    }
    try {
      return Outcome.sent(
          schedules
              .schedule(
                  device,
                  new ScheduleRequest(type, number, text, url, due.get(), NO_MINUTE_LIMIT)
                      .withIdempotencyKey(key))
              .id());
    } catch (ScheduleRefused e) {
      return Outcome.error(RESULTS.get(e.reason()));
    }
  }

  private void reply(Context ctx, Outcome outcome) {
    Map<String, Object> result = new LinkedHashMap<>();
    outcome.messageId().ifPresent(id -> result.put("message_id", id));
    outcome.error().ifPresent(e -> result.put("error", e));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("multicast_id", ids.next());
    body.put("success", outcome.messageId().isPresent() ? 1 : 0);
    body.put("failure", outcome.error().isPresent() ? 1 : 0);
    body.put("canonical_ids", 0);
    body.put("results", List.of(result));
    ctx.json(body);
  }
}
