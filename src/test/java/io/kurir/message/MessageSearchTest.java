package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kurir.store.SearchTooLong;
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

  private static final MessageSearch.Criteria ANY = MessageSearch.Criteria.any();

  private List<String> texts(MessageSearch.Criteria c) {
    return search.find(c).stream().map(Message::body).toList();
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
            search.find(ANY).stream()
                .noneMatch(
                    m -> m.state() == MessageState.PENDING || m.state() == MessageState.SENDING));

    assertThat(texts(ANY.withDevices(Set.of(one.id()))))
        .containsExactly("Jadwal besok", "Tagihan 100% LUNAS"); // newest first
    assertThat(texts(ANY.withRecipient(Optional.of(alice))))
        .containsExactly("Tagihan_bulan depan", "Tagihan 100% LUNAS");
    assertThat(texts(ANY.withId(Optional.of(first)))).containsExactly("Tagihan 100% LUNAS");
    // A piece of the text in any case; % and _ are letters, not patterns ("h_n" is not "han").
    assertThat(texts(ANY.withText(Optional.of("tagihan")))).hasSize(2);
    assertThat(texts(ANY.withText(Optional.of("100% l")))).containsExactly("Tagihan 100% LUNAS");
    assertThat(texts(ANY.withText(Optional.of("h_n")))).isEmpty();
    assertThat(
            texts(
                ANY.withDevices(Set.of(one.id(), two.id()))
                    .withRecipient(Optional.of(alice))
                    .withText(Optional.of("bulan"))))
        .containsExactly("Tagihan_bulan depan");
    assertThat(texts(ANY.withState(Optional.of(MessageState.FAILED)))).isEmpty();
    assertThat(texts(ANY.withPeriod(Optional.of(before), Optional.empty()))).hasSize(3);
    assertThat(
            texts(ANY.withPeriod(Optional.of(before.plus(Duration.ofDays(1))), Optional.empty())))
        .isEmpty();
    assertThat(texts(ANY.withPeriod(Optional.empty(), Optional.of(before)))).isEmpty();
    assertThat(texts(ANY.withLimit(1))).containsExactly("Tagihan_bulan depan");

    long counted =
        search.countByStateSince(before).values().stream().mapToLong(Long::longValue).sum();
    assertThat(counted).isEqualTo(3);
    assertThat(search.countByStateSince(before.plus(Duration.ofDays(1)))).isEmpty();
  }

  @Test
  void aTextOverAThousandCharactersIsRefusedBeforeItReachesTheDatabase() {
    Device one = kurir.newDevice(Numbers.fresh(), true);
    kurir.sendAsync(one, Numbers.fresh(), "Tagihan");

    // On SQLite a pattern of some 50,000 bytes failed in the database ("pattern too complex").
    assertThatThrownBy(() -> search.find(ANY.withText(Optional.of("a".repeat(50_000)))))
        .isInstanceOf(SearchTooLong.class)
        .hasMessageContaining("1000");
    assertThatThrownBy(() -> search.find(ANY.withText(Optional.of("a".repeat(1001)))))
        .isInstanceOf(SearchTooLong.class);
    assertThat(texts(ANY.withText(Optional.of("a".repeat(1000))))).isEmpty();
  }
}
