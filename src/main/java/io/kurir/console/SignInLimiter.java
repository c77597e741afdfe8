package io.kurir.console;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Limits failed console sign-ins per client address, so that a token or license code cannot be
 * guessed by trying: after {@link #MAX_FAILURES} failures within {@link #WINDOW} the address is
 * refused until the oldest of them leaves the window. Kept per node: a guesser spread over several
 * nodes gets that many tries on each, still far too few to guess a 32-character secret.
 *
 * <p>Thread-safe.
 */
public final class SignInLimiter {
  public static final int MAX_FAILURES = 10;
  public static final Duration WINDOW = Duration.ofMinutes(15);

  /** At most this many addresses are remembered; the table is cleared beyond (a flood of them). */
  private static final int MAX_ADDRESSES = 100_000;

  private final Clock clock;
  private final Map<String, Deque<Instant>> failures = new ConcurrentHashMap<>();

  public SignInLimiter(Clock clock) {
    this.clock = clock;
  }

  /** Whether {@code address} may try to sign in now. */
  public boolean allowed(String address) {
    Deque<Instant> recent = failures.get(address);
    if (recent == null) {
      return true;
    }
    synchronized (recent) {
      forgetOld(recent);
      return recent.size() < MAX_FAILURES;
    }
  }

  /** Records a failed sign-in from {@code address}. */
  public void failed(String address) {
    if (failures.size() >= MAX_ADDRESSES) {
      failures.clear();
    }
    Deque<Instant> recent = failures.computeIfAbsent(address, a -> new ArrayDeque<>());
    synchronized (recent) {
      forgetOld(recent);
      recent.addLast(clock.instant());
    }
  }

  private void forgetOld(Deque<Instant> recent) {
    Instant start = clock.instant().minus(WINDOW);
    while (!recent.isEmpty() && !recent.peekFirst().isAfter(start)) {
      recent.removeFirst();
    }
  }
}
