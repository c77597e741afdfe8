package io.kurir.schedule;

import io.kurir.media.FetchResult;
import io.kurir.media.SafeFetcher;
import io.kurir.message.FailureReason;
import io.kurir.message.IdempotencyKeyReused;
import io.kurir.message.IdempotencyKeys;
import io.kurir.message.Messages;
import io.kurir.schedule.ScheduleRefused.Reason;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.tenant.Device;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/**
 * Scheduled messages: accepting them (with everything that can be checked ahead checked now),
 * looking them up and removing them. {@link ScheduleRunner} sends them when they are due.
 *
 * <p>Thread-safe.
 */
public final class Schedules {
  /**
   * The longest a scheduling request waits for its URL check: clients give up at 15 s, and one that
   * retries would schedule twice.
   */
  private static final Duration URL_CHECK_TIMEOUT = Duration.ofSeconds(8);

  /** Longest file name kept from a URL. */
  private static final int MAX_FILENAME = 255;

  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Schedules.class);
  private final ScheduleStore store;
  private final IdGenerator ids;
  private final Clock clock;
  private final SafeFetcher fetcher;
  private final Runnable wakeRunner;
  private final Messages messages;
  private final IdempotencyKeys keys;

  public Schedules(
      Database db,
      IdGenerator ids,
      Clock clock,
      SafeFetcher fetcher,
      Messages messages,
      Runnable wakeRunner) {
    this.store = new ScheduleStore(db);
    this.keys = new IdempotencyKeys(db, clock);
    this.messages = messages;
    this.ids = ids;
    this.clock = clock;
    this.fetcher = fetcher;
    this.wakeRunner = wakeRunner;
    ids.continueAfter(store.maxId());
  }

  /**
   * Stores a schedule for {@code device} and returns it.
   *
   * <p>What can be known now is checked now: the time, the per-minute limit, and for an image or
   * file its URL: the shape always, and the size (and for images the type) when the URL answers. An
   * unreachable file URL is accepted, since the file may be put there before it is due; the URL is
   * fetched again when the schedule is due, and a failure then is recorded on the schedule.
   *
   * <p>A request with an idempotency key that the device's first request with that key already
   * stored is answered that request's schedule, as it is now, before anything else is checked: its
   * time may have passed, and its minute is full with it.
   *
   * @throws ScheduleRefused when the schedule is not accepted
   * @throws IdempotencyKeyReused when the key was used for a different request
   */
  public Schedule schedule(Device device, ScheduleRequest request) {
    Optional<IdempotencyKeys.Claim> claim =
        request.idempotencyKey().map(k -> keys.claim(device.id(), k, request.fingerprint()));
    Optional<Schedule> first = claim.flatMap(this::firstOf);
    if (first.isPresent()) {
      return first.get();
    }
    Instant now = clock.instant();
    Instant currentMinute = now.truncatedTo(ChronoUnit.MINUTES);
    if (request.dueAt().isBefore(currentMinute)) {
      throw new ScheduleRefused(Reason.DUE_IN_PAST, "the scheduled time has passed");
    }
    if (request.body().length() > Messages.MAX_TEXT_LENGTH) {
      throw new ScheduleRefused(
          Reason.TEXT_TOO_LONG, "at most " + Messages.MAX_TEXT_LENGTH + " characters");
    }
    // Counted before fetching (a full minute need not wait for a download), and again when stored.
    if (store.countInMinute(device.id(), request.dueAt()) >= request.perMinuteLimit()) {
      throw tooMany(request);
    }
    Optional<String> filename = Optional.empty();
    if (request.apiType().needsUrl()) {
      String url = request.url().orElseThrow(() -> new IllegalArgumentException("no url"));
      filename = checkUrl(request.apiType(), url);
    }
    Schedule schedule =
        new Schedule(
            ids.next(),
            device.id(),
            request.apiType(),
            request.body(),
            request.target(),
            request.url(),
            filename,
            request.dueAt(),
            now,
            ScheduleState.WAITING,
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty());
    switch (store.insertWithinLimit(schedule, request.perMinuteLimit(), claim)) {
      case MINUTE_FULL -> throw tooMany(request);
      case KEY_TAKEN -> { // a concurrent request with the same key was stored first
        return firstOf(claim.orElseThrow())
            .orElseThrow(() -> new IllegalStateException("the idempotency key vanished"));
      }
      case STORED -> wakeRunner.run(); // it may be due before whatever the runner waits for
    }
    return schedule;
  }

  /** The schedule of the first request with the claim's key, if there was one. */
  private Optional<Schedule> firstOf(IdempotencyKeys.Claim claim) {
    return claim
        .firstAnswer()
        .map(
            ids ->
                store
                    .find(ids.getFirst())
                    .orElseThrow(() -> new IllegalStateException("schedule " + ids + " is gone")));
  }

  private static ScheduleRefused tooMany(ScheduleRequest request) {
    return new ScheduleRefused(
        Reason.TOO_MANY_IN_MINUTE,
        "at most " + request.perMinuteLimit() + " schedules per device in one minute");
  }

  /** Fetches the URL once to check it; the file's name when it answered. */
  private Optional<String> checkUrl(ApiType type, String url) {
    Duration limit = min(fetcher.timeout(), URL_CHECK_TIMEOUT);
    FetchResult fetched = fetcher.fetch(url, Instant.now().plus(limit));
    return switch (fetched) {
      case FetchResult.BadUrl bad -> throw new ScheduleRefused(Reason.URL_NOT_VALID, bad.why());
      case FetchResult.TooLarge tooLarge ->
          throw new ScheduleRefused(Reason.FILE_TOO_LARGE, "the file is larger than the limit");
      case FetchResult.Unreachable unreachable -> {
        if (type.isImage()) {
          throw new ScheduleRefused(Reason.IMAGE_NOT_FOUND, unreachable.why());
        }
        yield nameInUrl(url);
      }
      case FetchResult.Fetched ok -> {
        if (type.isImage() && !ok.file().isImage()) {
          throw new ScheduleRefused(Reason.IMAGE_NOT_FOUND, "the URL is not an image");
        }
        yield Optional.of(ok.file().name());
      }
    };
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) < 0 ? a : b;
  }

  /** The last path segment of the URL, without control characters, at most 255 characters. */
  private static Optional<String> nameInUrl(String url) {
    try {
      String path = Optional.ofNullable(URI.create(url.strip()).getPath()).orElse("");
      String last = path.substring(path.lastIndexOf('/') + 1).replaceAll("\\p{Cntrl}", "");
      if (last.length() > MAX_FILENAME) {
        last = last.substring(last.length() - MAX_FILENAME); // keep the extension
      }
      return last.isBlank() ? Optional.empty() : Optional.of(last);
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** Schedules still waiting, earliest due first, at most {@code limit}. */
  /**
   * The device was deleted: its schedules not handed over yet end {@code failed} with reason {@code
   * device_deleted}, at once rather than when each falls due.
   */
  public void deviceDeleted(Device device) {
    int failed = store.failAllOf(device.id(), FailureReason.DEVICE_DELETED, clock.instant());
    if (failed > 0) {
      log.info("device {} deleted: {} schedule(s) failed", device.id(), failed);
    }
  }

  public List<Schedule> waiting(int limit) {
    return store.waiting(limit);
  }

  /** How many schedules wait to go out before {@code before}. */
  public long countWaitingDueBefore(Instant before) {
    return store.countWaitingDueBefore(before);
  }

  /** The schedule with this id if it belongs to {@code device}. */
  public Optional<Schedule> find(Device device, long id) {
    return store.find(id).filter(s -> s.deviceId() == device.id());
  }

  /** What {@link #remove} did. */
  public sealed interface Removal {
    /** Removed now, or before (removing twice is not an error). */
    record Removed(Schedule schedule) implements Removal {}

    /** Already handed to the pipeline, or failed: too late to remove. */
    record TooLate(Schedule schedule) implements Removal {}

    record NotFound() implements Removal {}
  }

  /**
   * Removes a schedule of {@code device} that has not gone out: one still waiting, or one handed
   * over whose message is still queued (behind an offline phone, say), which is taken back.
   */
  public Removal remove(Device device, long id) {
    Optional<Schedule> found = find(device, id);
    if (found.isEmpty()) {
      return new Removal.NotFound();
    }
    Schedule s = found.get();
    Instant now = clock.instant();
    if (s.state() == ScheduleState.HANDED && s.messageId().isPresent()) {
      messages.cancelQueued(
          s.deviceId(),
          s.messageId().get(),
          FailureReason.CANCELLED,
          (tx, messageId) -> ScheduleStore.unhand(tx, s.id(), messageId, now));
    } else {
      store.remove(id, now);
    }
    Schedule after = store.find(id).orElseThrow();
    return after.state() == ScheduleState.REMOVED
        ? new Removal.Removed(after)
        : new Removal.TooLate(after);
  }
}
