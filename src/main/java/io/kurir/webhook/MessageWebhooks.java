package io.kurir.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.content.CloudMessageJson;
import io.kurir.content.Content;
import io.kurir.content.MessageContent;
import io.kurir.message.MessageState;
import io.kurir.message.StatusHook;
import io.kurir.store.Database;
import io.kurir.store.IdGenerator;
import io.kurir.store.Transaction;
import io.kurir.tenant.DeviceStore;
import io.kurir.time.Timestamps;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntSupplier;

/**
 * The message webhooks of a device (Account API {@code /v2.0/webhook}): the incoming URL, which
 * gets every message the device receives, and the outgoing URL, which gets every message the device
 * sends and each of its status changes. Events are stored in the outbox in the transaction of what
 * they report; payloads are in {@code docs/webhooks.md}. The same transactions store the event
 * log's {@code message.received} and {@code message.status} events ({@link Events}), whether or not
 * the device has a URL.
 *
 * <p>Thread-safe.
 */
public final class MessageWebhooks extends StatusHook {

  /** How often the status hook looks whether any device has an outgoing URL at all. */
  private static final Duration ANY_OUTGOING_RECHECK = Duration.ofSeconds(5);

  public enum Direction {
    INCOMING(DeviceStore.WebhookUrl.INCOMING, "message.incoming"),
    OUTGOING(DeviceStore.WebhookUrl.OUTGOING, "message.status");

    private final DeviceStore.WebhookUrl column;
    private final String event;

    Direction(DeviceStore.WebhookUrl column, String event) {
      this.column = column;
      this.event = event;
    }
  }

  /** A device's two URLs. */
  public record Urls(Optional<String> incoming, Optional<String> outgoing) {}

  private final Database db;
  private final DeviceStore devices;
  private final IdGenerator ids;
  private final Timestamps timestamps;
  private final java.time.Clock clock;
  private final Runnable outboxWake;
  private final Events events;
  private final String ipServer;
  private final IntSupplier port;
  // Most installations have no outgoing URL: then a status change costs no extra query.
  private volatile boolean anyOutgoing = true;
  private volatile long anyOutgoingCheckedNanos;

  /**
   * @param ipServer and {@code port}: what incoming-message events give as {@code ip_server} and
   *     {@code port}, the address this gateway serves on
   */
  public MessageWebhooks(
      Database db,
      IdGenerator ids,
      java.time.Clock clock,
      Timestamps timestamps,
      Runnable outboxWake,
      Events events,
      String ipServer,
      IntSupplier port) {
    this.db = db;
    this.devices = new DeviceStore(db);
    this.ids = ids;
    this.timestamps = timestamps;
    this.clock = clock;
    this.outboxWake = outboxWake;
    this.events = events;
    this.ipServer = ipServer;
    this.port = port;
    this.anyOutgoingCheckedNanos = System.nanoTime() - ANY_OUTGOING_RECHECK.toNanos() - 1;
  }

  public Urls urls(long deviceId) {
    List<Optional<String>> urls = devices.messageWebhookUrls(deviceId);
    return new Urls(urls.get(0), urls.get(1));
  }

  /**
   * Registers a URL, or with an empty one removes it. Events still waiting for the old URL go to
   * the new one, or, when it is removed, end as failed.
   */
  public void set(long deviceId, Direction direction, Optional<String> url) {
    db.writes()
        .writeIn(
            tx -> {
              DeviceStore.setWebhookUrl(tx, deviceId, direction.column, url);
              WebhookOutbox.retarget(tx, deviceId, direction.event, url, clock.instant());
              return null;
            });
    outboxWake.run();
    if (direction == Direction.OUTGOING && url.isPresent()) {
      anyOutgoing = true;
    }
  }

  // --- incoming messages

