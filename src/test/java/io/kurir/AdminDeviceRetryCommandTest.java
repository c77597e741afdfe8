package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGraphApi;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./kurir admin device retry <id>} resumes a device of the running gateway whose queue is
 * held (here a Cloud API number Meta blocked for a policy, then unblocked); a device that is not
 * held is refused with exit 1.
 */
class AdminDeviceRetryCommandTest {
  @TempDir Path dir;

  @Test
  void theCommandLineRetriesAHeldDeviceOfTheRunningGateway() {
    var clock = TestGateway.settableClock();
    try (FakeGraphApi graph = new FakeGraphApi(clock);
        TestGateway kurir =
            TestGateway.start(dir, clock, "--drivers.cloud.graph-url=" + graph.graphUrl())) {
      graph.webhookTo(kurir.url("/drivers/cloud/webhook"));
      Device device =
          kurir.newDevice(
              Numbers.fresh(),
              "cloud",
              Map.of(
                  "phone-number-id", FakeGraphApi.PHONE_NUMBER_ID,
                  "access-token", FakeGraphApi.TOKEN,
                  "app-secret", FakeGraphApi.APP_SECRET));
      String to = graph.customerWrites(Numbers.fresh());
      graph.accountError(368);
      long id = Long.parseLong(kurir.sendAsync(device, to, "halo").body());
      Eventually.until("held", () -> kurir.gateway().queueHolds().reason(device.id()).isPresent());
      graph.accountFixed();

      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      assertThat(retry(kurir, device, out, err)).as(err.toString(StandardCharsets.UTF_8)).isZero();
      assertThat(out.toString(StandardCharsets.UTF_8)).contains("resumed; the device is online");
      Eventually.until(
          "sent once resumed",
          () ->
              kurir.gateway().messages().find(device, id).orElseThrow().state()
                  == MessageState.DELIVERY);

      err.reset();
      assertThat(retry(kurir, device, out, err)).isEqualTo(1);
      assertThat(err.toString(StandardCharsets.UTF_8)).contains("409");
    }
  }

  private int retry(
      TestGateway kurir, Device device, ByteArrayOutputStream out, ByteArrayOutputStream err) {
    return AdminCommand.run(
        List.of(
            "device",
            "retry",
            Long.toString(device.id()),
            "--url",
            kurir.gateway().baseUrl(),
            "--token",
            TestGateway.ADMIN_TOKEN),
        Map.of(),
        dir.resolve("cli"),
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }
}
