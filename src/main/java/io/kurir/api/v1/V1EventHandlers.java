package io.kurir.api.v1;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.tenant.ApiCaller;
import io.kurir.tenant.Device;
import io.kurir.webhook.Events;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@code GET /v1/events}: the license's event log ({@link Events}), as a plain JSON pull ({@code
 * ?after=<sequence>&limit=}) or, when the request accepts {@code text/event-stream}, as Server-Sent
 * Events resumed by {@code Last-Event-ID}. Both read the same stored sequence, so a consumer that
 * goes on from the last number it saw misses nothing and sees nothing twice. A device's key sees
 * that device's events only; a license key every device's.
 */
final class V1EventHandlers {
  /** The SSE stream writes a comment this often when there is nothing to send (ANSWERS.md). */
  static final Duration KEEP_ALIVE = Duration.ofSeconds(15);

  private static final int DEFAULT_PAGE = 100;
  private static final int MAX_PAGE = 1000;

  /** Events the stream reads from the log at once. */
  private static final int STREAM_PAGE = 200;

  private final Events events;
  private final Clock clock;

  V1EventHandlers(Events events, Clock clock) {
    this.events = events;
    this.clock = clock;
  }

  void read(Context ctx) throws IOException, InterruptedException {
    ApiCaller caller = V1Routes.caller(ctx);
    long license = caller.license().id();
    OptionalLong device =
        caller.device().map(Device::id).map(OptionalLong::of).orElse(OptionalLong.empty());
    if (Optional.ofNullable(ctx.header("Accept")).orElse("").contains("text/event-stream")) {
      stream(ctx, license, device);
    } else {
      pull(ctx, license, device);
    }
  }

  /**
   * One page after {@code after} (from the oldest event kept when not given): {@code {"data":
   * [events], "next_after": <the last sequence given, or after>, "has_more": bool}}.
   */
  private void pull(Context ctx, long license, OptionalLong device) {
    Optional<Long> given = sequence(ctx.queryParam("after"), "after");
    int limit = limit(ctx);
    given.ifPresent(a -> refuseMissed(license, a));
    long after = given.orElseGet(() -> events.oldestKept(license) - 1);
    List<Events.Event> page = events.after(license, device, after, limit + 1);
    boolean more = page.size() > limit;
    List<Events.Event> shown = more ? page.subList(0, limit) : page;
    long next = shown.isEmpty() ? after : shown.getLast().sequence();
    StringBuilder body = new StringBuilder("{\"data\":[");
    for (int i = 0; i < shown.size(); i++) {
      body.append(i == 0 ? "" : ",").append(shown.get(i).json());
    }
    body.append("],\"next_after\":").append(next).append(",\"has_more\":").append(more);
    ctx.contentType("application/json").result(body.append('}').toString());
  }

  /**
   * The SSE stream from {@code Last-Event-ID} (else {@code ?after}, else from now on): each event
   * as {@code id: <sequence>}, {@code event: <type>}, {@code data: <the event's JSON>}; a comment
   * after {@link #KEEP_ALIVE} of the injected clock without one. It ends when the client goes away
   * (a write fails) or the gateway stops.
   */
  private void stream(Context ctx, long license, OptionalLong device)
      throws IOException, InterruptedException {
    Optional<Long> resumeFrom = sequence(ctx.header("Last-Event-ID"), "last_event_id");
    if (resumeFrom.isEmpty()) {
      resumeFrom = sequence(ctx.queryParam("after"), "after");
    }
    long after = resumeFrom.orElseGet(() -> events.last(license));
    refuseMissed(license, after);
    var res = ctx.res();
    res.setStatus(200);
    res.setContentType("text/event-stream;charset=utf-8");
    res.setHeader("Cache-Control", "no-cache");
    res.setHeader("X-Accel-Buffering", "no"); // a proxy in front must not hold events back
    OutputStream out = res.getOutputStream();
    out.write(": kurir events\n\n".getBytes(StandardCharsets.UTF_8));
    out.flush();
    Instant nextKeepAlive = clock.instant().plus(KEEP_ALIVE);
    try {
      while (events.running()) {
        // Read before the look: a commit after it changes the version, so the wait below
        // returns at once rather than missing it.
        long version = events.version();
        List<Events.Event> page = events.after(license, device, after, STREAM_PAGE);
        for (Events.Event e : page) {
          out.write(frame(e));
          after = e.sequence();
        }
        if (!page.isEmpty()) {
          // Read before the flush: once the client has the events, the clock may move (a test's
          // settable one), and the next keep-alive is due from when they were written.
          Instant written = clock.instant();
          out.flush();
          nextKeepAlive = written.plus(KEEP_ALIVE);
        }
        if (page.size() == STREAM_PAGE) {
          continue;
        }
        Instant now = clock.instant();
        if (!now.isBefore(nextKeepAlive)) {
          out.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8));
          out.flush();
          nextKeepAlive = now.plus(KEEP_ALIVE);
        }
        events.await(version, nextKeepAlive);
      }
    } catch (IOException gone) {
      // The client closed the stream: it resumes with the last id it got.
    }
  }

  private static byte[] frame(Events.Event e) {
    return ("id: " + e.sequence() + "\nevent: " + e.type() + "\ndata: " + e.json() + "\n\n")
        .getBytes(StandardCharsets.UTF_8);
  }

  private void refuseMissed(long license, long after) {
    if (events.missed(license, after)) {
      throw new ApiException(
          410,
          "events_expired",
          "events after "
              + after
              + " are no longer kept (webhook.events-keep-for); start again from after=0");
    }
  }

  private static Optional<Long> sequence(String given, String field) {
    if (given == null || given.isBlank()) {
      return Optional.empty();
    }
    String v = given.strip();
    if (!v.matches("\\d{1,18}")) {
      throw ApiException.badRequest("invalid_" + field, field + " is an event's sequence number");
    }
    return Optional.of(Long.parseLong(v));
  }

  private static int limit(Context ctx) {
    String v = Optional.ofNullable(ctx.queryParam("limit")).map(String::strip).orElse("");
    if (v.isEmpty()) {
      return DEFAULT_PAGE;
    }
    if (!v.matches("\\d{1,4}") || Integer.parseInt(v) < 1 || Integer.parseInt(v) > MAX_PAGE) {
      throw ApiException.badRequest(
          "invalid_limit", "limit is a whole number from 1 to " + MAX_PAGE);
    }
    return Integer.parseInt(v);
  }
}
