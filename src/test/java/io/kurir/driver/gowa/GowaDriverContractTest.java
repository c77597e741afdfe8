package io.kurir.driver.gowa;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.ContactId;
import io.kurir.driver.ContractFixture;
import io.kurir.driver.DeviceRef;
import io.kurir.driver.DeviceState;
import io.kurir.driver.Driver;
import io.kurir.driver.DriverContract;
import io.kurir.driver.EngineContractFixture;
import io.kurir.driver.ListeningDriverFactory;
import io.kurir.driver.Receipt;
import io.kurir.driver.SendOutcome;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGowa;
import io.kurir.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The GOWA driver passes the driver contract against {@link FakeGowa}. GOWA has no receipt for a
 * message that failed after WhatsApp took it, and a phone's receipts come in order, once each: the
 * fixture says so ({@link #receiptsOnItsOwn}), and the suite checks that instead.
 */
class GowaDriverContractTest extends DriverContract {

  @Override
  protected ContractFixture startNetwork(Path dir) {
    return new GowaContractFixture(dir);
  }

  /** A {@link GowaFixture} whose gowa driver reports to the suite. */
  static final class GowaContractFixture extends EngineContractFixture {
    final ListeningDriverFactory factory = listened(new GowaDriverFactory());
    final GowaFixture f;
    private final AtomicInteger groups = new AtomicInteger();
    // What the phone has acknowledged of each message, so that each receipt comes once, in order.
    private final Map<String, Set<Receipt.Status>> acknowledged = new ConcurrentHashMap<>();

    GowaContractFixture(Path dir) {
      super("GOWA's whatsmeow");
      // The suite sends to hundreds of numbers at once; the pace of number checks (20 a minute by
      // default) has its own test, GowaSendTest.numberChecksArePacedPerDevice.
      f = new GowaFixture(dir, factory, "--drivers.gowa.number-checks-per-minute=100000");
    }

    @Override
    public Driver driver() {
      return factory.driver();
    }

    @Override
    public SettableClock clock() {
      return f.clock;
    }

    /** Made (the gateway attaches it: a GOWA device), then linked by its QR code. */
    @Override
    public DeviceRef connectedDevice(String e164) {
      DeviceRef device = f.newDevice(e164).ref();
      assertThat(driver().pairingCode(device)).isPresent();
      f.gowa.scan(slot(device), digits(e164));
      Eventually.until("connected", () -> driver().state(device) == DeviceState.ONLINE);
      return device;
    }

    @Override
    public Expected provoke(DeviceRef device, String to, Trouble trouble) {
      return switch (trouble) {
        case NOT_ON_NETWORK -> {
          f.gowa.notOnWhatsApp(digits(to));
          yield Expected.as(SendOutcome.NotFound.class);
        }
        case DEVICE_NOT_CONNECTED -> {
          f.gowa.cutOff(slot(device));
          yield Expected.as(SendOutcome.DeviceUnavailable.class);
        }
        case RATE_LIMITED -> {
          // A limit of the whole device: GOWA's 503 (or a 429 other than the reach-out lock), as
          // a proxy in front of it answers. WhatsApp's reach-out time lock (429
          // WA_REACHOUT_TIMELOCK) holds only the sends to new contacts, each on its own
          // (Deferred): GowaHeldSendsTest.
          f.gowa.refuseNextSend(
              slot(device), 503, "SERVICE_UNAVAILABLE", "Service Temporarily Unavailable");
          yield Expected.as(SendOutcome.RetryAfter.class);
        }
        case TRANSIENT_ERROR -> {
          f.gowa.refuseNextSend(
              slot(device),
              504,
              "GATEWAY_TIMEOUT",
              "Request timed out waiting for WhatsApp server response");
          yield Expected.as(SendOutcome.Failed.class);
        }
        case REFUSED -> {
          f.gowa.refuseNextSend(slot(device), 400, "VALIDATION_ERROR", "message: too long");
          yield Expected.as(SendOutcome.Permanent.class);
        }
      };
    }

    @Override
    public List<String> textsReceived() {
      return f.gowa.textsSent();
    }

    @Override
    public Optional<String> receiptsOnItsOwn() {
      return Optional.of(
          "GOWA forwards the phone's delivered and read receipts (message.ack), each once and in"
              + " order, and has no receipt for a message that failed after WhatsApp took it");
    }

    /**
     * The phone's receipts up to {@code status}: a read is preceded by its delivered, and what was
     * acknowledged once is not acknowledged again.
     */
    @Override
    public void receipt(
        DeviceRef device, long messageId, String networkId, String to, Receipt.Status status) {
      Set<Receipt.Status> done =
          acknowledged.computeIfAbsent(networkId, id -> ConcurrentHashMap.newKeySet());
      List<Receipt.Status> due =
          status == Receipt.Status.READ
              ? List.of(Receipt.Status.DELIVERED, Receipt.Status.READ)
              : List.of(status);
      for (Receipt.Status s : due) {
        if (s != Receipt.Status.FAILED && done.add(s)) {
          String type = s == Receipt.Status.READ ? "read" : "delivered";
          assertThat(f.gowa.ack(slot(device), type, networkId)).as("the ack taken").isEqualTo(200);
        }
      }
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
      String slot = slot(device);
      String from = digits(fromE164);
      int answered =
          switch (kind) {
            case TEXT -> f.gowa.incoming(slot, networkId, from, text);
            case IMAGE -> f.gowa.incomingMedia(slot, networkId, from, "image", text, "png", bytes);
            case FILE ->
                f.gowa.incomingMedia(slot, networkId, from, "document", text, "pdf", bytes);
            case GROUP_TEXT ->
                f.gowa.incomingInGroup(slot, networkId, groupId.orElseThrow(), from, text);
            case LOCATION ->
                f.gowa.incomingLocation(
                    slot,
                    networkId,
                    from,
                    ContractFixture.LATITUDE,
                    ContractFixture.LONGITUDE,
                    ContractFixture.PLACE,
                    ContractFixture.ADDRESS);
            case CONTACTS ->
                f.gowa.incomingContacts(
                    slot,
                    networkId,
                    from,
                    ContractFixture.CARD_NAME,
                    ContractFixture.VCARD,
                    ContractFixture.CARD_PHONE);
            case REACTION ->
                f.gowa.incomingReaction(
                    slot, networkId, from, ContractFixture.EMOJI, ContractFixture.QUOTED_ID);
            case VIDEO -> f.gowa.incomingMedia(slot, networkId, from, "video", text, "mp4", bytes);
            case AUDIO -> f.gowa.incomingMedia(slot, networkId, from, "audio", "", "ogg", bytes);
            case STICKER ->
                f.gowa.incomingMedia(slot, networkId, from, "sticker", "", "webp", bytes);
            case REPLY ->
                f.gowa.incomingReply(slot, networkId, from, text, ContractFixture.QUOTED_ID);
          };
      return answered == 200;
    }

    /**
     * {@code from_lid} is the LID; {@code from} the phone when GOWA resolved it, else the LID
     * itself; in a group, {@code chat_id} is the group.
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
      String lid = hiddenId(kind, e164).value();
      String phone = phoneKnown ? digits(e164) : null;
      int answered =
          groupId.isPresent()
              ? f.gowa.incomingInGroupFromLid(
                  slot(device), networkId, groupId.get(), lid, phone, text)
              : f.gowa.incomingFromLid(slot(device), networkId, lid, phone, text);
      return answered == 200;
    }

    /**
     * GOWA down when a device is made: the driver reports it port_down and sets it up once GOWA
     * answers. The Basic credentials are the driver's setting ({@code drivers.gowa.basic-auth}),
     * not a device's.
     */
    @Override
    public List<AttachTrouble> attachTroubles() {
      return List.of(
          AttachTrouble.of(
              "GOWA not reached",
              e164 -> {
                f.gowa.down();
                // Made as an operator makes one; its slot on GOWA comes once GOWA is back.
                return f.kurir.newDevice(e164, "gowa", Map.of()).ref();
              },
              DeviceState.PORT_DOWN,
              d -> {
                f.gowa.up();
                f.clock.advance(GowaDriver.RETRY_MAX); // the driver's next try of GOWA
                Eventually.until("slot on GOWA", () -> f.gowa.slot(slot(d)) != null);
                assertThat(driver().pairingCode(d)).isPresent();
                f.gowa.scan(slot(d), digits(d.number()));
                Eventually.until("logged in", () -> driver().state(d) == DeviceState.ONLINE);
                f.clock.advance(Duration.ofSeconds(30)); // the driver's probe sees it
              }),
          AttachTrouble.absent(
              "a credential refused",
              "GOWA's Basic credentials are a setting of the driver, not of a device: refused,"
                  + " they fail every device alike"));
    }

    @Override
    public void notOnNetwork(String e164) {
      f.gowa.notOnWhatsApp(digits(e164));
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
      String id = "12036340" + (4_000_000 + groups.incrementAndGet()) + "@g.us";
      f.gowa.group(
          id,
          name,
          membersE164.stream()
              .map(m -> new FakeGowa.Member(digits(m), null))
              .toArray(FakeGowa.Member[]::new));
      return id;
    }

    /**
     * GOWA tells none of these by webhook: the driver's health probe sees each, once the gateway's
     * clock reaches it.
     */
    @Override
    public List<SessionChange> sessionChanges(DeviceRef device) {
      String slot = slot(device);
      Duration probe = Duration.ofSeconds(30);
      return List.of(
          new SessionChange(
              "the device loses its connection to WhatsApp",
              d -> {
                f.gowa.cutOff(slot);
                f.clock.advance(probe);
              },
              DeviceState.OFFLINE,
              false),
          new SessionChange(
              "the connection is back",
              d -> {
                f.gowa.connectionBack(slot);
                f.clock.advance(probe);
              },
              DeviceState.ONLINE,
              true),
          new SessionChange(
              "the phone removes the linked device",
              d -> {
                f.gowa.loggedOutFromPhone(slot);
                f.clock.advance(probe);
              },
              DeviceState.NONE,
              false),
          new SessionChange(
              "the phone scans a new QR code",
              d -> {
                assertThat(driver().pairingCode(d)).isPresent();
                f.gowa.scan(slot, digits(d.number()));
                f.clock.advance(probe);
              },
              DeviceState.ONLINE,
              true));
    }

    @Override
    public String restarts() {
      return "GOWA: its port refuses connections, then it is back with its store and its devices"
          + " log in again";
    }

    @Override
    public void restart() {
      f.gowa.down();
      awaitEngineSeenGone();
      f.gowa.up();
      f.clock.advance(GowaDriver.RETRY_MAX); // the driver's next try of GOWA is due
    }

    @Override
    public void close() {
      f.close();
    }

    private static String slot(DeviceRef device) {
      return "kurir-" + device.id();
    }
  }
}
