package io.kurir.driver.gowa;

import io.kurir.driver.ContactDirectory;
import io.kurir.driver.ContactDirectory.CheckedNumber;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The number check before a first send (docs/drivers/gowa.md, "Number checks"; the same rule as the
 * WAHA driver's): a message to a number this device has neither sent to nor heard from goes only
 * once GOWA says the number is on WhatsApp ({@code GET /user/check}). The answers are kept per
 * device in the {@link ContactDirectory} for {@code keepFor}; checks are paced, at most {@code
 * perMinute} a minute per device (bursts of look-ups get a number flagged): beyond that the send
 * waits, it does not go unchecked. A check that fails for a passing reason (GOWA's error, a reply
 * without the answer) lets the send go.
 *
 * <p>Thread-safe.
 */
final class GowaNumberChecks {

  /** Asks GOWA; empty when it gave no definite answer. */
  interface Asker {
    Optional<Boolean> ask() throws IOException;
  }

  /** Where a send goes. */
  sealed interface Route {
    /** On: the number is (or is taken to be) on WhatsApp. */
    record Go() implements Route {}

    /** Nowhere: the number has no WhatsApp account. */
    record NotOnWhatsApp() implements Route {}

    /** Not yet: the device's checks this minute are used up; look again after {@code after}. */
    record Wait(Duration after, String why) implements Route {}
  }

  static final Duration WINDOW = Duration.ofMinutes(1);

  private final ContactDirectory contacts;
  private final Clock clock;
  private final Duration keepFor;
  private final int perMinute;
  // By device, when its checks of the last minute were made; guarded by the deque itself.
  private final Map<Long, Deque<Instant>> recent = new ConcurrentHashMap<>();

  GowaNumberChecks(ContactDirectory contacts, Clock clock, Duration keepFor, int perMinute) {
    this.contacts = contacts;
    this.clock = clock;
    this.keepFor = keepFor;
    this.perMinute = perMinute;
  }

  /**
   * Where a send from {@code deviceId} to {@code e164} ({@code +digits}) goes: checked with {@code
   * asker} first when the number is new to the device and its last answer is older than {@code
   * keepFor}.
   *
   * @throws java.net.ConnectException when GOWA cannot be reached (nothing can be sent)
   */
  Route route(long deviceId, String e164, Asker asker) throws IOException {
    Optional<CheckedNumber> last = contacts.lastCheck(deviceId, e164);
    if (last.isPresent() && fresh(last.get())) {
      return last.get().exists() ? new Route.Go() : new Route.NotOnWhatsApp();
    }
    if (contacts.hasTalkedTo(deviceId, e164)) {
      return new Route.Go();
    }
    Optional<Duration> wait = take(deviceId, true);
    if (wait.isPresent()) {
      return new Route.Wait(
          wait.get(),
          perMinute
              + " number checks in the last minute, the most drivers.gowa.number-checks-per-minute"
              + " allows");
    }
    Optional<Boolean> answer = asker.ask();
    if (answer.isEmpty()) {
      return new Route.Go(); // a passing failure: the send goes
    }
    keep(deviceId, e164, answer.get());
    return answer.get() ? new Route.Go() : new Route.NotOnWhatsApp();
  }

  /** Keeps GOWA's answer for {@code e164}. */
  void keep(long deviceId, String e164, boolean exists) {
    contacts.recordCheck(
        deviceId, new CheckedNumber(e164, exists, Optional.empty(), clock.instant()));
  }

  /** Counts a check made for a caller who asked for it (check_number): never waits. */
  void counted(long deviceId) {
    take(deviceId, false);
  }

  private boolean fresh(CheckedNumber check) {
    return check.at().plus(keepFor).isAfter(clock.instant());
  }

  /**
   * Takes one of the device's checks of this minute; when {@code bounded} and none is left, how
   * long until one is.
   */
  private Optional<Duration> take(long deviceId, boolean bounded) {
    Instant now = clock.instant();
    Deque<Instant> times = recent.computeIfAbsent(deviceId, id -> new ArrayDeque<>());
    synchronized (times) {
      while (!times.isEmpty() && !times.peekFirst().plus(WINDOW).isAfter(now)) {
        times.pollFirst();
      }
      if (bounded && perMinute > 0 && times.size() >= perMinute) {
        return Optional.of(Duration.between(now, times.peekFirst().plus(WINDOW)));
      }
      times.addLast(now);
      return Optional.empty();
    }
  }
}
