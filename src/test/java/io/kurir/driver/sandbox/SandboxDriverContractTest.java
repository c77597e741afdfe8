package io.kurir.driver.sandbox;

import io.kurir.content.Content;
import io.kurir.content.MessageContent;
import io.kurir.driver.ContactId;
import io.kurir.driver.ContractFixture;
import io.kurir.driver.DeviceRef;
import io.kurir.driver.DeviceState;
import io.kurir.driver.Driver;
import io.kurir.driver.DriverContract;
import io.kurir.driver.IncomingMessage;
import io.kurir.driver.ListeningDriverFactory;
import io.kurir.driver.Receipt;
import io.kurir.driver.SendOutcome;
import io.kurir.driver.sandbox.SandboxNetwork.FailureKind;
import io.kurir.testing.Eventually;
import io.kurir.testing.TestGateway;
import io.kurir.time.SettableClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The sandbox passes the driver contract: the simulated network is the reference the other drivers'
 * fakes are held to, and it can produce every case.
 */
class SandboxDriverContractTest extends DriverContract {

  @Override
  protected ContractFixture startNetwork(Path dir) {
    return new SandboxContractFixture(dir);
  }

  /** A gateway whose sandbox driver is on a network of this fixture's own. */
  static final class SandboxContractFixture extends ContractFixture {
    static final Duration DELIVERY_AFTER = Duration.ofSeconds(1);
    static final Duration READ_AFTER = Duration.ofSeconds(2);

    final SettableClock clock = TestGateway.settableClock();
    final SandboxNetwork sandbox = new SandboxNetwork(clock, DELIVERY_AFTER, READ_AFTER, false);
    final ListeningDriverFactory factory = listened(new SandboxDriverFactory(sandbox));
    final TestGateway kurir;
    private final Path dir;
    private final AtomicInteger groups = new AtomicInteger();

    SandboxContractFixture(Path dir) {
      this.dir = dir;
      this.kurir = TestGateway.start(dir, clock, factory);
    }

    @Override
    public Driver driver() {
      return factory.driver();
    }

    @Override
    public SettableClock clock() {
      return clock;
    }

    @Override
    public DeviceRef connectedDevice(String e164) {
      DeviceRef device = kurir.newDevice(e164, SandboxDriverFactory.NAME, Map.of()).ref();
      sandbox.pair(device.id(), device.number());
      Eventually.until("paired", () -> driver().isConnected(device));
      return device;
    }

    @Override
    public Expected provoke(DeviceRef device, String to, Trouble trouble) {
      switch (trouble) {
        case NOT_ON_NETWORK -> sandbox.setRegistered(to, false);
        case DEVICE_NOT_CONNECTED -> sandbox.setDeviceOnline(device.id(), false);
        case RATE_LIMITED -> sandbox.injectFailure(to, FailureKind.RATE_LIMITED, 1);
        case TRANSIENT_ERROR -> sandbox.injectFailure(to, FailureKind.FAIL, 1);
        case REFUSED -> sandbox.injectFailure(to, FailureKind.REFUSED, 1);
      }
      return Expected.as(
          switch (trouble) {
            case NOT_ON_NETWORK -> SendOutcome.NotFound.class;
            case DEVICE_NOT_CONNECTED -> SendOutcome.DeviceUnavailable.class;
            case RATE_LIMITED -> SendOutcome.RetryAfter.class;
            case TRANSIENT_ERROR -> SendOutcome.Failed.class;
            case REFUSED -> SendOutcome.Permanent.class;
          });
    }

    /** Every message the phones received, once each (a group's copies are one message). */
    @Override
    public List<String> textsReceived() {
      Map<String, String> byNetworkId = new LinkedHashMap<>();
      for (String phone : sandbox.phones()) {
        for (SandboxNetwork.InboxEntry e : sandbox.inbox(phone)) {
          byNetworkId.put(e.networkId(), e.text());
        }
      }
      return List.copyOf(byNetworkId.values());
    }

    @Override
    public Optional<String> receiptsOnItsOwn() {
      return Optional.of(
          "the sandbox reports delivered and read on its clock (drivers.sandbox.delivery-after,"
              + " read-after), in order, once each");
    }

    /** Moves the clock until the receipt is due: the sandbox reports it then. */
    @Override
    public void receipt(
        DeviceRef device, long messageId, String networkId, String to, Receipt.Status status) {
      switch (status) {
        case DELIVERED -> clock.advance(DELIVERY_AFTER);
        case READ -> clock.advance(READ_AFTER);
        case FAILED -> throw new UnsupportedOperationException("the sandbox fails no message late");
      }
    }

    @Override
    public Optional<String> noIncoming(IncomingKind kind) {
      return Optional.empty();
    }

