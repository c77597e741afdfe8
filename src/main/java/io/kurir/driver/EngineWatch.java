package io.kurir.driver;

import io.kurir.logging.RepeatingFailure;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;

/**
 * Whether a driver's engine (a WAHA engine, a GOWA server: one HTTP server behind all of a driver's
 * devices) can be reached, and the loop that brings it back. Every call to the engine goes through
 * {@link #call}; a call that cannot connect (or is dropped before any reply) starts an outage, told
 * once. While the engine cannot be reached nothing is sent to it: a call fails at once, and only
 * this watch tries it, after {@link #RETRY_FIRST}, doubling the wait up to {@link #RETRY_MAX} on
 * the injected clock (so a test moves it). The driver is told when the engine goes ({@link
 * Steps#lost}: its devices {@code port_down}, their messages waiting) and when it answers again
 * ({@link Steps#back}: the devices that waited attached, every device read again). With a health
 * period, the watch also runs the driver's health probe ({@link Steps#probe}) while the engine is
 * up.
 *
 * <p>Thread-safe: the outage is guarded by one lock, which the watch's thread waits on; a moved
 * clock wakes it through {@link #wake}. The loop survives any exception.
 */
public final class EngineWatch {
  /** The wait before an unreachable engine is tried again; doubled after each failed try. */
  public static final Duration RETRY_FIRST = Duration.ofSeconds(1);

  /** The longest wait between two tries of an unreachable engine. */
  public static final Duration RETRY_MAX = Duration.ofSeconds(30);

  /**
   * How long {@link #isRunning} trusts the outcome of the last call before it asks the engine
   * again, on the injected clock (a test that stops the engine moves the clock past it, as time
   * would).
   */
  public static final Duration PROBE_EVERY = Duration.ofSeconds(1);

  /** One call to the engine. */
  public interface Call<R> {
    R run() throws IOException, InterruptedException;
  }

  /** What the driver does at the watch's moments; each is called on the watch's thread. */
  public interface Steps {
    /** The engine cannot be reached: its devices are told ({@code why} is {@link #unreachable}). */
    void lost(String why);

    /** The engine answers again: the devices that waited are attached, every device read again. */
    void back();

    /** The health probe, every health period while the engine is up. */
    default void probe() {}
  }

  private final String engine;
  private final String items;
  private final Clock clock;
  private final Logger log;
  private final Call<?> ping;
  private final Duration healthEvery;
  private volatile Steps steps;

  private volatile boolean up = true;
  private volatile Instant lastCall = Instant.EPOCH;
  // The outage, guarded by itself; the watch thread waits on it.
  private final Object outage = new Object();
  private Instant downSince = Instant.EPOCH;
  private String downWhy = "";
  private Duration retryIn = RETRY_FIRST;
  private Instant nextTry = Instant.EPOCH;
  private Instant nextProbe = Instant.MAX;
  private boolean lostPending; // the devices are still to be told that the engine went
  private boolean backPending; // the devices are still to be read again now that it is back
  private volatile Thread thread;
  private volatile boolean closed;

  /**
   * @param engine the engine as log lines and reasons name it: {@code the WAHA engine at <url>}
   * @param items what the engine holds, for the log line when it is back ({@code sessions})
   * @param ping a cheap call: the watch's tries, and {@link #isRunning}'s question
   * @param healthEvery how often {@link Steps#probe} runs while the engine is up; zero for never
   * @param log the driver's logger, so the outage's lines carry the driver's name
   */
  public EngineWatch(
      String engine, String items, Clock clock, Call<?> ping, Duration healthEvery, Logger log) {
    this.engine = engine;
    this.items = items;
    this.clock = clock;
    this.ping = ping;
    this.healthEvery = healthEvery;
    this.log = log;
  }