  /**
   * Stores the event log's {@code message.received} event of incoming message {@code messageId},
   * and the incoming-message event for the device's incoming URL, if it has one; call it in the
   * transaction that stores the message. True when something was stored ({@link #committed} after
   * the commit). {@code contact_name} is the sender's name when the network sent one, else the
   * number (digits). A message written in a group adds {@code group_id} to the contract's five
   * fields (receivers that do not know it ignore it); a direct one has exactly the five. A sender
   * known only by a network id ({@code senderAddress} is then that id, not a number) comes with its
   * {@code contactType} ({@code lid}, {@code bsuid}), which adds {@code contact_type}.
   */
  public boolean addIncoming(
      Transaction tx,
      long deviceId,
      long messageId,
      String senderAddress,
      Optional<String> contactName,
      Optional<String> contactType,
      String text,
      MessageContent content,
      Optional<String> mediaType,
      String keyword,
      Optional<String> groupId,
      Instant at) {
    Map<String, Object> received = new LinkedHashMap<>();
    received.put("message_id", Long.toString(messageId));
    received.put("from", digits(senderAddress));
    contactType.ifPresent(type -> received.put("from_type", type));
    contactName.ifPresent(name -> received.put("contact_name", name));
    groupId.ifPresent(group -> received.put("group_id", group));
    received.putAll(said(messageId, text, content, mediaType));
    received.put("keyword", keyword);
    events.append(tx, deviceId, Events.MESSAGE_RECEIVED, received, at);
    Optional<String> url = DeviceStore.incomingWebhookUrl(tx, deviceId);
    if (url.isEmpty()) {
      return true;
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("contact_name", contactName.orElse(digits(senderAddress)));
    body.put("ip_server", ipServer);
    body.put("message", text);
    body.put("keyword", keyword);
    body.put("port", port.getAsInt());
    groupId.ifPresent(group -> body.put("group_id", group));
    // Only for a sender with no known phone (contact_name is then a LID or a BSUID): a phone
    // sender's event keeps exactly the contract's fields.
    contactType.ifPresent(type -> body.put("contact_type", type));
    WebhookOutbox.add(tx, ids.next(), deviceId, url.get(), "message.incoming", json(body), at);
    return true;
  }

  /**
   * What an incoming message says, in the Cloud API message object's terms: {@code type}, the
   * kind's object and {@code context.message_id} for a reply. A text is {@code {"body"}}; a media
   * kind's object names its file by the message's own id ({@code id}: {@code GET /v1/media/{id}},
   * the door's {@code GET /graph/{v}/{id}}) with its {@code mime_type} when the file came with it.
   */
  private static Map<String, Object> said(
      long messageId, String text, MessageContent content, Optional<String> mediaType) {
    Map<String, Object> out = new LinkedHashMap<>();
    String type = content.kind().wireName();
    out.put("type", type);
    if (content.content() instanceof Content.Text) {
      out.put("text", Map.of("body", text));
    } else {
      JsonNode object = CloudMessageJson.writeObject(content.content());
      if (content.kind().isMedia() && object instanceof ObjectNode media) {
        media.put("id", Long.toString(messageId));
        mediaType.ifPresent(mime -> media.put("mime_type", mime));
      }
      out.put(type, object);
    }
    content.replyTo().ifPresent(id -> out.put("context", Map.of("message_id", id)));
    return out;
  }

  // --- outgoing messages

  @Override
  public boolean moved(
      Transaction tx, long messageId, MessageState state, String reason, Instant at)
      throws SQLException {
    boolean logged = appendStatus(tx, messageId, state, reason, at);
    if (!anyOutgoing(tx)) {
      return logged;
    }
    Optional<WebhookStore.StatusSource> found = WebhookStore.statusSource(tx, messageId);
    if (found.isEmpty()) {
      return logged;
    }
    WebhookStore.StatusSource m = found.get();
    long eventId = ids.next();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("event", "message.status");
    body.put("eventId", Long.toString(eventId));
    body.put("messageId", Long.toString(messageId));
    body.put("device", Long.toString(m.deviceId()));
    body.put("number", digits(m.number()));
    boolean toGroup = "group".equals(m.recipientType());
    body.put("to", toGroup ? m.recipient() : digits(m.recipient()));
    body.put("toGroup", toGroup);
    body.put("type", m.kind());
    body.put("message", m.body());
    body.put("api", m.api());
    body.put("status", state.wireName());
    body.put("reason", reason);
    body.put("time", timestamps.reply(at));
    WebhookOutbox.addForMessage(
        tx, eventId, m.deviceId(), messageId, m.outgoingUrl(), "message.status", json(body), at);
    return true;
  }

  /** The event log's {@code message.status} event; false when there is no such message. */
  private boolean appendStatus(
      Transaction tx, long messageId, MessageState state, String reason, Instant at) {
    return events.appendMessageStatus(
        tx,
        messageId,
        m -> {
          boolean toGroup = "group".equals(m.recipientType());
          Map<String, Object> data = new LinkedHashMap<>();
          data.put("message_id", Long.toString(messageId));
          data.put("to", toGroup ? m.recipient() : digits(m.recipient()));
          data.put("to_group", toGroup);
          data.put("status", state.wireName());
          data.put("reason", reason);
          data.put("api", m.api());
          return data;
        },
        at);
  }

  /** Always: every status change is an event of the log, whatever URLs devices have. */
  @Override
  public boolean mayWant(Transaction tx) {
    return true;
  }

  private boolean anyOutgoing(Transaction tx) {
    long now = System.nanoTime();
    if (now - anyOutgoingCheckedNanos > ANY_OUTGOING_RECHECK.toNanos()) {
      anyOutgoing = DeviceStore.anyOutgoingWebhookUrl(tx);
      anyOutgoingCheckedNanos = now;
    }
    return anyOutgoing;
  }

  @Override
  public void committed() {
    outboxWake.run();
    events.committed();
  }

  private static String digits(String e164) {
    return e164.startsWith("+") ? e164.substring(1) : e164;
  }

  private static String json(Map<String, Object> fields) {
    return FlatJson.write(fields);
  }
}
