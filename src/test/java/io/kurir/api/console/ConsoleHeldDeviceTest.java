package io.kurir.api.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.message.MessageState;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGraphApi;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A device whose queue is held (its network refused the account) shows why on its console page,
 * with a Retry button that resumes it.
 */
class ConsoleHeldDeviceTest {
  @TempDir Path dir;

  @Test
  void aHeldDeviceShowsWhyAndItsRetryButtonResumesIt() throws Exception {
    var clock = TestGateway.settableClock();
    try (FakeGraphApi graph = new FakeGraphApi(clock);
        TestGateway kurir =
            TestGateway.start(
                dir,
                clock,
                "--drivers.cloud.graph-url=" + graph.graphUrl(),
                "--drivers.cloud.pacing.min-gap=0ms")) {
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
      graph.accountError(131031);
      TestGateway.Reply sent = kurir.sendAsync(device, to, "halo");
      long id = Long.parseLong(sent.body());
      Eventually.until("held", () -> kurir.gateway().queueHolds().reason(device.id()).isPresent());

      ConsoleClient console = new ConsoleClient(kurir);
      String path = "/console/devices/" + device.id();
      String page = console.get(path).body();
      assertThat(page)
          .contains("data-testid=\"held\"")
          .contains("131031")
          .contains("action=\"" + path + "/retry\"");

      graph.accountFixed();
      HttpResponse<String> retry = console.post(path + "/retry");
      assertThat(retry.statusCode()).isEqualTo(303);
      Eventually.until(
          "sent once resumed",
          () ->
              kurir.gateway().messages().find(device, id).orElseThrow().state()
                  == MessageState.DELIVERY);
      assertThat(console.get(path).body()).doesNotContain("data-testid=\"held\"");
    }
  }
}
