package io.kurir.driver.gowa;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.LogCapture;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Messages held by a limit on new contacts (WhatsApp's reach-out time lock, the pace of number
 * checks) wait each on its own, in the queue until their time: they do not hold up the device's
 * other messages. A message to a known contact queued behind many held ones goes at once, without
 * the clock moving.
 */
@Isolated("reads the io.kurir log (LogCapture), which every gateway in this JVM writes to")
class GowaHeldSendsTest {
  @TempDir Path dir;

  private static final int HELD = 30;

  @Test
  void aKnownContactGoesAtOnceBehindManyMessagesHeldByTheReachOutLock() {
    try (GowaFixture f = new GowaFixture(dir, "--drivers.gowa.number-checks-per-minute=0");
        LogCapture logs = LogCapture.of(GowaDriver.class)) {
      Device device = f.linked("+6281100028901");
      String known = "6281100028902";
      wroteIn(f, device, known);
      f.gowa.refuseNextSend(
          GowaFixture.slot(device),
          429,
          "WA_REACHOUT_TIMELOCK",
          "WhatsApp temporarily restricted starting new chats (error 463)");

      List<Long> held = new ArrayList<>();
      for (int i = 0; i < HELD; i++) {
        held.add(f.sendAsync(device, "62811000291" + String.format("%02d", i), "halo " + i));
      }
      long toKnown = f.sendAsync(device, known, "pesanan Anda siap");
      // Before: the lock paused the whole device for 15 minutes, the known contact's message too.
      f.awaitState(device, toKnown, MessageState.SENT);
      for (long id : held) {
        assertThat(f.message(device, id).state()).isEqualTo(MessageState.PENDING);
      }
      assertThat(f.gowa.sent()).as("only the known contact's message went").hasSize(1);
      assertThat(logs.lines(l -> l.message().contains("reach-out time lock (")))
          .as("the lock told once")
          .hasSize(1);

      f.clock.advance(GowaDriver.REACHOUT_WAIT);
      for (long id : held) {
        f.awaitState(device, id, MessageState.SENT);
      }
    }
  }

  @Test
  void aKnownContactGoesAtOnceBehindManyMessagesWaitingForTheCheckPace() {
    try (GowaFixture f = new GowaFixture(dir, "--drivers.gowa.number-checks-per-minute=1")) {
      Device device = f.linked("+6281100028911");
      String known = "6281100028912";
      wroteIn(f, device, known);

      List<Long> held = new ArrayList<>();
      for (int i = 0; i < HELD; i++) {
        held.add(f.sendAsync(device, "62811000292" + String.format("%02d", i), "halo " + i));
      }
      long toKnown = f.sendAsync(device, known, "pesanan Anda siap");
      f.awaitState(device, toKnown, MessageState.SENT);
      f.awaitState(device, held.getFirst(), MessageState.SENT); // the minute's one check
      for (long id : held.subList(1, HELD)) {
        assertThat(f.message(device, id).state()).isEqualTo(MessageState.PENDING);
      }
      assertThat(checks(f)).isOne();

      f.clock.advance(java.time.Duration.ofMinutes(1));
      f.awaitState(device, held.get(1), MessageState.SENT);
      assertThat(checks(f)).isEqualTo(2);
    }
  }

  private static long checks(GowaFixture f) {
    return f.gowa.calls().stream().filter(c -> c.equals("GET /user/check")).count();
  }

  /** {@code digits} wrote to the device: a known contact, never checked nor locked out. */
  static void wroteIn(GowaFixture f, Device device, String digits) {
    int before = f.kurir.storedIncoming(device.id());
    assertThat(f.gowa.incoming(GowaFixture.slot(device), "IN" + digits, digits, "halo"))
        .isEqualTo(200);
    Eventually.until("stored", () -> f.kurir.storedIncoming(device.id()) > before);
  }
}
