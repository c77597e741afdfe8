package io.kurir.driver.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.message.MessageState;
import io.kurir.testing.Eventually;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gateway stopped in the middle of a campaign on a cloud device: after the restart every message
 * is posted at most once, nothing accepted is lost, and statuses Meta could not deliver while Kurir
 * was down (it retries them) still move their messages.
 */
class CloudRestartTest {
  @TempDir Path dir;

  @Test
  void aRestartInTheMiddleOfSendsLosesNothingAndPostsNothingTwice() {
    try (CloudFixture f = new CloudFixture(dir, "--drivers.cloud.pacing.rate=25")) {
      String to = f.customer();
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        ids.add(f.sendAsync(to, "m" + i));
      }
      Eventually.until("some posted", () -> f.graph.sent().size() >= 5);
      f.kurir.stop();
      int postedWhileUp = f.graph.sent().size();
      assertThat(postedWhileUp).as("stopped in the middle").isLessThan(30);

      f.kurir.startAgain();
      f.graph.webhookTo(f.kurir.url(CloudWebhookRoutes.PATH));
      Eventually.until(
          "every message delivered",
          Eventually.GUARD, // a restart and every delivery: slow work
          () -> ids.stream().allMatch(id -> f.message(id).state() == MessageState.DELIVERY));

      Set<String> opaque = new HashSet<>();
      for (var s : f.graph.sentTo(to.substring(1))) {
        assertThat(opaque.add(s.body().path("biz_opaque_callback_data").asText()))
            .as("posted once: " + s.body())
            .isTrue();
      }
      assertThat(opaque).hasSize(30);
      assertThat(f.graph.sentTo(to.substring(1)))
          .extracting(s -> s.body().path("text").path("body").asText())
          // Started in order, but up to drivers.cloud.pacing.in-flight (16) are under way at
          // once, so on a busy machine a later one can reach Graph first: the set, not the order.
          .containsExactlyInAnyOrderElementsOf(
              java.util.stream.IntStream.range(0, 30).mapToObj(i -> "m" + i).toList());
    }
  }
}
