package io.kurir.driver.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kurir.driver.DeviceState;
import io.kurir.driver.DriverListener;
import io.kurir.driver.IncomingMessage;
import io.kurir.driver.OutgoingMessage;
import io.kurir.driver.Receipt;
import io.kurir.driver.SendOutcome;
import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.testing.Eventually;
import io.kurir.time.SettableClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sandbox network's journal: a new network on the same file is the network that wrote it, as a
 * real network outlives a gateway; its history is bounded and the file follows the state, not the
 * uptime; a line cut off by a crash is skipped.
 */
class SandboxJournalTest {
  private static final long DEVICE = 7;
  private static final String SENDER = "+6281100000007";
  private static final String TO = "+6281234500001";

  @TempDir Path dir;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-03-10T03:00:00Z"));

  private Path file() {
    return dir.resolve("drivers/sandbox/network.jsonl");
  }

  private SandboxNetwork open(boolean deduplicates) {
    return SandboxNetwork.journaled(
        clock, Duration.ofSeconds(2), Duration.ofSeconds(5), deduplicates, file());
  }

  private static SendOutcome.Sent send(SandboxNetwork network, long id, String to, String text) {
    SendOutcome outcome = network.send(DEVICE, new OutgoingMessage(id, to, false, "text", text));
    assertThat(outcome).isInstanceOf(SendOutcome.Sent.class);
    return (SendOutcome.Sent) outcome;
  }

