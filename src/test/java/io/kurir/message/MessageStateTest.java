package io.kurir.message;

import static io.kurir.message.MessageState.DELIVERY;
import static io.kurir.message.MessageState.FAILED;
import static io.kurir.message.MessageState.PENDING;
import static io.kurir.message.MessageState.READ;
import static io.kurir.message.MessageState.SENDING;
import static io.kurir.message.MessageState.SENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class MessageStateTest {

  /** The whole lifecycle, written out independently of the enum's own table. */
  private static final Map<MessageState, Set<MessageState>> ALLOWED =
      Map.of(
          PENDING, EnumSet.of(SENDING, FAILED),
          SENDING, EnumSet.of(PENDING, SENT, FAILED, DELIVERY, READ),
          SENT, EnumSet.of(DELIVERY, READ, FAILED),
          DELIVERY, EnumSet.of(READ),
          READ, EnumSet.noneOf(MessageState.class),
          FAILED, EnumSet.noneOf(MessageState.class));

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "PENDING, SENDING",
    "PENDING, FAILED",
    "SENDING, PENDING",
    "SENDING, SENT",
    "SENDING, FAILED",
    "SENDING, DELIVERY",
    "SENDING, READ",
    "SENT, DELIVERY",
    "SENT, READ",
    "SENT, FAILED",
    "DELIVERY, READ",
  })
  void allowedTransitions(MessageState from, MessageState to) {
    assertThat(from.canMoveTo(to)).isTrue();
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "READ, DELIVERY",
    "READ, SENT",
    "READ, FAILED",
    "FAILED, SENT",
    "FAILED, DELIVERY",
    "FAILED, READ",
    "SENT, PENDING",
    "DELIVERY, SENT",
    "DELIVERY, PENDING",
    "DELIVERY, FAILED",
    "PENDING, SENT",
    "PENDING, DELIVERY",
    "PENDING, READ",
  })
  void forbiddenTransitions(MessageState from, MessageState to) {
    assertThat(from.canMoveTo(to)).isFalse();
  }

  @ParameterizedTest
  @EnumSource(MessageState.class)
  void onlyAnAttemptThatDidNotHappenMovesBackToPending(MessageState from) {
    assertThat(from.canMoveTo(PENDING)).isEqualTo(from == SENDING);
  }

  @ParameterizedTest
  @EnumSource(MessageState.class)
  void aRepeatedStateIsNotATransition(MessageState state) {
    // A duplicate receipt must change nothing.
    assertThat(state.canMoveTo(state)).isFalse();
  }

  @Test
  void everyPairFollowsTheLifecycle() {
    for (MessageState from : MessageState.values()) {
      for (MessageState to : MessageState.values()) {
        assertThat(from.canMoveTo(to))
            .as("%s -> %s", from, to)
            .isEqualTo(ALLOWED.get(from).contains(to));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(MessageState.class)
  void predecessorsAgreeWithCanMoveTo(MessageState to) {
    for (MessageState from : MessageState.values()) {
      assertThat(to.predecessors().contains(from)).isEqualTo(from.canMoveTo(to));
    }
  }

  @Test
  void finalStatesHaveNoWayOut() {
    for (MessageState to : MessageState.values()) {
      assertThat(READ.canMoveTo(to)).isFalse();
      assertThat(FAILED.canMoveTo(to)).isFalse();
    }
  }

  @Test
  void wentOutOnlyOnceTheMessageLeftTheDevice() {
    assertThat(SENT.wentOut()).isTrue();
    assertThat(DELIVERY.wentOut()).isTrue();
    assertThat(READ.wentOut()).isTrue();
    assertThat(PENDING.wentOut()).isFalse();
    assertThat(SENDING.wentOut()).isFalse();
    assertThat(FAILED.wentOut()).isFalse();
  }

  @Test
  void wireNamesAreLowerCase() {
    assertThat(PENDING.wireName()).isEqualTo("pending");
    assertThat(SENDING.wireName()).isEqualTo("sending");
    assertThat(SENT.wireName()).isEqualTo("sent");
    assertThat(DELIVERY.wireName()).isEqualTo("delivery");
    assertThat(READ.wireName()).isEqualTo("read");
    assertThat(FAILED.wireName()).isEqualTo("failed");
  }

  @ParameterizedTest
  @EnumSource(MessageState.class)
  void wireNamesRoundTrip(MessageState state) {
    assertThat(MessageState.ofWireName(state.wireName())).isSameAs(state);
  }

  @Test
  void wireNamesAreReadWhateverTheirCase() {
    assertThat(MessageState.ofWireName("DELIVERY")).isSameAs(DELIVERY);
    assertThat(MessageState.ofWireName("Read")).isSameAs(READ);
  }

  @Test
  void unknownWireNamesAreRejected() {
    assertThatThrownBy(() -> MessageState.ofWireName("delivered"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> MessageState.ofWireName(""))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
