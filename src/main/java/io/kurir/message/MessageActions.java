package io.kurir.message;

import io.kurir.driver.ActionOutcome;
import io.kurir.driver.Capabilities;
import io.kurir.driver.ChatRef;
import io.kurir.driver.Driver;
import io.kurir.driver.Drivers;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.store.Transaction;
import io.kurir.tenant.Device;
import io.kurir.tenant.Tenants;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a device does to a message it sent, or to a chat, besides sending: revoke (delete for
 * everyone), edit a text, mark a chat read, show typing, where its driver declares it ({@link
 * Capabilities}). These are not queued: each is one call to the driver, and the caller is told the
 * network's answer (a message's revoke or edit is worth nothing later, and a typing mark sent after
 * the queue's wait would show at the wrong time). A revoke or an edit the network confirmed is
 * recorded in the message's history ({@link #actions}) and on the event log ({@link #REVOKED},
 * {@link #EDITED}) in one transaction. A message still queued is not revoked but cancelled: it
 * never goes out ({@link Removal#CANCELLED}).
 *
 * <p>Thread-safe.
 */
public final class MessageActions {
  /** The event of a message its device deleted for everyone. */
  public static final String REVOKED = "message.revoked";

  /** The event of a text its device edited. */
  public static final String EDITED = "message.edited";

  /** Where the events of revokes and edits go: the event log, in the caller's transaction. */
  @FunctionalInterface
  public interface EventLog {
    void append(Transaction tx, long deviceId, String type, Map<String, Object> data, Instant at);
  }

  /** One thing done to a sent message: {@code revoked}, or {@code edited} to {@code text}. */
  public record Action(String action, Optional<String> text, Instant at) {}

  /** What {@link #revoke} did. */
  public enum Removal {
    /** The network deleted the sent message for everyone. */
    REVOKED,
    /** The message had not gone out: it was taken from the queue and never will. */
    CANCELLED
  }

  /** A message a reaction is put on: its device, its chat, its network id. */
  public record Target(long deviceId, ChatRef chat, String networkId) {}

  private final MessageActionStore store;
  private final MessageHistories histories;
  private final Messages messages;
  private final Tenants tenants;
  private final Drivers drivers;
  private final IdGenerator ids;
  private final Clock clock;
  private final EventLog events;
  private final Runnable eventsCommitted;

  /**
   * @param eventsCommitted told after a commit that appended to {@code events}
   */
  public MessageActions(
      Database db,
      Messages messages,
      Tenants tenants,
      Drivers drivers,
      IdGenerator ids,
      Clock clock,
      EventLog events,
      Runnable eventsCommitted) {
    this.store = new MessageActionStore(db);
    this.histories = new MessageHistories(db);
    this.messages = messages;
    this.tenants = tenants;
    this.drivers = drivers;
    this.ids = ids;
    this.clock = clock;
    this.events = events;
    this.eventsCommitted = eventsCommitted;
  }

  /** What was done to message {@code messageId} after it went out, oldest first. */
  public List<Action> actions(long messageId) {
    return store.actions(messageId);
  }

  /**
   * Deletes for everyone message {@code id}, sent by one of {@code deviceIds}; a message still
   * queued is cancelled instead.
   *
   * @throws ActionRefused not found, received, not sent (being sent, failed), revoked already, a
   *     driver without revoke, the network's refusal, the device unavailable
   */
  public Removal revoke(long id, Set<Long> deviceIds) {
    MessageHistories.Outgoing m = sent(id, deviceIds);
    if (m.message().state() == MessageState.PENDING
        && messages.cancelQueued(
            m.message().deviceId(), id, FailureReason.CANCELLED, (tx, messageId) -> true)) {
      return Removal.CANCELLED;
    }
    Device device = tenants.usableDevice(m.message().deviceId());
    Driver driver = declaring(device, Capabilities::revoke, "revoke messages");
    String networkId = onNetwork(m);
    act(driver.revoke(device.ref(), chatOf(m.message()), networkId));
    record(m, "revoked", Optional.empty(), REVOKED);
    return Removal.REVOKED;
  }

  /**
   * Replaces the text of the text message {@code id}, sent by one of {@code deviceIds}, with {@code
   * text} (already checked not blank).
   *
   * @throws ActionRefused as {@link #revoke}, and a message that is not a text
   * @throws SendRefused a text longer than {@link Messages#MAX_TEXT_LENGTH}
   */
  public void edit(long id, Set<Long> deviceIds, String text) {
    if (text.length() > Messages.MAX_TEXT_LENGTH) {
      throw new SendRefused(
          SendRefused.Reason.TEXT_TOO_LONG,
          "the text is longer than " + Messages.MAX_TEXT_LENGTH + " characters");
    }
    MessageHistories.Outgoing m = sent(id, deviceIds);
    Device device = tenants.usableDevice(m.message().deviceId());
    Driver driver = declaring(device, Capabilities::edits, "edit messages");
    if (!m.message().kind().equals("text")) {
      throw new ActionRefused(
          ActionRefused.Reason.MESSAGE_NOT_TEXT,
          "message " + id + " is a " + m.message().kind() + ": only a text can be edited");
    }
    String networkId = onNetwork(m);
    act(driver.edit(device.ref(), chatOf(m.message()), networkId, text));
    record(m, "edited", Optional.of(text), EDITED);
  }

  /**
   * Marks {@code chat}'s messages read on {@code device}: up to its received message {@code
   * messageId} (Kurir's id) when given, else up to the latest it received there.
   *
   * @throws ActionRefused a message not received in that chat, a driver without read marks, the
   *     network's refusal, the device unavailable
   */
  public void markRead(Device device, ChatRef chat, Optional<Long> messageId) {
    Driver driver = declaring(device, Capabilities::markRead, "mark chats read");
    Optional<String> upTo;
    if (messageId.isPresent()) {
      MessageActionStore.Received r =
          store
              .received(device.id(), messageId.get())
              .filter(x -> inChat(x, chat))
              .orElseThrow(
                  () ->
                      new ActionRefused(
                          ActionRefused.Reason.MESSAGE_NOT_FOUND,
                          "no message "
                              + messageId.get()
                              + " received in chat "
                              + chat.id()
                              + " by device "
                              + device.id()));
      upTo = r.networkId();
    } else {
      upTo = store.latestReceived(device.id(), chat.id(), chat.group());
    }
    act(driver.markRead(device.ref(), chat, upTo));
  }

  /**
   * Marks read the chat of the message {@code messageId} that {@code device} received (named by
   * Kurir's id or by the network's), up to it; with {@code typing}, shows the device typing there
   * too: the Cloud API's read mark and typing indicator, as its door takes them.
   *
   * @throws ActionRefused as {@link #markRead} and {@link #typing}; a message the device did not
   *     receive
   */
  public void markReadByMessage(Device device, String messageId, boolean typing) {
    Driver driver = declaring(device, Capabilities::markRead, "mark chats read");
    if (typing) {
      declaring(device, Capabilities::presence, "show typing");
    }
    MessageActionStore.Received r =
        (messageId.matches("\\d{1,18}")
                ? store.received(device.id(), Long.parseLong(messageId))
                : Optional.<MessageActionStore.Received>empty())
            .or(() -> store.receivedByNetworkId(device.id(), messageId))
            .filter(x -> x.networkId().isPresent())
            .orElseThrow(
                () ->
                    new ActionRefused(
                        ActionRefused.Reason.MESSAGE_NOT_FOUND,
                        "no message " + messageId + " received by this phone number"));
    ChatRef chat =
        r.group().map(g -> new ChatRef(g, true)).orElseGet(() -> new ChatRef(r.sender(), false));
    act(driver.markRead(device.ref(), chat, r.networkId()));
    if (typing) {
      act(driver.typing(device.ref(), chat, true, r.networkId()));
    }
  }

  /**
   * Shows {@code device} typing in {@code chat}, or stops showing it.
   *
   * @throws ActionRefused a driver without presence, the network's refusal, the device unavailable
   */
  public void typing(Device device, ChatRef chat, boolean typing) {
    Driver driver = declaring(device, Capabilities::presence, "show typing");
    act(
        driver.typing(
            device.ref(),
            chat,
            typing,
            store.latestReceived(device.id(), chat.id(), chat.group())));
  }

  /**
   * Where a reaction to message {@code id} goes: the message, sent or received by one of {@code
   * deviceIds}, its device and its chat, and the network's id of it.
   *
   * @throws ActionRefused no such message, or one the network has no id of (not sent yet)
   */
  public Target reactionTarget(long id, Set<Long> deviceIds) {
    Optional<MessageHistories.Outgoing> out = histories.outgoing(id, deviceIds);
    if (out.isPresent()) {
      Message m = out.get().message();
      return new Target(m.deviceId(), chatOf(m), onNetwork(out.get()));
    }
    MessageHistories.Incoming in =
        histories.incoming(id, deviceIds).orElseThrow(() -> notFound(id));
    ChatRef chat =
        in.groupId().map(g -> new ChatRef(g, true)).orElseGet(() -> new ChatRef(in.from(), false));
    String networkId =
        in.networkId()
            .orElseThrow(
                () ->
                    new ActionRefused(
                        ActionRefused.Reason.MESSAGE_NOT_SENT,
                        "message " + id + " came without the network's id: it cannot be named"));
    return new Target(in.deviceId(), chat, networkId);
  }

  /** Message {@code id} as sent by one of {@code deviceIds}: refused when received or unknown. */
  private MessageHistories.Outgoing sent(long id, Set<Long> deviceIds) {
    Optional<MessageHistories.Outgoing> out = histories.outgoing(id, deviceIds);
    if (out.isPresent()) {
      return out.get();
    }
    if (histories.incoming(id, deviceIds).isPresent()) {
      throw new ActionRefused(
          ActionRefused.Reason.MESSAGE_RECEIVED,
          "message " + id + " was received: only its sender can revoke or edit it");
    }
    throw notFound(id);
  }

  private static ActionRefused notFound(long id) {
    return new ActionRefused(ActionRefused.Reason.MESSAGE_NOT_FOUND, "no message " + id);
  }

  /** The network's id of a sent message, refused when it has not reached the network. */
  private String onNetwork(MessageHistories.Outgoing m) {
    long id = m.message().id();
    MessageState state = m.message().state();
    if (!state.wentOut()) {
      throw new ActionRefused(
          ActionRefused.Reason.MESSAGE_NOT_SENT,
          "message "
              + id
              + " is "
              + state.wireName()
              + (state == MessageState.FAILED
                  ? ": it never reached the network"
                  : ": wait until it is sent"));
    }
    if (store.actions(id).stream().anyMatch(a -> a.action().equals("revoked"))) {
      throw new ActionRefused(
          ActionRefused.Reason.MESSAGE_REVOKED, "message " + id + " was revoked already");
    }
    return m.networkId()
        .orElseThrow(
            () ->
                new ActionRefused(
                    ActionRefused.Reason.MESSAGE_NOT_SENT,
                    "the network gave no id for message " + id + ": it cannot be named"));
  }

  /** The device's driver, refused when it does not declare {@code what}. */
  private Driver declaring(
      Device device, java.util.function.Predicate<Capabilities> can, String what) {
    Driver driver;
    try {
      driver = drivers.of(device.ref());
    } catch (Drivers.NotLoaded e) {
      throw new SendRefused(SendRefused.Reason.DRIVER_NOT_LOADED, e.getMessage());
    }
    if (!can.test(driver.capabilities())) {
      throw new ActionRefused(
          ActionRefused.Reason.CAPABILITY_NOT_SUPPORTED,
          "the " + driver.name() + " driver cannot " + what + " (device " + device.id() + ")");
    }
    return driver;
  }

  private static void act(ActionOutcome outcome) {
    switch (outcome) {
      case ActionOutcome.Done d -> {}
      case ActionOutcome.Refused r ->
          throw new ActionRefused(
              ActionRefused.Reason.NETWORK_REFUSED, "the network refused: " + r.reason());
      case ActionOutcome.Unavailable u ->
          throw new ActionRefused(
              ActionRefused.Reason.DEVICE_UNAVAILABLE,
              "the device cannot do it now: " + u.reason());
    }
  }

  private void record(
      MessageHistories.Outgoing m, String action, Optional<String> text, String eventType) {
    Message message = m.message();
    Instant at = clock.instant();
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("message_id", Long.toString(message.id()));
    data.put("to", message.toGroup() ? message.recipient() : digits(message.recipient()));
    data.put("to_group", message.toGroup());
    data.put("network_id", m.networkId().orElse(null));
    text.ifPresent(t -> data.put("text", t));
    store.record(
        ids.next(),
        message.id(),
        action,
        text,
        at,
        tx -> events.append(tx, message.deviceId(), eventType, data, at));
    eventsCommitted.run();
  }

  /** A number as the event log writes it (the {@code message.status} events' {@code to}). */
  private static String digits(String e164) {
    return e164.startsWith("+") ? e164.substring(1) : e164;
  }

  private static ChatRef chatOf(Message m) {
    return new ChatRef(m.recipient(), m.toGroup());
  }

  /** Whether a received message came in {@code chat}. */
  private static boolean inChat(MessageActionStore.Received r, ChatRef chat) {
    return chat.group()
        ? r.group().filter(chat.id()::equals).isPresent()
        : r.group().isEmpty() && r.sender().equals(chat.id());
  }
}