  /**
   * Starts the watch's thread, named {@code name}; {@code steps} is told of the outages, {@code
   * job} names the watch in the log when a step fails.
   */
  public void start(String name, String job, Steps driverSteps) {
    this.steps = driverSteps;
    if (!healthEvery.isZero()) {
      synchronized (outage) {
        nextProbe = clock.instant().plus(healthEvery);
      }
    }
    thread = Thread.ofVirtual().name(name).start(() -> loop(job));
  }

  /** Whether the engine answered the last call (true until a call could not reach it). */
  public boolean up() {
    return up;
  }

  /**
   * One call to the engine; its reachability follows the outcome. While the engine cannot be
   * reached the call fails at once (an outage would otherwise be a connection attempt, and a log
   * line, per send, per sender's loop and per status request).
   */
  public <R> R call(Call<R> call) throws IOException {
    if (!up) {
      throw new java.net.ConnectException(unreachable() + "; it is tried again with back-off");
    }
    return reach(call);
  }

  /** A call to the engine whether or not it is known to be down (the watch's tries). */
  public <R> R reach(Call<R> call) throws IOException {
    try {
      R r = call.run();
      lastCall = clock.instant();
      if (!up) {
        engineBack();
      }
      return r;
    } catch (IOException e) {
      lastCall = clock.instant();
      if (unreachable(e)) {
        engineLost(e);
      }
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while calling " + engine, e);
    }
  }

  /**
   * Whether the engine answers: the outcome of the last call, asked again (the ping) when that is
   * older than {@link #PROBE_EVERY}, so a stopped engine shows as {@code port_down} and one that is
   * back shows as running without waiting for a send.
   */
  public boolean isRunning() {
    if (clock.instant().isAfter(lastCall.plus(PROBE_EVERY))) {
      try {
        call(ping);
      } catch (IOException e) {
        // A slow answer is an engine that runs; one that cannot be reached is down (see reach).
        return up;
      }
    }
    return up;
  }

  /** Why the engine cannot be reached, as a device event's reason. */
  public String unreachable() {
    synchronized (outage) {
      return engine + " cannot be reached (" + downWhy + ")";
    }
  }

  /** When the watch tries the engine next; empty while the engine is up. */
  public java.util.Optional<Instant> nextTry() {
    synchronized (outage) {
      return up ? java.util.Optional.empty() : java.util.Optional.of(nextTry);
    }
  }

  /** The failure that began the outage, as the exception said it. */
  public String downWhy() {
    synchronized (outage) {
      return downWhy;
    }
  }

  /**
   * A device was put aside to be attached once the engine answers: if it answers already (and its
   * recovery may have run before the device was put aside), the recovery runs again.
   */
  public void recoverIfUp() {
    synchronized (outage) {
      if (up) {
        backPending = true;
        outage.notifyAll();
      }
    }
  }

  /** Wakes the watch to look at the clock again (registered on a settable clock's moves). */
  public void wake() {
    synchronized (outage) {
      outage.notifyAll();
    }
  }

  /** Stops the watch's thread. */
  public void close() {
    closed = true;
    Thread t = thread;
    if (t != null) {
      t.interrupt();
    }
  }

