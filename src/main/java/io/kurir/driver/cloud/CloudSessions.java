package io.kurir.driver.cloud;

import io.kurir.driver.DeviceSessionStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;

/**
 * What the cloud driver keeps of each device in the database, so that every node and a restart see
 * it: whether it was logged out, which access token the network refused, and when each customer
 * last wrote (the 24-hour window). Keys of the driver's {@link DeviceSessionStore}:
 *
 * <ul>
 *   <li>{@code logged-out}: present after {@code logout};
 *   <li>{@code token-refused}: {@code <sha-256 of the token, 16 hex> <reason>};
 *   <li>{@code window:<E.164 or BSUID>}: epoch milliseconds of the customer's last message, or
 *       {@code 0} when the network said the window is closed and no message came since.
 * </ul>
 *
 * <p>Thread-safe.
 */
final class CloudSessions {
  /** The customer service window: free-form messages only this long after the customer wrote. */
  static final Duration WINDOW = Duration.ofHours(24);

  private static final String LOGGED_OUT = "logged-out";
  private static final String TOKEN_REFUSED = "token-refused";
  private static final String WINDOW_PREFIX = "window:";

  private final DeviceSessionStore store;

  CloudSessions(DeviceSessionStore store) {
    this.store = store;
  }

  boolean loggedOut(long deviceId) {
    return store.get(deviceId, LOGGED_OUT).isPresent();
  }

  void logOut(long deviceId) {
    store.put(deviceId, LOGGED_OUT, "1");
  }

  void linkAgain(long deviceId) {
    store.remove(deviceId, LOGGED_OUT);
  }

  /** The reason {@code token} was refused, when it is the token the network refused. */
  Optional<String> refusal(long deviceId, String token) {
    Optional<String> stored = store.get(deviceId, TOKEN_REFUSED);
    if (stored.isEmpty()) {
      return Optional.empty();
    }
    String[] parts = stored.get().split(" ", 2);
    return parts[0].equals(fingerprint(token))
        ? Optional.of(parts.length > 1 ? parts[1] : "access token refused")
        : Optional.empty();
  }

  /** Whether a refused token is on record at all (the current one or an older one). */
  boolean anyRefusal(long deviceId) {
    return store.get(deviceId, TOKEN_REFUSED).isPresent();
  }

  void refuseToken(long deviceId, String token, String reason) {
    store.put(deviceId, TOKEN_REFUSED, fingerprint(token) + " " + reason);
  }

  void clearRefusal(long deviceId) {
    store.remove(deviceId, TOKEN_REFUSED);
  }

  /** The customer's window: when they last wrote, if known; epoch 0 when known to be closed. */
  Optional<Instant> lastInbound(long deviceId, String e164) {
    return store
        .get(deviceId, WINDOW_PREFIX + e164)
        .filter(v -> v.matches("\\d{1,15}"))
        .map(v -> Instant.ofEpochMilli(Long.parseLong(v)));
  }

  /** The customer wrote at {@code at}; an older time than the one stored changes nothing. */
  void inbound(long deviceId, String e164, Instant at) {
    Optional<Instant> known = lastInbound(deviceId, e164);
    if (known.isEmpty() || known.get().isBefore(at)) {
      store.put(deviceId, WINDOW_PREFIX + e164, Long.toString(at.toEpochMilli()));
    }
  }

  /** The network said the window is closed (error 131047): later sends know it before trying. */
  void windowClosed(long deviceId, String e164, Instant reportedAt) {
    Optional<Instant> known = lastInbound(deviceId, e164);
    // Meta's word wins over what Kurir saw (a message it never got to Kurir, clocks apart); only
    // a message the customer wrote after the refusal opened the window again.
    if (known.isEmpty() || !known.get().isAfter(reportedAt)) {
      store.put(deviceId, WINDOW_PREFIX + e164, "0");
    }
  }

  private static String fingerprint(String token) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(hash, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