  @Test
  void aNewNetworkOnTheSameFileIsTheNetworkThatWroteIt() {
    List<String> networkIds = new ArrayList<>();
    try (SandboxNetwork network = open(true)) {
      network.pair(DEVICE, SENDER);
      network.pair(8, "+6281100000008");
      network.setDeviceOnline(8, false);
      network.pair(9, "+6281100000009");
      network.takeOver(9);
      network.setMultiDevice(DEVICE, false);
      network.setRegistered("+6281299990000", false);
      network.setPhoneOnline("+6281299990001", false);
      network.createGroup("6281100000007-1", "Parents", List.of(SENDER, TO, "+6281234500002"));
      networkIds.add(send(network, 101, TO, "hello").networkId().orElseThrow());
      networkIds.add(
          ((SendOutcome.Sent)
                  network.send(
                      DEVICE, new OutgoingMessage(102, "6281100000007-1", true, "text", "all")))
              .networkId()
              .orElseThrow());
      network.injectIncoming(DEVICE, TO, "not kept: it is the gateway's now");
    }

    try (SandboxNetwork again = open(true)) {
      assertThat(again.session(DEVICE)).contains(new SandboxNetwork.Session(DEVICE, SENDER, true));
      assertThat(again.session(8)).hasValueSatisfying(s -> assertThat(s.online()).isFalse());
      assertThat(again.state(9)).isEqualTo(DeviceState.REFRESH_IT);
      assertThat(again.isRegistered("+6281299990000")).isFalse();
      assertThat(again.isPhoneOnline("+6281299990001")).isFalse();
      assertThat(again.groups()).extracting(SandboxNetwork.Group::name).containsExactly("Parents");
      assertThat(again.groupMembers(DEVICE, "6281100000007-1"))
          .as("the device is still not multi-device")
          .isInstanceOf(io.kurir.driver.GroupMembers.NotSupported.class);
      assertThat(again.inbox(TO))
          .extracting(InboxEntry::messageId, InboxEntry::text, InboxEntry::from)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(101L, "hello", SENDER),
              org.assertj.core.groups.Tuple.tuple(102L, "all", SENDER));
      assertThat(again.inbox("+6281234500002"))
          .extracting(InboxEntry::group)
          .containsExactly("6281100000007-1");

      // The de-duplication memory survived: a resend after a crash is the first send.
      assertThat(send(again, 101, TO, "hello").networkId()).contains(networkIds.get(0));
      assertThat(again.inbox(TO)).hasSize(2);
      // And no network id is issued twice across the restart.
      String fresh = send(again, 103, TO, "new").networkId().orElseThrow();
      assertThat(networkIds).doesNotContain(fresh);
    }
  }

  @Test
  void aSkippedLinkPreviewIsKeptInTheJournal() {
    try (SandboxNetwork network = open(true)) {
      network.pair(DEVICE, SENDER);
      network.send(
          DEVICE,
          new OutgoingMessage(
              101, TO, false, "text", "https://kurir.example.com", false, Optional.empty()));
      send(network, 102, TO, "https://kurir.example.com");
    }
    try (SandboxNetwork again = open(true)) {
      assertThat(again.inbox(TO)).extracting(InboxEntry::linkPreview).containsExactly(false, true);
    }
  }

  @Test
  void withoutDeduplicationAResendArrivesAgainAndBothCopiesAreKept() {
    try (SandboxNetwork network = open(false)) {
      network.pair(DEVICE, SENDER);
      send(network, 101, TO, "twice");
    }
    try (SandboxNetwork again = open(false)) {
      send(again, 101, TO, "twice");
      assertThat(again.inbox(TO)).extracting(InboxEntry::messageId).containsExactly(101L, 101L);
    }
    try (SandboxNetwork third = SandboxNetwork.readJournal(file())) {
      assertThat(third.inbox(TO)).hasSize(2);
    }
  }

  /** Receipts it owed when the gateway died are reported to the next gateway, once. */
  @Test
  void receiptsNotReportedBeforeARestartAreReportedAfterIt() {
    String networkId;
    try (SandboxNetwork network = open(true)) {
      network.pair(DEVICE, SENDER);
      networkId = send(network, 101, TO, "hello").networkId().orElseThrow();
      // No gateway listens: nothing is reported before the network goes.
    }
    List<Receipt> heard = new CopyOnWriteArrayList<>();
    try (SandboxNetwork again = open(true)) {
      again.attach(recording(heard));
      clock.advance(Duration.ofSeconds(3));
      Eventually.until("delivered reported", () -> heard.size() == 1);
      assertThat(heard.getFirst().networkId()).contains(networkId);
      assertThat(heard.getFirst().status()).isEqualTo(Receipt.Status.DELIVERED);
      assertThat(again.inbox(TO).getFirst().status()).isEqualTo("delivered");
    }
    heard.clear();
    try (SandboxNetwork third = open(true)) {
      third.attach(recording(heard));
      clock.advance(Duration.ofSeconds(3));
      Eventually.until("read reported", () -> heard.size() == 1);
      assertThat(heard.getFirst().status()).isEqualTo(Receipt.Status.READ);
      clock.advance(Duration.ofSeconds(10));
    }
    heard.clear();
    try (SandboxNetwork fourth = open(true)) {
      fourth.attach(recording(heard));
      clock.advance(Duration.ofSeconds(10));
      assertThat(fourth.inbox(TO).getFirst().status()).isEqualTo("read");
      // Nothing is owed any more: a send now is reported, and only it.
      fourth.pair(DEVICE, SENDER);
      String next = send(fourth, 102, TO, "next").networkId().orElseThrow();
      clock.advance(Duration.ofSeconds(10));
      Eventually.until("the new send's receipts", () -> heard.size() >= 2);
      assertThat(heard).allSatisfy(r -> assertThat(r.networkId()).contains(next));
    }
  }

  /**
   * Issue 13: every new number a long-running gateway sent to stayed in memory and in the journal.
   * The inboxes kept are bounded by phones; a phone the operator set offline keeps that state.
   */
  @Test
  void theNetworkKeepsTheInboxesOfABoundedNumberOfPhones() {
    int phones = SandboxNetwork.PHONES_WITH_HISTORY + 20;
    String offline = String.format("+62812%08d", 0);
    try (SandboxNetwork network = open(true)) {
      network.pair(DEVICE, SENDER);
      network.setPhoneOnline(offline, false);
      for (int i = 0; i < phones; i++) {
        network.send(
            DEVICE, new OutgoingMessage(i + 1, String.format("+62812%08d", i), false, "text", "x"));
      }
      assertThat(network.phones().size())
          .isLessThanOrEqualTo(SandboxNetwork.PHONES_WITH_HISTORY + 1);
      assertThat(network.inbox(String.format("+62812%08d", 5))).isEmpty();
      assertThat(network.inbox(String.format("+62812%08d", phones - 1))).hasSize(1);
      assertThat(network.phones()).contains(offline);
    }
    try (SandboxNetwork again = open(true)) {
      assertThat(again.journalLines()).isLessThan(SandboxNetwork.PHONES_WITH_HISTORY + 200L);
      assertThat(again.phones().size()).isLessThanOrEqualTo(SandboxNetwork.PHONES_WITH_HISTORY + 1);
      assertThat(again.inbox(String.format("+62812%08d", phones - 1))).hasSize(1);
      // The offline phone's inbox was forgotten, not its state: a send to it is not received.
      assertThat(again.phones()).contains(offline);
    }
  }

  @Test
  void eachPhoneKeepsItsLastThousandMessages() {
    int sent = SandboxNetwork.HISTORY_PER_PHONE + 50;
    try (SandboxNetwork network = open(true)) {
      network.pair(DEVICE, SENDER);
      for (int i = 1; i <= sent; i++) {
        send(network, i, TO, "m" + i);
      }
      send(network, 5_000, "+6281234500002", "another phone");
      assertThat(network.inbox(TO)).hasSize(SandboxNetwork.HISTORY_PER_PHONE);
      assertThat(network.inbox(TO).getFirst().messageId()).isEqualTo(51);
      assertThat(network.inbox(TO).getLast().messageId()).isEqualTo(sent);
    }
    try (SandboxNetwork again = open(true)) {
      assertThat(again.inbox(TO)).hasSize(SandboxNetwork.HISTORY_PER_PHONE);
      assertThat(again.inbox(TO).getFirst().messageId()).isEqualTo(51);
      assertThat(again.inbox("+6281234500002")).hasSize(1);
      assertThat(again.journalLines())
          .as("the file was rewritten from the state when it was opened")
          .isLessThan(SandboxNetwork.HISTORY_PER_PHONE + 100);
      // An id that left the inbox is still remembered for de-duplication.
      assertThat(send(again, 1, TO, "m1").networkId()).isPresent();
      assertThat(again.inbox(TO).getLast().messageId()).isEqualTo(sent);
    }
  }

  @Test
  void theJournalIsRewrittenWhenItGrowsWellPastTheState() throws IOException {
    try (SandboxNetwork network =
        SandboxNetwork.journaled(
            clock, Duration.ofSeconds(2), Duration.ofSeconds(5), false, file(), 100)) {
      network.pair(DEVICE, SENDER);
      long most = 0;
      for (int i = 1; i <= 3_000; i++) {
        network.setPhoneOnline(TO, i % 2 == 0); // a change that replaces the one before it
        most = Math.max(most, network.journalLines());
      }
      send(network, 1, TO, "after");
      assertThat(most).as("rewritten whenever it grew past 100 lines").isLessThan(120);
      assertThat(Files.readAllLines(file())).hasSizeLessThan(120);
    }
    try (SandboxNetwork again = SandboxNetwork.readJournal(file())) {
      assertThat(again.isPhoneOnline(TO)).isTrue();
      assertThat(again.inbox(TO)).extracting(InboxEntry::text).containsExactly("after");
      assertThat(again.session(DEVICE)).isPresent();
    }
  }

  @Test
  void aLineCutOffByACrashIsSkipped() throws IOException {
    try (SandboxNetwork network = open(true)) {
      network.pair(DEVICE, SENDER);
      send(network, 101, TO, "whole");
    }
    // A write cut off in the middle: the start of a line without its end.
    Files.writeString(
        file(),
        "{\"t\":\"in\",\"id\":102,\"net\":\"SBX9\",\"text\":\"cut o",
        StandardCharsets.UTF_8,
        StandardOpenOption.APPEND);

    try (SandboxNetwork readOnly = SandboxNetwork.readJournal(file())) {
      assertThat(readOnly.inbox(TO)).extracting(InboxEntry::text).containsExactly("whole");
    }
    try (SandboxNetwork again = open(true)) {
      assertThat(again.inbox(TO)).extracting(InboxEntry::text).containsExactly("whole");
      send(again, 103, TO, "after the crash");
    }
    assertThat(Files.readString(file())).endsWith("\n").doesNotContain("cut o");
    try (SandboxNetwork third = open(true)) {
      assertThat(third.inbox(TO))
          .extracting(InboxEntry::text)
          .containsExactly("whole", "after the crash");
    }
  }

  @Test
  void aReadOnlyCopyChangesNothing() throws IOException {
    try (SandboxNetwork network = open(true)) {
      network.pair(DEVICE, SENDER);
      send(network, 101, TO, "hello");
    }
    String before = Files.readString(file());
    try (SandboxNetwork copy = SandboxNetwork.readJournal(file())) {
      assertThat(copy.phones()).containsExactly(TO);
      assertThat(copy.inbox(TO)).hasSize(1);
      assertThatThrownBy(() -> copy.pair(DEVICE, SENDER)).isInstanceOf(RuntimeException.class);
      assertThat(copy.send(DEVICE, new OutgoingMessage(102, TO, false, "text", "no")))
          .isInstanceOf(SendOutcome.Failed.class);
    }
    assertThat(Files.readString(file())).isEqualTo(before);
  }

  @Test
  void inMemoryTheNetworkKeepsNothingOnDisk() {
    try (SandboxNetwork network =
        new SandboxNetwork(clock, Duration.ofSeconds(2), Duration.ofSeconds(5), true)) {
      network.pair(DEVICE, SENDER);
      send(network, 101, TO, "hello");
      assertThat(network.journalLines()).isZero();
    }
    assertThat(Files.exists(file())).isFalse();
  }

  private static DriverListener recording(List<Receipt> heard) {
    return new DriverListener() {
      @Override
      public void receipt(Receipt receipt) {
        heard.add(receipt);
      }

      @Override
      public void outcome(long deviceId, long messageId, SendOutcome outcome) {}

      @Override
      public void incoming(IncomingMessage message) {}

      @Override
      public void connectionChanged(long deviceId, boolean connected) {}
    };
  }
}
