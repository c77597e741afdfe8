package io.kurir.driver.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.message.MessageEvent;
import io.kurir.message.MessageState;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Statuses as Meta sends them: out of order and twice (the message still ends read, each state
 * once, never going back), and {@code paused} / {@code held_for_quality_assessment}, which are not
 * failures and show in the message's history.
 */
class CloudStatusesTest {
  @TempDir Path dir;

  @Test
  void statusesOutOfOrderAndTwiceMoveTheMessageForwardOnly() {
    try (CloudFixture f = new CloudFixture(dir)) {
      f.graph.scrambleStatuses(true); // read, delivered, sent, delivered, read
      long id = f.sendAsync(f.customer(), "halo");
      f.awaitState(id, MessageState.READ);
      // The last statuses come after read: the message is still read once they are taken.
      io.kurir.testing.Eventually.until(
          "all five statuses taken", () -> f.graph.statusesDelivered() == 5);
      f.kurir.gateway().database().writes().write(h -> null); // what they wrote is committed
      assertThat(f.message(id).state()).isEqualTo(MessageState.READ);
      List<MessageState> states =
          f.kurir.gateway().messages().history(id).orElseThrow().events().stream()
              .map(MessageEvent::state)
              .toList();
      assertThat(states).doesNotHaveDuplicates();
      assertThat(states).isSortedAccordingTo(java.util.Comparator.comparingInt(Enum::ordinal));
      assertThat(states.getLast()).isEqualTo(MessageState.READ);
    }
  }

  @Test
  void pausedAndHeldForQualityAssessmentShowInTheHistoryAndAreNotFailures() {
    try (CloudFixture f = new CloudFixture(dir)) {
      for (String status : List.of("held_for_quality_assessment", "paused")) {
        f.graph.nextMessageStatus(status);
        long id = f.sendAsync(f.customer(), "promo");
        f.awaitState(id, MessageState.DELIVERY);
        assertThat(CloudFirstContactTest.notes(f, id)).contains(status);
        assertThat(f.message(id).reason()).isEmpty();
      }
    }
  }
}
