package io.kurir.driver.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.device.DeviceEvent;
import io.kurir.device.DeviceState;
import io.kurir.message.MessageState;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGraphApi;
import io.kurir.testing.TestGateway;
import io.kurir.testing.WebhookReceiver;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A held cloud device stays {@code failed} with its reason across a restart, although its driver
 * reports a configured number online as it attaches and the number's look-up still answers (a
 * payment issue, a policy block stop sends only): no {@code online} in its history, its status
 * webhook or its stored state until it is resumed.
 */
class CloudHoldRestartTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(ints = {131042, 368})
  void aHeldDeviceStaysFailedAcrossARestartUntilResumed(int code) {
    try (WebhookReceiver receiver = new WebhookReceiver();
        CloudFixture f = new CloudFixture(dir)) {
      assertThat(FakeGraphApi.SENDS_ONLY).contains(code);
      Eventually.until(
          "online as created",
          () -> f.kurir.gateway().deviceStates().current(f.device.id()) == DeviceState.ONLINE);
      f.kurir.gateway().deviceStates().setStatusWebhook(f.device.id(), receiver.url("/status"));
      String to = f.customer();
      f.graph.accountError(code);
      long id = f.sendAsync(to, "satu");
      Eventually.until(
          "held",
          () ->
              f.kurir.gateway().queueHolds().reason(f.device.id()).isPresent()
                  && f.kurir.gateway().deviceStates().current(f.device.id()) == DeviceState.FAILED);
      int heldAt = f.kurir.gateway().deviceStates().history(f.device.id()).size();
      int lookUps = f.graph.numberLookUps();

      f.kurir.stop();
      // Ids are taken from the clock: the next gateway's must not meet the last one's.
      f.clock.advance(java.time.Duration.ofMinutes(1));
      f.kurir.startAgain();
      f.graph.webhookTo(f.kurir.url(CloudWebhookRoutes.PATH));
      // The device attaches again: it reports its state, then looks its number up (which answers).
      Eventually.until("attached again", () -> f.graph.numberLookUps() > lookUps);
      f.kurir.gateway().database().writes().write(h -> null); // what it reported is committed

      List<DeviceEvent> after =
          f.kurir.gateway().deviceStates().history(f.device.id()).stream().skip(heldAt).toList();
      assertThat(after).as("nothing recorded while held").isEmpty();
      assertThat(f.kurir.gateway().deviceStates().current(f.device.id()))
          .isEqualTo(DeviceState.FAILED);
      assertThat(f.postEco("/api/qr_status", f.key())).isEqualTo("failed");
      assertThat(f.kurir.gateway().queueHolds().reason(f.device.id()).orElseThrow())
          .contains(Integer.toString(code));
      assertThat(f.message(id).state()).isEqualTo(MessageState.PENDING);
      assertThat(
              receiver.ofEvent("device.status").stream()
                  .map(r -> r.json().path("newState").asText())
                  .toList())
          .as("no online while held")
          .doesNotContain("online");

      f.graph.accountFixed();
      TestGateway.Reply resumed =
          f.kurir.post(
              "/admin/devices/" + f.device.id() + "/retry",
              "",
              "application/json",
              "Authorization",
              "Bearer " + TestGateway.ADMIN_TOKEN);
      assertThat(resumed.status()).as(resumed.body()).isEqualTo(200);
      f.awaitState(id, MessageState.DELIVERY);
      assertThat(f.kurir.gateway().deviceStates().current(f.device.id()))
          .isEqualTo(DeviceState.ONLINE);
    }
  }
}
