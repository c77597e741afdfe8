package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.ContactId;
import io.kurir.driver.MemoryContactDirectory;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The rules of the number check on their own, with a contact directory in memory and the settable
 * clock: who is checked, what is learned from an answer, the pace, a passing failure.
 */
class NumberChecksTest {
  private final SettableClock clock = TestGateway.settableClock();
  private final MemoryContactDirectory contacts = new MemoryContactDirectory();
  private final AtomicInteger asked = new AtomicInteger();

  private NumberChecks.Asker answers(NumberChecks.Answer answer) {
    return () -> {
      asked.incrementAndGet();
      return Optional.of(answer);
    };
  }

  @Test
  void aNumberTheDeviceTalkedWithIsNotChecked() throws IOException {
    NumberChecks checks = new NumberChecks(contacts, clock, Duration.ofDays(7), 20);
    contacts.talkedTo(1, "+6281100009001");
    assertThat(checks.knownChat(1, "6281100009001")).contains("6281100009001@c.us");
    assertThat(asked).hasValue(0);
    assertThat(checks.knownChat(2, "6281100009001")).isEmpty();
    // Another device has not talked with it: checked there.
    assertThat(
            checks.route(
                2,
                "6281100009001",
                answers(new NumberChecks.Answer(false, Optional.empty(), Optional.empty()))))
        .isInstanceOf(NumberChecks.Route.NotOnWhatsApp.class);
    assertThat(asked).hasValue(1);
  }

  @Test
  void aLidAnswerIsLearnedWithThePhoneBehindIt() throws IOException {
    NumberChecks checks = new NumberChecks(contacts, clock, Duration.ofDays(7), 20);
    var route =
        checks.route(
            1,
            "6281100009002",
            answers(
                new NumberChecks.Answer(
                    true, Optional.of("231876543210987@lid"), Optional.of("6281100009002@c.us"))));
    assertThat(route).isEqualTo(new NumberChecks.Route.Go("231876543210987@lid"));
    assertThat(contacts.phoneOf(1, ContactId.lid("231876543210987@lid")))
        .contains("+6281100009002");
    assertThat(contacts.lastCheck(1, "+6281100009002").orElseThrow().chatAddress())
        .contains("231876543210987@lid");
  }

  @Test
  void checksArePacedAndAPassingFailureLetsTheSendGo() throws IOException {
    NumberChecks checks = new NumberChecks(contacts, clock, Duration.ofDays(7), 2);
    NumberChecks.Asker fails =
        () -> {
          asked.incrementAndGet();
          return Optional.empty(); // the engine's 500, say
        };
    assertThat(checks.route(1, "6281100009003", fails))
        .isEqualTo(new NumberChecks.Route.Go("6281100009003@c.us"));
    assertThat(contacts.lastCheck(1, "+6281100009003")).as("nothing kept").isEmpty();
    clock.advance(Duration.ofSeconds(20));
    checks.route(1, "6281100009004", fails);
    clock.advance(Duration.ofSeconds(10));
    var third = checks.route(1, "6281100009005", fails);
    assertThat(third).isInstanceOf(NumberChecks.Route.Wait.class);
    assertThat(((NumberChecks.Route.Wait) third).after()).isEqualTo(Duration.ofSeconds(30));
    assertThat(asked).hasValue(2);
    // Another device has its own minute.
    assertThat(checks.route(2, "6281100009005", fails)).isInstanceOf(NumberChecks.Route.Go.class);
    clock.advance(Duration.ofSeconds(30));
    assertThat(checks.route(1, "6281100009005", fails)).isInstanceOf(NumberChecks.Route.Go.class);
    assertThat(asked).hasValue(4);
  }

  @Test
  void aContactWhoWroteInIsKnownWhateverAnOlderCheckSaid() throws IOException {
    NumberChecks checks = new NumberChecks(contacts, clock, Duration.ofDays(7), 20);
    assertThat(
            checks.route(
                1,
                "6281100009006",
                answers(new NumberChecks.Answer(false, Optional.empty(), Optional.empty()))))
        .isInstanceOf(NumberChecks.Route.NotOnWhatsApp.class);
    assertThat(checks.knownChat(1, "6281100009006")).isEmpty();
    contacts.talkedTo(1, "+6281100009006"); // a message in from it
    assertThat(checks.knownChat(1, "6281100009006")).contains("6281100009006@c.us");
    assertThat(asked).hasValue(1);
  }
}
