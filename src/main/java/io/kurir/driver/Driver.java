package io.kurir.driver;

import java.util.Optional;

/**
 * How a device talks to a messaging network. The core sees only this interface; a driver reports
 * what happens on the network (delivery receipts, incoming messages, connection changes) to the
 * {@link DriverListener} given at {@link #start}.
 *
 * <p>Implementations must be thread-safe: the sender loops of many devices call {@link #send} at
 * once (at most one call per device at a time), and API handlers call {@link #checkNumber} and
 * {@link #isConnected} from request threads. Calls may block; the core calls them from virtual
 * threads.
 */
public interface Driver extends AutoCloseable {

  /** The name devices refer to in their {@code driver} column, such as {@code sandbox}. */
  String name();

  /** Starts the driver; events go to {@code listener} from then on. */
  void start(DriverListener listener);

  /**
   * This gateway sends for {@code device} from now on: at start, when it takes the device's lease
   * over from another node, when the device is enabled again. A driver that keeps a session per
   * device (an engine's session, a webhook subscription) makes sure it exists; idempotent.
   *
   * <p>A driver whose network or engine cannot be reached now does not throw: it reports the device
   * {@link DeviceState#PORT_DOWN} and not connected (so that sync callers are answered {@code
   * phone_offline} at once, and the device's messages wait), and sets the session up itself once it
   * can reach it again, trying with back-off in the meantime.
   */
  default void attach(DeviceRef device) {}

  /**
   * This gateway no longer sends for {@code device}: it stopped, gave the lease up, or the device
   * was disabled. The network's session is kept (another node may attach it); idempotent.
   */
  default void detach(DeviceRef device) {}

  /**
   * The core resumes {@code device} after a {@link DriverListener#hold}: its configuration changed
   * or an operator asked to retry it. A driver forgets what made it refuse the device and checks
   * again on the next send (or now); idempotent.
   */
  default void resume(DeviceRef device) {}

  /**
   * The media types (such as {@code image/jpeg}) the network takes for a message of {@code kind}
   * ({@code image} or {@code file}, or a media kind of Kurir's API: {@code video}, {@code audio},
   * {@code sticker}, {@code document}); empty when it takes any. The core refuses at accept a
   * message whose media is of another type, so that it does not fail late at the network.
   */
  default java.util.Set<String> mediaTypes(String kind) {
    return java.util.Set.of();
  }

  /**
   * Whether the network takes a media kind of Kurir's own API by its {@code link} and fetches it
   * itself (the Cloud API, WAHA). When not, the gateway fetches the link when the message's turn
   * comes, as it fetches a seed family's async image (no internal addresses, the size limit, one
   * deadline; a link that gives nothing usable fails the message with a media reason), and hands
   * the driver the file in {@link OutgoingMessage#media}; the types {@link #mediaTypes} names for
   * the kind ({@code video}, {@code audio}, {@code sticker}…) are checked on what came back.
   */
  default boolean takesMediaLinks() {
    return true;
  }

  /**
   * Whether the network delivers a free-form message only to someone who wrote to the number
   * recently (the Cloud API's 24-hour customer-service window; outside it, error 131047), so that a
   * message to people who may never have written, a campaign's, must be an approved template. A
   * property of the network rather than of what the driver carries. Constant for a running driver.
   */
  default boolean freeFormOnlyInReplyWindow() {
    return false;
  }

  /**
   * What this driver can carry (message kinds, groups, replies, edits, …). The core refuses at
   * accept a message of Kurir's own API that its device's driver does not declare. Defaults to
   * {@link Capabilities#TEXT_ONLY}. Constant for a running driver.
   */
  default Capabilities capabilities() {
    return Capabilities.TEXT_ONLY;
  }

  /**
   * Deletes for everyone the message {@code networkId} that {@code device} sent to {@code chat}.
   * Called only when {@link #capabilities} declares {@code revoke}; may block on the network.
   */
  default ActionOutcome revoke(DeviceRef device, ChatRef chat, String networkId) {
    return ActionOutcome.notSupported(this, "revoke a message");
  }

  /**
   * Replaces the text of the text message {@code networkId} that {@code device} sent to {@code
   * chat} with {@code text}. Called only when {@link #capabilities} declares {@code edits}.
   */
  default ActionOutcome edit(DeviceRef device, ChatRef chat, String networkId, String text) {
    return ActionOutcome.notSupported(this, "edit a message");
  }

