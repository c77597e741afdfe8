package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.ContactDirectory;
import io.kurir.driver.ContactId;
import io.kurir.driver.DeviceRef;
import io.kurir.driver.MemoryContactDirectory;
import io.kurir.driver.OutgoingMessage;
import io.kurir.driver.SendOutcome;
import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.LogCapture;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The number check before a first send: a number not on WhatsApp is {@code Number not found} and
 * nothing goes to the engine (which would answer 201 and never deliver); an answer is kept per
 * device until it expires; checks are paced per device (the send waits, on the gateway's clock);
 * the send goes to the chat id the engine gave (an old Brazilian account's, a LID).
 */
@Isolated("reads the io.kurir log (LogCapture), which every gateway in this JVM writes to")
class WahaNumberCheckTest {
  @TempDir Path dir;

  @Test
  void aNumberNotOnWhatsAppIsNumberNotFoundAndNothingIsSent() {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = WahaEngineFlavoursTest.paired(f, "+6281100008701");
      f.waha.notOnWhatsApp("6281100008709");
      String answer =
          f.eco(device, "/api/send_message", "phone_no", "6281100008709", "message", "OTP 1234");
      assertThat(answer).matches("\\[\\d{14}] Number not found");
      long queued = f.sendAsync(device, "6281100008709", "lagi");
      f.awaitState(device, queued, MessageState.FAILED);
      assertThat(f.waha.sent()).as("nothing reached the engine").isEmpty();
      assertThat(f.waha.sending().checks())
          .as("the second message used the kept answer")
          .containsExactly("6281100008709");
    }
  }

  @Test
  void aKeptAnswerIsUsedUntilItExpires() {
    try (WahaFixture f = new WahaFixture(dir, "--drivers.waha.number-check-for=7d")) {
      Device device = WahaEngineFlavoursTest.paired(f, "+6281100008711");
      // check_number keeps its answer: the first message needs no check of its own.
      assertThat(f.eco(device, "/api/check_number", "phone_no", "6281100008719"))
          .isEqualTo("exists");
      f.awaitState(device, f.sendAsync(device, "6281100008719", "satu"), MessageState.SENT);
      assertThat(f.waha.sending().checks()).containsExactly("6281100008719");

      // Kept for 7 days: a number still not written with is checked again after that.
      assertThat(f.eco(device, "/api/check_number", "phone_no", "6281100008718"))
          .isEqualTo("exists");
      f.clock.advance(Duration.ofDays(7).plusMinutes(1));
      f.awaitState(device, f.sendAsync(device, "6281100008718", "dua"), MessageState.SENT);
      assertThat(f.waha.sending().checks())
          .containsExactly("6281100008719", "6281100008718", "6281100008718");
      assertThat(f.waha.sent()).hasSize(2);
    }
  }

  @Test
  void checksArePacedPerDeviceAndASendBeyondWaitsForTheNextMinute() {
    try (WahaFixture f = new WahaFixture(dir, "--drivers.waha.number-checks-per-minute=2");
        LogCapture logs = LogCapture.of(WahaDriver.class)) {
      Device device = WahaEngineFlavoursTest.paired(f, "+6281100008721");
      long a = f.sendAsync(device, "6281100008722", "a");
      long b = f.sendAsync(device, "6281100008723", "b");
      long c = f.sendAsync(device, "6281100008724", "c");
      f.awaitState(device, a, MessageState.SENT);
      f.awaitState(device, b, MessageState.SENT);
      // It waits (neither checked nor sent) until the minute has passed on the gateway's clock.
      Eventually.until(
          "the third waits",
          () ->
              !logs.lines(
                      l ->
                          l.message().contains("message " + c + " waits")
                              && l.message().contains("number check"))
                  .isEmpty());
      f.awaitState(device, c, MessageState.PENDING); // back in the queue, not failed
      assertThat(f.waha.sending().checks()).hasSize(2);
      assertThat(f.waha.sent()).hasSize(2);

      f.clock.advance(Duration.ofMinutes(1));
      f.awaitState(device, c, MessageState.SENT);
      assertThat(f.waha.sending().checks()).hasSize(3);
    }
  }

  @Test
  void aReplyToAContactKnownOnlyByItsLidGoesToTheLidUnchecked() {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = WahaEngineFlavoursTest.paired(f, "+6281100008741");
      WahaDriver driver =
          WahaReachOutLimitsTest.driverBeside(f, dir, device, new MemoryContactDirectory());
      try {
        DeviceRef ref = new DeviceRef(device.id(), device.number(), "waha");
        assertThat(
                driver.send(
                    ref, new OutgoingMessage(1, "231876543210988@lid", false, "text", "balas")))
            .isInstanceOf(SendOutcome.Sent.class);
        assertThat(f.waha.sent().getLast().body().path("chatId").asText())
            .isEqualTo("231876543210988@lid");
        assertThat(f.waha.sending().checks()).isEmpty();
      } finally {
        driver.close();
      }
    }
  }

  @Test
  void theSendGoesToTheChatIdTheEngineGave() {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = WahaEngineFlavoursTest.paired(f, "+6281100008731");
      // An old Brazilian account: asked with the ninth digit, known without it.
      String canonical = f.waha.sending().oldBrazilianAccount("5511987654321");
      long br = f.sendAsync(device, "+5511987654321", "Olá");
      f.awaitState(device, br, MessageState.SENT);
      assertThat(f.waha.sent().getLast().body().path("chatId").asText())
          .isEqualTo(canonical + "@c.us");
      f.waha.ack(f.waha.sent().getLast().id(), 2, "DEVICE"); // it arrived
      f.awaitState(device, br, MessageState.DELIVERY);

      // A number the engine knows by a LID (WAHA 2026.8.1 answers the phone in pn).
      f.waha.sending().knownByLid("6281100008739", "231876543210987");
      long lid = f.sendAsync(device, "6281100008739", "halo");
      f.awaitState(device, lid, MessageState.SENT);
      assertThat(f.waha.sent().getLast().body().path("chatId").asText())
          .isEqualTo("231876543210987@lid");
    }
  }

  @Test
  void aContactWhoWroteInIsReachedThoughAKeptAnswerSaidNotOnWhatsApp() {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = WahaEngineFlavoursTest.paired(f, "+6281100008751");
      f.waha.notOnWhatsApp("6281100008759");
      assertThat(f.eco(device, "/api/check_number", "phone_no", "6281100008759"))
          .isEqualTo("not_exists");
      // The number joined WhatsApp since and wrote in: it is reachable, whatever was kept.
      WahaHeldSendsTest.wroteIn(f, device, "6281100008759");
      long reply = f.sendAsync(device, "6281100008759", "terima kasih");
      f.awaitState(device, reply, MessageState.SENT);
      assertThat(f.waha.sent())
          .extracting(s -> s.body().path("chatId").asText())
          .containsExactly("6281100008759@c.us");
      assertThat(f.waha.sending().checks()).containsExactly("6281100008759");
    }
  }

  @Test
  void checkNumberUsesAKeptAnswerAndKeepsToThePace() {
    try (WahaFixture f = new WahaFixture(dir, "--drivers.waha.number-checks-per-minute=2")) {
      Device device = WahaEngineFlavoursTest.paired(f, "+6281100008761");
      f.waha.notOnWhatsApp("6281100008762");
      assertThat(f.eco(device, "/api/check_number", "phone_no", "6281100008762"))
          .isEqualTo("not_exists");
      assertThat(f.eco(device, "/api/check_number", "phone_no", "6281100008763"))
          .isEqualTo("exists");
      // Kept: answered again without asking the engine, and without spending the pace.
      assertThat(f.eco(device, "/api/check_number", "phone_no", "6281100008762"))
          .isEqualTo("not_exists");
      assertThat(f.eco(device, "/api/check_number", "phone_no", "6281100008763"))
          .isEqualTo("exists");
      assertThat(f.waha.sending().checks()).containsExactly("6281100008762", "6281100008763");
      // The minute's checks are spent: answered at once as when the engine cannot be asked.
      assertThat(f.eco(device, "/api/check_number", "phone_no", "6281100008764"))
          .isEqualTo("unknow");
      assertThat(f.waha.sending().checks()).hasSize(2);

      f.clock.advance(Duration.ofMinutes(1));
      assertThat(f.eco(device, "/api/check_number", "phone_no", "6281100008764"))
          .isEqualTo("exists");
      assertThat(f.waha.sending().checks()).hasSize(3);
    }
  }

  /**
   * A send to a known contact asks the contact directory once (whether the device talked with the
   * number); later sends to it ask nothing at all.
   */
  @Test
  void aKnownContactCostsOneLookupThenNone() {
    try (WahaFixture f = new WahaFixture(dir)) {
      Device device = WahaEngineFlavoursTest.paired(f, "+6281100008771");
      MemoryContactDirectory memory = new MemoryContactDirectory();
      memory.talkedTo(device.id(), "+6281100008772");
      f.waha.sending().talkedWith("6281100008772");
      java.util.concurrent.atomic.AtomicInteger talked =
          new java.util.concurrent.atomic.AtomicInteger();
      java.util.concurrent.atomic.AtomicInteger checked =
          new java.util.concurrent.atomic.AtomicInteger();
      ContactDirectory counting =
          new ContactDirectory() {
            @Override
            public java.util.Optional<String> phoneOf(long deviceId, ContactId id) {
              return memory.phoneOf(deviceId, id);
            }

            @Override
            public java.util.Optional<ContactId> networkIdOf(
                long deviceId, String e164, ContactId.Kind kind) {
              return memory.networkIdOf(deviceId, e164, kind);
            }

            @Override
            public void learn(long deviceId, String e164, ContactId id) {
              memory.learn(deviceId, e164, id);
            }

            @Override
            public boolean hasTalkedTo(long deviceId, String e164) {
              talked.incrementAndGet();
              return memory.hasTalkedTo(deviceId, e164);
            }

            @Override
            public java.util.Optional<CheckedNumber> lastCheck(long deviceId, String e164) {
              checked.incrementAndGet();
              return memory.lastCheck(deviceId, e164);
            }

            @Override
            public void recordCheck(long deviceId, CheckedNumber check) {
              memory.recordCheck(deviceId, check);
            }
          };
      WahaDriver driver = WahaReachOutLimitsTest.driverBeside(f, dir, device, counting);
      try {
        DeviceRef ref = new DeviceRef(device.id(), device.number(), "waha");
        for (int i = 1; i <= 3; i++) {
          assertThat(driver.send(ref, new OutgoingMessage(i, "+6281100008772", false, "text", "x")))
              .isInstanceOf(SendOutcome.Sent.class);
        }
        assertThat(talked).as("whether the device talked with it: asked once").hasValue(1);
        assertThat(checked).as("its kept check: read at most once").hasValueLessThanOrEqualTo(1);
        assertThat(f.waha.sending().checks()).isEmpty();
      } finally {
        driver.close();
      }
    }
  }
}
