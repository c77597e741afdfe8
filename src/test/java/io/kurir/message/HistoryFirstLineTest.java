package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.store.Database;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A message's first history line is told from its row (V55) instead of stored: the reads by id and
 * by list tell the same lines as before, rows stored before the change keep their stored line and
 * show it once, and a stored line of the same moment comes after it.
 */
class HistoryFirstLineTest {
  @TempDir Path dir;

  private static String body(Device d, String to) {
    return "{\"key\":\"" + d.ecoKey() + "\",\"phone_no\":\"" + to + "\",\"message\":\"hi\"}";
  }

  private static List<MessageState> states(List<MessageEvent> events) {
    return events.stream().map(MessageEvent::state).toList();
  }

  private static List<MessageEvent> byId(TestGateway kurir, long id) {
    return kurir.gateway().messages().history(id).orElseThrow().events();
  }

  private static List<MessageEvent> byList(TestGateway kurir, Device device, long id) {
    return new MessageHistories(kurir.gateway().database())
        .outgoing(id, Set.of(device.id()))
        .orElseThrow()
        .events();
  }

  private static int storedLines(Database db, long id) {
    return db.jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT COUNT(*) FROM message_event WHERE message_id = ?")
                    .bind(0, id)
                    .mapTo(Integer.class)
                    .one());
  }

  /** A message accepted while its device is offline: it stays pending. */
  private record Accepted(Device device, long id, Instant created) {}

  private static Accepted acceptOffline(TestGateway kurir) {
    Device device = kurir.newDevice();
    kurir.sandbox().setDeviceOnline(device.id(), false);
    long id =
        Long.parseLong(
            kurir.postJson("/api/async_send_message", body(device, Numbers.fresh())).body());
    return new Accepted(
        device, id, kurir.gateway().messages().history(id).orElseThrow().message().createdAt());
  }

  private static void storeLine(
      TestGateway kurir, long id, String state, String reason, Instant at) {
    kurir
        .gateway()
        .database()
        .jdbi()
        .useHandle(
            h ->
                h.execute(
                    "INSERT INTO message_event (message_id, state, reason, at) VALUES (?, ?, ?, ?)",
                    id,
                    state,
                    reason,
                    at.toEpochMilli()));
  }

  @Test
  void anAcceptedMessageStoresNoFirstLineAndBothReadsTellIt() {
    try (TestGateway kurir = TestGateway.start(dir)) {
      Accepted m = acceptOffline(kurir);

      assertThat(storedLines(kurir.gateway().database(), m.id())).isZero();
      assertThat(byId(kurir, m.id()))
          .containsExactly(new MessageEvent(MessageState.PENDING, Optional.empty(), m.created()));
      assertThat(byList(kurir, m.device(), m.id())).isEqualTo(byId(kurir, m.id()));

      kurir.sandbox().setDeviceOnline(m.device().id(), true);
      Eventually.until("sent", () -> states(byId(kurir, m.id())).contains(MessageState.SENT));
      assertThat(states(byId(kurir, m.id())))
          .startsWith(MessageState.PENDING, MessageState.SENDING, MessageState.SENT)
          .containsOnlyOnce(MessageState.PENDING);
      assertThat(byList(kurir, m.device(), m.id())).isEqualTo(byId(kurir, m.id()));
    }
  }

  @Test
  void aRowStoredBeforeTheChangeShowsItsStoredFirstLineOnce() {
    try (TestGateway kurir = TestGateway.start(dir)) {
      Accepted m = acceptOffline(kurir);
      // As V55 found it: no first_state, the first line stored.
      kurir
          .gateway()
          .database()
          .jdbi()
          .useHandle(h -> h.execute("UPDATE message SET first_state = NULL WHERE id = ?", m.id()));
      storeLine(kurir, m.id(), "pending", null, m.created());

      assertThat(byId(kurir, m.id()))
          .containsExactly(new MessageEvent(MessageState.PENDING, Optional.empty(), m.created()));
      assertThat(byList(kurir, m.device(), m.id())).isEqualTo(byId(kurir, m.id()));
    }
  }

  @Test
  void aStoredLineOfTheSameMomentComesAfterTheToldOne() {
    try (TestGateway kurir = TestGateway.start(dir)) {
      Accepted m = acceptOffline(kurir);
      storeLine(kurir, m.id(), "failed", "noted", m.created());

      assertThat(byId(kurir, m.id()))
          .containsExactly(
              new MessageEvent(MessageState.PENDING, Optional.empty(), m.created()),
              new MessageEvent(MessageState.FAILED, Optional.of("noted"), m.created()));
      assertThat(byList(kurir, m.device(), m.id())).isEqualTo(byId(kurir, m.id()));
    }
  }
}
