package io.kurir.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.content.CloudMessageJson;
import io.kurir.content.Content;
import io.kurir.content.MessageContent;
import io.kurir.content.MessageKind;
import io.kurir.driver.ContractFixture.Expected;
import io.kurir.driver.ContractFixture.IncomingKind;
import io.kurir.driver.ContractFixture.SessionChange;
import io.kurir.driver.ContractFixture.Trouble;
import io.kurir.testing.Eventually;
import io.kurir.testing.MessageObjects;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the {@link Driver} interface promises, checked against every driver, as every JobRunr
 * storage passes one {@code StorageProviderTest}: the gate for a new driver, described in
 * docs/drivers/contract.md. A driver's test extends it with a {@link ContractFixture} that starts a
 * gateway with the driver and the fake of its network. The suite calls the driver directly (attach,
 * send, checkNumber, state, groups) and reads what it reported to a {@link RecordingListener}, not
 * what the core or an API family made of it.
 *
 * <p>A case a network cannot produce is declared by its fixture, with the reason, and the suite
 * then checks the driver's answer to it instead: no case is skipped.
 */
public abstract class DriverContract {
  private static final Logger log = LoggerFactory.getLogger(DriverContract.class);
  private static final java.nio.charset.Charset ISO = java.nio.charset.StandardCharsets.ISO_8859_1;

  /** A tiny PNG, for incoming images. */
  static final byte[] PNG =
      Base64.getDecoder()
          .decode(
              "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==");

  static final byte[] PDF =
      "%PDF-1.4 kurir contract".getBytes(java.nio.charset.StandardCharsets.UTF_8);

  /** The device numbers and recipients of the cases: valid Indonesian mobile numbers. */
  /** An MP4 (an {@code ftyp} box), a voice note (Ogg) and a sticker (WebP), for incoming files. */
  static final byte[] MP4 = "\0\0\0\u0018ftypisom-contract".getBytes(ISO);

  static final byte[] OGG = "OggS-contract".getBytes(ISO);
  static final byte[] WEBP = "RIFF\0\0\0\0WEBPVP8 contract".getBytes(ISO);

  static final String DEVICE = "+6281100007701";

  static final String TO = "+6281100007711";

  static final String OTHER = "+6281100007719";

  /**
   * Every number the suite sends to (and the fixtures' own sends go to {@link #FIXTURE_CUSTOMER}):
   * a fixture whose network sends free-form messages only to a person who wrote first (the Cloud
   * API's 24-hour window) has these write to each device it makes, as a real business's customers
   * do.
   */
  public static final List<String> CUSTOMERS = customers();

  /** The recipient of sends a fixture makes itself (to find a refused token, say). */
  public static final String FIXTURE_CUSTOMER = "+6281100007718";

  private static List<String> customers() {
    List<String> all = new ArrayList<>(List.of(TO, OTHER, FIXTURE_CUSTOMER));
    for (int i = 0; i < 3; i++) {
      all.add("+628110000772" + i); // aSendAnswersSentWithTheNetworksOwnId
    }
    for (int i = 0; i < 10; i++) {
      all.add("+62811000078" + i); // sendsFromManyThreadsEachHaveOneOutcome
    }
    return List.copyOf(all);
  }

  @TempDir protected Path dir;

  protected ContractFixture network;

  // Kurir's message ids: unique within a test, as the core's are.
  private final AtomicLong ids = new AtomicLong(7_700_000_000L);

  /** Starts the gateway with the driver under test and the fake of its network. */
  protected abstract ContractFixture startNetwork(Path dir);

  @BeforeEach
  void startTheNetwork() {
    network = startNetwork(dir);
  }

  @AfterEach
  void stopTheNetwork() {
    if (network != null) {
      network.close();
    }
  }

  // --- attach and detach

  @Test
  void attachAndDetachAreIdempotentInAnyOrder() {
    DeviceRef device = network.connectedDevice(DEVICE);
    Driver driver = network.driver();
    int statesBefore = network.events().states(device.id()).size();
    int connectionsBefore = network.events().connections(device.id()).size();
    driver.attach(device);
    driver.attach(device);
    driver.detach(device);
    driver.detach(device);
    driver.attach(device);
    driver.detach(device);
    driver.attach(device);
    // A device this gateway never attached, that no network knows.
    DeviceRef stranger = new DeviceRef(device.id() + 1_000_000, "+6281100007799", driver.name());
    driver.detach(stranger);
    driver.detach(stranger);

    Eventually.until("connected after attach again", () -> driver.isConnected(device));
    // Attaching a connected device again leaves its session as it is: never reported down.
    assertThat(network.events().states(device.id()).stream().skip(statesBefore))
        .allMatch(s -> s.state() == DeviceState.ONLINE);
    assertThat(network.events().connections(device.id()).stream().skip(connectionsBefore))
        .allMatch(RecordingListener.Connection::connected);
    assertThat(sendSettled(device, text(TO, "after attach and detach")))
        .isInstanceOf(SendOutcome.Sent.class);
    assertThat(network.textsReceived()).containsOnlyOnce("after attach and detach");
  }

  // --- each outcome class

