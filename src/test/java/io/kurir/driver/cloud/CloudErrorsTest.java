package io.kurir.driver.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.device.DeviceState;
import io.kurir.message.MessageState;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGraphApi;
import io.kurir.testing.WebhookReceiver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Errors by Meta's code, in the reply and by a {@code failed} status: both end the same way.
 * Undeliverable is {@code Number not found}; the closed window fails for good; rate limits wait and
 * go again; a 5xx is retried; a refused token fails the device and holds its messages.
 */
class CloudErrorsTest {
  @TempDir Path dir;

  @Test
  void undeliverableIsNumberNotFoundInTheReplyAndByWebhook() {
    try (CloudFixture f = new CloudFixture(dir)) {
      String to = f.customer();
      f.graph.failNext(1, 400, 131026, "Message undeliverable", false);
      long inReply = f.sendAsync(to, "one");
      f.awaitState(inReply, MessageState.FAILED);
      assertThat(f.message(inReply).reason()).contains("number_not_found");

      f.graph.failNext(1, 400, 131026, "Message undeliverable", true);
      long byWebhook = f.sendAsync(to, "two");
      f.awaitState(byWebhook, MessageState.FAILED);
      assertThat(f.message(byWebhook).reason()).contains("number_not_found");

      f.graph.failNext(1, 400, 131026, "Message undeliverable", false);
      assertThat(f.postEco("/api/send_message", f.body(f.customer(), "sync")))
          .endsWith("Number not found");
    }
  }

  @Test
  void theWindowErrorIsFinalEvenUnderFlagRetryInTheReplyAndByWebhook() {
    try (CloudFixture f = new CloudFixture(dir)) {
      f.graph.failNext(1, 400, 131047, "Re-engagement message", false);
      long inReply = f.sendAsync(f.customer(), "one", "flag_retry", "on");
      f.awaitState(inReply, MessageState.FAILED);
      assertThat(f.message(inReply).reason()).contains("window_closed");
      assertThat(f.message(inReply).attempts()).isOne();

      f.graph.failNext(1, 400, 131047, "Re-engagement message", true);
      long byWebhook = f.sendAsync(f.customer(), "two", "flag_retry", "on");
      f.awaitState(byWebhook, MessageState.FAILED);
      assertThat(f.message(byWebhook).reason()).contains("window_closed");
    }
  }

  @Test
  void aBadParameterIsRefusedForGood() {
    try (CloudFixture f = new CloudFixture(dir)) {
      f.graph.failNext(1, 400, 100, "Invalid parameter", false);
      long id = f.sendAsync(f.customer(), "one", "flag_retry", "on");
      f.awaitState(id, MessageState.FAILED);
      assertThat(f.message(id).reason()).contains("network_refused");
    }
  }

  @Test
  void rateLimitsWaitAndTheMessageGoesOutLaterInTheReplyAndByWebhook() {
    try (CloudFixture f = new CloudFixture(dir)) {
      String to = f.customer();
      for (int[] error : new int[][] {{400, 130429}, {429, 131056}}) {
        f.graph.failNext(1, error[0], error[1], "rate limit hit", false);
        int postsBefore = f.graph.posts();
        long id = f.sendAsync(to, "limited " + error[1]);
        Eventually.until(
            "refused, and back in the queue",
            () ->
                f.graph.posts() > postsBefore
                    && f.message(id).state() == MessageState.PENDING
                    && f.message(id).attempts() == 0);
        // Past the wait the limit asked for: 1 s after a first throughput hit, 6 s after a
        // first pair hit (the device's queue waits that long in real time too).
        f.clock.advance(Duration.ofSeconds(10));
        Eventually.until(
            "sent after the wait", () -> f.message(id).state() == MessageState.DELIVERY);
      }
      f.graph.failNext(1, 400, 130429, "rate limit hit", true);
      int postsBefore = f.graph.posts();
      long byWebhook = f.sendAsync(to, "limited later");
      // Posted (so it was claimed), then back in the queue. Whether its network id was kept
      // depends on which came first, Meta's answer or its failed status; either way it waits.
      Eventually.until(
          "back in the queue after its failed status",
          () ->
              f.graph.posts() > postsBefore
                  && f.message(byWebhook).state() == MessageState.PENDING
                  && f.message(byWebhook).attempts() == 0);
      f.clock.advance(Duration.ofSeconds(10));
      f.awaitState(byWebhook, MessageState.DELIVERY);
      assertThat(f.graph.sentTo(to.substring(1)))
          .hasSize(4); // the failed-by-webhook one and its resend
    }
  }

  @Test
  void serverErrorsAreRetriedWithBackoffUnderFlagRetry() {
    try (CloudFixture f = new CloudFixture(dir)) {
      f.graph.failNext(1, 500, 131000, "Something went wrong", false);
      long id = f.sendAsync(f.customer(), "one", "flag_retry", "on");
      Eventually.until(
          "scheduled again",
          () -> f.message(id).state() == MessageState.PENDING && f.message(id).attempts() == 1);
      f.clock.advance(Duration.ofMinutes(1));
      f.awaitState(id, MessageState.DELIVERY);

      f.graph.failNext(1, 503, 2, "Service temporarily unavailable", false);
      long once = f.sendAsync(f.customer(), "two");
      f.awaitState(once, MessageState.FAILED);
      assertThat(f.message(once).reason()).contains("driver_error");
    }
  }

  @Test
  void aTokenThatExpiresMidRunFailsTheDeviceHoldsItsMessagesAndANewTokenResumes() {
    try (WebhookReceiver receiver = new WebhookReceiver();
        CloudFixture f = new CloudFixture(dir)) {
      f.kurir.gateway().deviceStates().setStatusWebhook(f.device.id(), receiver.url("/status"));
      String to = f.customer();
      long before = f.sendAsync(to, "before");
      f.awaitState(before, MessageState.DELIVERY);
      assertThat(f.postEco("/api/qr_status", f.key())).isEqualTo("online");

      f.graph.revokeTokens();
      long during = f.sendAsync(to, "during");
      Eventually.until(
          "the device failed", () -> f.postEco("/api/qr_status", f.key()).equals("failed"));
      Eventually.until(
          "the device-status webhook",
          () ->
              receiver.ofEvent("device.status").stream()
                  .anyMatch(r -> r.json().path("newState").asText().equals("failed")));
      Eventually.until(
          "the refused message back in the queue",
          () -> f.message(during).state() == MessageState.PENDING);
      long waiting = f.sendAsync(to, "waiting");
      assertThat(f.message(waiting).state()).isEqualTo(MessageState.PENDING);
      assertThat(f.postEco("/api/generate_qr", f.key())).isEqualTo("failed");

      f.graph.acceptToken("EAAG-fake-token-2");
      f.kurir
          .gateway()
          .tenants()
          .configureDevice(f.device.id(), Map.of("access-token", "EAAG-fake-token-2"));
      f.awaitState(during, MessageState.DELIVERY);
      f.awaitState(waiting, MessageState.DELIVERY);
      assertThat(f.kurir.gateway().deviceStates().current(f.device.id()))
          .isEqualTo(DeviceState.ONLINE);
      assertThat(f.graph.sentTo(to.substring(1))).hasSize(3);
    }
  }

  static final String UNUSED = FakeGraphApi.VERSION;
}
