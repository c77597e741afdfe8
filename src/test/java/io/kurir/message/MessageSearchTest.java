package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the console looks messages up by: each criterion alone and together, and the counts. */
class MessageSearchTest {
  @TempDir Path dir;
  TestGateway kurir;
  MessageSearch search;

  @BeforeEach
  void start() {
    kurir = TestGateway.start(dir);
    search = new MessageSearch(kurir.gateway().database());
  }

  @AfterEach
  void stop() {
    kurir.close();
  }

  private static MessageSearch.Criteria criteria(
      Set<Long> devices,
      Optional<Long> id,
      Optional<String> recipient,
      Optional<MessageState> state,
      Optional<String> text) {
    return new MessageSearch.Criteria(
        devices, id, recipient, state, text, Optional.empty(), Optional.empty(), 50);
  }

  private static List<String> texts(List<Message> found) {
    return found.stream().map(Message::body).toList();
  }

  @Test
  void findsMessagesByDeviceNumberIdStateTextAndTime() {
    Device one = kurir.newDevice(Numbers.fresh(), true);
    Device two = kurir.newDevice(Numbers.fresh(), true);
    String alice = Numbers.fresh();
    String bob = Numbers.fresh();
    Instant before = Instant.now().minusSeconds(1);
    long first = Long.parseLong(kurir.sendAsync(one, alice, "Tagihan 100% LUNAS").body());
    kurir.sendAsync(one, bob, "Jadwal besok");
    kurir.sendAsync(two, alice, "Tagihan_bulan depan");
    Eventually.until(
        "all sent",
        () ->
            search
                .find(
                    criteria(
                        Set.of(),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty()))
                .stream()
                .noneMatch(
                    m -> m.state() == MessageState.PENDING || m.state() == MessageState.SENDING));

    assertThat(
            texts(
                search.find(
                    criteria(
                        Set.of(one.id()),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty()))))
        .containsExactly("Jadwal besok", "Tagihan 100% LUNAS"); // newest first
    assertThat(
            texts(
                search.find(
                    criteria(
                        Set.of(),
                        Optional.empty(),
                        Optional.of(alice),
                        Optional.empty(),
                        Optional.empty()))))
        .containsExactly("Tagihan_bulan depan", "Tagihan 100% LUNAS");
    assertThat(
            texts(
                search.find(
                    criteria(
                        Set.of(),
                        Optional.of(first),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty()))))
        .containsExactly("Tagihan 100% LUNAS");
    // A piece of the text in any case; % and _ are letters, not patterns ("h_n" is not "han").
    assertThat(
            texts(
                search.find(
                    criteria(
                        Set.of(),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.of("tagihan")))))
        .hasSize(2);
    assertThat(
            texts(
                search.find(
                    criteria(
                        Set.of(),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.of("100% l")))))
        .containsExactly("Tagihan 100% LUNAS");
    assertThat(
            search.find(
                criteria(
                    Set.of(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.of("h_n"))))
        .isEmpty();
    assertThat(
            texts(
                search.find(
                    criteria(
                        Set.of(one.id(), two.id()),
                        Optional.empty(),
                        Optional.of(alice),
                        Optional.empty(),
                        Optional.of("bulan")))))
        .containsExactly("Tagihan_bulan depan");
    assertThat(
            search.find(
                criteria(
                    Set.of(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.of(MessageState.FAILED),
                    Optional.empty())))
        .isEmpty();
    assertThat(
            search.find(
                new MessageSearch.Criteria(
                    Set.of(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.of(before.plus(Duration.ofDays(1))),
                    Optional.empty(),
                    50)))
        .isEmpty();

    long counted =
        search.countByStateSince(before).values().stream().mapToLong(Long::longValue).sum();
    assertThat(counted).isEqualTo(3);
    assertThat(search.countByStateSince(before.plus(Duration.ofDays(1)))).isEmpty();
  }
}
