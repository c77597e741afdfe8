package io.kurir.schedule;

import io.kurir.message.IdempotencyKeys;
import java.time.Instant;
import java.util.Optional;

/**
 * A schedule a dialect asks for.
 *
 * @param target the recipient's E.164 number
 * @param body the (already normalised) text or caption
 * @param url the image or file to send, for every type but {@code text}
 * @param perMinuteLimit how many schedules the device may have in the minute of {@code dueAt} (the
 *     Eco scheduler allows 3)
 * @param idempotencyKey the caller's key for this request, if any: a repeat with the same key on
 *     the same device is answered the first request's schedule ({@link IdempotencyKeys})
 */
public record ScheduleRequest(
    ApiType apiType,
    String target,
    String body,
    Optional<String> url,
    Instant dueAt,
    int perMinuteLimit,
    Optional<String> idempotencyKey) {

  /** A schedule without an idempotency key. */
  public ScheduleRequest(
      ApiType apiType,
      String target,
      String body,
      Optional<String> url,
      Instant dueAt,
      int perMinuteLimit) {
    this(apiType, target, body, url, dueAt, perMinuteLimit, Optional.empty());
  }

  /** The same request with the caller's idempotency key, if any. */
  public ScheduleRequest withIdempotencyKey(Optional<String> key) {
    return new ScheduleRequest(apiType, target, body, url, dueAt, perMinuteLimit, key);
  }

  /** What the request is, for its idempotency key: everything the schedule is stored with. */
  String fingerprint() {
    return IdempotencyKeys.fingerprint(
        "schedule",
        apiType.wireName(),
        target,
        body,
        url.orElse(""),
        Long.toString(dueAt.toEpochMilli()),
        Integer.toString(perMinuteLimit));
  }
}
