package io.kurir.driver.waha;

import io.kurir.driver.ContactDirectory;
import io.kurir.driver.ContactDirectory.CheckedNumber;
import io.kurir.driver.ContactId;
import io.kurir.driver.EngineSettings;
import io.kurir.driver.NumberCheckPolicy;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
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
 * <p>The keeping and the pace are {@link NumberCheckPolicy}'s (answers kept for {@code keepFor}, at
 * most {@code perMinute} checks a minute per device; beyond that the send waits, and a caller's
 * check is answered unknown). What is WAHA's here: a contact the device has sent to or heard from
 * is never checked, whatever an older check said (they wrote in: they are reachable), and is
 * remembered in memory with its chat id; chat ids in WAHA's {@code @c.us} form; the phone behind a
 * LID the engine answered is learned.
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

  private final ContactDirectory contacts;
  private final NumberCheckPolicy policy;

  /** Known contacts remembered per device; the least recently used are forgotten beyond. */
  static final int KNOWN_PER_DEVICE = 10_000;

  // By device, numbers it has sent to or heard from and the chat id to use; each guarded by itself.
  private final Map<Long, Map<String, String>> known = new ConcurrentHashMap<>();

  NumberChecks(ContactDirectory contacts, Clock clock, Duration keepFor, int perMinute) {
    this.contacts = contacts;
    this.policy =
        new NumberCheckPolicy(
            contacts,
            clock,
            keepFor,
            keepFor,
            perMinute,
            "drivers.waha." + EngineSettings.NUMBER_CHECKS_PER_MINUTE);
  }

  /**
   * Where a send from {@code deviceId} to {@code digits} goes when the device has sent to or heard
   * from the number (a known contact, never checked): its kept chat id (an old Brazilian account's
   * canonical one) or the number as written; empty for a new contact. A kept "not on WhatsApp" does
   * not count against a contact who wrote in since: they are reachable.
   *
   * <p>A number found known is remembered in memory for this device, so that later sends to it cost
   * no query at all; a number found new is asked again each time (it may write in).
   */
  Optional<String> knownChat(long deviceId, String digits) {
    Map<String, String> fine = knownOf(deviceId);
    synchronized (fine) {
      String chat = fine.get(digits);
      if (chat != null) {
        return Optional.of(chat);
      }
    }
    String e164 = "+" + digits;
    if (!contacts.hasTalkedTo(deviceId, e164)) {
      return Optional.empty();
    }
    String chat =
        contacts
            .lastCheck(deviceId, e164)
            .filter(CheckedNumber::exists)
            .flatMap(CheckedNumber::chatAddress)
            .orElse(digits + "@c.us");
    remember(deviceId, digits, chat);
    return Optional.of(chat);
  }

  /** The device sent to {@code digits} at {@code chatId}: a known contact from now on. */
  void sentTo(long deviceId, String digits, String chatId) {
    remember(deviceId, digits, chatId);
  }

  private void remember(long deviceId, String digits, String chatId) {
    Map<String, String> fine = knownOf(deviceId);
    synchronized (fine) {
      fine.put(digits, chatId);
    }
  }

  private Map<String, String> knownOf(long deviceId) {
    return known.computeIfAbsent(
        deviceId,
        id ->
            new LinkedHashMap<>(16, 0.75f, true) {
              @Override
              protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
                return size() > KNOWN_PER_DEVICE;
              }
            });
  }

  /**
   * Where a send from {@code deviceId} to {@code digits}, a number new to the device (see {@link
   * #knownChat}), goes: its kept answer while younger than {@code keepFor}, else checked with
   * {@code asker} first, within the device's pace.
   *
   * @throws java.net.ConnectException when the engine cannot be reached (nothing can be sent)
   */
  Route route(long deviceId, String digits, Asker asker) throws IOException {
    String e164 = "+" + digits;
    String asWritten = digits + "@c.us";
    NumberCheckPolicy.Route route =
        policy.route(
            deviceId,
            e164,
            () ->
                asker
                    .ask()
                    .map(
                        a -> {
                          learnLid(deviceId, e164, a);
                          return new NumberCheckPolicy.Answer(a.exists(), a.chatId());
                        }));
    return switch (route) {
      case NumberCheckPolicy.Route.Go go -> new Route.Go(go.chatAddress().orElse(asWritten));
      case NumberCheckPolicy.Route.NotOnWhatsApp none -> new Route.NotOnWhatsApp();
      case NumberCheckPolicy.Route.Wait wait -> new Route.Wait(wait.after(), wait.why());
    };
  }

  /** The kept answer for {@code digits} on {@code deviceId} while younger than {@code keepFor}. */
  Optional<CheckedNumber> kept(long deviceId, String digits) {
    return policy.kept(deviceId, "+" + digits);
  }

  /**
   * Keeps the engine's answer for {@code e164}, and the phone behind a LID it named (WAHA 2026.8.1
   * answers the phone in {@code pn} when {@code chatId} is a LID).
   */
  CheckedNumber keep(long deviceId, String e164, Answer answer) {
    CheckedNumber kept =
        policy.keep(deviceId, e164, new NumberCheckPolicy.Answer(answer.exists(), answer.chatId()));
    learnLid(deviceId, e164, answer);
    return kept;
  }

  private void learnLid(long deviceId, String e164, Answer answer) {
    Optional<String> chat = answer.exists() ? answer.chatId() : Optional.empty();
    if (chat.isPresent() && chat.get().endsWith("@lid")) {
      String pn = answer.pn().map(p -> p.replaceAll("@.*$", "").replaceAll("\\D", "")).orElse("");
      String phone = pn.isEmpty() ? e164.substring(1) : pn;
      contacts.learn(deviceId, "+" + phone, ContactId.lid(chat.get()));
    }
  }

  /**
   * Takes one of the device's checks of this minute for a caller who asked (check_number): false
   * when none is left (the caller is answered at once, as when the engine cannot be asked).
   */
  boolean mayAsk(long deviceId) {
    return policy.mayAsk(deviceId);
  }
}