    @Override
    public boolean incoming(
        DeviceRef device,
        IncomingKind kind,
        String networkId,
        String fromE164,
        Optional<String> groupId,
        String text,
        byte[] bytes) {
      Optional<IncomingMessage.Media> media =
          switch (kind) {
            case IMAGE -> Optional.of(media(networkId, "image", "image/png", ".png", bytes));
            case FILE -> Optional.of(media(networkId, "file", "application/pdf", ".pdf", bytes));
            case VIDEO -> Optional.of(media(networkId, "video", "video/mp4", ".mp4", bytes));
            case AUDIO -> Optional.of(media(networkId, "audio", "audio/ogg", ".ogg", bytes));
            case STICKER -> Optional.of(media(networkId, "sticker", "image/webp", ".webp", bytes));
            default -> Optional.empty();
          };
      // The sandbox's simulated phones write Kurir's content as it is: each kind's object.
      Optional<MessageContent> content =
          switch (kind) {
            case LOCATION ->
                Optional.of(
                    MessageContent.of(
                        new Content.Location(
                            ContractFixture.LATITUDE,
                            ContractFixture.LONGITUDE,
                            ContractFixture.PLACE,
                            ContractFixture.ADDRESS)));
            case CONTACTS -> {
              var cards = new com.fasterxml.jackson.databind.ObjectMapper().createArrayNode();
              cards.add(io.kurir.content.VCards.card(ContractFixture.VCARD));
              yield Optional.of(MessageContent.of(new Content.Contacts(cards)));
            }
            case REACTION ->
                Optional.of(
                    MessageContent.of(
                        new Content.Reaction(ContractFixture.QUOTED_ID, ContractFixture.EMOJI)));
            case REPLY ->
                Optional.of(
                    new MessageContent(
                        new Content.Text(text, false),
                        Optional.of(ContractFixture.QUOTED_ID),
                        List.of()));
            default -> Optional.empty();
          };
      try {
        IncomingMessage in =
            new IncomingMessage(
                device.id(),
                Optional.of(networkId),
                fromE164,
                groupId,
                content.map(c -> c.content().summary()).orElse(text),
                media,
                clock.instant());
        return sandbox.injectIncoming(content.map(in::withContent).orElse(in));
      } catch (RuntimeException notStored) {
        return false;
      }
    }

    /** A received file, kept as a network's driver keeps one. */
    private IncomingMessage.Media media(
        String networkId, String kind, String mime, String extension, byte[] bytes) {
      try {
        Path file = dir.resolve("received").resolve(networkId + extension);
        Files.createDirectories(file.getParent());
        Files.write(file, bytes);
        return new IncomingMessage.Media(kind, mime, file);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** The sandbox names hidden senders either way, as WAHA (LID) and the Cloud API (BSUID) do. */
    @Override
    public Optional<String> noHiddenSenders(ContactId.Kind kind) {
      return Optional.empty();
    }

    @Override
    public ContactId hiddenId(ContactId.Kind kind, String e164) {
      return kind == ContactId.Kind.LID ? SandboxNetwork.lidOf(e164) : SandboxNetwork.bsuidOf(e164);
    }

    /**
     * {@link SandboxNetwork#injectHiddenIncoming} for a direct message (the sandbox makes its own
     * id); in a group, the member's message as the network hands it over, named by the id.
     */
    @Override
    public boolean hiddenIncoming(
        DeviceRef device,
        ContactId.Kind kind,
        String networkId,
        String e164,
        boolean phoneKnown,
        Optional<String> groupId,
        String text) {
      try {
        if (groupId.isEmpty()) {
          return sandbox.injectHiddenIncoming(
              device.id(),
              e164,
              kind == ContactId.Kind.LID
                  ? SandboxNetwork.HiddenAs.LID
                  : SandboxNetwork.HiddenAs.BSUID,
              phoneKnown,
              text);
        }
        return sandbox.injectIncoming(
            new IncomingMessage(
                device.id(),
                Optional.of(networkId),
                phoneKnown ? e164 : "",
                groupId,
                text,
                Optional.empty(),
                clock.instant(),
                Optional.empty(),
                Optional.of(hiddenId(kind, e164))));
      } catch (RuntimeException notStored) {
        return false;
      }
    }

    @Override
    public void notOnNetwork(String e164) {
      sandbox.setRegistered(e164, false);
    }

    @Override
    public Optional<String> noNumberLookup() {
      return Optional.empty();
    }

    @Override
    public Optional<String> noGroups() {
      return Optional.empty();
    }

    @Override
    public String group(String name, List<String> membersE164) {
      String id =
          membersE164.getFirst().substring(1) + "-" + (1_700_000_000 + groups.incrementAndGet());
      sandbox.createGroup(id, name, membersE164);
      return id;
    }

    @Override
    public List<SessionChange> sessionChanges(DeviceRef device) {
      return List.of(
          new SessionChange(
              "the phone goes offline",
              d -> sandbox.setDeviceOnline(d.id(), false),
              DeviceState.OFFLINE,
              false),
          new SessionChange(
              "the phone is back",
              d -> sandbox.setDeviceOnline(d.id(), true),
              DeviceState.ONLINE,
              true),
          new SessionChange(
              "another session takes the number over",
              d -> sandbox.takeOver(d.id()),
              DeviceState.REFRESH_IT,
              false),
          new SessionChange(
              "the phone links it again",
              d -> sandbox.pair(d.id(), d.number()),
              DeviceState.ONLINE,
              true),
          new SessionChange(
              "the operator logs it out", d -> driver().logout(d), DeviceState.NONE, false),
          new SessionChange(
              "the phone scans its code",
              d -> sandbox.scan(driver().pairingCode(d).orElseThrow()),
              DeviceState.ONLINE,
              true));
    }

    @Override
    public List<AttachTrouble> attachTroubles() {
      return List.of(
          AttachTrouble.absent(
              "the network not reached",
              "the sandbox network runs in the gateway's process: it is always reached"),
          AttachTrouble.absent(
              "a credential refused",
              "the sandbox takes no credential: a device is linked by scanning its code (the"
                  + " session case)"));
    }

    @Override
    public String restarts() {
      return "the gateway, on the same network (the sandbox has no engine of its own to restart)";
    }

    @Override
    public void restart() {
      kurir.restart();
    }

    @Override
    public void close() {
      try {
        kurir.close();
      } finally {
        sandbox.close();
      }
    }
  }
}
