package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.tenant.Device;
import io.kurir.testing.FakeGraphApi;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The last step of the Cloud guide (docs/drivers/cloud.md, "Send a first message") as written: the
 * send answers {@code success}, and {@code ./kurir admin device list} then shows the device {@code
 * online}, on the database of the running gateway.
 */
class CloudGuideDeviceListTest {
  @TempDir Path dir;

  @Test
  void afterTheFirstSendTheDeviceListShowsTheCloudDeviceOnline() throws Exception {
    SettableClock clock = TestGateway.settableClock();
    FakeGraphApi graph = new FakeGraphApi(clock);
    try (graph;
        TestGateway kurir =
            TestGateway.start(
                dir,
                clock,
                "--drivers.cloud.graph-url=" + graph.graphUrl(),
                "--drivers.cloud.pacing.min-gap=0ms")) {
      Device device =
          kurir.newDevice(
              "+6281100007451",
              "cloud",
              Map.of(
                  "phone-number-id", FakeGraphApi.PHONE_NUMBER_ID,
                  "access-token", FakeGraphApi.TOKEN,
                  "app-secret", FakeGraphApi.APP_SECRET,
                  "verify-token", FakeGraphApi.VERIFY_TOKEN));
      graph.webhookTo(kurir.url("/drivers/cloud/webhook"));
      TestGateway.Reply sent =
          kurir.postJson(
              "/api/send_message",
              "{\"key\":\""
                  + device.ecoKey()
                  + "\",\"phone_no\":\""
                  + graph.customerWrites(Numbers.fresh())
                  + "\",\"message\":\"Hello from Kurir\"}");
      assertThat(sent.body()).isEqualTo("success");

      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int exit =
          AdminCommand.run(
              List.of(
                  "device",
                  "list",
                  "--data.dir=" + dir.resolve("data"),
                  // The test gateways' secrets key (TestGateway gives it).
                  "--secrets.key=" + io.kurir.testing.TestDatabases.TEST_SECRETS_KEY),
              Map.of(),
              dir,
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));
      assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
      JsonNode listed = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
      assertThat(listed).hasSize(1);
      assertThat(listed.get(0).get("driver").asText()).isEqualTo("cloud");
      assertThat(listed.get(0).get("state").asText()).isEqualTo("online");
    }
  }
}