  @Test
  void aSendAnswersSentWithTheNetworksOwnId() {
    DeviceRef device = network.connectedDevice(DEVICE);
    Set<String> networkIds = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      SendOutcome outcome = sendSettled(device, text("+628110000772" + i, "hello " + i));
      assertThat(outcome).isInstanceOf(SendOutcome.Sent.class);
      networkIds.add(networkIdOf(outcome).orElseThrow());
    }
    assertThat(networkIds).as("one network id per message").hasSize(3);
    assertThat(network.textsReceived()).contains("hello 0", "hello 1", "hello 2");
  }

  @Test
  void aRecipientNotOnTheNetworkAnswersNotFound() {
    checkTrouble(Trouble.NOT_ON_NETWORK, SendOutcome.NotFound.class);
  }

  @Test
  void aDeviceNotConnectedAnswersDeviceUnavailableAndSendsNothing() {
    SendOutcome outcome =
        checkTrouble(Trouble.DEVICE_NOT_CONNECTED, SendOutcome.DeviceUnavailable.class);
    if (outcome instanceof SendOutcome.DeviceUnavailable) {
      assertThat(network.textsReceived()).doesNotContain("trouble DEVICE_NOT_CONNECTED");
    }
  }

  @Test
  void theNetworksRateLimitAnswersRetryAfter() {
    SendOutcome outcome = checkTrouble(Trouble.RATE_LIMITED, SendOutcome.RetryAfter.class);
    if (outcome instanceof SendOutcome.RetryAfter later) {
      assertThat(later.after()).isPositive();
    }
  }

  @Test
  void aTransientErrorAnswersFailed() {
    checkTrouble(Trouble.TRANSIENT_ERROR, SendOutcome.Failed.class);
  }

  @Test
  void aRefusedMessageAnswersPermanentWithAReason() {
    SendOutcome outcome = checkTrouble(Trouble.REFUSED, SendOutcome.Permanent.class);
    if (outcome instanceof SendOutcome.Permanent p) {
      assertThat(p.reason()).matches("[a-z_]+");
    }
  }

  /**
   * Provokes {@code trouble} and checks the driver's answer: {@code promised}, or what the fixture
   * declares it answers instead (a gap, named). After the trouble, the next send goes (except for a
   * device left not connected).
   */
  private SendOutcome checkTrouble(Trouble trouble, Class<? extends SendOutcome> promised) {
    DeviceRef device = network.connectedDevice(DEVICE);
    Expected expected = network.provoke(device, TO, trouble);
    expected
        .why()
        .ifPresentOrElse(
            why ->
                log.info(
                    "{} driver, {}: answers {} instead of {}: {}",
                    network.driver().name(),
                    trouble,
                    expected.outcome().getSimpleName(),
                    promised.getSimpleName(),
                    why),
            () -> assertThat(expected.outcome()).isEqualTo(promised));
    SendOutcome outcome = sendSettled(device, text(TO, "trouble " + trouble));
    assertThat(outcome).as(trouble.toString()).isInstanceOf(expected.outcome());
    if (trouble != Trouble.DEVICE_NOT_CONNECTED) {
      assertThat(sendSettled(device, text(OTHER, "after " + trouble)))
          .as("the send after the trouble")
          .isInstanceOf(SendOutcome.Sent.class);
    }
    return outcome;
  }

  // --- receipts

  @Test
  void receiptsNameTheMessageByTheSendsNetworkId() {
    DeviceRef device = network.connectedDevice(DEVICE);
    OutgoingMessage m = text(TO, "with receipts");
    String networkId = networkIdOf(sendSettled(device, m)).orElseThrow();
    network.receipt(device, m.id(), networkId, TO, Receipt.Status.DELIVERED);
    network.receipt(device, m.id(), networkId, TO, Receipt.Status.READ);
    Eventually.until(
        "delivered and read",
        () ->
            statuses(device, networkId)
                .containsAll(List.of(Receipt.Status.DELIVERED, Receipt.Status.READ)));
    for (Receipt r : network.events().receiptsOf(device.id(), networkId)) {
      assertThat(r.messageId())
          .as("Kurir's id, when the driver names it")
          .isIn(Optional.empty(), Optional.of(m.id()));
    }
    assertThat(network.events().receipts(device.id()))
        .as("every receipt of the device names this message")
        .allMatch(
            r ->
                r.networkId().equals(Optional.of(networkId))
                    || r.messageId().equals(Optional.of(m.id())));
  }

  @Test
  void receiptsOutOfOrderOrRepeatedAreEachPassedOn() {
    DeviceRef device = network.connectedDevice(DEVICE);
    OutgoingMessage m = text(TO, "receipts in any order");
    String networkId = networkIdOf(sendSettled(device, m)).orElseThrow();
    Optional<String> onItsOwn = network.receiptsOnItsOwn();
    if (onItsOwn.isPresent()) {
      // Checked instead: the network's own receipts come in order, each once.
      log.info(
          "{} driver: receipts come on their own: {}", network.driver().name(), onItsOwn.get());
      network.receipt(device, m.id(), networkId, TO, Receipt.Status.READ);
      Eventually.until("read", () -> statuses(device, networkId).contains(Receipt.Status.READ));
      network.clock().advance(Duration.ofMinutes(1));
      network.receipt(device, m.id(), networkId, TO, Receipt.Status.READ);
      assertThat(statuses(device, networkId))
          .containsExactly(Receipt.Status.DELIVERED, Receipt.Status.READ);
      return;
    }
    List<Receipt.Status> sent =
        List.of(
            Receipt.Status.READ,
            Receipt.Status.DELIVERED,
            Receipt.Status.DELIVERED,
            Receipt.Status.READ);
    for (Receipt.Status s : sent) {
      network.receipt(device, m.id(), networkId, TO, s);
    }
    // Passed on as they came, each keyed by the network's id: the core moves a message forward
    // only, so a late "delivered" or a second "read" changes nothing there.
    Eventually.until("all four", () -> statuses(device, networkId).size() >= sent.size());
    assertThat(statuses(device, networkId)).containsExactlyInAnyOrderElementsOf(sent);
  }

  @Test
  void aMessageFailedAfterItWentOutHasAFailedReceiptWithAReason() {
    DeviceRef device = network.connectedDevice(DEVICE);
    OutgoingMessage m = text(TO, "fails late");
    String networkId = networkIdOf(sendSettled(device, m)).orElseThrow();
    Optional<String> onItsOwn = network.receiptsOnItsOwn();
    if (onItsOwn.isPresent()) {
      // Checked instead: a network that fails nothing late reports delivered and read only.
      network.receipt(device, m.id(), networkId, TO, Receipt.Status.READ);
      Eventually.until("read", () -> statuses(device, networkId).contains(Receipt.Status.READ));
      assertThat(statuses(device, networkId)).doesNotContain(Receipt.Status.FAILED);
      return;
    }
    network.receipt(device, m.id(), networkId, TO, Receipt.Status.FAILED);
    Eventually.until("failed", () -> statuses(device, networkId).contains(Receipt.Status.FAILED));
    Receipt failed =
        network.events().receiptsOf(device.id(), networkId).stream()
            .filter(r -> r.status() == Receipt.Status.FAILED)
            .findFirst()
            .orElseThrow();
    assertThat(failed.reason().orElse("")).as("why it failed").matches("[a-z_]+");
  }

  @Test
  void aReceiptBeforeTheSendsOutcomeNamesTheSameNetworkId() {
    DeviceRef device = network.connectedDevice(DEVICE);
    OutgoingMessage m = text(TO, "receipt first");
    SendOutcome answer = network.driver().send(device, m);
    String networkId = networkIdOf(answer).orElseThrow();
    // Before the network confirmed the send (Accepted), or before the core recorded it (Sent).
    network.receipt(device, m.id(), networkId, TO, Receipt.Status.DELIVERED);
    Eventually.until(
        "delivered", () -> statuses(device, networkId).contains(Receipt.Status.DELIVERED));
    if (answer instanceof SendOutcome.Accepted) {
      // A "delivered" says it went out: the driver tells the outcome with it, by the same id.
      Eventually.until(
          "the outcome told with the receipt",
          () -> !network.events().outcomes(device.id(), m.id()).isEmpty());
      SendOutcome later = network.events().outcomes(device.id(), m.id()).getFirst().outcome();
      assertThat(later).isInstanceOf(SendOutcome.Sent.class);
      assertThat(networkIdOf(later)).contains(networkId);
      // The network's own confirmation comes after all (statuses out of order, then a read): a
      // driver that keeps no state per message may tell the outcome again with each, but it is
      // always the same one, by the same id (the core keeps the first).
      network.confirm(device, m.id(), networkId, TO);
      network.receipt(device, m.id(), networkId, TO, Receipt.Status.READ);
      Eventually.until("read", () -> statuses(device, networkId).contains(Receipt.Status.READ));
      assertThat(network.events().outcomes(device.id(), m.id()))
          .as("the same outcome each time")
          .allSatisfy(
              o -> {
                assertThat(o.outcome()).isInstanceOf(SendOutcome.Sent.class);
                assertThat(networkIdOf(o.outcome())).contains(networkId);
              });
    }
  }

  // --- incoming messages

  @Test
  void incomingTextIsPassedOnAndItsRedeliveryNamesTheSameId() {
    checkIncoming(IncomingKind.TEXT);
  }

  @Test
  void incomingImageIsPassedOnWithItsFile() {
    checkIncoming(IncomingKind.IMAGE);
  }

  @Test
  void incomingFileIsPassedOnWithItsFile() {
    checkIncoming(IncomingKind.FILE);
  }

  @Test
  void incomingGroupTextNamesTheGroupAndTheMember() {
    checkIncoming(IncomingKind.GROUP_TEXT);
  }

  /**
   * Every kind beyond a text and a file that the network brings in is passed on with its content in
   * the Cloud API's terms (what the core stores): a location, a contact card, a reaction, a video,
   * an audio, a sticker with their files, a reply naming the message it quotes. A kind the network
   * has no such message of is declared by the fixture ({@link ContractFixture#noIncoming}).
   */
  @Test
  void incomingKindsArePassedOnWithTheirContent() {
    DeviceRef device = network.connectedDevice(DEVICE);
    for (IncomingKind kind :
        List.of(
            IncomingKind.LOCATION,
            IncomingKind.CONTACTS,
            IncomingKind.REACTION,
            IncomingKind.VIDEO,
            IncomingKind.AUDIO,
            IncomingKind.STICKER,
            IncomingKind.REPLY)) {
      Optional<String> none = network.noIncoming(kind);
      if (none.isPresent()) {
        log.info("{} driver: no incoming {}: {}", network.driver().name(), kind, none.get());
        assertThat(none.get()).isNotBlank();
        continue;
      }
      byte[] bytes =
          switch (kind) {
            case VIDEO -> MP4;
            case AUDIO -> OGG;
            case STICKER -> WEBP;
            default -> new byte[0];
          };
      String text = kind == IncomingKind.VIDEO || kind == IncomingKind.REPLY ? "about " + kind : "";
      int before = network.events().incoming(device.id()).size();
      String networkId = "in-" + kind.name().toLowerCase(java.util.Locale.ROOT);
      assertThat(network.incoming(device, kind, networkId, TO, Optional.empty(), text, bytes))
          .as("acknowledged " + kind)
          .isTrue();
      Eventually.until(
          "incoming " + kind + " passed on",
          () -> network.events().incoming(device.id()).size() > before);
      IncomingMessage in = network.events().incoming(device.id()).get(before);
      assertThat(in.senderE164()).isEqualTo(TO);
      MessageContent content = in.asContent();
      switch (kind) {
        case LOCATION -> {
          Content.Location l = (Content.Location) content.content();
          assertThat(l.latitude()).isEqualTo(ContractFixture.LATITUDE);
          assertThat(l.longitude()).isEqualTo(ContractFixture.LONGITUDE);
          assertThat(l.name()).isEqualTo(ContractFixture.PLACE);
          assertThat(l.address()).isEqualTo(ContractFixture.ADDRESS);
        }
        case CONTACTS -> {
          Content.Contacts c = (Content.Contacts) content.content();
          assertThat(c.names()).containsExactly(ContractFixture.CARD_NAME);
          assertThat(Content.Contacts.phones(c.cards().get(0)))
              .containsExactly(ContractFixture.CARD_PHONE);
        }
        case REACTION -> {
          Content.Reaction r = (Content.Reaction) content.content();
          assertThat(r.messageId()).isEqualTo(ContractFixture.QUOTED_ID);
          assertThat(r.emoji()).isEqualTo(ContractFixture.EMOJI);
        }
        case VIDEO, AUDIO, STICKER -> {
          assertThat(content.kind().wireName())
              .isEqualTo(kind.name().toLowerCase(java.util.Locale.ROOT));
          IncomingMessage.Media media = in.media().orElseThrow();
          assertThat(readBytes(media.path())).as("the " + kind + " as sent").isEqualTo(bytes);
          if (kind == IncomingKind.VIDEO) {
            assertThat(((Content.Video) content.content()).caption()).isEqualTo(text);
          }
        }
        case REPLY -> {
          assertThat(((Content.Text) content.content()).body()).isEqualTo(text);
          assertThat(content.replyTo()).contains(ContractFixture.QUOTED_ID);
        }
        default -> throw new AssertionError(kind);
      }
    }
  }

  @Test
  void anIncomingMessageNotStoredIsNotAcknowledged() {
    DeviceRef device = network.connectedDevice(DEVICE);
    // Messages the fixture had customers write (to open a window) came before this case.
    int before = network.events().incoming(device.id()).size();
    network.events().refuseIncoming(1);
    assertThat(
            network.incoming(
                device,
                IncomingKind.TEXT,
                "in-refused",
                TO,
                Optional.empty(),
                "not stored",
                new byte[0]))
        .as("acknowledged to the network although not stored")
        .isFalse();
    assertThat(network.events().refusedIncoming()).isEqualTo(1);
    assertThat(
            network.incoming(
                device,
                IncomingKind.TEXT,
                "in-refused",
                TO,
                Optional.empty(),
                "not stored",
                new byte[0]))
        .as("the redelivery, stored")
        .isTrue();
    assertThat(texts(network.events().incoming(device.id()).stream().skip(before).toList()))
        .containsExactly("not stored");
  }

  private void checkIncoming(IncomingKind kind) {
    DeviceRef device = network.connectedDevice(DEVICE);
    Optional<String> none = network.noIncoming(kind);
    if (none.isPresent()) {
      // Checked instead by the groups case (a network without groups) or declared as a gap.
      log.info("{} driver: no incoming {}: {}", network.driver().name(), kind, none.get());
      assertThat(none.get()).isNotBlank();
      return;
    }
    Optional<String> group =
        kind == IncomingKind.GROUP_TEXT
            ? Optional.of(network.group("Keluarga", List.of(DEVICE, TO, "+6281100007712")))
            : Optional.empty();
    byte[] bytes = kind == IncomingKind.IMAGE ? PNG : kind == IncomingKind.FILE ? PDF : new byte[0];
    String text = "incoming " + kind;
    // Messages the fixture had customers write (to open a window) came before this case.
    int before = network.events().incoming(device.id()).size();
    String networkId = "in-" + kind.name().toLowerCase(java.util.Locale.ROOT);
    assertThat(network.incoming(device, kind, networkId, TO, group, text, bytes))
        .as("acknowledged")
        .isTrue();
    Eventually.until(
        "passed on", () -> texts(network.events().incoming(device.id())).contains(text));
    IncomingMessage in = only(device, text);
    assertThat(in.deviceId()).isEqualTo(device.id());
    assertThat(in.networkId()).as("the network's id, for redeliveries").isPresent();
    assertThat(in.senderE164()).isEqualTo(TO);
    assertThat(in.senderAddress()).isEqualTo(TO);
    assertThat(in.groupId()).isEqualTo(group);
    switch (kind) {
      case IMAGE, FILE -> {
        IncomingMessage.Media media = in.media().orElseThrow();
        assertThat(media.kind()).isEqualTo(kind == IncomingKind.IMAGE ? "image" : "file");
        assertThat(media.mimeType())
            .isEqualTo(kind == IncomingKind.IMAGE ? "image/png" : "application/pdf");
        assertThat(readBytes(media.path())).as("the file as sent").isEqualTo(bytes);
      }
      default -> assertThat(in.media()).isEmpty();
    }

    // The network delivers it again (it did not see the acknowledgement): the same id, so the core
    // drops it.
    assertThat(network.incoming(device, kind, networkId, TO, group, text, bytes)).isTrue();
    Eventually.until(
        "the redelivery passed on",
        () -> network.events().incoming(device.id(), in.networkId().orElseThrow()).size() == 2);
    assertThat(network.events().incoming(device.id()).stream().skip(before))
        .as("nothing else")
        .allMatch(m -> m.networkId().equals(in.networkId()));
  }

  // --- senders known only by a network id (a WAHA LID, a Meta BSUID)

  @Test
  void anIncomingMessageFromASenderKnownOnlyByALidIsPassedOnAndAnswerable() {
    checkHiddenSender(ContactId.Kind.LID);
  }

  @Test
  void anIncomingMessageFromASenderKnownOnlyByABsuidIsPassedOnAndAnswerable() {
    checkHiddenSender(ContactId.Kind.BSUID);
  }

  @Test
  void aGroupMemberKnownOnlyByALidIsNamedByIt() {
    DeviceRef device = network.connectedDevice(DEVICE);
    Optional<String> none =
        network
            .noGroups()
            .or(() -> network.noHiddenSenders(ContactId.Kind.LID))
            .or(network::noHiddenGroupMembers);
    if (none.isPresent()) {
      // A network without groups: checked by the groups case; without LIDs: by the LID case.
      log.info("{} driver: no group member known by LID: {}", network.driver().name(), none.get());
      assertThat(none.get()).isNotBlank();
      return;
    }
    // Two members: one whose phone the network keeps to itself, one whose phone it tells. (One
    // member told later would meet a driver's cache of lookups that found nothing, which is
    // allowed.)
    String hiddenMember = "+6281100007735";
    String toldMember = "+6281100007736";
    String group = network.group("Arisan", List.of(DEVICE, TO, hiddenMember, toldMember));
    int before = network.events().incoming(device.id()).size();
    for (boolean phoneKnown : List.of(false, true)) {
      String member = phoneKnown ? toldMember : hiddenMember;
      ContactId lid = network.hiddenId(ContactId.Kind.LID, member);
      String text = "from a hidden member, phone " + (phoneKnown ? "known" : "unknown");
      assertThat(
              network.hiddenIncoming(
                  device,
                  ContactId.Kind.LID,
                  "in-hidden-member-" + phoneKnown,
                  member,
                  phoneKnown,
                  Optional.of(group),
                  text))
          .as("acknowledged")
          .isTrue();
      Eventually.until(
          "passed on", () -> texts(network.events().incoming(device.id())).contains(text));
      IncomingMessage in = only(device, text);
      assertThat(in.groupId()).contains(group);
      assertThat(in.senderId()).as("the member's LID").contains(lid);
      assertThat(in.senderE164()).isEqualTo(phoneKnown ? member : "");
      assertThat(in.senderAddress()).isEqualTo(phoneKnown ? member : lid.address());
    }
    assertThat(network.events().incoming(device.id()).stream().skip(before)).hasSize(2);
  }

  /**
   * A sender the network names by an id of {@code kind} only: passed on with that id, with the
   * phone when the network lets it be known (and never a guess when not), and a send to the id's
   * address reaches them. A kind the network has not is checked as absent: a send to such an id
   * reaches nobody.
   */
  private void checkHiddenSender(ContactId.Kind kind) {
    DeviceRef device = network.connectedDevice(DEVICE);
    Optional<String> none = network.noHiddenSenders(kind);
    if (none.isPresent()) {
      log.info("{} driver: no sender known by {}: {}", network.driver().name(), kind, none.get());
      assertThat(none.get()).isNotBlank();
      ContactId foreign =
          kind == ContactId.Kind.LID
              ? ContactId.lid("190000000007741")
              : ContactId.bsuid("ID.1900000000077410");
      String text = "to a " + kind.wireName() + " of another network";
      SendOutcome outcome = network.driver().send(device, text(foreign.address(), text));
      assertThat(outcome)
          .as("a send to an id the network has not")
          .isInstanceOfAny(SendOutcome.NotFound.class, SendOutcome.Permanent.class);
      assertThat(network.textsReceived()).doesNotContain(text);
      return;
    }
    int before = network.events().incoming(device.id()).size();
    for (boolean phoneKnown : List.of(false, true)) {
      String person = phoneKnown ? "+6281100007733" : "+6281100007732";
      ContactId id = network.hiddenId(kind, person);
      assertThat(id.kind()).isEqualTo(kind);
      String text =
          "from a hidden " + kind.wireName() + ", phone " + (phoneKnown ? "known" : "not");
      assertThat(
              network.hiddenIncoming(
                  device,
                  kind,
                  "in-hidden-" + kind.wireName() + "-" + phoneKnown,
                  person,
                  phoneKnown,
                  Optional.empty(),
                  text))
          .as("acknowledged")
          .isTrue();
      Eventually.until(
          "passed on", () -> texts(network.events().incoming(device.id())).contains(text));
      IncomingMessage in = only(device, text);
      assertThat(in.networkId()).as("the network's id, for redeliveries").isPresent();
      assertThat(in.senderId()).as("the network's id of the sender").contains(id);
      assertThat(in.senderE164())
          .as(phoneKnown ? "the phone the network tells" : "no phone guessed")
          .isEqualTo(phoneKnown ? person : "");
      assertThat(in.senderAddress()).isEqualTo(phoneKnown ? person : id.address());
      assertThat(in.groupId()).isEmpty();

      // A reply to the id the message named reaches the person behind it.
      String reply = "reply to " + id.address();
      assertThat(sendSettled(device, text(id.address(), reply)))
          .as("a send to " + id.address())
          .isInstanceOf(SendOutcome.Sent.class);
      assertThat(network.textsReceived()).containsOnlyOnce(reply);
    }
    assertThat(network.events().incoming(device.id()).stream().skip(before)).hasSize(2);
  }

  // --- number check

  @Test
  void aNumberCheckSaysExistsNotExistsOrUnknown() {
    DeviceRef device = network.connectedDevice(DEVICE);
    String absent = "+6281100007790";
    network.notOnNetwork(absent);
    Optional<String> noLookup = network.noNumberLookup();
    if (noLookup.isPresent()) {
      log.info("{} driver: no number look-up: {}", network.driver().name(), noLookup.get());
      assertThat(network.driver().checkNumber(device, TO)).isEqualTo(NumberCheck.UNKNOWN);
      assertThat(network.driver().checkNumber(device, absent))
          .as("never a guess")
          .isEqualTo(NumberCheck.UNKNOWN);
    } else {
      assertThat(network.driver().checkNumber(device, TO)).isEqualTo(NumberCheck.EXISTS);
      assertThat(network.driver().checkNumber(device, absent)).isEqualTo(NumberCheck.NOT_EXISTS);
    }
    disconnect(device);
    assertThat(network.driver().checkNumber(device, TO))
        .as("a device not connected cannot ask")
        .isEqualTo(NumberCheck.UNKNOWN);
  }

  // --- groups

  @Test
  void groupsAreFoundByNameWithTheirMembers() {
    DeviceRef device = network.connectedDevice(DEVICE);
    Driver driver = network.driver();
    Optional<String> noGroups = network.noGroups();
    if (noGroups.isPresent()) {
      // The clean refusal of a network without groups.
      log.info("{} driver: no groups: {}", driver.name(), noGroups.get());
      assertThat(driver.groupIdByName(device, "Keluarga")).isEmpty();
      assertThat(driver.groupMembers(device, "120363000000000001@g.us"))
          .isInstanceOfAny(GroupMembers.NotFound.class, GroupMembers.NotSupported.class);
      assertThat(
              driver.send(
                  device,
                  new OutgoingMessage(
                      ids.incrementAndGet(),
                      "120363000000000001@g.us",
                      true,
                      "text",
                      "to a group")))
          .isInstanceOf(SendOutcome.NotFound.class);
      assertThat(network.textsReceived()).doesNotContain("to a group");
      return;
    }
    List<String> members = List.of(DEVICE, TO, "+6281100007712");
    String id = network.group("Keluarga Besar", members);
    network.group("Kantor", List.of(DEVICE, "+6281100007713"));
    assertThat(driver.groupIdByName(device, "Keluarga Besar")).contains(id);
    assertThat(driver.groupIdByName(device, "Tidak Ada")).isEmpty();
    GroupMembers found = driver.groupMembers(device, id);
    assertThat(found).isInstanceOf(GroupMembers.Members.class);
    assertThat(((GroupMembers.Members) found).numbers())
        .containsExactlyInAnyOrderElementsOf(members);
    assertThat(driver.groupMembers(device, unknownGroup(id)))
        .isInstanceOf(GroupMembers.NotFound.class);
    OutgoingMessage toGroup =
        new OutgoingMessage(ids.incrementAndGet(), id, true, "text", "to the group");
    assertThat(sendSettled(device, toGroup)).isInstanceOf(SendOutcome.Sent.class);
    assertThat(network.textsReceived()).contains("to the group");
    Expected unknown = network.sendToUnknownGroup();
    unknown.why().ifPresent(why -> log.info("{} driver, unknown group: {}", driver.name(), why));
    OutgoingMessage toNoGroup =
        new OutgoingMessage(ids.incrementAndGet(), unknownGroup(id), true, "text", "to no group");
    assertThat(sendSettled(device, toNoGroup)).isInstanceOf(unknown.outcome());

    disconnect(device);
    assertThat(driver.groupMembers(device, id))
        .as("a device not connected cannot ask")
        .isInstanceOf(GroupMembers.Unknown.class);
  }

  /** An id of the same shape as {@code known}, of no group. */
  private static String unknownGroup(String known) {
    return known.replaceAll("\\d", "9");
  }

  // --- session states and restarts

  @Test
  void sessionStatesAreReportedAsTheNetworkChangesThem() {
    DeviceRef device = network.connectedDevice(DEVICE);
    boolean connected = true;
    for (SessionChange change : network.sessionChanges(device)) {
      int statesBefore = network.events().states(device.id()).size();
      int connectionsBefore = network.events().connections(device.id()).size();
      change.apply().accept(device);
      Eventually.until(
          change.what() + ": reported " + change.state(),
          () ->
              network.events().states(device.id()).stream()
                  .skip(statesBefore)
                  .anyMatch(s -> s.state() == change.state()));
      if (change.connected() != connected) {
        Eventually.until(
            change.what() + ": reported " + (change.connected() ? "connected" : "not connected"),
            () ->
                network.events().connections(device.id()).stream()
                    .skip(connectionsBefore)
                    .anyMatch(c -> c.connected() == change.connected()));
      }
      connected = change.connected();
      boolean connectedNow = connected;
      // A driver may act on a state itself (WAHA restarts a FAILED session): what counts is the
      // state it settles in.
      Eventually.until(
          change.what() + ": the driver's state settles at " + change.state(),
          () ->
              network.driver().state(device) == change.state()
                  && network.driver().isConnected(device) == connectedNow);
    }
    assertThat(connected).as("the last change leaves the device connected").isTrue();
    assertThat(sendSettled(device, text(TO, "after the changes")))
        .isInstanceOf(SendOutcome.Sent.class);
  }

  @Test
  void attachingWhileTheNetworkIsNotReachedOrRefusesTheCredentialLeavesACleanState() {
    List<ContractFixture.AttachTrouble> troubles = network.attachTroubles();
    assertThat(troubles).as("the network not reached, a credential refused").hasSizeGreaterThan(1);
    int n = 0;
    for (ContractFixture.AttachTrouble trouble : troubles) {
      if (trouble.absent().isPresent()) {
        log.info(
            "{} driver: no attach trouble \"{}\": {}",
            network.driver().name(),
            trouble.what(),
            trouble.absent().get());
        assertThat(trouble.absent().get()).isNotBlank();
        continue;
      }
      DeviceRef device = trouble.attach().apply("+62811000077" + (60 + n++));
      // Reported as the driver declares it (a hold is shown failed, not connected), no exception.
      Eventually.until(
          trouble.what() + ": reported " + trouble.state(),
          () ->
              !network.events().states(device.id()).isEmpty()
                  && network.events().states(device.id()).getLast().state() == trouble.state());
      assertThat(network.events().connections(device.id()))
          .as(trouble.what() + ": never reported connected")
          .noneMatch(RecordingListener.Connection::connected);
      List<RecordingListener.Hold> holds = network.events().holds(device.id());
      if (!holds.isEmpty()) {
        // Held: the core sends nothing until it resumes the device (DriverListener.hold).
        assertThat(holds.getLast().reason()).as(trouble.what() + ": why held").isNotBlank();
      } else {
        String text = "while " + trouble.what();
        assertThat(network.driver().send(device, text(TO, text)))
            .as(trouble.what())
            .isInstanceOf(SendOutcome.DeviceUnavailable.class);
        assertThat(network.textsReceived()).doesNotContain(text);
      }

      trouble.fix().accept(device);
      Eventually.until(
          trouble.what() + ", fixed: connected", () -> network.driver().isConnected(device));
      assertThat(sendSettled(device, text(TO, "fixed: " + trouble.what())))
          .isInstanceOf(SendOutcome.Sent.class);
    }
  }

  @Test
  void afterARestartSendsGoAgainAndNothingIsSentTwice() {
    DeviceRef device = network.connectedDevice(DEVICE);
    assertThat(sendSettled(device, text(TO, "before the restart")))
        .isInstanceOf(SendOutcome.Sent.class);
    log.info("{} driver: restarting {}", network.driver().name(), network.restarts());
    network.restart();
    Eventually.until("connected after the restart", () -> network.driver().isConnected(device));
    assertThat(sendSettled(device, text(TO, "after the restart")))
        .isInstanceOf(SendOutcome.Sent.class);
    assertThat(network.textsReceived()).containsOnlyOnce("before the restart", "after the restart");
  }

  // --- many threads

  @Test
  void sendsFromManyThreadsEachHaveOneOutcome() throws Exception {
    List<DeviceRef> devices = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      devices.add(network.connectedDevice("+628110000775" + i));
    }
    Driver driver = network.driver();
    Map<Long, SendOutcome> outcomes = new ConcurrentHashMap<>();
    Map<Long, OutgoingMessage> sentBy = new ConcurrentHashMap<>();
    Map<Long, DeviceRef> deviceOf = new ConcurrentHashMap<>();
    List<Throwable> thrown = new CopyOnWriteArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int thread = t;
        running.add(
            threads.submit(
                () -> {
                  for (int i = 0; i < 50; i++) {
                    DeviceRef device = devices.get((thread + i) % devices.size());
                    OutgoingMessage m =
                        text("+62811000078" + (i % 10), "burst " + thread + "-" + i);
                    try {
                      sentBy.put(m.id(), m);
                      deviceOf.put(m.id(), device);
                      SendOutcome previous = outcomes.put(m.id(), driver.send(device, m));
                      assertThat(previous).isNull();
                      if (i % 10 == 0) { // the API handlers' calls, meanwhile
                        assertThat(driver.isConnected(device)).isTrue();
                        assertThat(driver.state(device)).isEqualTo(DeviceState.ONLINE);
                        assertThat(driver.checkNumber(device, m.recipient())).isNotNull();
                      }
                    } catch (Throwable e) {
                      thrown.add(e);
                    }
                  }
                }));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(thrown).isEmpty();
    assertThat(outcomes).hasSize(400);
    assertThat(outcomes.values())
        .allMatch(o -> o instanceof SendOutcome.Sent || o instanceof SendOutcome.Accepted);
    Set<String> networkIds = new HashSet<>();
    outcomes.values().forEach(o -> networkIds.add(networkIdOf(o).orElseThrow()));
    assertThat(networkIds).as("unique network ids").hasSize(400);
    List<String> taken =
        network.textsReceived().stream().filter(t -> t.startsWith("burst ")).toList();
    assertThat(taken).hasSize(400).doesNotHaveDuplicates();
    // A send the network took for later: once confirmed, its one outcome comes by the listener.
    outcomes.forEach(
        (id, o) -> {
          if (o instanceof SendOutcome.Accepted a) {
            network.confirm(
                deviceOf.get(id), id, a.networkId().orElseThrow(), sentBy.get(id).recipient());
          }
        });
    outcomes.forEach(
        (id, o) -> {
          if (o instanceof SendOutcome.Accepted) {
            Eventually.until(
                "the outcome of message " + id,
                () -> !network.events().outcomes(deviceOf.get(id).id(), id).isEmpty());
            assertThat(network.events().outcomes(deviceOf.get(id).id(), id)).hasSize(1);
          }
        });
  }

  // --- helpers

  /**
   * Leaves {@code device} not connected: the network's {@link Trouble#DEVICE_NOT_CONNECTED}, and a
   * send that meets it (a driver may learn it only then, as the Cloud API's refused token).
   */
  private void disconnect(DeviceRef device) {
    network.provoke(device, TO, Trouble.DEVICE_NOT_CONNECTED);
    assertThat(network.driver().send(device, text(TO, "to find it not connected")))
        .isInstanceOf(SendOutcome.DeviceUnavailable.class);
    Eventually.until("not connected", () -> !network.driver().isConnected(device));
  }

  /** A text message with a new Kurir id. */
  // --- what the driver declares it can carry

  @Test
  void everyKindTheDriverDeclaresIsCarried() {
    Capabilities can = network.driver().capabilities();
    assertThat(can.kinds()).as("every driver carries plain text").contains(MessageKind.TEXT);
    DeviceRef device = network.connectedDevice(DEVICE);
    SendOutcome first = sendSettled(device, text(TO, "before the kinds"));
    String earlier = networkIdOf(first).orElseThrow();
    for (String object : MessageObjects.everyKind(earlier)) {
      MessageContent content = CloudMessageJson.parse(MessageObjects.json(object));
      if (!can.carries(content.kind())
          || (content.replyTo().isPresent() && !can.replies())
          || (!content.mentions().isEmpty() && !can.mentions())) {
        continue; // not declared: the core refuses it before the driver sees it (CarriedKinds)
      }
      SendOutcome outcome =
          sendSettled(
              device,
              OutgoingMessage.of(ids.incrementAndGet(), TO, false, content, fetched(content)));
      assertThat(outcome).as("a declared " + object).isInstanceOf(SendOutcome.Sent.class);
    }
  }

  /**
   * The file the core hands a driver that takes no media links ({@link Driver#takesMediaLinks}):
   * the one it fetched from the content's link, here a file of the kind's type; none for a driver
   * that takes links, which gets the link as the core gives it.
   */
  private Optional<OutgoingMessage.Attachment> fetched(MessageContent content) {
    if (network.driver().takesMediaLinks()) {
      return Optional.empty();
    }
    record Fetched(String name, String type, byte[] bytes) {}
    Fetched f =
        switch (content.kind()) {
          case IMAGE -> new Fetched("a.png", "image/png", PNG);
          case VIDEO -> new Fetched("a.mp4", "video/mp4", MP4);
          case AUDIO -> new Fetched("a.ogg", "audio/ogg", OGG);
          case DOCUMENT -> new Fetched("a.pdf", "application/pdf", PDF);
          case STICKER -> new Fetched("s.webp", "image/webp", WEBP);
          default -> null;
        };
    if (f == null) {
      return Optional.empty();
    }
    try {
      Path file = dir.resolve("fetched").resolve(f.name());
      Files.createDirectories(file.getParent());
      Files.write(file, f.bytes());
      return Optional.of(new OutgoingMessage.Attachment(f.name(), f.type(), file));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Every action the driver declares is done on the network for a text it sent and a chat it
   * received in (revoke and edit of the text; a read mark and typing in the chat); one it does not
   * declare is never asked of it by the core, and the default answers a refusal.
   */
  @Test
  void everyActionTheDriverDeclaresIsDone() {
    Capabilities can = network.driver().capabilities();
    DeviceRef device = network.connectedDevice(DEVICE);
    String text = "for the actions";
    assertThat(
            network.incoming(
                device, IncomingKind.TEXT, "in-actions", TO, Optional.empty(), text, new byte[0]))
        .isTrue();
    Eventually.until(
        "passed on", () -> texts(network.events().incoming(device.id())).contains(text));
    Optional<String> received = only(device, text).networkId();
    ChatRef chat = new ChatRef(TO, false);
    String sent =
        networkIdOf(sendSettled(device, text(TO, "to be edited, then revoked"))).orElseThrow();
    check(can.edits(), network.driver().edit(device, chat, sent, "edited"));
    check(can.revoke(), network.driver().revoke(device, chat, sent));
    check(can.markRead(), network.driver().markRead(device, chat, received));
    check(can.presence(), network.driver().typing(device, chat, true, received));
    check(can.presence(), network.driver().typing(device, chat, false, received));
  }

  private void check(boolean declared, ActionOutcome outcome) {
    assertThat(outcome)
        .as(network.driver().name() + (declared ? ": declared, done" : ": not declared, refused"))
        .isInstanceOf(declared ? ActionOutcome.Done.class : ActionOutcome.Refused.class);
  }

  protected OutgoingMessage text(String to, String text) {
    return new OutgoingMessage(ids.incrementAndGet(), to, false, "text", text);
  }

  /**
   * Sends {@code m} and returns its final outcome: the send's answer, or, when it answered
   * Accepted, the outcome the driver reports once the network confirmed it.
   */
  protected SendOutcome sendSettled(DeviceRef device, OutgoingMessage m) {
    SendOutcome answer = network.driver().send(device, m);
    assertThat(answer).as("the send's answer").isNotNull();
    if (!(answer instanceof SendOutcome.Accepted accepted)) {
      return answer;
    }
    network.confirm(device, m.id(), accepted.networkId().orElseThrow(), m.recipient());
    Eventually.until(
        "the outcome of message " + m.id(),
        () -> !network.events().outcomes(device.id(), m.id()).isEmpty());
    List<RecordingListener.Outcome> told = network.events().outcomes(device.id(), m.id());
    SendOutcome outcome = told.getFirst().outcome();
    if (outcome instanceof SendOutcome.Sent sent) {
      assertThat(sent.networkId()).as("the confirmed id").isEqualTo(accepted.networkId());
    }
    return outcome;
  }

  /** The network's id a send answered, from Sent or Accepted. */
  protected static Optional<String> networkIdOf(SendOutcome outcome) {
    return switch (outcome) {
      case SendOutcome.Sent s -> s.networkId();
      case SendOutcome.Accepted a -> a.networkId();
      default -> Optional.empty();
    };
  }

  private List<Receipt.Status> statuses(DeviceRef device, String networkId) {
    return network.events().receiptsOf(device.id(), networkId).stream()
        .map(Receipt::status)
        .toList();
  }

  private IncomingMessage only(DeviceRef device, String text) {
    List<IncomingMessage> found =
        network.events().incoming(device.id()).stream().filter(m -> m.text().equals(text)).toList();
    assertThat(found).hasSize(1);
    return found.getFirst();
  }

  private static List<String> texts(List<IncomingMessage> messages) {
    return messages.stream().map(IncomingMessage::text).toList();
  }

  private static byte[] readBytes(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
