package io.kurir.driver.waha;

import io.kurir.driver.ContactDirectory;
import io.kurir.driver.ContactDirectory.CheckedNumber;
import io.kurir.driver.ContactId;
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
 * The number check before a first send (docs/drivers/waha.md, "Number checks"): a message to a
 * number this device has neither sent to nor heard from is sent only once the engine says the
 * number is on WhatsApp, and then to the chat id the engine gave (WhatsApp's canonical one, which
 * differs for old Brazilian mobile accounts, or a LID). A send to a number not on WhatsApp would
 * otherwise be answered 201 and never arrive.
 *
 * <p>The answers are kept per device in the {@link ContactDirectory} for {@code keepFor}; checks
 * are paced, at most {@code perMinute} a minute per device (bursts of lookups get a number
 * flagged): beyond that the send waits, it does not go unchecked. A check that fails for a passing
 * reason (the engine's error, a malformed answer) lets the send go to the number as written.
 *
 * <p>Thread-safe.
 */
final class NumberChecks {
  /** What the engine answered a check: whether it exists, its chat id, its phone behind a LID. */
  record Answer(boolean exists, Optional<String> chatId, Optional<String> pn) {}

  /** Asks the engine; empty when it gave no definite answer. */
  interface Asker {
    Optional<Answer> ask() throws IOException;
  }

  /** Where a send goes. */
  sealed interface Route {
    /** To {@code chatId}. */
    record Go(String chatId) implements Route {}

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

  NumberChecks(ContactDirectory contacts, Clock clock, Duration keepFor, int perMinute) {
    this.contacts = contacts;
    this.clock = clock;
    this.keepFor = keepFor;
    this.perMinute = perMinute;
  }

  /**
   * Where a send from {@code deviceId} to {@code digits} goes: checked with {@code asker} first
   * when the number is new to the device and its last answer is older than {@code keepFor}.
   *
   * @throws java.net.ConnectException when the engine cannot be reached (nothing can be sent)
   */
  Route route(long deviceId, String digits, Asker asker) throws IOException {
    String e164 = "+" + digits;
    String asWritten = digits + "@c.us";
    Optional<CheckedNumber> last = contacts.lastCheck(deviceId, e164);
    if (last.isPresent() && fresh(last.get())) {
      return last.get().exists()
          ? new Route.Go(last.get().chatAddress().orElse(asWritten))
          : new Route.NotOnWhatsApp();
    }
    if (contacts.hasTalkedTo(deviceId, e164)) {
      return new Route.Go(asWritten);
    }
    Optional<Duration> wait = take(deviceId, true);
    if (wait.isPresent()) {
      return new Route.Wait(
          wait.get(),
          perMinute
              + " number checks in the last minute, the most drivers.waha.number-checks-per-minute"
              + " allows");
    }
    Optional<Answer> answer = asker.ask();
    if (answer.isEmpty()) {
      return new Route.Go(asWritten); // a passing failure: the send goes as written
    }
    CheckedNumber kept = keep(deviceId, e164, answer.get());
    return kept.exists()
        ? new Route.Go(kept.chatAddress().orElse(asWritten))
        : new Route.NotOnWhatsApp();
  }

  /**
   * Keeps the engine's answer for {@code e164}, and the phone behind a LID it named (WAHA 2026.8.1
   * answers the phone in {@code pn} when {@code chatId} is a LID).
   */
  CheckedNumber keep(long deviceId, String e164, Answer answer) {
    Optional<String> chat = answer.exists() ? answer.chatId() : Optional.empty();
    CheckedNumber kept = new CheckedNumber(e164, answer.exists(), chat, clock.instant());
    contacts.recordCheck(deviceId, kept);
    if (chat.isPresent() && chat.get().endsWith("@lid")) {
      String pn = answer.pn().map(p -> p.replaceAll("@.*$", "").replaceAll("\\D", "")).orElse("");
      String phone = pn.isEmpty() ? e164.substring(1) : pn;
      contacts.learn(deviceId, "+" + phone, ContactId.lid(chat.get()));
    }
    return kept;
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
