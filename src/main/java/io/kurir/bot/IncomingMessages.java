package io.kurir.bot;

import io.kurir.contact.ContactIdentities;
import io.kurir.contactbook.ContactBook;
import io.kurir.driver.ContactId;
import io.kurir.driver.IncomingMessage;
import io.kurir.message.Messages;
import io.kurir.message.Messages.GuardedSend;
import io.kurir.message.Recipient;
import io.kurir.message.SendRefused;
import io.kurir.message.SendRequest;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.store.Transaction;
import io.kurir.tenant.Device;
import io.kurir.tenant.TenantException;
import io.kurir.tenant.Tenants;
import io.kurir.webhook.MessageWebhooks;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens to a message a device receives: it is stored, matched against the license's keyword
 * rules, answered with the matching rule's reply, and pushed to the device's incoming webhook with
 * the keyword it matched ({@code default} when none). The message, its reply and its webhook event
 * are committed in one transaction: none exists without the others.
 *
 * <p>A device whose license expired or was switched off still receives (and its webhook still gets
 * what arrives) but sends no auto-replies. So that two auto-replying numbers cannot talk to each
 * other forever, one sender gets at most {@link #REPLIES_PER_MINUTE} auto-replies a minute from a
 * device.
 *
 * <p>Thread-safe.
 */
public final class IncomingMessages {
  private static final Logger log = LoggerFactory.getLogger(IncomingMessages.class);

  static final int REPLIES_PER_MINUTE = 10;
  private static final String NO_KEYWORD = "default";

  private final Database db;
  private final InboundMessageStore inbound;
  private final IdGenerator ids;
  private final Clock clock;
  private final Tenants tenants;
  private final Bots bots;
  private final Messages messages;
  private final MessageWebhooks webhooks;
  private final ContactIdentities contacts;
  private final ContactBook contactBook;
  private final boolean answerInGroups;
  private final Map<String, Deque<Instant>> recentReplies = new ConcurrentHashMap<>();

  public IncomingMessages(
      Database db,
      IdGenerator ids,
      Clock clock,
      Tenants tenants,
      Bots bots,
      Messages messages,
      MessageWebhooks webhooks,
      ContactIdentities contacts,
      ContactBook contactBook,
      boolean answerInGroups) {
    this.db = db;
    this.inbound = new InboundMessageStore(db);
    this.ids = ids;
    this.clock = clock;
    this.tenants = tenants;
    this.bots = bots;
    this.messages = messages;
    this.webhooks = webhooks;
    this.contacts = contacts;
    this.contactBook = contactBook;
    this.answerInGroups = answerInGroups;
    // One id space with outgoing messages: never an id an incoming message holds already.
    ids.continueAfter(inbound.maxId());
  }

  /**
   * A message arrived at a device. Returns once it is stored; a redelivery of one stored before
   * (the same network id) is dropped with its auto-reply and its webhook.
   */
  public void received(IncomingMessage delivered) {
    long deviceId = delivered.deviceId();
    if (delivered.networkId().isPresent() && isKnown(deviceId, delivered.networkId().get())) {
      try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
        log.info("device {}: incoming {} again; dropped", deviceId, delivered.networkId().get());
      }
      return;
    }
    IncomingMessage in = identified(delivered);
    Optional<Device> sending = usable(deviceId);
    Optional<BotRule> matched = bots.match(tenants.device(deviceId).licenseId(), in.text());
    String keyword = matched.map(BotRule::keyword).orElse(NO_KEYWORD);
    // The keyword is reported whether or not a reply goes: an expired license, a sender who had
    // enough replies this minute, or a group chat (unless bots.answer-in-groups) gets none.
    boolean mayAnswerHere = in.groupId().isEmpty() || answerInGroups;
    Optional<BotRule> rule =
        sending.isPresent() && mayAnswerHere
            ? matched.filter(r -> mayReply(deviceId, in.senderAddress()))
            : Optional.empty();
    // In a group the reply goes into the group, where the message was written; a sender known only
    // by a network id is answered at that id (the phone when known was filled in above).
    Recipient replyTo =
        in.groupId()
            .map(group -> new Recipient(group, true))
            .orElse(Recipient.number(in.senderAddress()));
    long inboundId = ids.next();
    boolean[] webhook = {false};
    if (rule.isPresent()) {
      SendRequest reply =
          new SendRequest(
              List.of(replyTo), "text", rule.get().response(), "bot", false, false, Duration.ZERO);
      try {
        messages.acceptGuarded(
            List.of(
                new GuardedSend(
                    sending.get(),
                    reply,
                    (tx, replyId) -> {
                      Stored stored = store(tx, inboundId, in, keyword, replyId);
                      webhook[0] = stored.webhook();
                      return stored.isNew(); // a redelivery stores no second reply
                    })));
      } catch (SendRefused e) {
        // Stopping: the message is still stored, without its reply.
        try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
          log.info("device {}: no auto-reply while stopping", deviceId);
        }
        webhook[0] = db.writes().writeIn(tx -> store(tx, inboundId, in, keyword, null)).webhook();
      }
    } else {
      webhook[0] = db.writes().writeIn(tx -> store(tx, inboundId, in, keyword, null)).webhook();
    }
    if (webhook[0]) {
      webhooks.committed();
    }
  }

  /**
   * The message with what the device knows of its sender: a network id given beside the phone is
   * learned (and fills in older rows); one given alone is remembered, so that replies to it are
   * accepted, and takes the phone learned for it before, if any.
   */
  private IncomingMessage identified(IncomingMessage in) {
    if (in.senderId().isEmpty()) {
      return in;
    }
    ContactId id = in.senderId().get();
    if (!in.senderE164().isEmpty()) {
      contacts.learn(in.deviceId(), in.senderE164(), id);
      return in;
    }
    Optional<String> phone = contacts.phoneOf(in.deviceId(), id);
    if (phone.isPresent()) {
      return in.withSenderPhone(phone.get());
    }
    contacts.heardFrom(in.deviceId(), id);
    return in;
  }

  private boolean isKnown(long deviceId, String networkId) {
    return inbound.isKnown(deviceId, networkId);
  }

  /** The device if it may send now (its auto-replies included). */
  private Optional<Device> usable(long deviceId) {
    try {
      return Optional.of(tenants.usableDevice(deviceId));
    } catch (TenantException e) {
      return Optional.empty();
    }
  }

  /** What storing an incoming message did: stored anew, and whether a webhook event was added. */
  private record Stored(boolean isNew, boolean webhook) {}

  private Stored store(Transaction tx, long id, IncomingMessage in, String keyword, Long replyId) {
    boolean inserted =
        InboundMessageStore.insert(
            tx, id, in, NO_KEYWORD.equals(keyword) ? null : keyword, replyId);
    if (!inserted) {
      return new Stored(false, false); // delivered twice by the network: stored the first time
    }
    if (in.groupId().isEmpty()) {
      // A reply of STOP (an opt-out word) unsubscribes its sender from the license's campaigns,
      // in the commit that stores it: a campaign's next send to it is skipped.
      contactBook.optOutIfAsked(
          tx, tenants.device(in.deviceId()).licenseId(), in.senderE164(), in.text(), in.at());
    }
    // A sender with no known phone is named by the network id, as the network gave it, and its
    // kind: what a receiver replies to (a send to an id the device knows is accepted).
    Optional<ContactId> hidden = in.senderE164().isEmpty() ? in.senderId() : Optional.empty();
    return new Stored(
        true,
        webhooks.addIncoming(
            tx,
            in.deviceId(),
            id,
            in.senderAddress(),
            hidden.map(ContactId::address).or(in::contactName),
            hidden.map(sender -> sender.kind().wireName()),
            in.text(),
            in.asContent(),
            in.media().map(IncomingMessage.Media::mimeType),
            keyword,
            in.groupId(),
            in.at()));
  }

  private static boolean isQuiet(Deque<Instant> replies, Instant now) {
    synchronized (replies) {
      return replies.isEmpty() || replies.peekLast().isBefore(now.minus(Duration.ofMinutes(1)));
    }
  }

  private boolean mayReply(long deviceId, String sender) {
    Instant now = clock.instant();
    if (recentReplies.size() > 10_000) { // forget senders not answered for a minute
      recentReplies.values().removeIf(d -> isQuiet(d, now));
    }
    Deque<Instant> recent =
        recentReplies.computeIfAbsent(deviceId + "/" + sender, k -> new ArrayDeque<>());
    synchronized (recent) {
      while (!recent.isEmpty() && recent.peekFirst().isBefore(now.minus(Duration.ofMinutes(1)))) {
        recent.removeFirst();
      }
      if (recent.size() >= REPLIES_PER_MINUTE) {
        try (var ids = io.kurir.logging.LogIds.device(deviceId)) {
          log.warn(
              "device {}: no auto-reply to {}: {} in the last minute already",
              deviceId,
              sender,
              REPLIES_PER_MINUTE);
        }
        return false;
      }
      recent.addLast(now);
      return true;
    }
  }
}
