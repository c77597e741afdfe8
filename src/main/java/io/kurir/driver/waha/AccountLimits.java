package io.kurir.driver.waha;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * WhatsApp's limits on reaching new contacts, as WAHA (2026.8.1) reports them per session:
 *
 * <ul>
 *   <li>the <b>reach-out time lock</b>: while it lasts, a send to a contact the account never
 *       talked with fails with WhatsApp's server error 463 (WAHA answers 500, {@code "… server
 *       returned error 463"}); when it ends is in the session's {@code me.reachoutTimelock} ({@code
 *       isActive}, {@code timeEnforcementEnds}), refreshed by the engine on a 463. Such sends wait
 *       for the end instead of failing; sends to known contacts go on.
 *   <li><b>message capping</b>, {@code me.messageCapping}: how much of the account's quota of new
 *       chats this cycle is used ({@code NONE → FIRST_WARNING → SECOND_WARNING → CAPPED}). Shown to
 *       the operator, who may slow the device down before it is capped.
 * </ul>
 *
 * <p>Thread-safe.
 */
final class AccountLimits {
  /**
   * How long a send to a new contact waits after a 463 when the engine does not say when the lock
   * ends (WAHA before 2026.8.1, or {@code reachoutTimelock} still null: waha issue #2219).
   */
  static final Duration UNKNOWN_LOCK_WAIT = Duration.ofMinutes(15);

  private final Clock clock;
  private final Map<Long, Instant> lockedUntil = new ConcurrentHashMap<>();
  // By device, the recipients refused with 463 during its current lock (though taken for known).
  private final Map<Long, Set<String>> refusedDuringLock = new ConcurrentHashMap<>();
  private final Map<Long, String> capping = new ConcurrentHashMap<>();

  AccountLimits(Clock clock) {
    this.clock = clock;
  }

  /** Whether the engine's reply is WhatsApp's 463 (reach-out time lock). */
  static boolean reachOutLocked(WahaApi.Reply r) {
    return !r.ok() && r.body().toString().contains("error 463");
  }

  /** Until when sends from the device to new contacts wait; empty when they need not. */
  Optional<Instant> lockedUntil(long deviceId) {
    Instant until = lockedUntil.get(deviceId);
    if (until == null) {
      return Optional.empty();
    }
    if (!until.isAfter(clock.instant())) {
      if (lockedUntil.remove(deviceId, until)) {
        refusedDuringLock.remove(deviceId);
      }
      return Optional.empty();
    }
    return Optional.of(until);
  }

  /**
   * Whether a send from the device to {@code recipient} waits for the lock: a new contact's does,
   * and so does one refused with 463 during this lock (a contact the gateway took for known), so
   * that it is not sent again and again meanwhile.
   */
  Optional<Instant> holds(long deviceId, String recipient, boolean newContact) {
    return lockedUntil(deviceId)
        .filter(
            until ->
                newContact
                    || refusedDuringLock.getOrDefault(deviceId, Set.of()).contains(recipient));
  }

  /**
   * A send was refused with 463: the lock lasts until the session's {@code me} says ({@code me}
   * read just after), else {@link #UNKNOWN_LOCK_WAIT}.
   */
  Instant refused(long deviceId, String recipient, JsonNode me) {
    Instant until = lockEnd(me).orElseGet(() -> clock.instant().plus(UNKNOWN_LOCK_WAIT));
    lockedUntil.put(deviceId, until);
    refusedDuringLock.computeIfAbsent(deviceId, id -> ConcurrentHashMap.newKeySet()).add(recipient);
    return until;
  }

  /**
   * What the session's {@code me} says of the limits (a session read, a {@code session.status}
   * event): a lock the engine reports is taken; a change of the capping is returned as a sentence
   * for the operator.
   */
  Optional<String> seen(long deviceId, JsonNode me) {
    lockEnd(me).ifPresent(until -> lockedUntil.put(deviceId, until));
    JsonNode c = me.path("messageCapping");
    if (!c.isObject() || !c.path("cappingStatus").isTextual()) {
      return Optional.empty();
    }
    String status = c.path("cappingStatus").asText();
    String before = capping.put(deviceId, status);
    if (status.equals(before) || (before == null && status.equals("NONE"))) {
      return Optional.empty();
    }
    long total = c.path("totalQuota").asLong(-1);
    String quota =
        total < 0
            ? "no quota"
            : c.path("usedQuota").asLong(0) + " of " + total + " new chats used this cycle";
    String ends = c.path("cycleEnd").asText("");
    return Optional.of(
        "WhatsApp's new-chat message capping is "
            + status
            + " ("
            + quota
            + (ends.isEmpty() ? "" : ", the cycle ends " + ends)
            + ")");
  }

  /** The last capping status seen for the device ({@code NONE} when none). */
  String capping(long deviceId) {
    return capping.getOrDefault(deviceId, "NONE");
  }

  /** When an active lock in {@code me.reachoutTimelock} ends. */
  private Optional<Instant> lockEnd(JsonNode me) {
    JsonNode lock = me.path("reachoutTimelock");
    if (!lock.path("isActive").asBoolean(false)) {
      return Optional.empty();
    }
    JsonNode ends = lock.path("timeEnforcementEnds");
    Optional<Instant> at = Optional.empty();
    if (ends.isNumber()) {
      long n = ends.asLong();
      // seconds or milliseconds since the epoch, as engines write times
      at = Optional.of(n > 100_000_000_000L ? Instant.ofEpochMilli(n) : Instant.ofEpochSecond(n));
    } else if (ends.isTextual()) {
      try {
        at = Optional.of(Instant.parse(ends.asText()));
      } catch (DateTimeParseException e) {
        at = Optional.empty();
      }
    }
    return at.filter(t -> t.isAfter(clock.instant()));
  }
}
