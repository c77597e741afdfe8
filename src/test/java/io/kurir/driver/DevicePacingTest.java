package io.kurir.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A device's own pacing ({@code pacing.min-gap}, {@code pacing.jitter} in its configuration) over
 * its driver's (none here): its messages go out no closer than its gap while another device's go at
 * once; a change made with {@code PATCH /admin/devices/{id}} applies without a restart; sync sends
 * wait at most {@link Pacing#SYNC_GAP_CAP} of the gap, async ones the whole gap. Pacing is in real
 * time, so the gaps are read from when the sandbox's phones received the messages.
 *
 * <p>A busy machine only makes gaps longer: lower bounds hold however slow it is, and every upper
 * bound sits well below the gap it tells apart from (gaps of 2 s and 6 s, not 1 s and 3 s).
 */
class DevicePacingTest {
  static final String[] AUTH = {"Authorization", "Bearer " + TestGateway.ADMIN_TOKEN};
  static final Map<String, String> TWO_SECONDS =
      Map.of("pacing.min-gap", "2s", "pacing.jitter", "0ms");

  @TempDir Path dir;

  private static Device pairedDevice(TestGateway kurir, String number, Map<String, String> config) {
    Device d = kurir.newDevice(number, "sandbox", config);
    kurir.sandbox().pair(d.id(), d.number());
    return d;
  }

  private static void sendAsync(TestGateway kurir, Device d, String to, String text) {
    Reply r =
        kurir.postJson(
            "/api/async_send_message",
            "{\"key\":\""
                + d.ecoKey()
                + "\",\"phone_no\":\""
                + to
                + "\",\"message\":\""
                + text
                + "\"}");
    assertThat(r.body()).matches("\\d+");
  }

  private static List<InboxEntry> received(TestGateway kurir, String to, int count) {
    Eventually.until(count + " received by " + to, () -> kurir.sandbox().inbox(to).size() >= count);
    return kurir.sandbox().inbox(to);
  }

  /** The times between one receipt and the next. */
  private static List<Duration> gaps(List<InboxEntry> entries) {
    List<Duration> gaps = new ArrayList<>();
    for (int i = 1; i < entries.size(); i++) {
      gaps.add(Duration.between(entries.get(i - 1).receivedAt(), entries.get(i).receivedAt()));
    }
    return gaps;
  }

  private static Duration span(List<InboxEntry> entries) {
    return Duration.between(entries.getFirst().receivedAt(), entries.getLast().receivedAt());
  }

  private static void patchConfig(TestGateway kurir, Device d, String configJson) {
    Reply r =
        kurir.send(
            HttpRequest.newBuilder(URI.create(kurir.url("/admin/devices/" + d.id())))
                .header("Content-Type", "application/json")
                .header(AUTH[0], AUTH[1])
                .method(
                    "PATCH", HttpRequest.BodyPublishers.ofString("{\"config\":" + configJson + "}"))
                .build());
    assertThat(r.status()).as(r.body()).isEqualTo(200);
  }

  @Test
  void aDevicesOwnGapPacesItAloneAndAChangeAppliesWithoutARestart() {
    try (TestGateway kurir = TestGateway.start(dir)) { // the sandbox's own pacing is off
      Device paced = pairedDevice(kurir, "+6281100007501", TWO_SECONDS);
      Device free = pairedDevice(kurir, "+6281100007502", Map.of());
      String toPaced = Numbers.fresh();
      String toFree = Numbers.fresh();
      for (int i = 0; i < 3; i++) {
        sendAsync(kurir, paced, toPaced, "p" + i);
        sendAsync(kurir, free, toFree, "f" + i);
      }

      List<InboxEntry> fromFree = received(kurir, toFree, 3);
      List<InboxEntry> fromPaced = received(kurir, toPaced, 3);
      assertThat(fromPaced).extracting(InboxEntry::text).containsExactly("p0", "p1", "p2");
      assertThat(gaps(fromPaced))
          .allSatisfy(g -> assertThat(g).isGreaterThanOrEqualTo(Duration.ofMillis(1950)));
      assertThat(span(fromFree))
          .as("the other device is not paced (paced, its three would span two gaps)")
          .isLessThan(Duration.ofMillis(3800));

      // Paced from now on, by its own configuration, with no restart.
      patchConfig(kurir, free, "{\"pacing.min-gap\":\"2s\",\"pacing.jitter\":\"0ms\"}");
      String toFreeLater = Numbers.fresh();
      sendAsync(kurir, free, toFreeLater, "f3");
      sendAsync(kurir, free, toFreeLater, "f4");
      assertThat(gaps(received(kurir, toFreeLater, 2)))
          .allSatisfy(g -> assertThat(g).isGreaterThanOrEqualTo(Duration.ofMillis(1950)));

      // Its own gap removed: back to its driver's pacing, none.
      patchConfig(kurir, paced, "{\"pacing.min-gap\":null,\"pacing.jitter\":\"\"}");
      String toPacedLater = Numbers.fresh();
      for (int i = 3; i < 6; i++) {
        sendAsync(kurir, paced, toPacedLater, "p" + i);
      }
      assertThat(span(received(kurir, toPacedLater, 3))).isLessThan(Duration.ofMillis(3800));
    }
  }

  @Test
  void aSyncSendGoesAheadOfACampaignOnALongGapAfterTheSyncCap() {
    try (TestGateway kurir = TestGateway.start(dir, "--send.sync-timeout=14s")) {
      Device device =
          pairedDevice(
              kurir, "+6281100007504", Map.of("pacing.min-gap", "6s", "pacing.jitter", "0ms"));
      String to = Numbers.fresh();
      for (int i = 0; i < 3; i++) {
        sendAsync(kurir, device, to, "campaign " + i);
      }
      received(kurir, to, 1);

      Reply otp =
          kurir.postJson(
              "/api/send_message",
              "{\"key\":\""
                  + device.ecoKey()
                  + "\",\"phone_no\":\""
                  + to
                  + "\",\"message\":\"otp\"}");
      assertThat(otp.body()).isEqualTo("success");
      List<InboxEntry> inbox = kurir.sandbox().inbox(to);
      assertThat(inbox).extracting(InboxEntry::text).containsExactly("campaign 0", "otp");
      assertThat(Duration.between(inbox.get(0).receivedAt(), inbox.get(1).receivedAt()))
          .as("the sync send waits the sync cap after the campaign's send, not its 6 s gap")
          .isGreaterThanOrEqualTo(Pacing.SYNC_GAP_CAP.minusMillis(50))
          .isLessThan(Duration.ofMillis(5500));
    }
  }

  @Test
  void syncSendsWaitAtMostTheSyncCapOfTheGapWhileAsyncOnesKeepTheWholeGap() throws Exception {
    try (TestGateway kurir = TestGateway.start(dir, "--send.sync-timeout=14s");
        ExecutorService callers = Executors.newFixedThreadPool(5)) {
      Device device =
          pairedDevice(
              kurir, "+6281100007503", Map.of("pacing.min-gap", "6s", "pacing.jitter", "0ms"));
      String to = Numbers.fresh();
      long started = System.nanoTime();
      List<Future<Reply>> replies = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        String text = "otp " + i;
        replies.add(
            callers.submit(
                () ->
                    kurir.postJson(
                        "/api/send_message",
                        "{\"key\":\""
                            + device.ecoKey()
                            + "\",\"phone_no\":\""
                            + to
                            + "\",\"message\":\""
                            + text
                            + "\"}")));
      }
      for (Future<Reply> r : replies) {
        assertThat(r.get().body()).as("none phone_offline, none timed out").isEqualTo("success");
      }
      Duration allAnswered = Duration.ofNanos(System.nanoTime() - started);
      assertThat(allAnswered)
          .as("five sync sends on a 6 s gap (the whole gap would take 24 s)")
          .isLessThan(Duration.ofSeconds(14));
      List<InboxEntry> syncs = received(kurir, to, 5);
      assertThat(gaps(syncs))
          .as("each waits for the sync cap, not the whole gap")
          .allSatisfy(
              g ->
                  assertThat(g)
                      .isGreaterThanOrEqualTo(Pacing.SYNC_GAP_CAP.minusMillis(50))
                      .isLessThan(Duration.ofMillis(5500)));

      sendAsync(kurir, device, to, "campaign");
      List<InboxEntry> all = received(kurir, to, 6);
      assertThat(all.getLast().text()).isEqualTo("campaign");
      assertThat(Duration.between(all.get(4).receivedAt(), all.get(5).receivedAt()))
          .as("async traffic waits the whole gap after the last send")
          .isGreaterThanOrEqualTo(Duration.ofMillis(5950));
    }
  }
}
