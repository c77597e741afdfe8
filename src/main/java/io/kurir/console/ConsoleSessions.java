package io.kurir.console;

import io.kurir.store.Database;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Console sign-ins, kept in the database so that every node sharing it accepts the same cookie and
 * a sign-out ends the session on all of them. The cookie carries a random token; the database keeps
 * only its SHA-256.
 *
 * <p>Thread-safe.
 */
public final class ConsoleSessions {
  /** How long a sign-in lasts; then the console asks for the token again. */
  public static final Duration LIFETIME = Duration.ofHours(12);

  /**
   * One signed-in browser.
   *
   * @param licenseId the license a customer signed in to; empty for an operator
   * @param csrf the token each of its forms carries and each POST must send back
   */
  public record Session(
      String tokenHash, Optional<Long> licenseId, String csrf, Instant expiresAt) {
    public boolean operator() {
      return licenseId.isEmpty();
    }

    /** Whether {@code given} is this session's CSRF token (compared in constant time). */
    public boolean csrfMatches(String given) {
      return given != null
          && MessageDigest.isEqual(
              csrf.getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** A new session and the value of the cookie that carries it. */
  public record Opened(String cookieValue, Session session) {}

  private static final SecureRandom RANDOM = new SecureRandom();

  private final ConsoleSessionStore store;
  private final Clock clock;

  public ConsoleSessions(Database db, Clock clock) {
    this.store = new ConsoleSessionStore(db);
    this.clock = clock;
  }

  /** Opens a session: an operator's ({@code licenseId} empty) or a customer's. */
  public Opened open(Optional<Long> licenseId) {
    Instant now = clock.instant();
    store.deleteExpired(now); // sign-ins are rare: tidying here keeps the table small
    String token = randomToken();
    Session session = new Session(hash(token), licenseId, randomToken(), now.plus(LIFETIME));
    store.insert(session, now);
    return new Opened(token, session);
  }

  /** The live session a cookie carries, if any. */
  public Optional<Session> find(String cookieValue) {
    if (cookieValue == null || cookieValue.isBlank() || cookieValue.length() > 100) {
      return Optional.empty();
    }
    return store.find(hash(cookieValue), clock.instant());
  }

  /** Ends the session a cookie carries, on every node. */
  public void close(String cookieValue) {
    if (cookieValue != null && !cookieValue.isBlank()) {
      store.delete(hash(cookieValue));
    }
  }

  private static String randomToken() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static String hash(String token) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