  /**
   * Marks {@code chat}'s messages read on {@code device}: up to the received message {@code
   * networkId} when given, else all of them (a network that marks one message at a time marks the
   * latest it knows of). Called only when {@link #capabilities} declares {@code markRead}.
   */
  default ActionOutcome markRead(DeviceRef device, ChatRef chat, Optional<String> networkId) {
    return ActionOutcome.notSupported(this, "mark a chat read");
  }

  /**
   * Shows {@code device} typing in {@code chat} ({@code typing} true) or stops showing it. {@code
   * latestReceived} is the network id of the latest message the device received in the chat, for a
   * network whose indicator answers a message (the Cloud API's). Called only when {@link
   * #capabilities} declares {@code presence}.
   */
  default ActionOutcome typing(
      DeviceRef device, ChatRef chat, boolean typing, Optional<String> latestReceived) {
    return ActionOutcome.notSupported(this, "show typing");
  }

  /**
   * Why this driver cannot send {@code content} although it carries its kind, in words for the
   * caller (a reply on a kind whose request has no reply field, a contact card the network's
   * request cannot hold); empty when it can. The core asks at accept, after {@link #capabilities},
   * so that such a message is refused at once rather than accepted and failed when sent.
   */
  default Optional<String> refusalOf(io.kurir.content.MessageContent content) {
    return Optional.empty();
  }

  /** Whether {@code device} is paired and reachable, so that a send can go out now. */
  boolean isConnected(DeviceRef device);

  /**
   * Whether the network treats a second send of the same Kurir message id as the first. Only then
   * does the core send again a message that a crash left {@code sending} (its outcome unknown);
   * otherwise such a message ends {@code failed} with reason {@code interrupted}.
   */
  boolean deduplicates();

  /**
   * Sends one message and returns what happened. Called by the device's sender after the attempt
   * was committed as {@code sending}; several calls for one device may be under way at once.
   */
  SendOutcome send(DeviceRef device, OutgoingMessage message);

  /** Whether {@code e164} has an account on the network, asked through {@code device}. */
  NumberCheck checkNumber(DeviceRef device, String e164);

  /** The device's session state as the driver sees it now. */
  DeviceState state(DeviceRef device);

  /**
   * The payload to show as a QR code so that the device's phone can link it: the current one, or a
   * new one when it has expired (linked-device pairing rotates its code about every 20 seconds).
   * Empty when the driver cannot pair this device now, or when its devices are linked without a
   * code (an API token): such a driver links a logged-out device again here, and the core then
   * answers as for a paired device.
   */
  Optional<String> pairingCode(DeviceRef device);

  /**
   * A code the owner of the device's phone types in WhatsApp (Linked devices → Link with phone
   * number instead) to link the device's number, as an alternative to the QR code. Empty when the
   * driver has no such code, or cannot ask for one now.
   */
  default Optional<String> linkCode(DeviceRef device) {
    return Optional.empty();
  }

  /**
   * Why a code from {@link #pairingCode} could not be scanned at all in this set-up, as a sentence
   * that says what the operator must change; empty when it can be. {@code ./kurir admin device qr}
   * and the Admin API say it instead of showing codes that nothing can scan.
   */
  default Optional<String> pairingObstacle(DeviceRef device) {
    return Optional.empty();
  }

  /** Ends the device's session; false when it had none. */
  boolean logout(DeviceRef device);

  /** Whether the driver is running and can be asked at all ({@code port_down} when not). */
  default boolean isRunning() {
    return true;
  }

  /**
   * Why the driver cannot be asked now, when {@link #isRunning} is false: a sentence for the
   * operator that names what cannot be reached (an engine's address), shown by {@code ./kurir admin
   * device qr|link-code} and the Admin API instead of a pairing code.
   */
  default String downReason() {
    return "the " + name() + " driver is not running";
  }

  /** The id of the group named {@code name} that {@code device} is in, if any. */
  Optional<String> groupIdByName(DeviceRef device, String name);

  /** The members of group {@code groupId}, as {@code device} sees them. */
  GroupMembers groupMembers(DeviceRef device, String groupId);

  @Override
  void close();
}
