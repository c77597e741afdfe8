package io.kurir.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kurir.testing.Eventually;
import io.kurir.testing.LogCapture;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import io.kurir.time.Wakeable;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine watch alone, on the settable clock, with an engine that is a flag: an outage told
 * once, calls refused while it lasts, tries on a doubling back-off up to {@link
 * EngineWatch#RETRY_MAX}, the end told once, a slow answer that is no outage, {@code isRunning}'s
 * trust in the last call, and the health probe on its period.
 */
class EngineWatchTest {
  private static final Logger log = LoggerFactory.getLogger(EngineWatchTest.class);
  private final SettableClock clock = TestGateway.settableClock();
  private volatile boolean engineUp = true;
  private final AtomicInteger pings = new AtomicInteger();
  private final List<String> told = new CopyOnWriteArrayList<>();
  private final AtomicInteger probes = new AtomicInteger();
  private EngineWatch watch;

  /** The engine's cheap call: refused while the engine is down. */
  private String ping() throws IOException {
    pings.incrementAndGet();
    if (!engineUp) {
      throw new ConnectException("Connection refused");
    }
    return "ok";
  }

  private EngineWatch started(Duration healthEvery) {
    watch =
        new EngineWatch(
            "the test engine at http://x", "devices", clock, this::ping, healthEvery, log);
    Wakeable.wakeOnClockChange(clock, watch::wake);
    watch.start(
        "test-engine-watch",
        "the test engine watch",
        new EngineWatch.Steps() {
          @Override
          public void lost(String why) {
            told.add("lost: " + why);
          }

          @Override
          public void back() {
            told.add("back");
          }

          @Override
          public void probe() {
            probes.incrementAndGet();
          }
        });
    return watch;
  }

  @AfterEach
  void close() {
    if (watch != null) {
      watch.close();
    }
  }

  @Test
  void anOutageIsToldOnceCallsFailAtOnceAndTriesBackOffOnTheClock() throws Exception {
    EngineWatch w = started(Duration.ZERO);
    try (LogCapture logs = LogCapture.of(EngineWatchTest.class)) {
      engineUp = false;
      Instant lostAt = clock.instant();
      assertThatThrownBy(() -> w.call(this::ping)).isInstanceOf(ConnectException.class);
      assertThat(w.up()).isFalse();
      Eventually.until("the loss told", () -> !told.isEmpty());
      assertThat(told)
          .containsExactly(
              "lost: the test engine at http://x cannot be reached"
                  + " (java.net.ConnectException: Connection refused)");
      assertThat(logs.lines(l -> l.message().contains("cannot be reached"))).hasSize(1);

      // While it lasts, a call fails at once: the engine is not asked.
      int before = pings.get();
      for (int i = 0; i < 20; i++) {
        assertThatThrownBy(() -> w.call(this::ping))
            .isInstanceOf(ConnectException.class)
            .hasMessageContaining("tried again with back-off");
      }
      assertThat(pings.get()).isEqualTo(before);

      // Tried after 1 s, then 2, 4, 8, 16, 30, 30 s of the clock, each wait from the last try.
      assertThat(w.nextTry()).contains(lostAt.plus(EngineWatch.RETRY_FIRST));
      Instant at = lostAt.plus(EngineWatch.RETRY_FIRST);
      for (long wait : List.of(2L, 4L, 8L, 16L, 30L, 30L)) {
        clock.set(at);
        Instant next = at.plusSeconds(wait);
        Eventually.until(
            "next try at " + next, () -> w.nextTry().equals(java.util.Optional.of(next)));
        at = next;
      }
      assertThat(pings.get() - before).as("one ping per try").isEqualTo(6);
      assertThat(told).hasSize(1);

      // Back: told once; calls go through again.
      engineUp = true;
      clock.set(at);
      Eventually.until("back told", () -> told.contains("back"));
      assertThat(w.up()).isTrue();
      assertThat(w.nextTry()).isEmpty();
      assertThat(w.call(this::ping)).isEqualTo("ok");
      assertThat(told).containsOnlyOnce("back");
      assertThat(logs.lines(l -> l.message().contains("answers again (unreachable for 91 s)")))
          .hasSize(1);
    }
  }

  @Test
  void aSlowAnswerIsNoOutageAndAConnectTimeoutIs() {
    EngineWatch w = started(Duration.ZERO);
    assertThatThrownBy(
            () ->
                w.call(
                    () -> {
                      throw new HttpTimeoutException("request timed out");
                    }))
        .isInstanceOf(HttpTimeoutException.class);
    assertThat(w.up()).as("the engine answered slowly: it is there").isTrue();
    assertThat(EngineWatch.unreachable(new HttpConnectTimeoutException("connect timed out")))
        .isTrue();
    assertThat(EngineWatch.unreachable(new IOException("header parser received no bytes")))
        .isTrue();
    assertThat(EngineWatch.unreachable(new IOException("a reply too large"))).isFalse();
  }

  @Test
  void isRunningTrustsTheLastCallForASecondOfTheClock() throws Exception {
    EngineWatch w = started(Duration.ZERO);
    assertThat(w.isRunning()).isTrue();
    int asked = pings.get();
    assertThat(asked).as("no call yet: asked").isEqualTo(1);
    engineUp = false;
    assertThat(w.isRunning()).as("the last call is fresh: trusted").isTrue();
    assertThat(pings.get()).isEqualTo(asked);
    clock.advance(EngineWatch.PROBE_EVERY.plusMillis(1));
    assertThat(w.isRunning()).as("a second later: asked again").isFalse();
    assertThat(pings.get()).isEqualTo(asked + 1);
  }

  @Test
  void aDeviceSetAsideWhileTheEngineIsUpIsRecoveredAtOnce() {
    EngineWatch w = started(Duration.ZERO);
    w.recoverIfUp();
    Eventually.until("recovered", () -> told.contains("back"));
    assertThat(told).containsExactly("back");
  }

  @Test
  void theHealthProbeRunsOnItsPeriodWhileTheEngineIsUp() throws Exception {
    EngineWatch w = started(Duration.ofSeconds(30));
    clock.advance(Duration.ofSeconds(29));
    clock.advance(Duration.ofSeconds(1));
    Eventually.until("first probe", () -> probes.get() == 1);
    clock.advance(Duration.ofSeconds(30));
    Eventually.until("second probe", () -> probes.get() == 2);

    engineUp = false;
    assertThatThrownBy(() -> w.call(this::ping)).isInstanceOf(ConnectException.class);
    Eventually.until("the loss told", () -> !told.isEmpty());
    clock.advance(Duration.ofSeconds(30));
    Instant next = clock.instant().plus(Duration.ofSeconds(2));
    Eventually.until("tried", () -> w.nextTry().equals(java.util.Optional.of(next)));
    assertThat(probes.get()).as("no probe while the engine is down").isEqualTo(2);
  }
}
