package io.kurir.message;

import io.kurir.content.MessageContent;
import io.kurir.store.Database;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The history of messages as Kurir's own API reads it: one message with every state it went
 * through, and pages of messages, newest first, over a set of devices. Reads only; whichever API
 * family accepted a message, it is read here by the same id.
 *
 * <p>Thread-safe.
 */
public final class MessageHistories {
  /** The most messages one page may hold. */
  public static final int MAX_PAGE = 200;

  private final MessageHistoryStore store;

  public MessageHistories(Database db) {
    this.store = new MessageHistoryStore(db);
  }

  /** A message of either direction, as a chat lists them: its id is one of one id space. */
  public sealed interface Entry permits Outgoing, Incoming {
    /** The message's id (an outgoing message's, or an incoming one's: they never collide). */
    long messageId();
  }

  /**
   * A message sent from one of the devices in {@code deviceIds}, with the network's id and its
   * states, oldest first.
   */
  public record Outgoing(Message message, Optional<String> networkId, List<MessageEvent> events)
      implements Entry {
    @Override
    public long messageId() {
      return message.id();
    }
  }

  /**
   * A message received by a device.
   *
   * @param from who wrote it: the phone when known, else the network's id of them
   * @param content what it says: its stored kind and content (since V42), else, for older rows, a
   *     text or the image or document it kept
   * @param senderName the name the network gave with it, if any
   * @param mediaKept whether its file is still kept (not yet released by the retention sweep)
   */
  public record Incoming(
      long id,
      long deviceId,
      String from,
      String body,
      Instant receivedAt,
      Optional<String> networkId,
      Optional<String> groupId,
      Optional<String> mediaType,
      MessageContent content,
      Optional<String> senderName,
      boolean mediaKept)
      implements Entry {
    @Override
    public long messageId() {
      return id;
    }
  }

  /**
   * What a page lists: messages of {@code deviceIds} in {@code state} (any when empty), created at
   * or after {@code from} and before {@code to}, with an id below {@code before} (the cursor).
   */
  public record Filter(
      Set<Long> deviceIds,
      Optional<MessageState> state,
      Optional<Instant> from,
      Optional<Instant> to,
      Optional<Long> before) {
    public Filter {
      deviceIds = Set.copyOf(deviceIds);
    }
  }

  /** The SQL of these reads, which {@link Chats} shares. */
  MessageHistoryStore store() {
    return store;
  }

  /** Message {@code id} if one of {@code deviceIds} sent it. */
  public Optional<Outgoing> outgoing(long id, Set<Long> deviceIds) {
    if (deviceIds.isEmpty()) {
      return Optional.empty();
    }
    return store.outgoing(id, deviceIds);
  }

  /** Message {@code id} if one of {@code deviceIds} received it. */
  public Optional<Incoming> incoming(long id, Set<Long> deviceIds) {
    if (deviceIds.isEmpty()) {
      return Optional.empty();
    }
    return store.incoming(id, deviceIds);
  }

  /**
   * Up to {@code limit} (at most {@link #MAX_PAGE}) sent messages matching {@code filter}, newest
   * (highest id) first, each with its states.
   */
  public List<Outgoing> outgoing(Filter filter, int limit) {
    if (filter.deviceIds().isEmpty()) {
      return List.of();
    }
    return store.outgoing(filter, Math.min(Math.max(limit, 1), MAX_PAGE));
  }

  /**
   * Up to {@code limit} received messages matching {@code filter} (its state must be empty: a
   * received message has none), newest first.
   */
  public List<Incoming> incoming(Filter filter, int limit) {
    if (filter.deviceIds().isEmpty()) {
      return List.of();
    }
    return store.incoming(filter, Math.min(Math.max(limit, 1), MAX_PAGE));
  }
}
