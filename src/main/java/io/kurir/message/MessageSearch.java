package io.kurir.message;

import io.kurir.store.Database;
import io.kurir.store.Dialect;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What operators look messages up by (the web console): device, number, id, state, a piece of the
 * text and a time range; and how many messages reached each state in a period.
 *
 * <p>Thread-safe.
 */
public final class MessageSearch {
  /** At most this many messages answer one search, newest first. */
  public static final int MAX_ROWS = 200;

  /**
   * What to look for; an empty field matches every message.
   *
   * @param deviceIds the devices to look in (empty: every device)
   * @param recipient an E.164 number or group id, exactly
   * @param text a piece of the text, in any case
   * @param from the earliest creation time, inclusive
   * @param to the latest creation time, exclusive
   */
  public record Criteria(
      Set<Long> deviceIds,
      Optional<Long> id,
      Optional<String> recipient,
      Optional<MessageState> state,
      Optional<String> text,
      Optional<Instant> from,
      Optional<Instant> to,
      int limit) {

    /** Every message (the newest {@link #MAX_ROWS}); narrow it with the {@code with…} methods. */
    public static Criteria any() {
      Optional<Instant> none = Optional.empty();
      return new Criteria(
          Set.of(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          none,
          none,
          MAX_ROWS);
    }

    public Criteria withDevices(Set<Long> ids) {
      return new Criteria(ids, id, recipient, state, text, from, to, limit);
    }

    public Criteria withId(Optional<Long> messageId) {
      return new Criteria(deviceIds, messageId, recipient, state, text, from, to, limit);
    }

    public Criteria withRecipient(Optional<String> address) {
      return new Criteria(deviceIds, id, address, state, text, from, to, limit);
    }

    public Criteria withState(Optional<MessageState> s) {
      return new Criteria(deviceIds, id, recipient, s, text, from, to, limit);
    }

    public Criteria withText(Optional<String> piece) {
      return new Criteria(deviceIds, id, recipient, state, piece, from, to, limit);
    }

    /** Created at {@code start} or later and before {@code end}. */
    public Criteria withPeriod(Optional<Instant> start, Optional<Instant> end) {
      return new Criteria(deviceIds, id, recipient, state, text, start, end, limit);
    }

    public Criteria withLimit(int rows) {
      return new Criteria(deviceIds, id, recipient, state, text, from, to, rows);
    }
  }

  private final MessageSearchStore store;

  public MessageSearch(Database db) {
    this.store = new MessageSearchStore(db);
  }

  /**
   * The messages that match, newest first, at most {@code criteria.limit()} ({@link #MAX_ROWS}).
   *
   * @throws io.kurir.store.SearchTooLong when the text is longer than {@link
   *     Dialect#MAX_SEARCH_CHARS}
   */
  public List<Message> find(Criteria c) {
    return store.find(c, Math.min(Math.max(c.limit(), 1), MAX_ROWS));
  }

  /** How many messages created since {@code since} are in each state now, by state name. */
  public Map<String, Long> countByStateSince(Instant since) {
    return store.countByStateSince(since);
  }

  /**
   * How many messages each of {@code deviceIds} accepted in each of the {@code hours} hours from
   * {@code from}, by device id (devices that accepted none are left out): the dashboard's traffic
   * chart. Each device is a range of the {@code (device_id, created_at)} index: a busy day costs
   * that day's index entries, never a scan of the table.
   */
  public Map<Long, long[]> acceptedPerHour(List<Long> deviceIds, Instant from, int hours) {
    if (hours < 1 || hours > 24 * 31) {
      throw new IllegalArgumentException("1 hour to a month of hours");
    }
    return deviceIds.isEmpty() ? Map.of() : store.acceptedPerHour(deviceIds, from, hours);
  }

  /**
   * A message a device received, as stored when it arrived.
   *
   * @param groupId the group it was written in, if it was
   * @param mediaType the MIME type of its image or file, if it carried one
   * @param keyword the auto-reply keyword it matched, if any
   */
  public record Received(
      long id,
      long deviceId,
      String sender,
      String body,
      Instant receivedAt,
      Optional<String> groupId,
      Optional<String> mediaType,
      Optional<String> keyword) {}

  /** The newest messages {@code deviceId} received, newest first, at most {@code limit}. */
  public List<Received> received(long deviceId, int limit) {
    return store.received(deviceId, Math.min(Math.max(limit, 1), MAX_ROWS));
  }
}
