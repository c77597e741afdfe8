package io.kurir.driver.waha;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.LogCapture;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Messages held by a limit on new contacts (WhatsApp's reach-out lock, the pace of number checks)
 * wait each on its own, in the queue until their time: they do not hold up the device's other
 * messages. A message to a known contact queued behind many held ones goes at once, and each held
 * one is looked at once, not again and again while it waits.
 */
@Isolated("reads the io.kurir log (LogCapture), which every gateway in this JVM writes to")
class WahaHeldSendsTest {
  @TempDir Path dir;

  private static final int HELD = 30;

  @Test
  void aKnownContactGoesAtOnceBehindManyMessagesHeldByTheReachOutLock() {
    try (WahaFixture f = new WahaFixture(dir, "--drivers.waha.number-checks-per-minute=0");
        LogCapture logs = LogCapture.of(WahaDriver.class)) {
      Device device = WahaEngineFlavoursTest.paired(f, "+6281100008901");
      String known = "6281100008902";
      wroteIn(f, device, known);
      Instant ends = f.clock.instant().plus(Duration.ofHours(2));
      f.waha.sending().reachOutLock(ends, false);

      List<Long> held = new ArrayList<>();
      for (int i = 0; i < HELD; i++) {
        held.add(f.sendAsync(device, "62811000091" + String.format("%02d", i), "halo " + i));
      }
      long toKnown = f.sendAsync(device, known, "pesanan Anda siap");
      // Before: each held message paused the whole queue for up to a second (30 s here).
      f.awaitState(device, toKnown, MessageState.SENT);
      for (long id : held) {
        assertThat(f.message(device, id).state()).isEqualTo(MessageState.PENDING);
      }
      assertThat(f.waha.sending().refused463()).isOne();
      assertThat(logs.lines(l -> l.message().contains("to a new contact held")))
          .as("each held message looked at once")
          .hasSizeLessThanOrEqualTo(HELD - 1);

      f.clock.advance(Duration.ofHours(2));
      for (long id : held) {
        f.awaitState(device, id, MessageState.SENT);
      }
    }
  }

  @Test
  void aKnownContactGoesAtOnceBehindManyMessagesWaitingForTheCheckPace() {
    try (WahaFixture f = new WahaFixture(dir, "--drivers.waha.number-checks-per-minute=1")) {
      Device device = WahaEngineFlavoursTest.paired(f, "+6281100008911");
      String known = "6281100008912";
      wroteIn(f, device, known);

      List<Long> held = new ArrayList<>();
      for (int i = 0; i < HELD; i++) {
        held.add(f.sendAsync(device, "62811000092" + String.format("%02d", i), "halo " + i));
      }
      long toKnown = f.sendAsync(device, known, "pesanan Anda siap");
      f.awaitState(device, toKnown, MessageState.SENT);
      f.awaitState(device, held.getFirst(), MessageState.SENT); // the minute's one check
      for (long id : held.subList(1, HELD)) {
        assertThat(f.message(device, id).state()).isEqualTo(MessageState.PENDING);
      }
      assertThat(f.waha.sending().checks()).hasSize(1);

      f.clock.advance(Duration.ofMinutes(1));
      f.awaitState(device, held.get(1), MessageState.SENT);
      assertThat(f.waha.sending().checks()).hasSize(2);
    }
  }

  /** {@code digits} wrote to the device: a known contact, never checked nor locked out. */
  static void wroteIn(WahaFixture f, Device device, String digits) {
    int before = f.storedIncoming(device);
    assertThat(f.waha.incoming("kurir-" + device.id(), "IN" + digits, digits, "halo"))
        .isEqualTo(200);
    f.waha.sending().talkedWith(digits);
    Eventually.until("stored", () -> f.storedIncoming(device) > before);
  }
}
