package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.LogCapture;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import io.kurir.time.SettableClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The anti-ban warm-up as an operator runs it: a device's daily send cap set with the Admin API,
 * then raised with {@code ./kurir admin device set}, on a running gateway. Messages past the cap
 * are accepted and held, not refused, and go out when the next day begins in {@code time.zone}.
 */
// Not @Isolated: its LogCapture waits for its own device's daily-cap line, which no other class
// logs; the lock keeps it from another LogCapture, which would set the same loggers' levels.
@ResourceLock(LogCapture.LOG)
class DailyCapByTheOperatorTest {
  @TempDir Path dir;
  private final SettableClock clock = TestGateway.settableClock(); // 10:00 in Jakarta
  private TestGateway kurir;
  private final List<Long> ids = new ArrayList<>();
  // The sender's debug line that it holds for the next day (DeviceSender is not visible here).
  private final LogCapture logs = LogCapture.ofLoggers("io.kurir.message.DeviceSender");

  @AfterEach
  void stop() {
    if (kurir != null) {
      kurir.close();
    }
    logs.close();
  }

  @Test
  void aCapSetByTheAdminApiHoldsTheRestAndTheCommandLineRaisesIt() throws Exception {
    kurir = TestGateway.start(dir, clock);
    Device device = kurir.newDevice("+6281700000001", true);

    Reply capped =
        kurir.send(
            HttpRequest.newBuilder(URI.create(kurir.url("/admin/devices/" + device.id())))
                .header("Authorization", "Bearer " + TestGateway.ADMIN_TOKEN)
                .header("Content-Type", "application/json")
                .method(
                    "PATCH",
                    HttpRequest.BodyPublishers.ofString(
                        "{\"config\":{\"pacing.daily-cap\":\"2\"}}"))
                .build());
    assertThat(capped.status()).as(capped.body()).isEqualTo(200);
    assertThat(capped.body()).contains("\"pacing.daily-cap\":\"2\"");

    for (int i = 0; i < 4; i++) {
      Reply accepted = kurir.sendAsync(device, "081234567890", "warm-up " + i);
      assertThat(accepted.status()).isEqualTo(200);
      ids.add(Long.parseLong(accepted.body())); // accepted with its id, not refused
    }
    Eventually.until("two sent", () -> gone(device) == 2);
    // The sender tells that it holds the rest: a sender that ignored the cap never would.
    Eventually.until(
        "the sender holds the rest for the next day",
        () -> logs.saw("device " + device.id() + ": daily cap reached (2 of 2 today)"));
    assertThat(gone(device)).isEqualTo(2L);
    assertThat(waiting(device)).isEqualTo(2L);

    // The number warms up: the operator allows one more a day, from the command line.
    assertThat(
            admin(
                "device",
                "set",
                Long.toString(device.id()),
                "--set",
                "pacing.daily-cap=3",
                "--data.dir=" + dir.resolve("data"),
                // The test gateways' secrets key (TestGateway gives it).
                "--secrets.key=" + io.kurir.testing.TestDatabases.TEST_SECRETS_KEY))
        .isZero();
    Eventually.until("a third sent under the new cap", () -> gone(device) == 3);
    Eventually.until(
        "the sender holds the fourth for the next day",
        () -> logs.saw("device " + device.id() + ": daily cap reached (3 of 3 today)"));
    assertThat(waiting(device)).as("the fourth waits for tomorrow").isEqualTo(1L);

    // 14 hours after 10:00 in Jakarta the next day has begun there.
    clock.advance(Duration.ofHours(14));
    Eventually.until("the rest sent the next day", () -> gone(device) == 4);
  }

  private int admin(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    return AdminCommand.run(
        List.of(args),
        Map.of(),
        dir,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(out, true, StandardCharsets.UTF_8));
  }

  /** Messages of {@code device} that went out (sent, delivered or read). */
  private long gone(Device device) {
    return ids.stream().filter(id -> stateOf(device, id).wentOut()).count();
  }

  private long waiting(Device device) {
    return ids.stream()
        .map(id -> stateOf(device, id))
        .filter(s -> s == MessageState.PENDING || s == MessageState.SENDING)
        .count();
  }

  private MessageState stateOf(Device device, long id) {
    return kurir.gateway().messages().find(device, id).orElseThrow().state();
  }
}
