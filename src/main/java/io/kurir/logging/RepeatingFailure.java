package io.kurir.logging;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Set;
import org.slf4j.Logger;

/**
 * The failures of one background job that is tried again and again (a device's sender, the
 * scheduler's pass, the webhook outbox's pass, lease renewal): told once, not once a try. The first
 * failure is one ERROR line with its stack trace (an unknown bug needs its trace once); while the
 * same failure (the same exception class and message, of its root cause: {@link #signature})
 * repeats, each try is a DEBUG line; a failure not seen yet in this run of failures is a new ERROR
 * line with its trace; when the job works again, one INFO line says for how long it failed and
 * after how many tries. A condition that is not an exception ({@link #failed(String)}) is told the
 * same way at WARN, without a trace.
 *
 * <p>It also says how long to wait before the next try: {@link #FIRST_WAIT}, doubling up to {@link
 * #MAX_WAIT}, counted on the injected clock; a job whose pace is fixed (lease renewal) ignores it.
 * See docs/decisions.md, "Failures that repeat".
 *
 * <p>Not thread-safe: one loop owns it.
 */
public final class RepeatingFailure {
  /** The wait after the first failure. */
  public static final Duration FIRST_WAIT = Duration.ofSeconds(1);

  /** The longest wait between tries: an operator's fix is picked up within this. */
  public static final Duration MAX_WAIT = Duration.ofSeconds(60);

  /** Distinct failures remembered in one run of failures: beyond, a new one is a DEBUG line. */
  private static final int MAX_KINDS = 16;

  private final Logger log;
  private final String job;
  private final Clock clock;
  private final Set<String> seen = new LinkedHashSet<>(); // failures of this run; empty: working
  private String last; // the last failure's signature
  private Instant since;
  private int tries;
  private Duration wait = Duration.ZERO;
  private final Duration pace; // null: back-off

  /**
   * @param job what fails, as the start of a sentence: {@code "the sender of device 7"}
   */
  public RepeatingFailure(Logger log, String job, Clock clock) {
    this(log, job, clock, null);
  }

  private RepeatingFailure(Logger log, String job, Clock clock, Duration pace) {
    this.log = log;
    this.job = job;
    this.clock = clock;
    this.pace = pace;
  }

  /**
   * For a job tried again at its own fixed pace (lease renewal must not slow down, or the leases
   * run out; an hourly sweep needs no back-off): told the same way, and {@link #failed} answers
   * {@code pace}.
   */
  public static RepeatingFailure atFixedPace(Logger log, String job, Clock clock, Duration pace) {
    return new RepeatingFailure(log, job, clock, pace);
  }

  /** The job failed with {@code e}: told as the class comment says. Returns the wait. */
  public Duration failed(Throwable e) {
    return failed(signature(e), e.toString(), e, null);
  }

  /**
   * The job failed with {@code e} and is tried again after {@code next}, a wait the caller keeps
   * itself (a device's schedules held back): told the same way, with that wait.
   */
  public Duration failed(Throwable e, Duration next) {
    return failed(signature(e), e.toString(), e, next);
  }

  /** The job cannot go on because of {@code why} (no exception): told at WARN, no trace. */
  public Duration failed(String why) {
    return failed(why, why, null, null);
  }

  private Duration failed(String signature, String text, Throwable trace, Duration given) {
    boolean first = seen.isEmpty();
    if (given != null) {
      wait = given;
    } else if (pace != null) {
      wait = pace;
    } else if (first) {
      wait = FIRST_WAIT;
    } else {
      wait = wait.multipliedBy(2).compareTo(MAX_WAIT) > 0 ? MAX_WAIT : wait.multipliedBy(2);
    }
    if (first) {
      since = now();
      tries = 0;
    }
    tries++;
    boolean known = seen.contains(signature) || seen.size() >= MAX_KINDS;
    boolean changed = !first && !signature.equals(last);
    if (!known) {
      seen.add(signature); // bounded: a failure whose message never repeats is not kept forever
    }
    last = signature;
    long next = wait.toSeconds();
    if (first) {
      String line =
          given != null
              ? "{} failed: {}; tried again in {} s"
              : pace != null
                  ? "{} failed: {}; tried again every {} s"
                  : "{} failed: {}; tried again in {} s, then less often (at most every {} s)";
      if (trace != null) {
        log.error(line, job, text, next, MAX_WAIT.toSeconds(), trace);
      } else {
        log.warn(line, job, text, next, MAX_WAIT.toSeconds());
      }
    } else if (changed && !known) {
      String line = "{} fails differently now (try {}, failing for {} s): {}; next try in {} s";
      if (trace != null) {
        log.error(line, job, tries, failingFor().toSeconds(), text, next, trace);
      } else {
        log.warn(line, job, tries, failingFor().toSeconds(), text, next);
      }
    } else {
      log.debug("{} failed again (try {}): {}; next try in {} s", job, tries, text, next);
    }
    return wait;
  }

  /**
   * The job worked: if it was failing, one INFO line (for how long, how many tries) and true; the
   * next failure is told again as a first one.
   */
  public boolean succeeded() {
    if (seen.isEmpty()) {
      return false;
    }
    log.info(
        "{} works again (it failed for {} s, {} {})",
        job,
        failingFor().toSeconds(),
        tries,
        tries == 1 ? "try" : "tries");
    seen.clear();
    last = null;
    wait = Duration.ZERO;
    return true;
  }

  /** Whether the last try failed. */
  public boolean failing() {
    return !seen.isEmpty();
  }

  /** Failed tries in a row so far (0 while working). */
  public int tries() {
    return seen.isEmpty() ? 0 : tries;
  }

  private Duration failingFor() {
    Duration d = Duration.between(since, now());
    return d.isNegative() ? Duration.ZERO : d;
  }

  /** The injected clock's time; real time if reading it fails (a loop must outlive that too). */
  private Instant now() {
    try {
      return clock.instant();
    } catch (RuntimeException e) {
      return Instant.now();
    }
  }

  /**
   * The same failure: the same class and message of its root cause (itself when it has none). The
   * root's, not the outer exception's: a database library's message names the statement's arguments
   * (the time now, an id), which differ at every try of the same fault, and its class says at which
   * step the fault showed (preparing or running the statement), which may differ too. Its first
   * line only: PostgreSQL's message goes on with the statement's {@code Position: N}, which differs
   * between the statements that run into one missing table.
   */
  static String signature(Throwable e) {
    Throwable root = e;
    for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 16; depth++) {
      root = root.getCause();
    }
    String message = root.getMessage() == null ? "" : root.getMessage().strip();
    int lineEnd = message.indexOf('\n');
    return root.getClass().getName()
        + ": "
        + (lineEnd < 0 ? message : message.substring(0, lineEnd).strip());
  }
}
