package io.kurir.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The number-check policy the WhatsApp Web drivers share, alone, with a contact directory in memory
 * and the settable clock: answers kept (a "yes" and a "no" each for its own time), the pace per
 * device and its reason, a passing failure, the checks callers ask for.
 */
class NumberCheckPolicyTest {
  private final SettableClock clock = TestGateway.settableClock();
  private final MemoryContactDirectory contacts = new MemoryContactDirectory();
  private final AtomicInteger asked = new AtomicInteger();

  private NumberCheckPolicy policy(int perMinute) {
    return new NumberCheckPolicy(
        contacts,
        clock,
        Duration.ofDays(7),
        Duration.ofHours(1),
        perMinute,
        "drivers.test.number-checks-per-minute");
  }

  private NumberCheckPolicy.Asker answers(boolean exists, String chat) {
    return () -> {
      asked.incrementAndGet();
      return Optional.of(new NumberCheckPolicy.Answer(exists, Optional.ofNullable(chat)));
    };
  }

  @Test
  void aYesIsKeptForItsTimeAndANoForItsOwn() throws IOException {
    NumberCheckPolicy checks = policy(20);
    assertThat(checks.route(1, "+6281100009101", answers(true, "6281100009101@c.us")))
        .isEqualTo(new NumberCheckPolicy.Route.Go(Optional.of("6281100009101@c.us")));
    assertThat(checks.route(1, "+6281100009102", answers(false, "ignored@c.us")))
        .isEqualTo(new NumberCheckPolicy.Route.NotOnWhatsApp());
    assertThat(checks.kept(1, "+6281100009102").orElseThrow().chatAddress())
        .as("no chat kept with a no")
        .isEmpty();
    assertThat(asked).hasValue(2);

    // An hour on, the "no" is asked again; the "yes" is still kept.
    clock.advance(Duration.ofHours(1));
    assertThat(checks.route(1, "+6281100009101", answers(false, null)))
        .isEqualTo(new NumberCheckPolicy.Route.Go(Optional.of("6281100009101@c.us")));
    assertThat(checks.route(1, "+6281100009102", answers(true, null)))
        .isEqualTo(new NumberCheckPolicy.Route.Go(Optional.empty()));
    assertThat(asked).hasValue(3);
    // Per device: another device asks for itself.
    assertThat(checks.route(2, "+6281100009101", answers(true, null)))
        .isInstanceOf(NumberCheckPolicy.Route.Go.class);
    assertThat(asked).hasValue(4);
    // Seven days on, the "yes" is asked again.
    clock.advance(Duration.ofDays(7));
    checks.route(1, "+6281100009101", answers(true, null));
    assertThat(asked).hasValue(5);
  }

  @Test
  void checksArePacedPerDeviceAndAPassingFailureLetsTheSendGoAsWritten() throws IOException {
    NumberCheckPolicy checks = policy(2);
    NumberCheckPolicy.Asker fails =
        () -> {
          asked.incrementAndGet();
          return Optional.empty();
        };
    assertThat(checks.route(1, "+6281100009201", fails))
        .isEqualTo(new NumberCheckPolicy.Route.Go(Optional.empty()));
    assertThat(checks.kept(1, "+6281100009201")).as("nothing kept of a failure").isEmpty();
    clock.advance(Duration.ofSeconds(30));
    checks.route(1, "+6281100009202", fails);
    NumberCheckPolicy.Route third = checks.route(1, "+6281100009203", fails);
    assertThat(third)
        .isEqualTo(
            new NumberCheckPolicy.Route.Wait(
                Duration.ofSeconds(30),
                "2 number checks in the last minute, the most"
                    + " drivers.test.number-checks-per-minute allows"));
    assertThat(asked).hasValue(2);
    assertThat(checks.mayAsk(1)).as("a caller's check: none left either").isFalse();
    assertThat(checks.route(2, "+6281100009203", fails))
        .isInstanceOf(NumberCheckPolicy.Route.Go.class);
    clock.advance(Duration.ofSeconds(30));
    assertThat(checks.mayAsk(1)).as("the first check left the window").isTrue();
    checks.counted(1); // a caller's check counted though none is left
    assertThat(checks.route(1, "+6281100009204", fails))
        .isInstanceOf(NumberCheckPolicy.Route.Wait.class);
  }

  @Test
  void noLimitWhenThePaceIsZero() throws IOException {
    NumberCheckPolicy checks = policy(0);
    for (int i = 0; i < 50; i++) {
      assertThat(checks.route(1, "+62811000093" + (10 + i), answers(true, null)))
          .isInstanceOf(NumberCheckPolicy.Route.Go.class);
    }
    assertThat(asked).hasValue(50);
  }
}
