package io.kurir.schedule;

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
 */
public record ScheduleRequest(
    ApiType apiType,
    String target,
    String body,
    Optional<String> url,
    Instant dueAt,
    int perMinuteLimit) {}
