package io.kurir.driver;

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
 * The number check before a first send, as the WhatsApp Web drivers hold to it
 * (docs/drivers/waha.md and gowa.md, "Number checks"): a message to a number the device has neither
 * sent to nor heard from goes only once the network says the number is on WhatsApp. A send to a
 * number not on WhatsApp would otherwise be taken and never arrive.
 *
 * <p>The answers are kept per device in the {@link ContactDirectory}, a "yes" for {@code keepFor}
 * and a "no" for {@code keepNoFor}; checks are paced, at most {@code perMinute} a minute per device
 * (bursts of look-ups get a number flagged): beyond that the send waits, it does not go unchecked.
 * A check that fails for a passing reason (the engine's error, a malformed answer) lets the send
 * go. Whether the device knows the contact (and so checks nothing) is the driver's to say: each
 * keeps its own record of it.
 *
 * <p>Thread-safe.
 */
public final class NumberCheckPolicy {
  /** The window the pace counts checks in. */
  public static final Duration WINDOW = Duration.ofMinutes(1);

  /**
   * What the network answered: whether the number has an account, and the chat address it gave
   * (WhatsApp's canonical chat id, which differs for old Brazilian accounts, or a LID), if any.
   */
  public record Answer(boolean exists, Optional<String> chatAddress) {}

  /** Asks the network; empty when it gave no definite answer. */
  public interface Asker {
    Optional<Answer> ask() throws IOException;
  }

  /** Where a send goes. */
  public sealed interface Route {
    /** On, to the chat address the network gave (empty: the number as written). */
    record Go(Optional<String> chatAddress) implements Route {}

    /** Nowhere: the number has no WhatsApp account. */
    record NotOnWhatsApp() implements Route {}

    /** Not yet: the device's checks this minute are used up; look again after {@code after}. */
    record Wait(Duration after, String why) implements Route {}
  }

  private final ContactDirectory contacts;
  private final Clock clock;
  private final Duration keepFor;
  private final Duration keepNoFor;
  private final int perMinute;
  private final String perMinuteSetting;
  // By device, when its checks of the last minute were made; guarded by the deque itself.
  private final Map<Long, Deque<Instant>> recent = new ConcurrentHashMap<>();

  /**
   * @param keepFor how long a "yes" is kept
   * @param keepNoFor how long a "no" is kept (GOWA: briefly, for it answers "no" too when its own
   *     look-up failed)
   * @param perMinute the most checks a minute per device; 0 for no limit
   * @param perMinuteSetting the setting of {@code perMinute}, named in a waiting send's reason
   */
  public NumberCheckPolicy(
      ContactDirectory contacts,
      Clock clock,
      Duration keepFor,
      Duration keepNoFor,
      int perMinute,
      String perMinuteSetting) {
    this.contacts = contacts;
    this.clock = clock;
    this.keepFor = keepFor;
    this.keepNoFor = keepNoFor;
    this.perMinute = perMinute;
    this.perMinuteSetting = perMinuteSetting;
  }

  /**
   * Where a send from {@code deviceId} to {@code e164} ({@code +digits}), a number new to the
   * device, goes: its kept answer while fresh, else checked with {@code asker} first, within the
   * device's pace.
   *
   * @throws java.net.ConnectException when the engine cannot be reached (nothing can be sent)
   */
  public Route route(long deviceId, String e164, Asker asker) throws IOException {
    Optional<CheckedNumber> last = kept(deviceId, e164);
    if (last.isPresent()) {
      return last.get().exists()
          ? new Route.Go(last.get().chatAddress())
          : new Route.NotOnWhatsApp();
    }
    Optional<Duration> wait = take(deviceId, true);
    if (wait.isPresent()) {
      return new Route.Wait(
          wait.get(),
          perMinute
              + " number checks in the last minute, the most "
              + perMinuteSetting
              + " allows");
    }
    Optional<Answer> answer = asker.ask();
    if (answer.isEmpty()) {
      return new Route.Go(Optional.empty()); // a passing failure: the send goes as written
    }
    CheckedNumber kept = keep(deviceId, e164, answer.get());
    return kept.exists() ? new Route.Go(kept.chatAddress()) : new Route.NotOnWhatsApp();
  }

  /** The kept answer for {@code e164} on {@code deviceId} while it is fresh. */
  public Optional<CheckedNumber> kept(long deviceId, String e164) {
    return contacts.lastCheck(deviceId, e164).filter(this::fresh);
  }

  /** Keeps the network's answer for {@code e164} (a chat address only with a "yes"). */
  public CheckedNumber keep(long deviceId, String e164, Answer answer) {
    Optional<String> chat = answer.exists() ? answer.chatAddress() : Optional.empty();
    CheckedNumber kept = new CheckedNumber(e164, answer.exists(), chat, clock.instant());
    contacts.recordCheck(deviceId, kept);
    return kept;
  }

  /**
   * Takes one of the device's checks of this minute for a caller who asked (check_number): false
   * when none is left.
   */
  public boolean mayAsk(long deviceId) {
    return take(deviceId, true).isEmpty();
  }

  /** Counts a check made for a caller who asked for it, whether or not the pace allows it. */
  public void counted(long deviceId) {
    take(deviceId, false);
  }

  private boolean fresh(CheckedNumber check) {
    return check.at().plus(check.exists() ? keepFor : keepNoFor).isAfter(clock.instant());
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
