package io.kurir.driver.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.device.DeviceState;
import io.kurir.driver.DeviceConfig;
import io.kurir.message.MessageState;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGraphApi;
import io.kurir.testing.TestGateway;
import io.kurir.testing.WebhookReceiver;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Meta's account-level errors, a bad token and a wrong phone number id: the device goes {@code
 * failed} with the reason, its queue is held (its messages stay queued, none fails), and it resumes
 * on an operator's retry or a changed configuration. The token and the number id are checked as the
 * device attaches.
 */
class CloudAccountHoldTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(ints = {10, 200, 131005, 131031, 131042, 133010, 368})
  void anAccountLevelErrorHoldsTheQueueUntilAnOperatorRetries(int code) {
    try (WebhookReceiver receiver = new WebhookReceiver();
        CloudFixture f = new CloudFixture(dir)) {
      f.kurir.gateway().deviceStates().setStatusWebhook(f.device.id(), receiver.url("/status"));
      String to = f.customer();
      // Attached first: the attach's look-up of the number answers the account error too, and a
      // device that finds it there sends nothing (seen when the sender started late, on a busy
      // machine). This test is about the error met by a send.
      Eventually.until("attached: the number looked up", () -> f.graph.numberLookUps() >= 1);
      f.graph.accountError(code);
      long first = f.sendAsync(to, "satu", "flag_retry", "on");
      long second = f.sendAsync(to, "dua");
      List<Long> rest = new ArrayList<>();
      for (String text : List.of("tiga", "empat", "lima")) {
        rest.add(f.sendAsync(to, text));
      }
      Eventually.until(
          "the device failed", () -> f.postEco("/api/qr_status", f.key()).equals("failed"));
      Eventually.until(
          "the device-status webhook with the code",
          () ->
              receiver.ofEvent("device.status").stream()
                  .anyMatch(
                      r ->
                          r.json().path("newState").asText().equals("failed")
                              && r.json().toString().contains(Integer.toString(code))));
      Eventually.until(
          "all wait in the queue",
          () ->
              f.message(first).state() == MessageState.PENDING
                  && f.message(second).state() == MessageState.PENDING
                  && rest.stream().allMatch(id -> f.message(id).state() == MessageState.PENDING));
      // One send to a recipient at a time: the first found the refusal, and the hold stopped the
      // queue before the next.
      assertThat(f.graph.posts()).as("one message found it; the rest were not tried").isEqualTo(1);
      assertThat(retry(f).status()).as("still refused: held again").isEqualTo(200);
      Eventually.until(
          "held again by the next send",
          () -> f.kurir.gateway().queueHolds().reason(f.device.id()).isPresent());

      f.graph.accountFixed();
      TestGateway.Reply resumed = retry(f);
      assertThat(resumed.status()).as(resumed.body()).isEqualTo(200);
      f.awaitState(first, MessageState.DELIVERY);
      f.awaitState(second, MessageState.DELIVERY);
      rest.forEach(id -> f.awaitState(id, MessageState.DELIVERY));
      assertThat(f.postEco("/api/qr_status", f.key())).isEqualTo("online");
      assertThat(retry(f).status()).as("nothing held now").isEqualTo(409);
    }
  }

  @Test
  void aWrongPhoneNumberIdIsFoundAtAttachAndAFixedConfigurationResumes() {
    try (CloudFixture f = new CloudFixture(dir)) {
      String to = f.customer();
      var tenants = f.kurir.gateway().tenants();
      var wrong =
          tenants.createDevice(
              tenants.device(f.device.id()).licenseId(),
              "+6281100007409",
              "cloud",
              Map.of(
                  "phone-number-id",
                  "106540352249999",
                  "access-token",
                  FakeGraphApi.TOKEN,
                  "app-secret",
                  FakeGraphApi.APP_SECRET,
                  // The customer wrote to the other device: this one reaches them by template.
                  "template",
                  "otp_code"));
      long id = sendFrom(f, wrong.ecoKey(), to);
      Eventually.until(
          "held at attach",
          () ->
              f.kurir.gateway().queueHolds().reason(wrong.id()).orElse("").contains("100")
                  && f.kurir.gateway().deviceStates().current(wrong.id()) == DeviceState.FAILED);
      assertThat(f.kurir.gateway().messages().find(wrong, id).orElseThrow().state())
          .isEqualTo(MessageState.PENDING);
      tenants.configureDevice(f.device.id(), Map.of("phone-number-id", "1"));
      tenants.configureDevice(wrong.id(), Map.of("phone-number-id", FakeGraphApi.PHONE_NUMBER_ID));
      Eventually.until(
          "sent once the number id is fixed",
          () ->
              f.kurir.gateway().messages().find(wrong, id).orElseThrow().state()
                  == MessageState.DELIVERY);
    }
  }

  /**
   * The race of a check with the configuration a change replaced: the change resumed the queue
   * before the refusal came back (finding nothing held), so the refusal of the former configuration
   * is let go; the same refusal of the configuration the device has holds it.
   */
  @Test
  void aRefusalOfAConfigurationChangedMeanwhileDoesNotHoldTheQueue() {
    try (CloudFixture f = new CloudFixture(dir)) {
      var tenants = f.kurir.gateway().tenants();
      var holds = f.kurir.gateway().queueHolds();
      String to = f.customer();
      Eventually.until("attached: the number looked up", () -> f.graph.numberLookUps() >= 1);
      DeviceConfig asked = new DeviceConfig(tenants.deviceConfig(f.device.id()));
      tenants.configureDevice(f.device.id(), Map.of("link-preview", "false"));
      String refusal = "the Cloud API refused the account: (#100) Object does not exist";
      holds.hold(f.device.id(), asked, refusal);
      assertThat(holds.reason(f.device.id())).as("a refusal of the former one").isEmpty();
      long id = f.sendAsync(to, "halo");
      f.awaitState(id, MessageState.DELIVERY);

      holds.hold(f.device.id(), new DeviceConfig(tenants.deviceConfig(f.device.id())), refusal);
      assertThat(holds.reason(f.device.id())).as("a refusal of this one").contains(refusal);
    }
  }

  @Test
  void aBadTokenIsFoundAtAttachBeforeAnySend() {
    try (CloudFixture f = new CloudFixture(dir)) {
      var tenants = f.kurir.gateway().tenants();
      int posts = f.graph.posts();
      var bad =
          tenants.createDevice(
              tenants.device(f.device.id()).licenseId(),
              "+6281100007408",
              "cloud",
              Map.of(
                  "phone-number-id", FakeGraphApi.PHONE_NUMBER_ID,
                  "access-token", "EAAG-revoked",
                  "app-secret", FakeGraphApi.APP_SECRET));
      f.kurir.gateway().messages().deviceChanged(bad); // its sender starts and attaches it
      Eventually.until(
          "failed at attach",
          () ->
              f.kurir.gateway().deviceStates().current(bad.id()) == DeviceState.FAILED
                  && f.kurir.gateway().queueHolds().reason(bad.id()).orElse("").contains("190"));
      assertThat(f.graph.posts()).as("no message posted to find it").isEqualTo(posts);
      assertThat(
              f.kurir.gateway().deviceStates().history(bad.id()).stream()
                  .map(e -> e.reason().orElse(""))
                  .toList())
          .anyMatch(r -> r.contains("access token refused"));
    }
  }

  private static long sendFrom(CloudFixture f, String key, String to) {
    TestGateway.Reply r =
        f.kurir.postJson(
            "/api/async_send_message",
            "{\"key\":\"" + key + "\",\"phone_no\":\"" + to + "\",\"message\":\"halo\"}");
    assertThat(r.body()).as(r.body()).matches("\\d+");
    return Long.parseLong(r.body());
  }

  private static TestGateway.Reply retry(CloudFixture f) {
    return f.kurir.post(
        "/admin/devices/" + f.device.id() + "/retry",
        "",
        "application/json",
        "Authorization",
        "Bearer " + TestGateway.ADMIN_TOKEN);
  }
}