  /**
   * Whether a failed call means the engine cannot be reached: no connection could be made (refused,
   * no route, unknown host, a connect that timed out) or it was dropped before any reply. A call
   * that connected and then took longer than the driver's timeout (a send of a large file) fails
   * alone: the engine is there, and marking every device of it {@code port_down} for one slow
   * answer would hold all their queues.
   */
  public static boolean unreachable(IOException e) {
    if (e instanceof java.net.http.HttpConnectTimeoutException) {
      return true;
    }
    if (e instanceof java.net.http.HttpTimeoutException) {
      return false;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.net.ConnectException
          || t instanceof java.net.UnknownHostException
          || t instanceof java.net.NoRouteToHostException
          || t instanceof java.net.SocketException
          || t instanceof java.io.EOFException
          || t instanceof java.nio.channels.ClosedChannelException) {
        return true;
      }
    }
    // "header parser received no bytes": the engine hung up before any reply.
    return e.getMessage() != null && e.getMessage().contains("received no bytes");
  }

  /** The engine did not answer a call: the outage begins, told once. */
  private void engineLost(IOException e) {
    synchronized (outage) {
      if (!up) {
        return;
      }
      up = false;
      downSince = clock.instant();
      downWhy = e.toString();
      retryIn = RETRY_FIRST;
      nextTry = downSince.plus(retryIn);
      lostPending = true;
      outage.notifyAll();
    }
    log.warn(
        "{} cannot be reached ({}): its devices are port_down and their messages wait; tried"
            + " again with back-off, at most every {} s",
        engine,
        e.toString(),
        RETRY_MAX.toSeconds());
  }

  /** The engine answered again: the outage ends, told once; the watch reads the devices again. */
  private void engineBack() {
    Duration down;
    synchronized (outage) {
      if (up) {
        return;
      }
      up = true;
      backPending = true;
      down = Duration.between(downSince, clock.instant());
      outage.notifyAll();
    }
    log.info(
        "{} answers again (unreachable for {} s); its {} are read again",
        engine,
        down.toSeconds(),
        items);
  }

  /** What the watch does next. */
  private enum Step {
    LOST,
    TRY,
    BACK,
    PROBE
  }

  private void loop(String job) {
    RepeatingFailure failures = new RepeatingFailure(log, job, clock);
    while (!closed) {
      try {
        switch (next()) {
          case LOST -> steps.lost(unreachable());
          case TRY -> tryEngine();
          case BACK -> steps.back();
          case PROBE -> steps.probe();
        }
        failures.succeeded();
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        // Told once while it repeats, and a wait before the next step: a step that throws before
        // it set the next try's time would otherwise be taken again at once, again and again.
        Instant failedAt = clock.instant();
        Duration wait = failures.failed(e);
        try {
          await(failedAt.plus(wait));
        } catch (InterruptedException stop) {
          return;
        }
      }
    }
  }

  /** Waits until {@code due} on the injected clock (a moved clock wakes it), or the close. */
  private void await(Instant due) throws InterruptedException {
    synchronized (outage) {
      while (!closed) {
        long left = Duration.between(clock.instant(), due).toMillis();
        if (left <= 0) {
          return;
        }
        outage.wait(Math.min(left, 1000));
      }
    }
  }

  private Step next() throws InterruptedException {
    synchronized (outage) {
      while (!closed) {
        if (lostPending) {
          lostPending = false;
          return Step.LOST;
        }
        if (backPending) {
          backPending = false;
          return Step.BACK;
        }
        Instant now = clock.instant();
        Instant due;
        if (up) {
          if (!now.isBefore(nextProbe)) {
            nextProbe = now.plus(healthEvery);
            return Step.PROBE;
          }
          due = nextProbe;
        } else {
          if (!now.isBefore(nextTry)) {
            return Step.TRY;
          }
          due = nextTry;
        }
        if (due.equals(Instant.MAX)) {
          outage.wait(); // nothing due: woken by an outage, its end, or the close
          continue;
        }
        // Woken by a moved clock too; looks again at least every second.
        outage.wait(Math.max(1, Math.min(Duration.between(now, due).toMillis(), 1000)));
      }
    }
    throw new InterruptedException("closed");
  }

  /** One try of an engine that could not be reached; the next one later when it fails again. */
  private void tryEngine() {
    try {
      reach(ping);
    } catch (IOException e) {
      Duration wait;
      synchronized (outage) {
        if (up) {
          return; // another call found it back meanwhile
        }
        retryIn =
            retryIn.multipliedBy(2).compareTo(RETRY_MAX) > 0 ? RETRY_MAX : retryIn.multipliedBy(2);
        nextTry = clock.instant().plus(retryIn);
        wait = retryIn;
      }
      log.debug(
          "{} still cannot be reached ({}); next try in {} s",
          engine,
          e.toString(),
          wait.toSeconds());
    }
  }
}
