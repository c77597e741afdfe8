package io.kurir.driver;

import io.kurir.time.SettableClock;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What the {@link DriverContract} needs of one driver: a gateway that loaded it (through a {@link
 * ListeningDriverFactory}, so that its events reach {@link #events}), the fake network it talks to,
 * and how to make that network do things. One per test; closing it stops both and fails on anything
 * the fake recorded as a breach of its network's rules.
 *
 * <p>Where a network cannot do what a case needs (the Cloud API has no groups and no number
 * look-up), the fixture says so with a reason, and the suite checks the driver's clean answer
 * instead: nothing is skipped.
 */
public abstract class ContractFixture implements AutoCloseable {

  /** What the network can be made to do to one send. */
  public enum Trouble {
    /** The recipient has no account on the network. */
    NOT_ON_NETWORK,
    /** The sending device is not connected (its phone away, its session down). */
    DEVICE_NOT_CONNECTED,
    /** The network's rate limit: call again later. */
    RATE_LIMITED,
    /** A failure that may pass: a timeout, a 5xx. */
    TRANSIENT_ERROR,
    /** The network refuses the message itself. */
    REFUSED
  }

  /** The kinds of incoming message. */
  public enum IncomingKind {
    TEXT,
    IMAGE,
    FILE,
    /** A text written in a group the device is in. */
    GROUP_TEXT,
    /**
     * A location shared: {@link #LATITUDE}, {@link #LONGITUDE}, {@link #PLACE}, {@link #ADDRESS}.
     */
    LOCATION,
    /** One contact card shared: {@link #VCARD} ({@link #CARD_NAME}, {@link #CARD_PHONE}). */
    CONTACTS,
    /** {@link #EMOJI} put on the message {@link #QUOTED_ID}. */
    REACTION,
    /** A video (MP4 bytes) with the text as its caption. */
    VIDEO,
    /** A voice note or an audio file (OGG bytes). */
    AUDIO,
    /** A sticker (WebP bytes). */
    STICKER,
    /** A text replying to the message {@link #QUOTED_ID}. */
    REPLY
  }

  /** The content of the kinds beyond text and files, the same on every network. */
  public static final double LATITUDE = -6.2088;

  public static final double LONGITUDE = 106.8456;
  public static final String PLACE = "Monas";
  public static final String ADDRESS = "Jakarta Pusat";
  public static final String CARD_NAME = "Budi";
  public static final String CARD_PHONE = "+62 812 1111 2222";
  public static final String CARD_WA_ID = "6281211112222";
  public static final String VCARD =
      "BEGIN:VCARD\nVERSION:3.0\nFN:Budi\nTEL;type=CELL;waid=6281211112222:+62 812 1111 2222"
          + "\nEND:VCARD";
  public static final String EMOJI = "\uD83D\uDC4D";

  /** The network's id of the message a reaction or a reply names. */
  public static final String QUOTED_ID = "3EB0QUOTED0001";

  /**
   * The outcome class a driver answers for one {@link Trouble}: the one the interface promises, or,
   * where the network cannot produce it (or the driver does not yet tell it), the one it answers
   * today, with {@code why} naming the gap and where it is being closed.
   */
  public record Expected(Class<? extends SendOutcome> outcome, Optional<String> why) {
    public static Expected as(Class<? extends SendOutcome> outcome) {
      return new Expected(outcome, Optional.empty());
    }

    public static Expected instead(Class<? extends SendOutcome> outcome, String why) {
      return new Expected(outcome, Optional.of(why));
    }
  }

  /**
   * One change of a device's session the network can make, and what the driver must then report:
   * the state, and whether the device can send.
   */
  public record SessionChange(
      String what, Consumer<DeviceRef> apply, DeviceState state, boolean connected) {}

  /**
   * A device made while the network cannot be reached, or with a credential it refuses, and what
   * the driver then reports: {@code state}, not connected, sends answering {@code
   * DeviceUnavailable}; {@code fix} removes the cause (and does what the core would then do), after
   * which the device connects and sends. Or, {@code absent}, why the network has no such trouble.
   */
  public record AttachTrouble(
      String what,
      Optional<String> absent,
      java.util.function.Function<String, DeviceRef> attach,
      DeviceState state,
      Consumer<DeviceRef> fix) {

    public static AttachTrouble of(
        String what,
        java.util.function.Function<String, DeviceRef> attach,
        DeviceState state,
        Consumer<DeviceRef> fix) {
      return new AttachTrouble(what, Optional.empty(), attach, state, fix);
    }

    public static AttachTrouble absent(String what, String why) {
      return new AttachTrouble(
          what,
          Optional.of(why),
          e164 -> {
            throw new UnsupportedOperationException(why);
          },
          DeviceState.NONE,
          d -> {});
    }
  }

  protected final RecordingListener events = new RecordingListener();

  /** Everything the driver reported. */
  public final RecordingListener events() {
    return events;
  }

  /** {@code real}, loaded so that its drivers report to {@link #events}. */
  protected final ListeningDriverFactory listened(DriverFactory real) {
    return new ListeningDriverFactory(real, events);
  }

  /** The driver under test, as the gateway holds it now (a new one after a gateway restart). */
  public abstract Driver driver();

  /** The clock of the gateway and of the fake. */
  public abstract SettableClock clock();

  /**
   * A new device of this driver with number {@code e164}, made as an operator makes one (the
   * gateway attaches it), then linked on the network: once this returns, it is connected.
   */
  public abstract DeviceRef connectedDevice(String e164);

  // --- sends

  /**
   * Makes the network meet the next send from {@code device} to {@code to} with {@code trouble};
   * what the driver is then expected to answer.
   */
  public abstract Expected provoke(DeviceRef device, String to, Trouble trouble);

  /**
   * The network confirms a send that answered {@link SendOutcome.Accepted} (the Cloud API's {@code
   * sent} status): the driver then reports the outcome. Only for drivers that answer Accepted.
   */
  public void confirm(DeviceRef device, long messageId, String networkId, String to) {
    throw new UnsupportedOperationException(driver().name() + " answers no send Accepted");
  }

  /**
   * The texts of every message the network took, from any device, one entry per message it took (so
   * a message taken twice is there twice).
   */
  public abstract List<String> textsReceived();

  // --- receipts

  /**
   * Why the network cannot be told to report a receipt when a test wants it (its receipts come on
   * its own clock, in order, once); empty when {@link #receipt} sends any receipt, any number of
   * times.
   */
  public abstract Optional<String> receiptsOnItsOwn();

  /**
   * The network reports {@code status} of the message it took as {@code networkId} from {@code
   * device} to {@code to} (and Kurir's {@code messageId}, when the network echoes it). Where
   * receipts come on their own, this moves the clock until that receipt is due.
   */
  public abstract void receipt(
      DeviceRef device, long messageId, String networkId, String to, Receipt.Status status);

  // --- incoming

  /** Why the network has no incoming messages of {@code kind}; empty when it has. */
  public abstract Optional<String> noIncoming(IncomingKind kind);

  /**
   * A message of {@code kind} with the network's id {@code networkId} from {@code fromE164} arrives
   * at {@code device} (in group {@code groupId} for {@link IncomingKind#GROUP_TEXT}), with {@code
   * text} (or caption) and, for media, {@code bytes}. Whether the network was told it was taken (a
   * 2xx to its webhook); a redelivery is the same call again.
   */
  public abstract boolean incoming(
      DeviceRef device,
      IncomingKind kind,
      String networkId,
      String fromE164,
      Optional<String> groupId,
      String text,
      byte[] bytes);

  /**
   * Why the network names no sender by an id of {@code kind} (the Cloud API shows businesses no
   * LID, WAHA no BSUID); empty when it does. The suite then checks the kind is absent: a send to
   * such an id reaches nobody.
   */
  public abstract Optional<String> noHiddenSenders(ContactId.Kind kind);

  /**
   * The id of {@code kind} the network names the person with phone {@code e164} by when it hides
   * their number (a LID, a BSUID). Only for a kind the network has.
   */
  public abstract ContactId hiddenId(ContactId.Kind kind, String e164);

  /**
   * A text with the network's id {@code networkId} from the person with phone {@code e164} arrives
   * at {@code device} (in group {@code groupId} when present), the network naming the sender by
   * {@link #hiddenId} only. With {@code phoneKnown} the network lets the driver know the phone
   * behind the id (Meta's {@code wa_id} beside {@code user_id}, WAHA's lids route answering {@code
   * pn}); without, it does not (and the driver must not guess it). Whether the network was told it
   * was taken.
   */
  public abstract boolean hiddenIncoming(
      DeviceRef device,
      ContactId.Kind kind,
      String networkId,
      String e164,
      boolean phoneKnown,
      Optional<String> groupId,
      String text);

  /**
   * Why the network (or its fake) makes no group message from a member known only by a LID; empty
   * when {@link #hiddenIncoming} takes a group.
   */
  public Optional<String> noHiddenGroupMembers() {
    return Optional.empty();
  }

  // --- numbers and groups

  /** {@code e164} has no account on the network from now on. */
  public abstract void notOnNetwork(String e164);

  /** Why the network cannot be asked whether a number has an account; empty when it can. */
  public abstract Optional<String> noNumberLookup();

  /** Why the network has no groups the driver manages; empty when it has. */
  public abstract Optional<String> noGroups();

  /**
   * What a send to a group the device is not in (or that does not exist) answers: {@link
   * SendOutcome.NotFound} as promised, or what the driver answers today, with the gap named.
   */
  public Expected sendToUnknownGroup() {
    return Expected.as(SendOutcome.NotFound.class);
  }

  /** A new group named {@code name} on the network with these members; its id as drivers use it. */
  public abstract String group(String name, List<String> membersE164);

  // --- sessions

  /**
   * Changes the network can make to {@code device}'s session, applied in this order by the suite;
   * the last one leaves it connected.
   */
  public abstract List<SessionChange> sessionChanges(DeviceRef device);

  /**
   * The troubles a device can meet when it is attached: the network not reached, a credential
   * refused; each made by {@link AttachTrouble#attach} or declared absent with the reason.
   */
  public abstract List<AttachTrouble> attachTroubles();

  /** What {@link #restart} restarts on this network, for people. */
  public abstract String restarts();

  /**
   * The network's side restarts (the engine; where the network has none in another process, the
   * gateway on the same network) and comes back; returns once it is back, not waiting for the
   * driver to see it.
   */
  public abstract void restart();

  /** Stops the gateway and the fake; fails on anything the fake recorded as a breach. */
  @Override
  public abstract void close();
}
